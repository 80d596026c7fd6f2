//! Items used by code that `#[brick]` and `#[trace_op]` generate.
//!
//! Not public API: anything here may change in any release. Each annotated
//! function compiles to a handful of calls into this module, so the glue
//! that would otherwise be repeated at every call site (matching on the
//! profiler state, building amounts, starting the clock) is compiled once,
//! here. Only the check whether the profiler records (one relaxed load and
//! a branch) is inlined into the caller.

pub use crate::__profiler_register_site as register_site;
pub use crate::catalogue::{BrickCategory, BrickId};
pub use crate::level::BrickLevel;
// `Amounts`, `Recording` and `recording` are the primitives the entry points
// below wrap; generated code no longer names them.
pub use crate::record::amounts::{Amounts, IntoCount, IntoLayerIndex};
pub use crate::record::guard::{BrickGuard, Recording, recording};
pub use crate::record::registry::{BrickSite, SiteRef};
pub use crate::trace::op::TraceOpGuard;
pub use crate::trace::shape::{OutputShapeKnown, OutputShapeUnknown, ShapeOf, input_shape};
pub use inventory;

/// Fails the build, at compile time, when the macros that generated the
/// calling code come from another release than this runtime: every
/// expansion of `#[brick]` and `#[trace_op]` carries the macros' version
/// into a `const` that calls this.
///
/// # Panics
/// At compile time (const evaluation), when `macros` is not this crate's
/// version.
pub const fn require_version(macros: &str) {
    let (ours, theirs) = (env!("CARGO_PKG_VERSION").as_bytes(), macros.as_bytes());
    let mut same = ours.len() == theirs.len();
    let mut i = 0;
    while same && i < ours.len() {
        same = ours[i] == theirs[i];
        i += 1;
    }
    assert!(
        same,
        "brick-profiler-macros and brick-profiler-core are different releases: depend on one \
         version of brick-profiler (`cargo tree -i brick-profiler-macros` shows who pulls in \
         the other)"
    );
}

/// `layer` of a brick without an explicit layer: the enclosing layer scope.
pub const NO_LAYER: u32 = u32::MAX;

/// Whether the profiler records: one relaxed load and a compare.
#[inline(always)]
#[must_use]
pub fn on() -> bool {
    recording().is_some()
}

/// Times a call of a brick without amounts: `#[brick(Name)]`.
#[inline(always)]
pub fn brick(site: &'static BrickSite) -> BrickGuard {
    if on() {
        enter(site, 0, 0, 0, NO_LAYER)
    } else {
        BrickGuard::INERT
    }
}

/// [`brick`] for an `async fn`, whose body may suspend and move threads:
/// the call takes no part in the thread's brick nesting.
#[inline(always)]
pub fn brick_detached(site: &'static BrickSite) -> BrickGuard {
    if on() {
        enter_detached(site, 0, 0, 0, NO_LAYER)
    } else {
        BrickGuard::INERT
    }
}

/// Times a call of a brick; called only after [`on`] said yes, with the
/// amounts evaluated. Out of line: the clock read and the guard are the
/// same code for every call site. It does not check the state again: a
/// call that starts as the profiler is switched off is still recorded, as
/// one that ends after it is.
#[inline(never)]
pub fn enter(
    site: &'static BrickSite,
    elements: u64,
    bytes: u64,
    flops: u64,
    layer: u32,
) -> BrickGuard {
    let amounts = Amounts {
        elements,
        bytes,
        flops,
        layer,
    };
    Recording::from_state(crate::record::state::load()).enter(site, amounts)
}

/// [`enter`] for an `async fn` (see [`brick_detached`]).
#[inline(never)]
pub fn enter_detached(
    site: &'static BrickSite,
    elements: u64,
    bytes: u64,
    flops: u64,
    layer: u32,
) -> BrickGuard {
    let amounts = Amounts {
        elements,
        bytes,
        flops,
        layer,
    };
    Recording::from_state(crate::record::state::load()).enter_detached(site, amounts)
}

