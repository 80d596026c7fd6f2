//! The runtime side of the kernel tools: tile timers, output checksums,
//! and kernel launches and transfers in the execution graph. The data
//! types and their analyses live in `kernel_data`; the public
//! `profiler::kernel` module shows both.

pub(crate) mod checksums;
pub(crate) mod graph;
pub(crate) mod tiles;
