//! The `tracing_subscriber::Layer`: resolves each span callsite once, keeps
//! the call data of spans that have their own (fields, instance layers,
//! lifetime timing) in their extensions, and opens and closes bricks as
//! spans are entered, exited and closed.

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering::Relaxed};
use std::sync::{Mutex, PoisonError};

use profiler_core::dynamic::{BrickGuard, CallWork};
use profiler_core::{Direction, layer as layer_scope};
use tracing_core::span::{Attributes, Id, Record};
use tracing_core::{Dispatch, Interest, Metadata, Subscriber};
use tracing_subscriber::layer::{Context, Layer};
use tracing_subscriber::registry::{LookupSpan, Registry};

use crate::builder::BrickLayerBuilder;
use crate::fields::WorkVisitor;
use crate::made;
use crate::open;
use crate::plan::Plan;
use crate::rule::{SpanRule, SpanTiming};
use crate::table::{PlanRef, PlanTable};

/// Turns `tracing` spans into bricks: add it to a `tracing_subscriber`
/// registry beside any other layers (a `fmt` layer keeps working).
///
/// ```
/// use tracing_subscriber::prelude::*;
/// let subscriber = tracing_subscriber::registry().with(profiler_tracing::BrickLayer::new());
/// tracing::subscriber::with_default(subscriber, || {
///     let _block = tracing::trace_span!("block", layer = 0).entered();
///     let _mlp = tracing::trace_span!("mlp").entered();
/// });
/// ```
///
/// A span's name (and target) picks its brick once per callsite: the
/// first matching [`SpanRule`], else a built-in alias (`rms-norm` is
/// `RmsNorm`, `embedding` is `Embedding`), else a custom brick named after
/// the span with a category read from its name (`attn` is Attention, `mlp`
/// FFN). A span with a layer field (`layer`, `layer_idx`, `index`, ...)
/// opens that layer's scope while entered; fields `elements`, `bytes` and
/// `flops` are the work of each call.
#[derive(Debug)]
pub struct BrickLayer {
    /// Tells this layer's open calls from another's on the same thread.
    id: u32,
    rules: Vec<SpanRule>,
    layer_fields: Vec<String>,
    timing: SpanTiming,
    direction: Direction,
    /// Whether any span may be timed over its lifetime; when none can,
    /// closing a span has nothing to record and is skipped.
    lifetimes: bool,
    /// Resolutions by callsite, read without a lock on every span.
    plans: PlanTable,
    /// Whether the subscriber is `tracing_subscriber`'s registry, whose
    /// span ids let a thread find the spans it made without a lookup.
    registry: AtomicBool,
}

/// What a span of a callsite with per-span data keeps in its extensions
/// (other spans keep nothing: their callsite's plan says it all).
struct SpanCalls {
    work: CallWork,
    /// The one call of a span timed over its lifetime, once entered.
    lifetime: Mutex<Option<BrickGuard>>,
}

impl Default for BrickLayer {
    fn default() -> Self {
        Self::new()
    }
}

impl BrickLayer {
    /// A layer with the built-in aliases and no rules.
    #[must_use]
    pub fn new() -> Self {
        Self::builder().build()
    }

    /// A layer with rules, layer fields and timing of one's own.
    #[must_use]
    pub fn builder() -> BrickLayerBuilder {
        BrickLayerBuilder::default()
    }

    /// Opens a call of span `id` timed per enter, with its layer scope.
    #[inline]
    fn open(&self, id: &Id, plan: &Plan, work: CallWork) {
        // The layer scope opens first, so the span's own call counts
        // towards its layer, as do the bricks nested in it.
        let scope = work.layer.map(|i| layer_scope(i, self.direction));
        let work = CallWork {
            layer: None,
            ..work
        };
        open::push(self.id, id.into_u64(), scope, plan.site.enter(work));
    }

    /// The callsite's resolution, made on first sight (normally in
    /// `register_callsite`).
    #[inline]
    fn plan(&self, meta: &'static Metadata<'static>) -> Option<PlanRef<'_>> {
        self.plans.get_or_resolve(meta, || {
            Plan::resolve(meta, &self.rules, &self.layer_fields, self.timing)
        })
    }
}

