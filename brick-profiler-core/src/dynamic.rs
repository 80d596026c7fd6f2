//! Bricks whose call sites are known only at run time, such as the spans of
//! another instrumentation library: each site is made once (and kept for the
//! program's life), then entered as cheaply as a `#[brick]` call site.

use crate::catalogue::{BrickCategory, BrickId};
use crate::record::amounts::{Amounts, NO_LAYER};
use crate::record::guard::recording;
use crate::record::registry::BrickSite;

pub use crate::record::guard::BrickGuard;

/// A brick call site made at run time. Copy it freely: it is a reference to
/// a site that lives as long as the program.
///
/// Make one per source of calls (one per span callsite, say), not one per
/// call: each [`DynamicSite::builtin`] or [`DynamicSite::custom`] keeps a few
/// dozen bytes for the rest of the run.
#[derive(Debug, Clone, Copy)]
pub struct DynamicSite(&'static BrickSite);

/// What one call of a [`DynamicSite`] carries besides its duration.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CallWork {
    /// Elements (tokens, rows, ...) processed.
    pub elements: u64,
    /// Bytes moved.
    pub bytes: u64,
    /// Floating-point operations performed.
    pub flops: u64,
    /// Explicit layer index; `None` takes the enclosing layer scope.
    pub layer: Option<u32>,
}

impl CallWork {
    fn amounts(self) -> Amounts {
        Amounts {
            elements: self.elements,
            bytes: self.bytes,
            flops: self.flops,
            layer: self.layer.unwrap_or(NO_LAYER),
        }
    }
}

impl DynamicSite {
    /// A site of the built-in brick `id`; `module_path`, `file` and `line`
    /// say where its calls come from.
    #[must_use]
    pub fn builtin(id: BrickId, module_path: &'static str, file: &'static str, line: u32) -> Self {
        Self(Box::leak(Box::new(BrickSite::builtin(
            id,
            module_path,
            file,
            line,
        ))))
    }

    /// A site of the custom brick `name` in `category`. Sites and
    /// `#[brick("name")]` call sites that agree on a name share its
    /// statistics.
    #[must_use]
    pub fn custom(
        name: &'static str,
        category: BrickCategory,
        module_path: &'static str,
        file: &'static str,
        line: u32,
    ) -> Self {
        Self(Box::leak(Box::new(BrickSite::custom(
            name,
            category,
            module_path,
            file,
            line,
        ))))
    }

    /// The brick's name.
    #[must_use]
    pub fn name(self) -> &'static str {
        self.0.name
    }

    /// The category the brick's time is aggregated under.
    #[must_use]
    pub fn category(self) -> BrickCategory {
        self.0.category
    }

    /// Starts timing a call nested in the brick already open on this thread,
    /// as `#[brick]` does; the sample is recorded when the guard drops, on
    /// this thread. Inert while the profiler is not recording.
    #[inline]
    pub fn enter(self, work: CallWork) -> BrickGuard {
        match recording() {
            Some(rec) => rec.enter(self.0, work.amounts()),
            None => BrickGuard::INERT,
        }
    }

    /// Starts timing a call that may move between threads, as an `async fn`
    /// brick does: it takes no part in nesting, and the guard may drop on
    /// any thread.
    #[inline]
    pub fn enter_detached(self, work: CallWork) -> BrickGuard {
        match recording() {
            Some(rec) => rec.enter_detached(self.0, work.amounts()),
            None => BrickGuard::INERT,
        }
    }
}
