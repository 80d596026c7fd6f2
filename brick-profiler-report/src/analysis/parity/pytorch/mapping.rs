//! [`OpMapping`]: which PyTorch trace events count as which brick. Built-in
//! rules cover common aten ops; a TOML or JSON file adds or overrides rules,
//! names backward bricks, and supplies tokens per step.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;

use super::rules::{DEFAULT_IGNORE, DEFAULT_RULES, Rule, brick_like, glob, has_wildcard};
use crate::model::parity_error::ParityError;

/// The mapping file's contents (every key optional).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct MappingFile {
    defaults: Option<bool>,
    annotations: Option<bool>,
    backward_suffix: Option<String>,
    #[serde(default)]
    ignore: Vec<String>,
    tokens_per_step: Option<f64>,
    runtime: Option<String>,
    #[serde(default)]
    ops: BTreeMap<String, String>,
    #[serde(default)]
    backward: BTreeMap<String, String>,
    #[serde(default)]
    rules: Vec<RuleEntry>,
}

/// One entry of the file's `rules` list.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RuleEntry {
    op: Option<String>,
    shapes: Option<String>,
    module: Option<String>,
    brick: String,
}

/// How PyTorch trace events map onto brick names.
///
/// A mapping file (TOML, or JSON with the same keys; every key optional):
///
/// ```toml
/// defaults = true              # keep the built-in rules (default true)
/// annotations = true           # brick-named record_function ranges map to themselves
/// backward_suffix = "Backward" # RmsNorm's backward ops -> "RmsNormBackward"
/// ignore = ["MyTrainStep"]     # ranges that never map (globs allowed)
/// tokens_per_step = 256        # when the trace carries no such metadata
/// runtime = "pytorch"          # name of this side in reports
///
/// [ops]                        # event name (exact or with * globs) -> brick
/// "aten::addmm" = "LmHead"
///
/// [backward]                   # forward brick -> its backward brick's name
/// RopeEmbedding = "RopeBackward"
/// ```
///
/// Stock models (no `record_function` ranges) map by module path and input
/// shapes with a `rules` list, tried in order before `[ops]`:
///
/// ```toml
/// rules = [
///   { module = "*.Attention[*].Linear[0]", brick = "QkvProjection" },
///   { op = "aten::mm", shapes = "[*, 64] x [64, 192]", brick = "QkvProjection" },
///   { op = "aten::add", module = "*.Block[*]", brick = "Residual" },
/// ]
/// ```
///
/// - `op`: the event name. `shapes`: its `Input Dims` (`record_shapes=True`)
///   written `[4, 64, 64] x [192, 64]`, inputs without dims (scalars,
///   `None`) left out. `module`: the module path (`with_stack=True`; PyTorch
///   writes module calls as `nn.Module: Linear_5` ranges): each element is a
///   module class and the place of its call among that class's calls inside
///   the parent call, `TinyTransformer[0].Block[2].Attention[0].Linear[1]`
///   (the profiler records classes, not attribute names).
/// - Every pattern a rule gives must match, `*` matching any text. A rule
///   with only `module` maps the module's whole call (its range and every op
///   and kernel under it); a rule with `op` or `shapes` maps single ops.
/// - `brick-profiler parity --suggest-mapping TRACE` prints a draft.
///
/// An event maps by the first rule that matches: the file's `rules` in
/// order, then its `[ops]`, then the built-in rules; within `[ops]` and the
/// built-in rules, exact names before globs, longer globs before
/// shorter. A `record_function` range named like a brick (`RmsNorm`: a
/// capital, then letters, digits, `_`) that no rule matches maps to itself
/// (unless `annotations = false` or it is ignored), so ranges named after
/// bricks need no rule; any other range (`forward`, `## backward ##`,
/// `[param|cuda]`) is transparent unless a rule names it. The outermost mapped range wins: time
/// is never counted twice.
#[derive(Debug, Clone, PartialEq)]
pub struct OpMapping {
    /// Rules in match order.
    rules: Vec<Rule>,
    ignore: Vec<String>,
    annotations: bool,
    backward_suffix: String,
    backward: BTreeMap<String, String>,
    /// Tokens per step, overriding the trace's metadata.
    pub tokens_per_step: Option<f64>,
    /// Name of the runtime in reports (default `pytorch`).
    pub runtime: Option<String>,
}

impl Default for OpMapping {
    fn default() -> Self {
        Self::defaults()
    }
}

/// A mapping file's value that is not allowed, named by its field.
fn invalid(origin: &str, field: &str, value: String, reason: &str) -> ParityError {
    ParityError::InvalidValue {
        origin: origin.to_owned(),
        field: field.to_owned(),
        value,
        reason: reason.to_owned(),
    }
}

