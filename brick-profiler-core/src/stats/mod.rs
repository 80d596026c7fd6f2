//! Statistics types: per-brick and per-category totals, the latency
//! histogram behind percentiles, and the shared count/total/extremes
//! `Summary` every aggregation merges through.

pub(crate) mod brick;
pub(crate) mod category;
mod histogram;
mod summary;

pub use crate::catalogue::{BrickBottleneck, UnknownBrick};
pub(crate) use brick::BrickStats;
pub use brick::CycleDiagnosis;
pub(crate) use category::CategoryStats;
pub(crate) use histogram::{BUCKETS, TickCounts, bucket, bucket_bounds};
pub use histogram::{HistBucket, LatencyHistogram};
pub(crate) use summary::Summary;
