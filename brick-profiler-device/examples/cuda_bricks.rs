//! CUDA kernels compiled at run time with NVRTC, each launched inside a
//! brick timed by CUDA events on the stream, printed beside the host's view
//! of the same call. Then it checks what a device timer must get right, and
//! exits non-zero when something is off:
//! - the bricks of growing work (saxpy over 1, 4 and 16 Mi elements) get
//!   growing device times;
//! - a kernel that spins a known number of cycles takes at least that many
//!   cycles at the device's highest clock;
//! - a call's device time is at most the host's wall time around its launch
//!   and sync;
//! - 10,000 deferred bricks are all attributed, with no event lost;
//! - kernels queued behind a long one start on the device, on the host's
//!   clock, where the one before them ended, and the long one, on an idle
//!   stream, just after its brick began (device starts are anchored).
//!
//! ```text
//! cargo run -p brick-profiler-device --features cuda --example cuda_bricks -- [OUT_DIR]
//! ```
//!
//! With `OUT_DIR`, the profile is written there as `profile.json`. Without
//! a CUDA driver the example says so and exits with status 2. Where NVRTC
//! is missing, `CUDA_BRICKS_PTX=FILE` loads the kernels from PTX instead
//! (`nvcc -ptx` of the source printed by `--source`).

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use cudarc::driver::sys::CUdevice_attribute;
use cudarc::driver::{CudaFunction, CudaSlice, CudaStream, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::Ptx;
use profiler::brick;
use profiler::sync::{self, SyncMode};
use profiler_device::REANCHOR_NS;
use profiler_device::cuda::{CudaTimer, default_stream};

const KERNELS: &str = r#"
extern "C" __global__ void saxpy(float a, const float* x, float* y, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { y[i] = a * x[i] + y[i]; }
}

extern "C" __global__ void spin(long long cycles) {
    long long start = clock64();
    while (clock64() - start < cycles) { }
}

extern "C" __global__ void matmul(const float* a, const float* b, float* c, unsigned int n) {
    unsigned int row = blockIdx.y * blockDim.y + threadIdx.y;
    unsigned int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= n || col >= n) { return; }
    float acc = 0.0f;
    for (unsigned int k = 0; k < n; ++k) { acc += a[row * n + k] * b[k * n + col]; }
    c[row * n + col] = acc;
}
"#;

/// Cycles the `spin` kernel waits.
const SPIN_CYCLES: i64 = 2_000_000;
/// Side of the square matmul.
const MATMUL_N: u32 = 1024;
/// Rounds of the per-call comparison.
const ROUNDS: u32 = 20;
/// Bricks of the deferred run, and how many go between two finalizes.
const DEFERRED: u32 = 10_000;
const BATCH: u32 = 500;
/// Short kernels queued behind the spin, with no sync between.
const QUEUED: usize = 4;
/// How far two device-anchored times may disagree with what the stream's
/// order implies (timer resolution and anchor error).
const ORDER_SLACK_NS: u64 = 5_000;
/// How long after its brick began the spin may start on an idle stream
/// (the launch's latency).
const IDLE_START_NS: u64 = 100_000;

type Failure = Box<dyn std::error::Error>;

struct Gpu {
    stream: Arc<CudaStream>,
    saxpy: CudaFunction,
    spin: CudaFunction,
    matmul: CudaFunction,
    x: CudaSlice<f32>,
    y: CudaSlice<f32>,
    a: CudaSlice<f32>,
    b: CudaSlice<f32>,
    c: CudaSlice<f32>,
}

impl Gpu {
    fn new(stream: Arc<CudaStream>) -> Result<Self, Failure> {
        let ptx = match std::env::var_os("CUDA_BRICKS_PTX") {
            Some(path) => Ptx::from_src(std::fs::read_to_string(path)?),
            None => cudarc::nvrtc::compile_ptx(KERNELS)?,
        };
        let module = stream.context().load_module(ptx)?;
        let biggest = 16 << 20;
        let square = (MATMUL_N * MATMUL_N) as usize;
        let ones = vec![1.0_f32; biggest];
        Ok(Self {
            saxpy: module.load_function("saxpy")?,
            spin: module.load_function("spin")?,
            matmul: module.load_function("matmul")?,
            x: stream.clone_htod(&ones)?,
            y: stream.alloc_zeros(biggest)?,
            a: stream.clone_htod(&ones[..square])?,
            b: stream.clone_htod(&ones[..square])?,
            c: stream.alloc_zeros(square)?,
            stream,
        })
    }

