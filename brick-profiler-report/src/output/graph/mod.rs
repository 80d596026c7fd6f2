//! Drawings of an execution graph ([`ExecutionGraph`](profiler_core::kernel::ExecutionGraph),
//! recorded by the runtime): Graphviz DOT with the critical path outlined
//! ([`dot()`], [`dot_with`]) and an ASCII tree of its hierarchy
//! ([`ascii_tree`]) for terminals. Its JSON form is the graph's own serde
//! form, in the profile.

mod dot;
mod text;
mod tree;

#[cfg(test)]
mod tests;

pub use dot::{DotOptions, dot, dot_with};
pub use tree::{MAX_TREE_DEPTH, ascii_tree};
