//! The profilers people use today, each set up so that every call is
//! really recorded and counted.

pub mod fastrace_spans;
pub mod hotpath_measure;
pub mod puffin_scopes;
pub mod tracing_bricks;
pub mod tracing_spans;
