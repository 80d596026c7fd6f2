//! What the attribution reads: launch records taken on the launching
//! thread when the runtime or driver launch call is entered, and activity
//! records (kernel, memcpy, memset) the device reports later, tied to
//! their launch by CUPTI's correlation id.

use profiler_core::kernel::LaunchContext;
use profiler_core::profile::ActivityKind;

/// One launch call (kernel launch, memcpy, memset), taken on the launching
/// thread when the call was entered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Launch {
    /// CUPTI's correlation id of the call: every activity it caused carries it.
    pub correlation: u32,
    /// When the call was entered, on the activity records' clock (CUPTI's
    /// timestamp), so the launch-to-start gap is a difference of two
    /// readings of one clock.
    pub api_ns: u64,
    /// Where in the run the call was made (the launching thread included).
    pub context: LaunchContext,
}

/// One activity record as the device reported it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Activity {
    /// Kernel, memcpy or memset.
    pub kind: ActivityKind,
    /// The kernel's (mangled) name as CUPTI gives it, or Kineto's name for
    /// a copy or set (`Memcpy HtoD (Pageable -> Device)`, `Memset (Device)`).
    pub name: String,
    /// Device start, on CUPTI's clock (ns).
    pub start_ns: u64,
    /// Device end, on CUPTI's clock (ns).
    pub end_ns: u64,
    /// The device ordinal.
    pub device: u32,
    /// CUPTI's stream id.
    pub stream: u32,
    /// The correlation id of the launch call (for a copy: of the driver
    /// call that made it).
    pub correlation: u32,
    /// For a copy made through the runtime API, the runtime call's
    /// correlation id: the launch is looked up by it when `correlation`
    /// finds none.
    pub runtime_correlation: Option<u32>,
    /// Grid dimensions (kernels; zeros otherwise).
    pub grid: [u32; 3],
    /// Block dimensions (kernels; zeros otherwise).
    pub block: [u32; 3],
    /// Registers per thread (kernels).
    pub registers: u16,
    /// Shared memory per block, static plus dynamic, in bytes (kernels).
    pub shared_bytes: u32,
    /// Bytes copied or set (memcpy, memset).
    pub bytes: u64,
}

impl Activity {
    /// Device time, or `None` when the record ends before it starts (a
    /// record CUPTI could not complete: it is counted, never summed).
    pub fn duration_ns(&self) -> Option<u64> {
        self.end_ns.checked_sub(self.start_ns)
    }
}