/// Checks `tokens_per_step` (finite, above 0) and that no `[ops]` entry
/// has an empty pattern or brick.
fn check_tokens_and_ops(file: &MappingFile, origin: &str) -> Result<(), ParityError> {
    if let Some(t) = file.tokens_per_step
        && !(t.is_finite() && t > 0.0)
    {
        return Err(invalid(
            origin,
            "tokens_per_step",
            t.to_string(),
            "must be a finite number above 0",
        ));
    }
    for (pattern, brick) in &file.ops {
        if pattern.is_empty() || brick.trim().is_empty() {
            return Err(invalid(
                origin,
                "ops",
                format!("{} = {}", toml_string(pattern), toml_string(brick)),
                "patterns and brick names must not be empty (list ranges to skip under `ignore`)",
            ));
        }
    }
    Ok(())
}

/// The file's `rules[i]` as a rule, or why it is not one: it needs a brick
/// and at least one of `op`, `shapes`, `module`, none of them empty.
fn rule_of(i: usize, r: RuleEntry, origin: &str) -> Result<Rule, ParityError> {
    // An op may be named with spaces only; an empty pattern
    // matches nothing but an empty name, and is a slip.
    let blank = |p: &Option<String>| p.as_deref().is_some_and(str::is_empty);
    if r.brick.trim().is_empty()
        || (r.op.is_none() && r.shapes.is_none() && r.module.is_none())
        || blank(&r.op)
        || blank(&r.shapes)
        || blank(&r.module)
    {
        let fields: Vec<String> = [
            ("op", r.op.as_deref()),
            ("shapes", r.shapes.as_deref()),
            ("module", r.module.as_deref()),
            ("brick", Some(r.brick.as_str())),
        ]
        .into_iter()
        .filter_map(|(k, v)| v.map(|v| format!("{k} = {}", toml_string(v))))
        .collect();
        return Err(invalid(
            origin,
            &format!("rules[{i}]"),
            format!("{{ {} }}", fields.join(", ")),
            "a rule needs a brick and at least one of `op`, `shapes`, `module`, none empty",
        ));
    }
    Ok(Rule {
        op: r.op,
        shapes: r.shapes,
        module: r.module,
        brick: r.brick,
    })
}

/// Exact patterns first, then globs by length, longest first.
fn ordered(rules: impl IntoIterator<Item = (String, String)>) -> Vec<Rule> {
    let mut v: Vec<(String, String)> = rules.into_iter().collect();
    v.sort_by_key(|(p, _)| (has_wildcard(p), std::cmp::Reverse(p.len())));
    v.into_iter().map(|(p, b)| Rule::name(p, b)).collect()
}

impl OpMapping {
    /// The built-in rules only: `aten::layer_norm` -> `LayerNorm`,
    /// `rms_norm` -> `RmsNorm`, `softmax` -> `AttentionSoftmax`, `embedding`
    /// -> `Embedding`, `silu`/`gelu`/`relu` -> `Activation`,
    /// `linear`/`matmul`/`mm`/`addmm`/`bmm`/`baddbmm` -> `MatMul`,
    /// `scaled_dot_product_attention` (and its fused variants) ->
    /// `Attention`, `cross_entropy_loss` -> `CrossEntropy`, Adam/AdamW steps
    /// and fused Adam kernels -> `AdamUpdate`, other optimizer steps ->
    /// `OptimizerStep`; `ProfilerStep#*` and `Optimizer.zero_grad#*` ranges
    /// are ignored. Rename `MatMul`/`Attention` per model in a file (by
    /// `record_function` ranges, or `[ops]` rules).
    #[must_use]
    pub fn defaults() -> Self {
        Self {
            rules: ordered(
                DEFAULT_RULES
                    .iter()
                    .map(|(p, b)| ((*p).to_owned(), (*b).to_owned())),
            ),
            ignore: DEFAULT_IGNORE.iter().map(|s| (*s).to_owned()).collect(),
            annotations: true,
            backward_suffix: "Backward".to_owned(),
            backward: BTreeMap::new(),
            tokens_per_step: None,
            runtime: None,
        }
    }

