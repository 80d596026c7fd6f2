//! A small llama-style model from candle-transformers, run on the CPU with
//! random weights and profiled through the `tracing` spans candle already
//! has: bricks, the scorecard, the roofline and the HTML report, with no
//! edit to candle.
//!
//! ```text
//! cargo run --release -p candle-llama -- --out target/candle-llama
//! ```

pub mod model;
pub mod parity;
pub mod run;
pub mod shape;
pub mod work;

pub use parity::Parity;
pub use run::{Args, Outcome, run};
