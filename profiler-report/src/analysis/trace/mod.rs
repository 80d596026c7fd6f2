//! Execution-trace analysis: [`TraceAnalyzer`], reading
//! traces and rank profiles from disk, the load balance of a distributed
//! run, and the nesting of timeline spans that every timeline export draws.

mod analyzer;

pub(crate) mod nesting;
mod ranks;
mod summary;
mod types;

pub use crate::model::trace_error::TraceError;
pub use analyzer::TraceAnalyzer;
pub use ranks::{RankReport, RankStats, read_rank_profiles};
pub use summary::{OpRow, SlowEntry, TraceSummary};
pub use types::{CommunicationBottleneck, DeviceSummary, LoadBalanceMetrics, OpSummary};
