//! Size, write time and peak memory of the two timeline formats for a
//! trace-mode run of 1 000 000 brick calls: Chrome's JSON (`trace.json`,
//! `write_chrome_trace`) and Perfetto's protobuf (`trace.pftrace`,
//! `write_perfetto_trace`). The target: the protobuf file is at most a
//! fifth of the JSON file (exit status 1 otherwise).
//!
//! The run is synthetic but shaped like the main job's: steps of two phases
//! (forward, backward) of 8 layer scopes each, bricks of 10 kinds with
//! their layer, direction, elements, bytes and FLOPs, a loss and a tokens/s
//! counter per step. Peak memory is the heap high-water mark above the
//! profile itself during each write, from a counting global allocator.
//! `TRACE_FORMATS_BRICKS` sets the number of brick calls; a debug build
//! (`cargo test --all-targets`) writes 20 000 as a smoke test.
//!
//! ```text
//! cargo bench -p brick-profiler-report --bench trace_formats
//! ```

use std::alloc::{GlobalAlloc, Layout, System};
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::time::Instant;

use profiler_core::trace::{
    CounterSample, CounterTrack, EventKind, ThreadTimeline, Timeline, TimelineEvent,
};
use profiler_core::{BrickCategory, BrickStats, Direction, Profile};

/// The system allocator, counting live bytes and their high-water mark.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call forwards to `System` with the caller's layout; the
// counters are plain atomics.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller upholds `alloc`'s contract, passed on as is.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let live = LIVE.fetch_add(layout.size(), Relaxed) + layout.size();
            PEAK.fetch_max(live, Relaxed);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `alloc` with this layout.
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Relaxed);
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

const BRICKS: [(&str, BrickCategory); 10] = [
    ("RmsNorm", BrickCategory::Norm),
    ("MatMul", BrickCategory::Ffn),
    ("Rope", BrickCategory::Attention),
    ("Attention", BrickCategory::Attention),
    ("Softmax", BrickCategory::Attention),
    ("MatMul", BrickCategory::Ffn),
    ("Silu", BrickCategory::Ffn),
    ("MatMul", BrickCategory::Ffn),
    ("Residual", BrickCategory::Other),
    ("AdamW", BrickCategory::Other),
];
const LAYERS: u32 = 8;