    fn saxpy(&mut self, n: u32) -> Result<(), Failure> {
        let mut launch = self.stream.launch_builder(&self.saxpy);
        launch.arg(&2.0_f32).arg(&self.x).arg(&mut self.y).arg(&n);
        // SAFETY: the kernel reads `n` floats of x and writes `n` of y, and
        // both hold 16 Mi floats, the most this example asks for.
        unsafe { launch.launch(LaunchConfig::for_num_elems(n)) }?;
        Ok(())
    }

    fn spin(&self) -> Result<(), Failure> {
        let mut launch = self.stream.launch_builder(&self.spin);
        launch.arg(&SPIN_CYCLES);
        let one = LaunchConfig {
            grid_dim: (1, 1, 1),
            block_dim: (1, 1, 1),
            shared_mem_bytes: 0,
        };
        // SAFETY: the kernel touches no memory.
        unsafe { launch.launch(one) }?;
        Ok(())
    }

    fn matmul(&mut self) -> Result<(), Failure> {
        let n = MATMUL_N;
        let mut launch = self.stream.launch_builder(&self.matmul);
        launch.arg(&self.a).arg(&self.b).arg(&mut self.c).arg(&n);
        let tiles = LaunchConfig {
            grid_dim: (n.div_ceil(16), n.div_ceil(16), 1),
            block_dim: (16, 16, 1),
            shared_mem_bytes: 0,
        };
        // SAFETY: a, b and c hold n×n floats; threads outside return.
        unsafe { launch.launch(tiles) }?;
        Ok(())
    }

    fn sync(&self) -> Result<(), Failure> {
        self.stream.synchronize()?;
        Ok(())
    }
}

#[brick("saxpy_1m", category = Other)]
fn saxpy_1m(gpu: &mut Gpu) -> Result<(), Failure> {
    gpu.saxpy(1 << 20)
}

#[brick("saxpy_4m", category = Other)]
fn saxpy_4m(gpu: &mut Gpu) -> Result<(), Failure> {
    gpu.saxpy(4 << 20)
}

#[brick("saxpy_16m", category = Other)]
fn saxpy_16m(gpu: &mut Gpu) -> Result<(), Failure> {
    gpu.saxpy(16 << 20)
}

#[brick("spin_2m_cycles", category = Other)]
fn spin(gpu: &mut Gpu) -> Result<(), Failure> {
    gpu.spin()
}

#[brick("matmul_1024", category = Ffn)]
fn matmul(gpu: &mut Gpu) -> Result<(), Failure> {
    gpu.matmul()
}

type Launch = fn(&mut Gpu) -> Result<(), Failure>;

const BRICKS: [(&str, Launch); 5] = [
    ("saxpy_1m", saxpy_1m),
    ("saxpy_4m", saxpy_4m),
    ("saxpy_16m", saxpy_16m),
    ("spin_2m_cycles", spin),
    ("matmul_1024", matmul),
];

/// The host's view of one brick: time in the launch call, and wall time
/// from before the launch to after the stream's sync.
#[derive(Default)]
struct Host {
    launch: Duration,
    wall: Duration,
    /// The shortest wall time of a call: a call's device time is at most it.
    shortest_wall: Option<Duration>,
}

fn main() {
    if std::env::args().nth(1).as_deref() == Some("--source") {
        print!("{KERNELS}");
        return;
    }
    let stream = match default_stream(0) {
        Ok(stream) => stream,
        Err(why) => {
            eprintln!("no CUDA device to time: {why}");
            std::process::exit(2);
        }
    };
    match run(stream) {
        Ok(problems) if problems.is_empty() => println!("all checks passed"),
        Ok(problems) => {
            for p in &problems {
                eprintln!("FAILED: {p}");
            }
            std::process::exit(1);
        }
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    }
}

