//! PyTorch as a parity baseline: the Chrome trace `torch.profiler` writes,
//! mapped onto brick names by an [`OpMapping`].

mod events;
mod import;
mod mapping;
mod rules;

pub use import::{PytorchImport, UnmappedOp, import_pytorch_trace, import_pytorch_trace_str};
pub use mapping::OpMapping;