/// A run of `bricks` brick calls, `per_step` per step.
fn run(bricks: usize, per_step: usize) -> Profile {
    let mut p = Profile::empty();
    p.run.name = "trace-formats".into();
    p.run.pid = 4242;
    for (name, category) in BRICKS {
        if !p.bricks.iter().any(|b| b.name == name) {
            p.bricks.push(BrickStats::new(name, category));
        }
    }
    let mut names: Vec<String> = vec!["forward".into(), "backward".into()];
    names.extend((0..LAYERS).map(|l| format!("layer {l}")));
    names.extend(BRICKS.iter().map(|(n, _)| (*n).to_owned()));
    let first_brick = 2 + LAYERS;
    let mut events = Vec::with_capacity(bricks + bricks / per_step * 20);
    let (mut t, mut seed) = (0u64, 0x2545_f491_4f6c_dd1du64);
    let mut jitter = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % 4_000
    };
    let mut loss = Vec::new();
    let mut rate = Vec::new();
    let steps = bricks.div_ceil(per_step);
    let per_layer = per_step / (2 * LAYERS as usize);
    let mut left = bricks;
    for step in 0..steps {
        let name = u32::try_from(names.len()).unwrap_or(u32::MAX);
        names.push(format!("step {step}"));
        let step_at = events.len();
        events.push(TimelineEvent::span(EventKind::Step, name, t, 0));
        for (phase, direction) in [(0, Direction::Forward), (1, Direction::Backward)] {
            let phase_at = events.len();
            events.push(TimelineEvent::span(EventKind::Phase, phase, t, 0));
            for layer in 0..LAYERS {
                let layer_at = events.len();
                let mut scope = TimelineEvent::span(EventKind::Layer, 2 + layer, t, 0);
                scope.layer = Some(layer);
                scope.direction = Some(direction);
                events.push(scope);
                for k in 0..per_layer.min(left) {
                    let kind = k % BRICKS.len();
                    let dur = 2_000 + jitter();
                    let mut call =
                        TimelineEvent::span(EventKind::Brick, first_brick + kind as u32, t, dur);
                    call.layer = Some(layer);
                    call.direction = Some(direction);
                    call.elements = 4_096 * (kind as u64 + 1);
                    call.bytes = 4 * call.elements;
                    call.flops = 2 * call.elements * 64;
                    events.push(call);
                    t += dur + 150;
                    left -= 1;
                }
                events[layer_at].dur_ns = t - events[layer_at].start_ns;
                t += 300;
            }
            events[phase_at].dur_ns = t - events[phase_at].start_ns;
        }
        let step_ns = t - events[step_at].start_ns;
        events[step_at].dur_ns = step_ns;
        events[step_at].elements = 4_096;
        loss.push((t, 4.0 / (1.0 + step as f64)));
        rate.push((t, 4_096.0 * 1e9 / step_ns as f64));
        t += 1_000;
    }
    p.timeline = Timeline {
        names,
        threads: vec![ThreadTimeline {
            thread: 0,
            name: Some("main".into()),
            events,
        }],
        dropped: 0,
        device_starts: Vec::new(),
    };
    let track = |name: &str, values: Vec<(u64, f64)>| CounterTrack {
        name: name.into(),
        samples: values
            .into_iter()
            .map(|(t_ns, value)| CounterSample {
                t_ns,
                value,
                thread: 0,
            })
            .collect(),
    };
    p.counter_tracks = vec![track("loss", loss), track("tokens_per_s", rate)];
    p
}

/// Size (bytes), seconds and peak heap above the start (bytes) of `write`.
fn measure(path: &std::path::Path, write: impl FnOnce()) -> (u64, f64, usize) {
    let base = LIVE.load(Relaxed);
    PEAK.store(base, Relaxed);
    let start = Instant::now();
    write();
    let secs = start.elapsed().as_secs_f64();
    let peak = PEAK.load(Relaxed).saturating_sub(base);
    let size = std::fs::metadata(path).map_or(0, |m| m.len());
    (size, secs, peak)
}

fn mib(bytes: f64) -> String {
    format!("{:.1} MiB", bytes / (1024.0 * 1024.0))
}

fn main() -> ExitCode {
    let bricks = std::env::var("TRACE_FORMATS_BRICKS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(if cfg!(debug_assertions) {
            20_000
        } else {
            1_000_000
        });
    let profile = run(bricks, 480);
    let events = profile.timeline.event_count();
    let dir = tempfile::tempdir().expect("a temporary directory");
    let (json, pftrace) = (
        dir.path().join("trace.json"),
        dir.path().join("trace.pftrace"),
    );
    let js = measure(&json, || {
        profiler_report::write_chrome_trace(&profile, &json).expect("trace.json written");
    });
    let pf = measure(&pftrace, || {
        profiler_report::write_perfetto_trace(&profile, &pftrace).expect("trace.pftrace written");
    });
    println!("{bricks} brick calls, {events} timeline events (steps, phases, layers, bricks)");
    println!("| format | file | bytes per brick | write | peak heap during write |");
    println!("|---|---|---|---|---|");
    for (name, (size, secs, peak)) in [("trace.json", js), ("trace.pftrace", pf)] {
        println!(
            "| {name} | {} | {:.1} | {secs:.2} s | {} |",
            mib(size as f64),
            size as f64 / bricks as f64,
            mib(peak as f64)
        );
    }
    let ratio = js.0 as f64 / pf.0.max(1) as f64;
    println!("JSON / pftrace size: {ratio:.2} (target: at least 5)");
    if ratio < 5.0 {
        eprintln!("trace_formats: trace.pftrace is more than a fifth of trace.json");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}
