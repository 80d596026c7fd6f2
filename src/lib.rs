//! Brick-level profiler for ML kernels and model layers.
//!
//! Annotate kernels with [`brick`], switch the global profiler on, and read
//! exact per-brick statistics from any number of threads:
//!
//! ```
//! use profiler::brick;
//!
//! #[brick(RmsNorm, elements = x.len())]
//! fn rms_norm(x: &mut [f32]) {
//!     let ms = x.iter().map(|v| v * v).sum::<f32>() / x.len() as f32;
//!     let scale = 1.0 / (ms + 1e-6).sqrt();
//!     x.iter_mut().for_each(|v| *v *= scale);
//! }
//!
//! profiler::enable();
//! let mut x = vec![1.0f32; 4096];
//! for _ in 0..10 {
//!     rms_norm(&mut x);
//! }
//! let profile = profiler::snapshot();
//! assert_eq!(profile.brick("RmsNorm").map(|b| b.count), Some(10));
//! # profiler::disable();
//! ```
//!
//! This crate re-exports the runtime (`brick-profiler-core`) and the attribute
//! macros (`brick-profiler-macros`); reports live in `brick-profiler-report`.
//!
//! The `off` feature removes instrumentation at compile time: the macros
//! still check their arguments but emit functions unchanged, and every
//! runtime entry point becomes a no-op. The `metrics` feature adds
//! `profiler::metrics`: live metrics for Prometheus, read from snapshots.
//! The `tracing` feature adds `profiler::tracing::BrickLayer`, which records
//! the spans of code instrumented with the `tracing` crate (candle's models,
//! burn) as bricks.
//! The `cuda` and `wgpu` features add `profiler::device`, timers that
//! attribute device time to each brick.

pub use profiler_macros::{brick, contract, trace_op};

pub use profiler_core::{
    BrickCategory, BrickId, BrickStats, CategoryStats, Config, Direction, LayerGuard, PhaseGuard,
    Profile, Schedule, StepGuard, counter, disable, enable, in_layer, in_phase, in_step,
    is_enabled, layer, phase, rank_identity, reset, snapshot, step,
};
pub use profiler_core::{
    alloc, budget, compat, dynamic, fs, hardware, kernel, profile, stats, sync, trace,
};

// Generated code reaches the runtime through `profiler::__private`: not
// public API, and checked at compile time to be the macros' own release.
#[doc(hidden)]
pub use profiler_core::__private;

/// Live metrics (feature `metrics`): a Prometheus `/metrics` endpoint and a
/// Pushgateway push, started from `Config` through `metrics::MetricsConfig`.
#[cfg(feature = "metrics")]
pub use profiler_metrics as metrics;

/// Bricks from `tracing` spans (feature `tracing`): add
/// [`BrickLayer`](tracing::BrickLayer) to a `tracing_subscriber` registry.
#[cfg(feature = "tracing")]
pub mod tracing {
    pub use profiler_tracing::{BrickLayer, BrickLayerBuilder, SpanBrick, SpanRule, SpanTiming};
}

/// Device timers: CUDA events (feature `cuda`) and wgpu timestamp queries
/// (feature `wgpu`), to install with [`Config::device_timer`].
#[cfg(any(feature = "cuda", feature = "wgpu"))]
pub use profiler_device as device;

// The README's Rust snippets compile and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
