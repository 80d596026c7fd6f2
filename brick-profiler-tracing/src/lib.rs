//! A `tracing_subscriber::Layer` that turns `tracing` spans into bricks of
//! the brick profiler, so code already instrumented with `tracing` (candle's
//! models, burn, `#[instrument]` functions) gets bricks and every report
//! without edits. Add [`BrickLayer`] to a registry beside other layers.
//!
//! ```
//! use profiler_core::{BrickCategory, BrickId};
//! use profiler_tracing::{BrickLayer, SpanRule};
//! use tracing_subscriber::prelude::*;
//!
//! let layer = BrickLayer::builder()
//!     .rule(SpanRule::named("linear").custom("linear", BrickCategory::Other))
//!     .rule(SpanRule::named("block").layer_per_instance())
//!     .build();
//! let subscriber = tracing_subscriber::registry().with(layer);
//! # let _ = subscriber;
//! ```

mod alias;
mod builder;
mod fields;
mod layer;
mod made;
mod open;
mod plan;
mod rule;
mod table;

pub use builder::BrickLayerBuilder;
pub use layer::BrickLayer;
pub use rule::{SpanBrick, SpanRule, SpanTiming};