/// A brick call of a function that returns a future built in its body: the
/// amounts are taken when the function is called, the clock starts when the
/// future is first polled ([`Deferred::start`], inside the future).
#[derive(Debug)]
#[must_use = "the brick is timed from `start`, inside the future"]
pub struct Deferred(Option<(&'static BrickSite, Amounts)>);

impl Deferred {
    /// The profiler was not recording when the function was called.
    pub const OFF: Deferred = Deferred(None);

    /// `#[brick(Name)]` on a future-returning function.
    #[inline(always)]
    pub fn new(site: &'static BrickSite) -> Self {
        if on() {
            Self::with(site, 0, 0, 0, NO_LAYER)
        } else {
            Self::OFF
        }
    }

    /// With amounts; called only after [`on`] said yes.
    pub fn with(
        site: &'static BrickSite,
        elements: u64,
        bytes: u64,
        flops: u64,
        layer: u32,
    ) -> Self {
        let amounts = Amounts {
            elements,
            bytes,
            flops,
            layer,
        };
        Self(Some((site, amounts)))
    }

    /// Starts timing, at the first poll. A call is recorded only when the
    /// profiler recorded both when the function was called (its amounts
    /// exist) and now. The future may suspend and move threads, so the call
    /// takes no part in the thread's brick nesting.
    pub fn start(self) -> BrickGuard {
        match (self.0, recording()) {
            (Some((site, amounts)), Some(recording)) => recording.enter_detached(site, amounts),
            _ => BrickGuard::INERT,
        }
    }
}

/// Starts a `#[trace_op]` entry without device or input shapes.
#[inline(always)]
pub fn trace_op(operation: &'static str) -> TraceOpGuard {
    if on() {
        TraceOpGuard::start(operation, None, Vec::new())
    } else {
        TraceOpGuard::INERT
    }
}

/// A `#[trace_op]` entry of a function that returns a future built in its
/// body: device and input shapes are taken when the function is called, the
/// clock starts when the future is first polled.
#[derive(Debug)]
#[must_use = "the operation is timed from `start`, inside the future"]
pub struct DeferredTrace(Option<TraceInputs>);

/// Operation name, device and input shapes of a trace entry.
type TraceInputs = (&'static str, Option<String>, Vec<Vec<usize>>);

impl DeferredTrace {
    /// The profiler was not recording when the function was called.
    pub const OFF: DeferredTrace = DeferredTrace(None);

    /// `#[trace_op]` without device or input shapes on a future-returning
    /// function.
    #[inline(always)]
    pub fn new(operation: &'static str) -> Self {
        if on() {
            Self::with(operation, None, Vec::new())
        } else {
            Self::OFF
        }
    }

    /// Takes the entry's inputs; called only after [`on`] said yes.
    pub fn with(
        operation: &'static str,
        device: Option<String>,
        input_shapes: Vec<Vec<usize>>,
    ) -> Self {
        Self(Some((operation, device, input_shapes)))
    }

    /// Starts timing, at the first poll, when the profiler recorded both
    /// when the function was called and now.
    pub fn start(self) -> TraceOpGuard {
        match self.0 {
            Some((operation, device, shapes)) if on() => {
                TraceOpGuard::start(operation, device, shapes)
            }
            _ => TraceOpGuard::INERT,
        }
    }
}

/// Converts an `elements`/`bytes`/`flops` argument.
#[inline(always)]
pub fn count(value: impl IntoCount) -> u64 {
    value.into_count()
}

/// Converts a `device` argument of `#[trace_op]`.
pub fn device_id(value: &impl ::core::fmt::Display) -> Option<String> {
    Some(value.to_string())
}

/// Converts a `layer` argument.
#[inline(always)]
pub fn layer_index(value: impl IntoLayerIndex) -> u32 {
    value.into_layer_index()
}
