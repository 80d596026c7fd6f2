//! Configures a `BrickLayer`: rules, the fields read as a layer index,
//! default timing and the direction of layer scopes.

use profiler_core::Direction;

use crate::plan::LAYER_FIELDS;
use crate::rule::{SpanRule, SpanTiming};

/// Builds a `BrickLayer` (from
/// `BrickLayer::builder`).
#[derive(Debug, Clone)]
pub struct BrickLayerBuilder {
    pub(crate) rules: Vec<SpanRule>,
    pub(crate) layer_fields: Vec<String>,
    pub(crate) timing: SpanTiming,
    pub(crate) direction: Direction,
}

impl Default for BrickLayerBuilder {
    fn default() -> Self {
        Self {
            rules: Vec::new(),
            layer_fields: LAYER_FIELDS.iter().map(|&f| f.to_owned()).collect(),
            timing: SpanTiming::Entered,
            direction: Direction::Forward,
        }
    }
}

impl BrickLayerBuilder {
    /// Adds a rule; rules are tried in the order they were added and
    /// override the built-in aliases.
    #[must_use]
    pub fn rule(mut self, rule: SpanRule) -> Self {
        self.rules.push(rule);
        self
    }

    /// Adds rules, in order.
    #[must_use]
    pub fn rules(mut self, rules: impl IntoIterator<Item = SpanRule>) -> Self {
        self.rules.extend(rules);
        self
    }

    /// Also reads the field `name` as a span's layer index (`layer`,
    /// `layer_idx`, `layer_index`, `layer_id`, `block_idx`, `index` and
    /// `idx` are read already).
    #[must_use]
    pub fn layer_field(mut self, name: impl Into<String>) -> Self {
        self.layer_fields.push(name.into());
        self
    }

    /// How spans no rule times otherwise are timed (per enter by default).
    #[must_use]
    pub fn timing(mut self, timing: SpanTiming) -> Self {
        self.timing = timing;
        self
    }

    /// The direction of the layer scopes spans open (forward by default;
    /// backward for spans of a backward pass).
    #[must_use]
    pub fn direction(mut self, direction: Direction) -> Self {
        self.direction = direction;
        self
    }
}