impl BrickLayerBuilder {
    /// The layer.
    #[must_use]
    pub fn build(self) -> BrickLayer {
        static NEXT_ID: AtomicU32 = AtomicU32::new(0);
        let lifetimes = self.timing == SpanTiming::Lifetime
            || self
                .rules
                .iter()
                .any(|r| r.timing == Some(SpanTiming::Lifetime));
        BrickLayer {
            id: NEXT_ID.fetch_add(1, Relaxed),
            lifetimes,
            rules: self.rules,
            layer_fields: self.layer_fields,
            timing: self.timing,
            direction: self.direction,
            plans: PlanTable::new(),
            registry: AtomicBool::new(false),
        }
    }
}

impl<S> Layer<S> for BrickLayer
where
    S: Subscriber + for<'a> LookupSpan<'a>,
{
    fn on_register_dispatch(&self, subscriber: &Dispatch) {
        self.registry.store(subscriber.is::<Registry>(), Relaxed);
    }

    fn register_callsite(&self, meta: &'static Metadata<'static>) -> Interest {
        // Resolved here, once per callsite; this layer filters nothing out.
        let _ = self.plan(meta);
        Interest::always()
    }

    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        let meta = attrs.metadata();
        // Every span made here is noted, bricks or not: a later span with
        // this id must not find this one's plan.
        if self.registry.load(Relaxed)
            && made::note(
                self.id,
                id.into_u64(),
                std::ptr::from_ref(meta).addr(),
                || match self.plan(meta)? {
                    PlanRef::Table(plan, at) if !plan.per_span => Some(at),
                    _ => None,
                },
            )
            .is_some()
        {
            // Nothing to keep: every call is the callsite's plan.
            return;
        }
        let Some(plan) = self.plan(meta) else {
            return;
        };
        if !plan.per_span {
            return;
        }
        let mut work = plan.work;
        work.layer = plan.next_instance();
        if plan.reads_fields {
            attrs.record(&mut WorkVisitor {
                work: &mut work,
                layer_fields: &self.layer_fields,
            });
        }
        if let Some(span) = ctx.span(id) {
            span.extensions_mut().insert(SpanCalls {
                work,
                lifetime: Mutex::new(None),
            });
        }
    }

    fn on_record(&self, id: &Id, values: &Record<'_>, ctx: Context<'_, S>) {
        let Some(span) = ctx.span(id) else { return };
        let mut extensions = span.extensions_mut();
        if let Some(calls) = extensions.get_mut::<SpanCalls>() {
            values.record(&mut WorkVisitor {
                work: &mut calls.work,
                layer_fields: &self.layer_fields,
            });
        }
    }

    fn on_enter(&self, id: &Id, ctx: Context<'_, S>) {
        if !profiler_core::is_enabled() {
            return;
        }
        // A span made on this thread whose calls are all its callsite's.
        if self.registry.load(Relaxed)
            && let Some(plan) = made::plan(self.id, id.into_u64()).and_then(|at| self.plans.at(at))
        {
            return self.open(id, plan, plan.work);
        }
        let Some(span) = ctx.span(id) else { return };
        let Some(plan) = self.plan(span.metadata()) else {
            return;
        };
        let extensions = plan.per_span.then(|| span.extensions());
        let calls = extensions.as_ref().and_then(|e| e.get::<SpanCalls>());
        let work = match (plan.per_span, calls) {
            (false, _) => plan.work,
            (true, Some(calls)) => calls.work,
            // Made before this layer saw its callsite: not this layer's.
            (true, None) => return,
        };
        match plan.timing {
            SpanTiming::Entered => self.open(id, &plan, work),
            SpanTiming::Lifetime => {
                let Some(calls) = calls else { return };
                let mut lifetime = calls
                    .lifetime
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner);
                if lifetime.is_none() {
                    *lifetime = Some(plan.site.enter_detached(work));
                }
            }
        }
    }

    fn on_exit(&self, id: &Id, _ctx: Context<'_, S>) {
        open::pop(self.id, id.into_u64());
    }

    fn on_close(&self, id: Id, ctx: Context<'_, S>) {
        // The registry drops the extensions of a closed span itself.
        if !self.lifetimes {
            return;
        }
        let Some(span) = ctx.span(&id) else { return };
        let guard = span
            .extensions_mut()
            .remove::<SpanCalls>()
            .and_then(|calls| {
                calls
                    .lifetime
                    .into_inner()
                    .unwrap_or_else(PoisonError::into_inner)
            });
        // Recorded on this thread, whichever thread entered the span first.
        drop(guard);
    }
}
