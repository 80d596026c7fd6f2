//! Controlling the global profiler: `enable`/`disable`, `reset`,
//! `snapshot`, and [`Config`], the one place its settings are changed.

mod config;
mod switch;

pub use config::Config;
pub use switch::{disable, enable, is_enabled, reset, snapshot};
