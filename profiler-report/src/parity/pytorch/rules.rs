//! The built-in op rules (common aten ops and optimizer ranges onto brick
//! names) and the `*` glob the rules and ignore lists use.

/// Built-in rules: (event name or glob, brick).
pub(crate) const DEFAULT_RULES: &[(&str, &str)] = &[
    ("aten::layer_norm", "LayerNorm"),
    ("aten::native_layer_norm", "LayerNorm"),
    ("aten::rms_norm", "RmsNorm"),
    ("aten::_fused_rms_norm", "RmsNorm"),
    ("aten::softmax", "AttentionSoftmax"),
    ("aten::_softmax", "AttentionSoftmax"),
    ("aten::_safe_softmax", "AttentionSoftmax"),
    ("aten::embedding", "Embedding"),
    ("aten::silu", "Activation"),
    ("aten::silu_", "Activation"),
    ("aten::gelu", "Activation"),
    ("aten::gelu_", "Activation"),
    ("aten::relu", "Activation"),
    ("aten::relu_", "Activation"),
    ("aten::linear", "MatMul"),
    ("aten::matmul", "MatMul"),
    ("aten::mm", "MatMul"),
    ("aten::addmm", "MatMul"),
    ("aten::bmm", "MatMul"),
    ("aten::baddbmm", "MatMul"),
    ("aten::scaled_dot_product_attention", "Attention"),
    ("aten::_scaled_dot_product_*attention*", "Attention"),
    ("aten::cross_entropy_loss", "CrossEntropy"),
    ("Optimizer.step#Adam.step", "AdamUpdate"),
    ("Optimizer.step#AdamW.step", "AdamUpdate"),
    ("aten::_fused_adam_", "AdamUpdate"),
    ("aten::_fused_adamw_", "AdamUpdate"),
    ("Optimizer.step#*", "OptimizerStep"),
];

/// Ops that only make views or read metadata: they launch no kernel and are
/// not counted as launches (or as a step's work) in a CPU-only trace.
pub(crate) const VIEW_OPS: &[&str] = &[
    "aten::view",
    "aten::reshape",
    "aten::_reshape_alias",
    "aten::_unsafe_view",
    "aten::t",
    "aten::transpose",
    "aten::permute",
    "aten::expand",
    "aten::expand_as",
    "aten::as_strided",
    "aten::slice",
    "aten::select",
    "aten::unsqueeze",
    "aten::squeeze",
    "aten::detach",
    "aten::alias",
    "aten::resolve_conj",
    "aten::resolve_neg",
    "aten::unbind",
    "aten::split",
    "aten::chunk",
    "aten::narrow",
    "aten::flatten",
    "aten::unflatten",
    "aten::empty",
    "aten::empty_like",
    "aten::empty_strided",
    "aten::new_empty",
    "aten::new_empty_strided",
    "aten::result_type",
    "aten::contiguous",
    "aten::lift_fresh",
    "aten::to",
    "aten::numpy_T",
    "aten::view_as",
    "aten::_unsafe_split",
];

/// Ranges that never map by default: step markers and gradient zeroing.
pub(crate) const DEFAULT_IGNORE: &[&str] = &["ProfilerStep#*", "Optimizer.zero_grad#*"];

/// Whether `name` matches `pattern`, where `*` matches any run of characters.
pub(crate) fn glob(pattern: &str, name: &str) -> bool {
    let mut parts = pattern.split('*');
    let Some(first) = parts.next() else {
        return name.is_empty();
    };
    let Some(mut rest) = name.strip_prefix(first) else {
        return false;
    };
    let parts: Vec<&str> = parts.collect();
    let Some((last, middle)) = parts.split_last() else {
        return rest.is_empty();
    };
    for part in middle {
        match rest.find(part) {
            Some(i) => rest = &rest[i + part.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_match_anywhere() {
        assert!(glob("aten::mm", "aten::mm"));
        assert!(!glob("aten::mm", "aten::mm_"));
        assert!(glob("ProfilerStep#*", "ProfilerStep#12"));
        assert!(glob(
            "aten::_scaled_dot_product_*attention*",
            "aten::_scaled_dot_product_flash_attention_for_cpu"
        ));
        assert!(glob("*", ""));
        assert!(glob("a*b*c", "aXbYc") && !glob("a*b*c", "aXcYb"));
        assert!(!glob("ab*ba", "aba"));
    }
}
