//! Memory per brick slot and per timeline event, and `snapshot()` time with
//! 1000 bricks on each of 16 live threads.
//!
//! Runs in a fresh child process (`--slots-phase`), before any other
//! profiler has allocated and freed memory, so that resident-set deltas are
//! not hidden by memory the allocator reuses.

use std::hint::black_box;
use std::process::Command;
use std::sync::{Arc, Barrier};
use std::time::Instant;

use serde_json::{Value, json};

use crate::measure::{Memory, Summary};
use crate::subjects::rms_norm;

/// Live threads recording during the snapshot benchmark.
pub const THREADS: usize = 16;
/// Custom bricks each of them records.
pub const BRICKS: usize = 1000;
/// Timeline events recorded to measure the per-event buffer memory.
pub const EVENTS: u64 = 1_000_000;
/// Marks the child's result line on stdout.
const MARKER: &str = "SLOTS_JSON ";

/// What the child process measured.
#[derive(Debug, Clone)]
pub struct SlotsResult {
    /// malloc bytes per brick slot per thread (the reserved cell size).
    pub slot_allocated: Option<f64>,
    /// Resident bytes per brick slot per thread (pages actually touched).
    pub slot_resident: Option<f64>,
    /// malloc bytes per timeline event.
    pub event_allocated: Option<f64>,
    /// Resident bytes per timeline event.
    pub event_resident: Option<f64>,
    /// `snapshot()` durations, ns.
    pub snapshot_ns: Vec<f64>,
    /// Whether every snapshot saw all 1000 bricks with 16 samples each.
    pub counts_ok: bool,
}

impl SlotsResult {
    /// Median/min/max of the snapshot durations, ns.
    #[must_use]
    pub fn snapshot(&self) -> Option<Summary> {
        Summary::of(&self.snapshot_ns)
    }

    fn to_json(&self) -> Value {
        json!({
            "slot_allocated_bytes": self.slot_allocated,
            "slot_resident_bytes": self.slot_resident,
            "event_allocated_bytes": self.event_allocated,
            "event_resident_bytes": self.event_resident,
            "snapshot_ns": self.snapshot_ns,
            "counts_ok": self.counts_ok,
        })
    }

    fn from_json(v: &Value) -> SlotsResult {
        SlotsResult {
            slot_allocated: v["slot_allocated_bytes"].as_f64(),
            slot_resident: v["slot_resident_bytes"].as_f64(),
            event_allocated: v["event_allocated_bytes"].as_f64(),
            event_resident: v["event_resident_bytes"].as_f64(),
            snapshot_ns: v["snapshot_ns"]
                .as_array()
                .map(|a| a.iter().filter_map(Value::as_f64).collect())
                .unwrap_or_default(),
            counts_ok: v["counts_ok"].as_bool().unwrap_or(false),
        }
    }
}

/// Runs this phase in a child process (this executable, `--slots-phase`).
///
/// # Errors
/// If the child cannot run or prints no result.
pub fn run_in_child(snapshots: usize) -> Result<SlotsResult, String> {
    let exe = std::env::current_exe().map_err(|e| format!("current exe: {e}"))?;
    let output = Command::new(exe)
        .args(["--slots-phase", &snapshots.to_string()])
        .output()
        .map_err(|e| format!("run slots phase: {e}"))?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    let line = stdout
        .lines()
        .find_map(|l| l.strip_prefix(MARKER))
        .ok_or_else(|| {
            format!(
                "slots phase printed no result ({}): {}",
                output.status,
                String::from_utf8_lossy(&output.stderr)
            )
        })?;
    let value: Value = serde_json::from_str(line).map_err(|e| format!("slots result: {e}"))?;
    Ok(SlotsResult::from_json(&value))
}

/// The child's work: measures everything and prints one marked JSON line.
pub fn child_main(snapshots: usize) {
    profiler::enable();
    let (events_thread, event_allocated, event_resident) = event_memory();
    let result = slot_memory_and_snapshots(snapshots.max(1));
    drop(events_thread);
    let result = SlotsResult {
        event_allocated,
        event_resident,
        ..result
    };
    println!("{MARKER}{}", result.to_json());
}

/// Bytes per timeline event, on a fresh thread in trace mode. The thread
/// stays alive (until the returned sender drops), so the slot measurement
/// that follows cannot reuse its memory; after the `reset()` its events are
/// of an old generation, which snapshots skip.
fn event_memory() -> (std::sync::mpsc::Sender<()>, Option<f64>, Option<f64>) {
    profiler::Config::new().trace_mode(true).apply();
    profiler::reset();
    let (done_tx, done_rx) = std::sync::mpsc::channel::<()>();
    let (result_tx, result_rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        // The first call registers the thread and allocates its first chunks.
        black_box(rms_norm(0));
        let before = Memory::now();
        for i in 1..EVENTS {
            black_box(rms_norm(black_box(i)));
        }
        let _ = result_tx.send(Memory::now().per_unit_since(before, EVENTS - 1));
        let _ = done_rx.recv();
    });
    let (allocated, resident) = result_rx.recv().unwrap_or((None, None));
    profiler::Config::new().trace_mode(false).apply();
    profiler::reset();
    (done_tx, allocated, resident)
}

/// Bytes per brick slot per thread, then timed snapshots with the threads alive.
fn slot_memory_and_snapshots(snapshots: usize) -> SlotsResult {
    let names: Arc<Vec<String>> = Arc::new((0..BRICKS).map(|i| format!("slot-{i:04}")).collect());
    // Intern the names first, so the name table is not counted per slot.
    // The timed string API (`start`/`stop`) records into the same per-thread
    // cells as `#[brick]`; `record_elapsed` would use the exact-ns side table.
    for name in names.iter() {
        profiler::compat::stop(profiler::compat::start(name), 0);
    }
    profiler::reset();
    let barrier = Arc::new(Barrier::new(THREADS + 1));
    let threads: Vec<_> = (0..THREADS)
        .map(|_| {
            let (names, barrier) = (Arc::clone(&names), Arc::clone(&barrier));
            std::thread::spawn(move || {
                // Registers the thread; allocates the built-in bricks' chunk.
                profiler::compat::stop(profiler::compat::start("RmsNorm"), 0);
                barrier.wait();
                barrier.wait();
                for name in names.iter() {
                    profiler::compat::stop(profiler::compat::start(name), 1);
                }
                barrier.wait();
                barrier.wait();
            })
        })
        .collect();
    barrier.wait();
    let before = Memory::now();
    barrier.wait();
    barrier.wait();
    let (slot_allocated, slot_resident) =
        Memory::now().per_unit_since(before, (THREADS * BRICKS) as u64);
    let mut snapshot_ns = Vec::with_capacity(snapshots);
    let mut counts_ok = true;
    for _ in 0..snapshots {
        let start = Instant::now();
        let profile = black_box(profiler::snapshot());
        snapshot_ns.push(start.elapsed().as_nanos() as f64);
        counts_ok &= names
            .iter()
            .all(|n| profile.brick(n).is_some_and(|b| b.count == THREADS as u64));
    }
    barrier.wait();
    for t in threads {
        let _ = t.join();
    }
    SlotsResult {
        slot_allocated,
        slot_resident,
        event_allocated: None,
        event_resident: None,
        snapshot_ns,
        counts_ok,
    }
}