    /// Reads a mapping file: `.toml` or `.json` by extension.
    ///
    /// # Errors
    /// [`ParityError::Read`], [`ParityError::UnknownMappingFormat`], or
    /// [`ParityError::Malformed`] / [`ParityError::InvalidValue`] naming the
    /// file, line and field.
    pub fn from_file(path: impl AsRef<Path>) -> Result<Self, ParityError> {
        let path = path.as_ref();
        let text = crate::input::read_to_string(path).map_err(|source| ParityError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        let origin = path.display().to_string();
        match crate::input::format_extension(path).as_deref() {
            Some("toml") => Self::from_toml_str(&text, &origin),
            Some("json") => Self::from_json_str(&text, &origin),
            _ => Err(ParityError::UnknownMappingFormat {
                path: path.to_path_buf(),
            }),
        }
    }

    /// Parses a TOML mapping; `origin` names it in errors.
    ///
    /// # Errors
    /// [`ParityError::Malformed`] with line and column, or
    /// [`ParityError::InvalidValue`].
    pub fn from_toml_str(text: &str, origin: &str) -> Result<Self, ParityError> {
        let file: MappingFile = toml::from_str(text).map_err(|e| {
            let (line, column) = e.span().map_or((0, 0), |s| line_column(text, s.start));
            ParityError::Malformed {
                what: "op mapping",
                origin: origin.to_owned(),
                line,
                column,
                message: e.message().trim().to_owned(),
            }
        })?;
        Self::from_parts(file, origin)
    }

    /// Parses a JSON mapping (same keys as the TOML form).
    ///
    /// # Errors
    /// [`ParityError::Malformed`] with line and column, or
    /// [`ParityError::InvalidValue`].
    pub fn from_json_str(text: &str, origin: &str) -> Result<Self, ParityError> {
        let file: MappingFile =
            serde_json::from_str(text).map_err(|e| ParityError::json("op mapping", origin, &e))?;
        Self::from_parts(file, origin)
    }

    fn from_parts(file: MappingFile, origin: &str) -> Result<Self, ParityError> {
        check_tokens_and_ops(&file, origin)?;
        let mut listed = Vec::with_capacity(file.rules.len());
        for (i, r) in file.rules.into_iter().enumerate() {
            listed.push(rule_of(i, r, origin)?);
        }
        let mut m = if file.defaults.unwrap_or(true) {
            Self::defaults()
        } else {
            Self {
                rules: Vec::new(),
                ..Self::defaults()
            }
        };
        // The file's rules come first: its list as written, then `[ops]`
        // in its own match order.
        listed.extend(ordered(file.ops));
        listed.extend(m.rules);
        m.rules = listed;
        m.ignore.extend(file.ignore);
        m.annotations = file.annotations.unwrap_or(true);
        if let Some(s) = file.backward_suffix {
            m.backward_suffix = s;
        }
        m.backward = file.backward;
        m.tokens_per_step = file.tokens_per_step;
        m.runtime = file.runtime;
        Ok(m)
    }

    /// Sets tokens per step (overrides the trace's metadata).
    #[must_use]
    pub fn with_tokens_per_step(mut self, tokens: f64) -> Self {
        self.tokens_per_step = Some(tokens);
        self
    }

    /// Whether the range `name` is ignored.
    pub(crate) fn ignored(&self, name: &str) -> bool {
        self.ignore.iter().any(|p| glob(p, name))
    }

    /// The brick an op (`aten::...`) maps to by its name alone.
    pub(crate) fn op(&self, name: &str) -> Option<&str> {
        self.op_in(name, None, None)
    }

    /// The brick an op maps to, given its input shapes and module path.
    pub(crate) fn op_in(
        &self,
        name: &str,
        shapes: Option<&str>,
        module: Option<&str>,
    ) -> Option<&str> {
        if self.ignored(name) {
            return None;
        }
        self.rules
            .iter()
            .find(|r| r.matches(name, shapes, module))
            .map(|r| r.brick.as_str())
    }

    /// The brick a module call with path `path` maps to (rules with only a
    /// `module` pattern).
    pub(crate) fn module(&self, path: &str) -> Option<&str> {
        self.rules
            .iter()
            .find(|r| {
                r.op.is_none()
                    && r.shapes.is_none()
                    && r.module.as_deref().is_some_and(|m| glob(m, path))
            })
            .map(|r| r.brick.as_str())
    }

    /// The brick a `record_function` range maps to: a rule, else itself
    /// when it is named like a brick (see [`brick_like`]); any other range
    /// is transparent, its ops mapped one by one.
    pub(crate) fn annotation<'a>(&'a self, name: &'a str) -> Option<&'a str> {
        if self.ignored(name) {
            return None;
        }
        self.op(name)
            .or((self.annotations && brick_like(name)).then_some(name))
    }

    /// The backward brick of forward brick `forward`.
    pub(crate) fn backward_name(&self, forward: &str) -> String {
        self.backward
            .get(forward)
            .cloned()
            .unwrap_or_else(|| format!("{forward}{}", self.backward_suffix))
    }
}

/// `text` as a TOML basic string: quoted, `"` and `\` escaped, control
/// characters as `\uXXXX`; what a mapping file holds and the draft writes.
pub(crate) fn toml_string(text: &str) -> String {
    use std::fmt::Write as _;
    let mut s = String::with_capacity(text.len() + 2);
    s.push('"');
    for c in text.chars() {
        match c {
            '"' => s.push_str("\\\""),
            '\\' => s.push_str("\\\\"),
            c if c.is_control() => {
                let _ = write!(s, "\\u{:04X}", u32::from(c));
            }
            c => s.push(c),
        }
    }
    s.push('"');
    s
}

/// 1-based line and column of byte `offset` in `text`.
fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

#[cfg(test)]
mod tests;