fn run(stream: Arc<CudaStream>) -> Result<Vec<String>, Failure> {
    // The timer records its events on the stream the kernels run on.
    let timer = CudaTimer::on_stream(Arc::clone(&stream));
    let context = stream.context().clone();
    let clock_khz = context.attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_CLOCK_RATE)?;
    println!(
        "device: {} (highest SM clock {clock_khz} kHz)",
        context.name()?
    );
    let mut gpu = Gpu::new(stream)?;
    profiler::Config::new()
        .sync_mode(SyncMode::Deferred)
        .device_timer(timer.clone())
        .trace_mode(true)
        .enable();

    // Warm up: module load, first-launch costs and clocks.
    for (_, launch) in BRICKS {
        launch(&mut gpu)?;
    }
    gpu.sync()?;
    sync::finalize(sync::elapsed_ns());
    profiler::reset();

    let mut host: BTreeMap<&str, Host> = BTreeMap::new();
    for _ in 0..ROUNDS {
        for (name, launch) in BRICKS {
            let t = Instant::now();
            launch(&mut gpu)?;
            let launched = t.elapsed();
            gpu.sync()?;
            let wall = t.elapsed();
            let h = host.entry(name).or_default();
            h.launch += launched;
            h.wall += wall;
            h.shortest_wall = Some(h.shortest_wall.map_or(wall, |s| s.min(wall)));
        }
        sync::finalize(sync::elapsed_ns());
    }
    let profile = profiler::snapshot();
    let mut problems = Vec::new();
    println!(
        "{:<16} {:>5} {:>14} {:>14} {:>14} {:>14}",
        "brick", "calls", "device mean", "device min", "launch mean", "wall mean"
    );
    let mut device_means = BTreeMap::new();
    for (name, _) in BRICKS {
        let h = &host[name];
        let Some(stats) = profile.brick(name) else {
            problems.push(format!("{name}: not recorded"));
            continue;
        };
        let mean_us = stats.total_ns as f64 / stats.count.max(1) as f64 / 1e3;
        let min_us = stats.min_ns as f64 / 1e3;
        let per_call = |d: Duration| d.as_secs_f64() * 1e6 / f64::from(ROUNDS);
        println!(
            "{name:<16} {:>5} {mean_us:>11.1} us {min_us:>11.1} us {:>11.1} us {:>11.1} us",
            stats.count,
            per_call(h.launch),
            per_call(h.wall),
        );
        device_means.insert(name, mean_us);
        if stats.count != u64::from(ROUNDS) {
            problems.push(format!(
                "{name}: {} calls recorded, {ROUNDS} made",
                stats.count
            ));
        }
        let shortest = h.shortest_wall.unwrap_or_default();
        if Duration::from_nanos(stats.min_ns) > shortest {
            problems.push(format!(
                "{name}: shortest device time {} ns exceeds the shortest wall time {} ns",
                stats.min_ns,
                shortest.as_nanos()
            ));
        }
    }
    let growing = ["saxpy_1m", "saxpy_4m", "saxpy_16m"].map(|n| device_means.get(n).copied());
    if let [Some(small), Some(medium), Some(large)] = growing
        && !(small < medium && medium < large)
    {
        problems.push(format!(
            "saxpy device means do not grow with the work: {small:.1} / {medium:.1} / {large:.1} us"
        ));
    }
    if let Some(stats) = profile.brick("spin_2m_cycles") {
        let floor_ns = SPIN_CYCLES as f64 / f64::from(clock_khz) * 1e6;
        println!("spin floor: {floor_ns:.0} ns at the highest clock");
        if (stats.min_ns as f64) < floor_ns {
            problems.push(format!(
                "spin: {} ns is below {floor_ns:.0} ns, its cycles at the highest clock",
                stats.min_ns
            ));
        }
    }
    for note in &profile.run.notes {
        println!("note: {note}");
    }
    deferred(&mut gpu, &timer, &mut problems)?;
    queued(&mut gpu, &timer, &mut problems)?;
    if let Some(dir) = std::env::args_os().nth(1) {
        let path = std::path::Path::new(&dir).join("profile.json");
        profiler::snapshot().write(&path)?;
        println!("wrote {}", path.display());
    }
    profiler::disable();
    Ok(problems)
}

/// The deferred pattern of a training step: many bricks launched, one sync,
/// one finalize. Every brick must be attributed and every event returned.
fn deferred(gpu: &mut Gpu, timer: &CudaTimer, problems: &mut Vec<String>) -> Result<(), Failure> {
    profiler::reset();
    let started = Instant::now();
    for _ in 0..DEFERRED / BATCH {
        for _ in 0..BATCH {
            saxpy_1m(gpu)?;
        }
        gpu.sync()?;
        sync::finalize(sync::elapsed_ns());
    }
    let wall = started.elapsed();
    let profile = profiler::snapshot();
    let count = profile.brick("saxpy_1m").map_or(0, |s| s.count);
    let device_ns = profile.brick("saxpy_1m").map_or(0, |s| s.total_ns);
    println!(
        "deferred: {count} bricks in {:.1} ms wall, {:.1} ms device",
        wall.as_secs_f64() * 1e3,
        device_ns as f64 / 1e6
    );
    if count != u64::from(DEFERRED) {
        problems.push(format!("deferred: {count} of {DEFERRED} bricks attributed"));
    }
    if u128::from(device_ns) > wall.as_nanos() {
        problems.push(format!(
            "deferred: device total {device_ns} ns exceeds the wall time {} ns",
            wall.as_nanos()
        ));
    }
    if let Some(stats) = timer.stats() {
        println!("event pool: {stats:?}");
        if stats.in_flight != 0 || stats.dropped != 0 {
            problems.push(format!("event pool after the last finalize: {stats:?}"));
        }
    }
    Ok(())
}

