//! Execution-trace analysis: per-operation and per-device totals, load
//! balance, communication and collapsed stacks of a
//! [`RecordedExecutionTrace`](profiler_core::trace::RecordedExecutionTrace)
//! (one function each), reading rank profiles from disk, the load balance
//! of a distributed run, and the nesting of timeline spans that every
//! timeline export draws.
//!
//! ```
//! use std::time::Duration;
//! use profiler::trace::{RecordedExecutionTrace, RecordedTraceEntry};
//! use profiler_report::trace;
//!
//! let mut t = RecordedExecutionTrace::new();
//! for (op, device, us) in [("allreduce", "gpu:0", 600), ("matmul", "gpu:1", 200)] {
//!     let entry = RecordedTraceEntry::new(0, op).with_device_id(device);
//!     t.add_entry(entry.with_duration(Duration::from_micros(us)));
//! }
//! let comm = trace::communication_bottlenecks(&t, 0.5);
//! assert_eq!(comm[0].operation, "allreduce");
//! let balance = trace::load_balance_metrics(&t).unwrap();
//! assert_eq!(balance.imbalance_ratio, 0.5);
//! assert_eq!(
//!     trace::flamegraph_collapsed(&t),
//!     "trace;gpu:0;allreduce 600\ntrace;gpu:1;matmul 200"
//! );
//! ```

mod analyzer;

pub(crate) mod nesting;
mod ranks;
mod summary;
mod types;

pub use crate::model::trace_error::TraceError;
pub use analyzer::{
    avg_duration_by_op, communication_bottlenecks, flamegraph_collapsed, from_timeline,
    load_balance_metrics, memory_hotspots, operation_summary, per_device_summary, trace_of,
};
pub use ranks::{RankReport, RankStats, read_rank_profiles};
pub use summary::{OpRow, SlowEntry, TraceSummary};
pub use types::{CommunicationBottleneck, DeviceSummary, LoadBalanceMetrics, OperationStats};
