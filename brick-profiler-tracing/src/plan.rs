//! What a span callsite records, resolved once per callsite: its brick
//! site, timing, where its layer comes from and which fields to read.

use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

use profiler_core::dynamic::{CallWork, DynamicSite};
use tracing_core::Metadata;

use crate::alias;
use crate::rule::{LayerSource, SpanBrick, SpanRule, SpanTiming};

/// Field names read as a span's layer index unless the layer is told others.
pub(crate) const LAYER_FIELDS: &[&str] = &[
    "layer",
    "layer_idx",
    "layer_index",
    "layer_id",
    "block_idx",
    "index",
    "idx",
];

/// Field names read as a call's work.
pub(crate) const WORK_FIELDS: [&str; 3] = ["elements", "bytes", "flops"];

/// The resolution of one span callsite.
#[derive(Debug)]
pub(crate) struct Plan {
    pub(crate) site: DynamicSite,
    pub(crate) timing: SpanTiming,
    /// Work every call does unless the span's fields say otherwise.
    pub(crate) work: CallWork,
    /// Spans made so far, when the layer is the creation order.
    pub(crate) instances: Option<AtomicU32>,
    /// Whether the callsite has a layer or work field worth visiting.
    pub(crate) reads_fields: bool,
    /// Whether each span keeps call data of its own (its fields, instance
    /// layer or lifetime guard); other spans are all alike.
    pub(crate) per_span: bool,
}

impl Plan {
    /// Resolves a span callsite: the first matching rule, else the built-in
    /// aliases, else a custom brick named after the span. `None` for
    /// events and skipped spans.
    pub(crate) fn resolve(
        meta: &'static Metadata<'static>,
        rules: &[SpanRule],
        layer_fields: &[String],
        default_timing: SpanTiming,
    ) -> Option<Self> {
        if !meta.is_span() {
            return None;
        }
        let rule = rules.iter().find(|r| r.matches(meta.name(), meta.target()));
        let module = meta.module_path().unwrap_or(meta.target());
        let file = meta.file().unwrap_or("");
        let line = meta.line().unwrap_or(0);
        let site = match rule.and_then(|r| r.brick.as_ref()) {
            Some(SpanBrick::Skip) => return None,
            Some(SpanBrick::Builtin(id)) => DynamicSite::builtin(*id, module, file, line),
            Some(SpanBrick::Custom { name, category }) => {
                // Once per callsite: the site lives as long as the program.
                let name: &'static str = Box::leak(name.clone().into_boxed_str());
                DynamicSite::custom(name, *category, module, file, line)
            }
            None => match alias::builtin(meta.name()) {
                Some(id) => DynamicSite::builtin(id, module, file, line),
                None => DynamicSite::custom(
                    meta.name(),
                    alias::category(meta.name()),
                    module,
                    file,
                    line,
                ),
            },
        };
        let [elements, bytes, flops] = rule.map_or([0; 3], |r| r.work);
        let reads_fields = meta
            .fields()
            .iter()
            .any(|f| WORK_FIELDS.contains(&f.name()) || layer_fields.iter().any(|n| n == f.name()));
        let timing = rule.and_then(|r| r.timing).unwrap_or(default_timing);
        let instances = rule.is_some_and(|r| r.layer == LayerSource::Instance);
        Some(Self {
            site,
            timing,
            work: CallWork {
                elements,
                bytes,
                flops,
                layer: None,
            },
            instances: instances.then(|| AtomicU32::new(0)),
            reads_fields,
            per_span: reads_fields || instances || timing == SpanTiming::Lifetime,
        })
    }

    /// The layer of the next span made at this callsite, when the layer is
    /// the creation order.
    pub(crate) fn next_instance(&self) -> Option<u32> {
        self.instances.as_ref().map(|n| n.fetch_add(1, Relaxed))
    }
}