/// A spin, then short kernels queued behind it with no sync between. On
/// the host they all launch within microseconds; on the device each starts
/// where the one before it ended. Their device starts, anchored to the
/// host clock, must show that order, and the spin, launched on an idle
/// stream, must start just after its brick began on the host. The anchor
/// is over a second old by then, so the spin's start event renews it.
fn queued(gpu: &mut Gpu, timer: &CudaTimer, problems: &mut Vec<String>) -> Result<(), Failure> {
    profiler::reset();
    gpu.sync()?;
    let anchors = timer.stats().map_or(0, |s| s.anchors);
    std::thread::sleep(Duration::from_nanos(REANCHOR_NS + REANCHOR_NS / 10));
    spin(gpu)?;
    for _ in 0..QUEUED {
        saxpy_1m(gpu)?;
    }
    gpu.sync()?;
    sync::finalize(sync::elapsed_ns());
    let profile = profiler::snapshot();
    let timeline = &profile.timeline;
    // (device start, device duration, host time the brick began, name)
    let mut kernels = Vec::new();
    for thread in &timeline.threads {
        for start in timeline
            .device_starts
            .iter()
            .filter(|d| d.thread == thread.thread)
        {
            if let Some(event) = thread.events.get(start.event as usize) {
                kernels.push((
                    start.start_ns,
                    event.dur_ns,
                    event.start_ns,
                    timeline.name_of(event),
                ));
            }
        }
    }
    kernels.sort_unstable();
    println!("queued: device start, duration and host launch, us from the spin's device start");
    let origin = kernels.first().map_or(0, |k| k.0);
    let us = |t: u64| (t as f64 - origin as f64) / 1e3;
    for (start, dur, launched, name) in &kernels {
        println!(
            "  {name:<16} start {:>9.1}  duration {:>8.1}  host launch {:>9.1}",
            us(*start),
            *dur as f64 / 1e3,
            us(*launched)
        );
    }
    if kernels.len() != QUEUED + 1 {
        problems.push(format!(
            "queued: {} device starts recorded, {} kernels launched",
            kernels.len(),
            QUEUED + 1
        ));
        return Ok(());
    }
    let (spin_start, spin_dur, spin_launched, first) = kernels[0];
    if first != "spin_2m_cycles" {
        problems.push(format!(
            "queued: {first} started first on the device, not the spin"
        ));
    }
    if spin_start < spin_launched || spin_start > spin_launched + IDLE_START_NS {
        problems.push(format!(
            "queued: the spin started {:.1} us after its brick began, on an idle stream",
            (spin_start as f64 - spin_launched as f64) / 1e3
        ));
    }
    for pair in kernels.windows(2) {
        let (before, after) = (pair[0], pair[1]);
        if after.0 + ORDER_SLACK_NS < before.0 + before.1 {
            problems.push(format!(
                "queued: {} starts {:.1} us before the {} ahead of it ended",
                after.3,
                (before.0 + before.1 - after.0) as f64 / 1e3,
                before.3
            ));
        }
    }
    // The first short kernel waited for the spin: its device start is far
    // past its launch.
    let (next_start, _, next_launched, _) = kernels[1];
    if next_start < next_launched + spin_dur / 2 {
        problems.push(format!(
            "queued: the kernel behind the spin started {:.1} us after its launch, \
             not about the spin's {:.1} us later",
            (next_start as f64 - next_launched as f64) / 1e3,
            spin_dur as f64 / 1e3
        ));
    }
    let renewed = timer.stats().map_or(0, |s| s.anchors);
    if renewed <= anchors {
        problems.push(format!(
            "queued: no new anchor after a second idle ({anchors} before, {renewed} after)"
        ));
    }
    if let Some(gap) = profile.run.launch_gap {
        println!(
            "launch gap: {} bricks, mean {:.1} us, max {:.1} us",
            gap.bricks,
            gap.mean_ns / 1e3,
            gap.max_ns as f64 / 1e3
        );
    }
    Ok(())
}
