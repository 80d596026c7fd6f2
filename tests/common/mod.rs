//! Shared set-up for integration tests: the profiler is one global, so each
//! test takes an exclusive lock and starts from a clean, enabled profiler.

#![allow(dead_code, unreachable_pub)]

use std::sync::{Mutex, MutexGuard, PoisonError};

static LOCK: Mutex<()> = Mutex::new(());

/// Locks the profiler for one test and resets it to defaults, enabled.
pub fn exclusive() -> MutexGuard<'static, ()> {
    let guard = LOCK.lock().unwrap_or_else(PoisonError::into_inner);
    profiler::disable();
    profiler::Config::new()
        .trace_mode(false)
        .sync_mode(profiler::sync::SyncMode::Deferred)
        .clear_sync_hook()
        .clear_device_timer()
        .schedule(None)
        .pending_capacity(profiler::sync::DEFAULT_PENDING_CAPACITY)
        .subtract_overhead(false)
        .apply();
    profiler::reset();
    profiler::enable();
    guard
}

/// Count of the brick `name` in a fresh snapshot (0 when absent).
pub fn count(name: &str) -> u64 {
    profiler::snapshot().brick(name).map_or(0, |b| b.count)
}
