//! What a user says about spans: which brick a span is, how its calls are
//! timed and what work each call does. Rules override the built-in aliases.

use profiler_core::{BrickCategory, BrickId};

/// The brick a span's calls are recorded as.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SpanBrick {
    /// A built-in brick of the catalogue.
    Builtin(BrickId),
    /// A custom brick with its category.
    Custom {
        /// The brick's name.
        name: String,
        /// The category its time is aggregated under.
        category: BrickCategory,
    },
    /// Not a brick: the span is left to the other layers.
    Skip,
}

/// How the calls of a span are timed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SpanTiming {
    /// Each enter..exit is one call, nested in the brick open on the thread
    /// (as `#[brick]` on a plain function): a long-lived span entered once
    /// per forward pass is one call per pass, and an instrumented future is
    /// one call per poll.
    #[default]
    Entered,
    /// The span is one call from its first enter to its close, taking no
    /// part in nesting and recorded on whichever thread closes it (as
    /// `#[brick]` on an `async fn`): the wall time of a task that suspends
    /// and moves between threads.
    Lifetime,
}

/// Where a span's layer index comes from, besides its fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum LayerSource {
    /// Only from a layer field, if the span has one.
    #[default]
    Fields,
    /// The order in which spans of the callsite are created: the first is
    /// layer 0 (models that build one span per block, in block order).
    Instance,
}

/// A user rule: spans named `name` (optionally only under a target prefix)
/// become `brick`, timed and counted as the rule says. The first matching
/// rule wins; spans no rule matches get the built-in aliases.
///
/// ```
/// use profiler_core::{BrickCategory, BrickId};
/// use profiler_tracing::SpanRule;
/// let rules = [
///     SpanRule::named("attn-rot").builtin(BrickId::RopeEmbedding),
///     SpanRule::named("block").custom("block", BrickCategory::Other).layer_per_instance(),
///     SpanRule::named("fetch").in_target("my_app::io").lifetime(),
///     SpanRule::named("noisy").skip(),
/// ];
/// # assert_eq!(rules.len(), 4);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpanRule {
    pub(crate) name: String,
    pub(crate) target: Option<String>,
    pub(crate) brick: Option<SpanBrick>,
    pub(crate) timing: Option<SpanTiming>,
    pub(crate) layer: LayerSource,
    pub(crate) work: [u64; 3],
}

impl SpanRule {
    /// A rule for spans named `name` that keeps the default brick until
    /// told otherwise.
    #[must_use]
    pub fn named(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            target: None,
            brick: None,
            timing: None,
            layer: LayerSource::Fields,
            work: [0; 3],
        }
    }

    /// Only spans whose target starts with `prefix`.
    #[must_use]
    pub fn in_target(mut self, prefix: impl Into<String>) -> Self {
        self.target = Some(prefix.into());
        self
    }

    /// The spans are calls of the built-in brick `id`.
    #[must_use]
    pub fn builtin(mut self, id: BrickId) -> Self {
        self.brick = Some(SpanBrick::Builtin(id));
        self
    }

    /// The spans are calls of the custom brick `name` in `category`.
    #[must_use]
    pub fn custom(mut self, name: impl Into<String>, category: BrickCategory) -> Self {
        self.brick = Some(SpanBrick::Custom {
            name: name.into(),
            category,
        });
        self
    }

    /// The spans are not bricks.
    #[must_use]
    pub fn skip(mut self) -> Self {
        self.brick = Some(SpanBrick::Skip);
        self
    }

    /// Time each span from its first enter to its close
    /// ([`SpanTiming::Lifetime`]).
    #[must_use]
    pub fn lifetime(mut self) -> Self {
        self.timing = Some(SpanTiming::Lifetime);
        self
    }

    /// Time each enter..exit as one call ([`SpanTiming::Entered`]), whatever
    /// the layer's default.
    #[must_use]
    pub fn entered(mut self) -> Self {
        self.timing = Some(SpanTiming::Entered);
        self
    }

    /// The n-th span created at a matching callsite is layer n (from 0),
    /// for models that make one span per block when they are built. A span
    /// with a layer field still takes the field.
    #[must_use]
    pub fn layer_per_instance(mut self) -> Self {
        self.layer = LayerSource::Instance;
        self
    }

    /// Work every call does, for throughput and the roofline: `elements`
    /// processed, `bytes` moved and `flops` performed per call. Fields of
    /// the same names on a span replace these.
    #[must_use]
    pub fn work(mut self, elements: u64, bytes: u64, flops: u64) -> Self {
        self.work = [elements, bytes, flops];
        self
    }

    /// Whether the rule applies to a span named `name` with `target`.
    pub(crate) fn matches(&self, name: &str, target: &str) -> bool {
        self.name == name
            && self
                .target
                .as_deref()
                .is_none_or(|prefix| target.starts_with(prefix))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rule_matches_its_name_under_its_target_prefix() {
        let rule = SpanRule::named("linear").in_target("candle_transformers");
        assert!(rule.matches("linear", "candle_transformers::models::with_tracing"));
        assert!(!rule.matches("linear", "my_app"));
        assert!(!rule.matches("linear2", "candle_transformers"));
        assert!(SpanRule::named("mlp").matches("mlp", "anything"));
    }

    #[test]
    fn builders_set_what_they_say() {
        let rule = SpanRule::named("x")
            .custom("X", BrickCategory::Ffn)
            .lifetime()
            .layer_per_instance()
            .work(1, 2, 3);
        assert_eq!(
            rule.brick,
            Some(SpanBrick::Custom {
                name: "X".into(),
                category: BrickCategory::Ffn
            })
        );
        assert_eq!(rule.timing, Some(SpanTiming::Lifetime));
        assert_eq!(rule.layer, LayerSource::Instance);
        assert_eq!(rule.work, [1, 2, 3]);
        assert_eq!(SpanRule::named("y").skip().brick, Some(SpanBrick::Skip));
    }
}
