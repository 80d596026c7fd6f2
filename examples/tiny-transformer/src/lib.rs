//! A small decoder-only transformer in pure Rust, with hand-written backward passes and
//! an Adam optimizer, trained on CPU on deterministic synthetic data.
//!
//! The model is a pre-norm, Llama-style stack: token embedding → `n_layers` blocks of
//! (RMSNorm → fused QKV projection → RoPE → causal softmax attention → output projection →
//! residual; RMSNorm → SiLU-gated FFN → residual) → final RMSNorm → LM head →
//! cross-entropy.
//!
//! Layout of the crate:
//!
//! * [`kernels`] — every compute kernel, forward and backward, as plain functions over
//!   `f32` slices, each documented with its element / byte / FLOP counts;
//! * [`block`] — one transformer block built from those kernels;
//! * [`model`] — the full model and [`Model::train_step`], organised in profiling phases;
//! * [`optim`] — Adam; [`params`] — parameter storage and initialisation;
//! * [`data`] — the synthetic data generator; [`rng`] — a tiny deterministic RNG;
//! * [`config`] — hyper-parameters; [`slowdown`] — a planted slowdown of one brick, for
//!   testing performance gates.
//!
//! ```
//! use tiny_transformer::{Batch, Config, Model};
//!
//! let cfg = Config::tiny();
//! let mut model = Model::new(&cfg);
//! let first = model.train_step(&Batch::generate(&cfg, 0));
//! assert!(first.is_finite());
//! ```

pub mod block;
pub mod config;
pub mod data;
pub mod kernels;
pub mod model;
pub mod optim;
pub mod params;
pub mod rng;
pub mod slowdown;

pub use config::Config;
pub use data::{Batch, SyntheticData};
pub use model::Model;
pub use optim::Adam;
pub use params::{LayerParams, Params};
pub use rng::Rng;
