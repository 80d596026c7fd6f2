//! Kernels compiled at run time with NVRTC, launched inside nested bricks
//! and steps with CUPTI capture on, then checked against what the issue of
//! kernel capture asks, exiting non-zero when something is off:
//! - every kernel launched inside a brick is attributed to it (none
//!   without a captured launch), and the one launched before any brick is
//!   counted apart, by name;
//! - the nested block's total device time is its children's sum;
//! - each brick's CUPTI device time agrees with its CUDA-event time within
//!   2% (one kernel per brick, so the two measure the same work);
//! - the capture's cost on a launch-heavy loop, per launch and as a share
//!   of the loop, against the same loop before capture started.
//!
//! ```text
//! cargo run --release -p brick-profiler-device --features cupti --example cupti_bricks -- [OUT_DIR]
//! ```
//!
//! With `OUT_DIR`, the profile is written there as `profile.json`. Without
//! a CUDA driver, or without CUPTI, the example says why and exits with
//! status 2.

use std::sync::Arc;
use std::time::Instant;

use cudarc::driver::{CudaFunction, CudaSlice, CudaStream, LaunchConfig, PushKernelArg};
use profiler::brick;
use profiler::sync::{self, SyncMode};
use profiler_device::cuda::{CudaTimer, default_stream};
use profiler_device::cupti::{CuptiCapture, CuptiConfig};

