//! What a Kineto trace says of where it ran, beside its events: the
//! devices of `deviceProperties` and the rank of `distributedInfo`, as
//! written (nothing guessed).

/// One device of a trace's `deviceProperties`, as Kineto writes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceDevice {
    /// `id`: the device's index on its host.
    pub id: Option<i64>,
    /// `name` (`NVIDIA A100-SXM4-40GB`, `AMD Instinct MI250X`).
    pub name: String,
    /// `totalGlobalMem`, bytes.
    pub total_memory_bytes: Option<u64>,
    /// `computeMajor` and `computeMinor` (8, 0 for sm_80).
    pub compute_capability: Option<(u32, u32)>,
    /// `numSms`: streaming multiprocessors (compute units on ROCm).
    pub multiprocessors: Option<u32>,
}

/// A trace's `distributedInfo`: where its process stood in the job.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TraceRank {
    /// `rank`: this process's global rank.
    pub rank: Option<u32>,
    /// `world_size`: ranks in the job.
    pub world_size: Option<u32>,
    /// `backend` (`nccl`, `gloo`).
    pub backend: Option<String>,
}
