//! Execution-trace analysis: the reference [`TraceAnalyzer`], reading
//! traces from disk, and merging ranks of a distributed run.

mod analyzer;
mod error;
mod merge;
mod ranks;
mod read;
mod types;

pub use analyzer::TraceAnalyzer;
pub use error::TraceError;
pub use merge::{MergedTrace, merge_rank_files, merge_ranked, merge_ranks, read_rank_profiles};
pub use ranks::{DEFAULT_STRAGGLER_THRESHOLD, RankReport, RankStats, Straggler};
pub use read::{parse_execution_trace, read_execution_trace};
pub use types::{CommunicationBottleneck, DeviceSummary, LoadBalanceMetrics, OpSummary};
