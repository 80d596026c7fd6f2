//! PyTorch as a parity baseline: the Chrome trace `torch.profiler` writes,
//! walked once in time order (`walk.rs`: nesting, ownership, steps; device
//! time linked to the ops that launched it in `links.rs`), and mapped onto
//! brick names by an [`OpMapping`] (by op name, input shapes and module
//! path; [`suggest_mapping`] drafts one).

mod import;
mod links;
mod mapping;
mod names;
mod node;
mod rules;
mod settle;
mod suggest;
mod tally;
mod totals;
mod walk;

pub use crate::model::chrome_trace::ChromeTrace;
pub use import::{
    PytorchImport, UnmappedOp, device_preset, import_chrome_trace, import_pytorch_trace,
    import_pytorch_trace_str,
};
pub use mapping::OpMapping;
pub use suggest::suggest_mapping;

#[cfg(test)]
mod tests;
