//! NVTX ranges (feature `nvtx`) only while a tool listens: NVTX tools
//! (Nsight Systems, Nsight Compute) inject themselves through the
//! environment variable [`INJECTION_VAR`], which they set before the
//! program starts. Whether one is attached is decided once, when the first
//! CUDA timer is made, and kept in one atomic: with no tool, each brick,
//! phase, layer and step pays one relaxed atomic load
//! ([`ranges_on`]) and nothing else: no name is looked up or made, no
//! NVTX call is made.

use std::ffi::OsStr;
use std::sync::Once;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};

/// The environment variable through which an NVTX tool injects itself
/// (64-bit processes); `nsys profile` and `ncu` set it.
pub const INJECTION_VAR: &str = "NVTX_INJECTION64_PATH";

/// Whether ranges are pushed: decided once by [`decide`].
static RANGES: AtomicBool = AtomicBool::new(false);
static DECIDED: Once = Once::new();

/// Whether an NVTX tool is attached: `injection` (the value of
/// [`INJECTION_VAR`]) names a library, and the NVTX library itself loads
/// (`library_loads` is asked only then). Without a tool NVTX calls would
/// go nowhere.
pub fn tool_attached(injection: Option<&OsStr>, library_loads: impl FnOnce() -> bool) -> bool {
    injection.is_some_and(|path| !path.is_empty()) && library_loads()
}

/// Whether bricks, phases, layers and steps push NVTX ranges: one relaxed
/// atomic load. False until a CUDA timer was made with feature `nvtx` on
/// and a tool attached.
#[inline]
pub fn ranges_on() -> bool {
    RANGES.load(Relaxed)
}

/// Decides, once per process, whether ranges are pushed: feature `nvtx`
/// on and [`tool_attached`] with this process's environment.
pub(crate) fn decide() {
    DECIDED.call_once(|| {
        let on = cfg!(feature = "nvtx")
            && tool_attached(std::env::var_os(INJECTION_VAR).as_deref(), || {
                // SAFETY: only tries to open the library by its usual names.
                unsafe { cudarc::nvtx::sys::is_culib_present() }
            });
        RANGES.store(on, Relaxed);
    });
}

/// Opens a range named `name` (a NUL inside a run-time name is replaced:
/// NVTX takes a C string).
pub(crate) fn push(name: &str) {
    #[cfg(test)]
    calls::PUSHES.fetch_add(1, Relaxed);
    #[cfg(not(test))]
    if name.contains('\0') {
        cudarc::nvtx::result::range_push(name.replace('\0', "?"));
    } else {
        cudarc::nvtx::result::range_push(name);
    }
    #[cfg(test)]
    let _ = name;
}

/// Closes the innermost range [`push`] opened.
pub(crate) fn pop() {
    #[cfg(test)]
    calls::POPS.fetch_add(1, Relaxed);
    #[cfg(not(test))]
    cudarc::nvtx::result::range_pop();
}

/// The test hook: unit tests count the calls instead of making them (no
/// NVTX library is needed), and set the decision directly.
#[cfg(test)]
pub(crate) mod calls {
    use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

    pub(crate) static PUSHES: AtomicU64 = AtomicU64::new(0);
    pub(crate) static POPS: AtomicU64 = AtomicU64::new(0);

    /// Pushes and pops made so far.
    pub(crate) fn counts() -> (u64, u64) {
        (PUSHES.load(Relaxed), POPS.load(Relaxed))
    }

    /// Sets the decision as [`super::decide`] would have.
    pub(crate) fn set_ranges(on: bool) {
        super::DECIDED.call_once(|| {});
        super::RANGES.store(on, Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_injection_path_means_no_tool_and_the_library_is_not_even_probed() {
        assert!(!tool_attached(None, || panic!("probed without a tool")));
        assert!(!tool_attached(Some(OsStr::new("")), || panic!("probed")));
    }

    #[test]
    fn an_injection_path_attaches_a_tool_when_the_library_loads() {
        let nsys = OsStr::new("/opt/nsight-systems/target-linux-x64/libToolsInjection64.so");
        assert!(tool_attached(Some(nsys), || true));
        assert!(!tool_attached(Some(nsys), || false), "no libnvToolsExt");
    }
}
