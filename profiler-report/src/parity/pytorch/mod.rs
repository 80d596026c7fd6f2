//! PyTorch as a parity baseline: the Chrome trace `torch.profiler` writes,
//! read into nested events and mapped onto brick names by an [`OpMapping`].

mod events;
mod import;
mod link;
mod mapping;
mod raw;
mod rules;
mod steps;
mod suggest;
mod tree;

pub use events::ChromeTrace;
pub use import::{
    PytorchImport, UnmappedOp, import_chrome_trace, import_pytorch_trace, import_pytorch_trace_str,
};
pub use mapping::OpMapping;
pub use suggest::suggest_mapping;
