//! PyTorch as a parity baseline: the Chrome trace `torch.profiler` writes,
//! read into nested events, device time linked to the ops that launched it,
//! and mapped onto brick names by an [`OpMapping`] (by op name, input
//! shapes and module path; [`suggest_mapping`] drafts one).

mod import;
mod link;
mod mapping;
mod ownership;
mod rules;
mod steps;
mod suggest;
mod tree;

pub use crate::model::chrome_trace::ChromeTrace;
pub use import::{
    PytorchImport, UnmappedOp, import_chrome_trace, import_pytorch_trace, import_pytorch_trace_str,
};
pub use mapping::OpMapping;
pub use suggest::suggest_mapping;
