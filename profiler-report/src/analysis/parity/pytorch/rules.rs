//! The built-in op rules (common aten ops and optimizer ranges onto brick
//! names), the [`Rule`] every mapping entry becomes, and the `*` glob the
//! rules and ignore lists use.

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

/// One rule: every pattern it gives must match (`*` globs); the brick the
/// event then counts as.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Rule {
    /// Event name.
    pub(crate) op: Option<String>,
    /// Input shapes as `[4, 64, 64] x [192, 64]`.
    pub(crate) shapes: Option<String>,
    /// Module path as `TinyTransformer[0].Block[1].Attention[0].Linear[0]`.
    pub(crate) module: Option<String>,
    pub(crate) brick: String,
}

impl Rule {
    pub(crate) fn name(pattern: String, brick: String) -> Self {
        Self {
            op: Some(pattern),
            shapes: None,
            module: None,
            brick,
        }
    }

    /// Whether the rule matches an op with these facts (a pattern asks for
    /// its fact: an op without shapes never matches a `shapes` rule).
    pub(crate) fn matches(&self, name: &str, shapes: Option<&str>, module: Option<&str>) -> bool {
        let fits = |pattern: &Option<String>, value: Option<&str>| match (pattern, value) {
            (None, _) => true,
            (Some(p), Some(v)) => glob(p, v),
            (Some(_), None) => false,
        };
        (self.op.is_some() || self.shapes.is_some())
            && fits(&self.op, Some(name))
            && fits(&self.shapes, shapes)
            && fits(&self.module, module)
    }
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
