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

/// What a runtime call launches, by its name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Launch {
    /// One kernel: `cudaLaunchKernel`, `cudaLaunchKernelExC`,
    /// `cuLaunchKernel`, `hipLaunchKernel`, `hipModuleLaunchKernel`,
    /// cooperative launches.
    Kernel,
    /// A CUDA or HIP graph (`cudaGraphLaunch`, `cuGraphLaunch`,
    /// `hipGraphLaunch`): many kernels in one call.
    Graph,
}

/// The launch a runtime or driver call named `name` makes, if any.
pub(crate) fn launch(name: &str) -> Option<Launch> {
    if name.contains("GraphLaunch") {
        Some(Launch::Graph)
    } else if name.contains("LaunchKernel") || name.contains("LaunchCooperativeKernel") {
        Some(Launch::Kernel)
    } else {
        None
    }
}

/// CPU ops that only wrap others (compiled regions, their autograd
/// functions and graph calls): what holds the time is inside, so they are
/// not an op of their own in a draft or in the unmapped list.
pub(crate) const WRAPPER_OPS: &[&str] = &[
    "Torch-Compiled Region*",
    "CompiledFunction",
    "CompiledFunctionBackward",
    "## Call CompiledFxGraph*",
    "TorchDynamo Cache Lookup",
    "DistributedDataParallel.forward",
];

/// Whether the CPU op `name` only wraps others (see [`WRAPPER_OPS`]).
pub(crate) fn wrapper(name: &str) -> bool {
    WRAPPER_OPS.iter().any(|p| glob(p, name))
}

/// Whether a range is named like a brick (`RmsNorm`, `QkvProjection`,
/// `Mlp_2`): an ASCII capital, then letters, digits and `_`. Such a range
/// maps to itself; any other (`forward`, `## backward ##`,
/// `[param|cuda]`) is transparent unless a rule names it.
pub(crate) fn brick_like(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_uppercase())
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Ranges that never map by default: step markers and gradient zeroing.
pub(crate) const DEFAULT_IGNORE: &[&str] = &["ProfilerStep#*", "Optimizer.zero_grad#*"];

/// The literal pieces of `pattern` between its wildcards: `*` matches any
/// run of characters, `\*` is a literal `*` and `\\` a literal `\` (any
/// other `\` is itself).
fn pieces(pattern: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut chars = pattern.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if matches!(chars.peek(), Some('*' | '\\')) => {
                if let (Some(next), Some(last)) = (chars.next(), out.last_mut()) {
                    last.push(next);
                }
            }
            '*' => out.push(String::new()),
            c => {
                if let Some(last) = out.last_mut() {
                    last.push(c);
                }
            }
        }
    }
    out
}

/// Whether `pattern` holds a wildcard (an unescaped `*`).
pub(crate) fn has_wildcard(pattern: &str) -> bool {
    pieces(pattern).len() > 1
}

/// `text` as a pattern that matches only itself: `*` and `\` escaped.
pub(crate) fn literal(text: &str) -> String {
    let mut s = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, '*' | '\\') {
            s.push('\\');
        }
        s.push(c);
    }
    s
}

/// Whether `name` matches `pattern`, where `*` matches any run of
/// characters (`\*` a literal `*`).
pub(crate) fn glob(pattern: &str, name: &str) -> bool {
    let parts = pieces(pattern);
    let Some((first, parts)) = parts.split_first() else {
        return name.is_empty();
    };
    let Some(mut rest) = name.strip_prefix(first.as_str()) else {
        return false;
    };
    let Some((last, middle)) = parts.split_last() else {
        return rest.is_empty();
    };
    for part in middle {
        match rest.find(part.as_str()) {
            Some(i) => rest = &rest[i + part.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last.as_str())
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

    #[test]
    fn escaped_stars_and_backslashes_match_only_themselves() {
        for name in ["a*b", "*", "\\", "a\\*", "x\\y", "**", "a\\\\b"] {
            let p = literal(name);
            assert!(glob(&p, name), "{p} vs {name}");
            assert!(!has_wildcard(&p), "{p}");
        }
        assert!(!glob(&literal("a*b"), "aXb"));
        assert!(glob("a\\*b*", "a*bcd") && !glob("a\\*b*", "aXbcd"));
        assert!(glob("x\\y", "x\\y"), "a lone backslash is itself");
    }

    #[test]
    fn launches_wrappers_and_brick_names_are_told_by_name() {
        for k in [
            "cudaLaunchKernel",
            "cudaLaunchKernelExC",
            "cuLaunchKernel",
            "cuLaunchKernelEx",
            "hipLaunchKernel",
            "hipExtModuleLaunchKernel",
            "cudaLaunchCooperativeKernel",
        ] {
            assert_eq!(launch(k), Some(Launch::Kernel), "{k}");
        }
        assert_eq!(launch("cudaGraphLaunch"), Some(Launch::Graph));
        assert_eq!(launch("cudaMemcpyAsync"), None);
        assert!(wrapper("Torch-Compiled Region: 0/0") && !wrapper("aten::mm"));
        for b in ["RmsNorm", "QkvProjection", "Mlp_2", "A"] {
            assert!(brick_like(b), "{b}");
        }
        for r in [
            "forward",
            "## forward ##",
            "[param|cuda]",
            "nccl:all_reduce",
            "",
            "Rms Norm",
        ] {
            assert!(!brick_like(r), "{r}");
        }
    }
}
