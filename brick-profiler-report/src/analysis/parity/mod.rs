//! Parity: are we as fast as a baseline runtime, per op? A
//! [`RunSummary`] per runtime (from a saved parity file, a brick
//! [`Profile`], or a PyTorch trace), read per step:
//! [`compute_parity_comparison`] against one baseline and
//! [`compute_parity_multi`] against several, with Markdown, JSON,
//! terminal, SVG and HTML renderers.
//!
//! [`Profile`]: profiler_core::Profile
//! [`RunSummary`]: crate::model::run::RunSummary

mod coverage;
mod html;
mod model;
mod multi;
mod pytorch;
mod render;
mod svg;

pub use crate::model::parity_error::ParityError;
pub use crate::model::trace_meta::{TraceDevice, TraceRank};
pub use coverage::{Basis, Coverage};
pub use html::{parity_multi_section, parity_section};
pub use model::{
    OpGap, PARITY_THRESHOLD, ParityComparison, TOP_GAPS, Totals, compute_parity_comparison,
    ms_per_step,
};
pub use multi::{MultiParityComparison, compute_parity_multi};
pub use pytorch::{
    ChromeTrace, OpMapping, PytorchImport, UnmappedOp, device_preset, import_chrome_trace,
    import_pytorch_trace, import_pytorch_trace_str, suggest_mapping,
};
