//! Mapping files: rules, shapes, modules and their errors.

use super::*;

#[test]
fn defaults_cover_common_aten_ops_and_annotations_map_to_themselves() {
    let m = OpMapping::defaults();
    assert_eq!(m.op("aten::layer_norm"), Some("LayerNorm"));
    assert_eq!(m.op("aten::rms_norm"), Some("RmsNorm"));
    assert_eq!(m.op("aten::softmax"), Some("AttentionSoftmax"));
    assert_eq!(m.op("aten::embedding"), Some("Embedding"));
    assert_eq!(m.op("aten::gelu"), Some("Activation"));
    assert_eq!(m.op("aten::addmm"), Some("MatMul"));
    assert_eq!(
        m.op("aten::scaled_dot_product_attention"),
        Some("Attention")
    );
    assert_eq!(m.op("Optimizer.step#Adam.step"), Some("AdamUpdate"));
    assert_eq!(m.op("Optimizer.step#SGD.step"), Some("OptimizerStep"));
    assert_eq!(m.op("aten::add"), None);
    assert_eq!(m.annotation("RmsNorm"), Some("RmsNorm"));
    assert_eq!(m.annotation("ProfilerStep#3"), None);
    assert_eq!(m.annotation("Optimizer.zero_grad#Adam.zero_grad"), None);
    assert_eq!(m.backward_name("RmsNorm"), "RmsNormBackward");
}

#[test]
fn a_file_overrides_and_extends_the_defaults() {
    let m = OpMapping::from_toml_str(
        r#"
        annotations = false
        ignore = ["Block*"]
        tokens_per_step = 256
        runtime = "torch-cpu"
        [ops]
        "aten::addmm" = "LmHead"
        "aten::*norm*" = "Norm"
        [backward]
        RopeEmbedding = "RopeBackward"
        "#,
        "map.toml",
    )
    .unwrap();
    assert_eq!(m.op("aten::addmm"), Some("LmHead"));
    assert_eq!(m.op("aten::mm"), Some("MatMul"), "defaults kept");
    assert_eq!(
        m.op("aten::rms_norm"),
        Some("Norm"),
        "file globs before default exact names"
    );
    assert_eq!(m.annotation("MyRange"), None);
    assert_eq!(m.annotation("Block3"), None);
    assert_eq!(m.backward_name("RopeEmbedding"), "RopeBackward");
    assert_eq!(
        (m.tokens_per_step, m.runtime.as_deref()),
        (Some(256.0), Some("torch-cpu"))
    );
    let only =
        OpMapping::from_json_str(r#"{"defaults": false, "ops": {"aten::mm": "X"}}"#, "m.json")
            .unwrap();
    assert_eq!(
        (only.op("aten::mm"), only.op("aten::addmm")),
        (Some("X"), None)
    );
}

#[test]
fn rules_match_by_op_shapes_and_module_path_in_order() {
    let m = OpMapping::from_toml_str(
        r#"
        rules = [
          { module = "*.Attention[*].Linear[0]", brick = "QkvProjection" },
          { op = "aten::mm", shapes = "[*, 64] x [64, 192]", brick = "Qkv" },
          { op = "aten::add", module = "*.Block[*]", brick = "Residual" },
          { shapes = "[4, 4, 64, 16] x *", brick = "AttentionScore" },
        ]
        "#,
        "map.toml",
    )
    .unwrap();
    let path = "TinyTransformer[0].Block[3].Attention[0].Linear[0]";
    assert_eq!(m.module(path), Some("QkvProjection"));
    assert_eq!(
        m.module("TinyTransformer[0].Block[3].Attention[0].Linear[1]"),
        None
    );
    assert_eq!(
        m.op_in("aten::mm", Some("[256, 64] x [64, 192]"), None),
        Some("Qkv")
    );
    assert_eq!(
        m.op_in("aten::mm", Some("[256, 64] x [64, 64]"), None),
        Some("MatMul"),
        "other shapes fall through to the built-in rules"
    );
    assert_eq!(m.op("aten::mm"), Some("MatMul"), "no shapes: no shape rule");
    let block = Some("TinyTransformer[0].Block[1]");
    assert_eq!(m.op_in("aten::add", None, block), Some("Residual"));
    assert_eq!(m.op_in("aten::add", None, None), None);
    assert_eq!(
        m.op_in(
            "aten::matmul",
            Some("[4, 4, 64, 16] x [4, 4, 16, 64]"),
            block
        ),
        Some("AttentionScore")
    );
    let e = OpMapping::from_toml_str("rules = [{ brick = \"X\" }]", "m.toml").unwrap_err();
    assert!(e.to_string().contains("rules[0]"), "{e}");
    let e =
        OpMapping::from_toml_str("rules = [{ op = \"a\", brik = \"X\" }]", "m.toml").unwrap_err();
    assert!(e.to_string().contains("brik"), "{e}");
}

#[test]
fn bad_files_name_the_file_line_and_field() {
    let e = OpMapping::from_toml_str("[ops]\n\"aten::mm\" = 3\n", "map.toml").unwrap_err();
    let text = e.to_string();
    assert!(
        text.contains("map.toml") && text.contains("line 2"),
        "{text}"
    );
    let e = OpMapping::from_toml_str("colour = \"red\"\n", "map.toml").unwrap_err();
    assert!(e.to_string().contains("colour"), "{e}");
    let e = OpMapping::from_toml_str("tokens_per_step = -1\n", "map.toml").unwrap_err();
    assert!(
        matches!(&e, ParityError::InvalidValue { field, .. } if field == "tokens_per_step"),
        "{e}"
    );
    let e = OpMapping::from_json_str("{\"ops\": {\"aten::mm\": \"\"}}", "m.json").unwrap_err();
    assert!(e.to_string().contains("m.json"), "{e}");
    let e = OpMapping::from_json_str("{\"ops\": ", "m.json").unwrap_err();
    assert!(matches!(e, ParityError::Malformed { line: 1, .. }), "{e}");
}