const KERNELS: &str = r#"
extern "C" __global__ void saxpy(float a, const float* x, float* y, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { y[i] = a * x[i] + y[i]; }
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

/// Elements of the saxpy brick.
const SAXPY_N: u32 = 16 << 20;
/// Side of the square matmul.
const MATMUL_N: u32 = 1024;
/// Steps of the attributed run.
const STEPS: u64 = 20;
/// Launches of the launch-heavy loop (tiny saxpys, one brick each).
const LAUNCHES: u32 = 20_000;
/// How far CUPTI and CUDA-event device times of one brick may differ.
const AGREEMENT: f64 = 0.02;

type Failure = Box<dyn std::error::Error>;

struct Gpu {
    stream: Arc<CudaStream>,
    saxpy: CudaFunction,
    matmul: CudaFunction,
    x: CudaSlice<f32>,
    y: CudaSlice<f32>,
    a: CudaSlice<f32>,
    b: CudaSlice<f32>,
    c: CudaSlice<f32>,
}

impl Gpu {
    fn new(stream: Arc<CudaStream>) -> Result<Self, Failure> {
        let module = stream
            .context()
            .load_module(cudarc::nvrtc::compile_ptx(KERNELS)?)?;
        let square = (MATMUL_N * MATMUL_N) as usize;
        let ones = vec![1.0_f32; SAXPY_N as usize];
        Ok(Self {
            saxpy: module.load_function("saxpy")?,
            matmul: module.load_function("matmul")?,
            x: stream.clone_htod(&ones)?,
            y: stream.alloc_zeros(SAXPY_N as usize)?,
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
        // both hold SAXPY_N floats, the most this example asks for.
        unsafe { launch.launch(LaunchConfig::for_num_elems(n)) }?;
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
}

#[brick("cupti_saxpy", category = Other)]
fn saxpy(gpu: &mut Gpu) -> Result<(), Failure> {
    gpu.saxpy(SAXPY_N)
}

#[brick("cupti_matmul", category = Ffn)]
fn matmul(gpu: &mut Gpu) -> Result<(), Failure> {
    gpu.matmul()
}

#[brick("cupti_block", category = Other)]
fn block(gpu: &mut Gpu) -> Result<(), Failure> {
    saxpy(gpu)?;
    matmul(gpu)
}

#[brick("cupti_tiny", category = Other)]
fn tiny(gpu: &mut Gpu) -> Result<(), Failure> {
    gpu.saxpy(256)
}

fn main() {
    let stream = match default_stream(0) {
        Ok(stream) => stream,
        Err(why) => {
            eprintln!("no CUDA device: {why}");
            std::process::exit(2);
        }
    };
    match run(stream) {
        Ok(problems) if problems.is_empty() => println!("all checks passed"),
        Ok(problems) => {
            problems.iter().for_each(|p| eprintln!("FAILED: {p}"));
            std::process::exit(1);
        }
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    }
}

/// Seconds per launch of the launch-heavy loop.
fn launch_loop(gpu: &mut Gpu) -> Result<f64, Failure> {
    gpu.stream.synchronize()?;
    let start = Instant::now();
    for _ in 0..LAUNCHES {
        tiny(gpu)?;
    }
    gpu.stream.synchronize()?;
    sync::finalize(sync::elapsed_ns());
    Ok(start.elapsed().as_secs_f64() / f64::from(LAUNCHES))
}

fn run(stream: Arc<CudaStream>) -> Result<Vec<String>, Failure> {
    let mut gpu = Gpu::new(Arc::clone(&stream))?;
    let timer = CudaTimer::on_stream(Arc::clone(&stream));
    profiler::Config::new()
        .sync_mode(SyncMode::Deferred)
        .device_timer(timer.clone())
        .enable();
    // Warm up, then the launch-heavy loop before capture starts.
    launch_loop(&mut gpu)?;
    let without = launch_loop(&mut gpu)?;
    let capture = match CuptiCapture::start(CuptiConfig::default()) {
        Ok(capture) => capture,
        Err(why) => {
            eprintln!("no kernel capture: {why}");
            std::process::exit(2);
        }
    };
    profiler::Config::new()
        .sync_mode(SyncMode::Deferred)
        .device_timer(timer.with_capture(capture))
        .enable();
    let with = launch_loop(&mut gpu)?;
    profiler::reset();
    capture.clear();
    // Launched before any brick: counted apart, by name.
    gpu.saxpy(SAXPY_N)?;
    for tokens in 0..STEPS {
        let _step = profiler::step(tokens + 1);
        block(&mut gpu)?;
        gpu.stream.synchronize()?;
        sync::finalize(sync::elapsed_ns());
    }
    let profile = profiler::snapshot();
    if let Some(dir) = std::env::args().nth(1) {
        profile.write(std::path::Path::new(&dir).join("profile.json"))?;
    }
    let mut problems = Vec::new();
    let Some(device) = &profile.device_kernels else {
        return Ok(vec!["the profile has no device kernels".into()]);
    };
    device.notes().iter().for_each(|n| println!("note: {n}"));
    let extra_ns = (with - without) * 1e9;
    println!(
        "launch loop: {:.2} µs per launch without capture, {:.2} µs with ({extra_ns:.0} ns, \
         {:+.1}%)",
        without * 1e6,
        with * 1e6,
        (with / without - 1.0) * 100.0
    );
    if device.unknown_launch.activities > 0 {
        problems.push(format!(
            "{} activities without a captured launch",
            device.unknown_launch.activities
        ));
    }
    if device.outside_bricks.activities != 1 {
        problems.push(format!(
            "{} activities outside bricks, expected the one saxpy",
            device.outside_bricks.activities
        ));
    }
    let kernels = |name: &str| device.brick(name).map_or(0, |b| b.self_ns);
    let block_total = device.brick("cupti_block").map_or(0, |b| b.total_ns);
    if block_total != kernels("cupti_saxpy") + kernels("cupti_matmul") {
        problems.push(format!(
            "the block's total {block_total} ns is not its children's sum"
        ));
    }
    for name in ["cupti_saxpy", "cupti_matmul"] {
        let events = profile.brick(name).map_or(0, |b| b.total_ns);
        let cupti = kernels(name);
        let gap = (cupti as f64 - events as f64).abs() / (events.max(1) as f64);
        println!(
            "{name}: CUDA events {events} ns, CUPTI {cupti} ns over {STEPS} calls ({:.2}% apart)",
            gap * 100.0
        );
        if gap > AGREEMENT {
            problems.push(format!(
                "{name}: CUPTI and CUDA events differ by {:.2}%",
                gap * 100.0
            ));
        }
    }
    Ok(problems)
}
