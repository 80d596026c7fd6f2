//! Statistics types: per-brick and per-category totals, the latency
//! histogram behind percentiles, and the shared count/total/extremes
//! `Summary` every aggregation merges through.

mod brick;
mod category;
mod histogram;
mod summary;

pub use crate::catalogue::{BrickBottleneck, UnknownBrick};
pub use brick::{BrickStats, CycleDiagnosis};
pub use category::CategoryStats;
pub(crate) use histogram::{BUCKETS, TickCounts, bucket, bucket_bounds};
pub use histogram::{HistBucket, LatencyHistogram};
pub(crate) use summary::Summary;
