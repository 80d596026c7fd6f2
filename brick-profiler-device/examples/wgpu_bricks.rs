//! A matmul and a softmax in WGSL, each a brick timed on the GPU through
//! wgpu timestamp queries, printed beside the host's time for the same call
//! (encode, submit and wait). Runs on any Vulkan, Metal or DX12 adapter
//! with timestamp queries; on Linux without a GPU, Mesa's lavapipe will do.
//!
//! ```text
//! cargo run -p brick-profiler-device --features wgpu --example wgpu_bricks
//! ```

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use profiler::brick;
use profiler::sync::{self, SyncMode};
use profiler_device::wgpu::{TimedDevice, WgpuTimer};
use wgpu::util::DeviceExt;

const MATMUL: &str = r"
struct Dims { m: u32, n: u32, k: u32, pad: u32 }
@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> b: array<f32>;
@group(0) @binding(2) var<storage, read_write> c: array<f32>;
@group(0) @binding(3) var<uniform> dims: Dims;

@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    if (id.y >= dims.m || id.x >= dims.n) { return; }
    var acc = 0.0;
    for (var i = 0u; i < dims.k; i++) {
        acc += a[id.y * dims.k + i] * b[i * dims.n + id.x];
    }
    c[id.y * dims.n + id.x] = acc;
}
";

const SOFTMAX: &str = r"
struct Dims { m: u32, n: u32, k: u32, pad: u32 }
@group(0) @binding(0) var<storage, read_write> x: array<f32>;
@group(0) @binding(1) var<uniform> dims: Dims;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    if (id.x >= dims.m) { return; }
    let base = id.x * dims.n;
    var top = x[base];
    for (var j = 1u; j < dims.n; j++) { top = max(top, x[base + j]); }
    var sum = 0.0;
    for (var j = 0u; j < dims.n; j++) {
        let e = exp(x[base + j] - top);
        x[base + j] = e;
        sum += e;
    }
    for (var j = 0u; j < dims.n; j++) { x[base + j] = x[base + j] / sum; }
}
";

/// A compute pipeline with its bound buffers and its grid.
struct Kernel {
    pipeline: wgpu::ComputePipeline,
    bindings: wgpu::BindGroup,
    groups: (u32, u32),
}

struct Gpu {
    device: wgpu::Device,
    queue: wgpu::Queue,
    timer: WgpuTimer,
}

impl Gpu {
    fn buffer(&self, floats: usize, usage: wgpu::BufferUsages) -> wgpu::Buffer {
        let data: Vec<f32> = (0..floats).map(|i| (i % 17) as f32 / 17.0).collect();
        let bytes: Vec<u8> = data.iter().flat_map(|v| v.to_le_bytes()).collect();
        self.device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: None,
                contents: &bytes,
                usage,
            })
    }

    fn kernel(&self, source: &str, buffers: &[&wgpu::Buffer], groups: (u32, u32)) -> Kernel {
        let module = self
            .device
            .create_shader_module(wgpu::ShaderModuleDescriptor {
                label: None,
                source: wgpu::ShaderSource::Wgsl(source.into()),
            });
        let pipeline = self
            .device
            .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: None,
                layout: None,
                module: &module,
                entry_point: Some("main"),
                compilation_options: Default::default(),
                cache: None,
            });
        let entries: Vec<_> = buffers
            .iter()
            .enumerate()
            .map(|(i, b)| wgpu::BindGroupEntry {
                binding: i as u32,
                resource: b.as_entire_binding(),
            })
            .collect();
        let bindings = self.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: None,
            layout: &pipeline.get_bind_group_layout(0),
            entries: &entries,
        });
        Kernel {
            pipeline,
            bindings,
            groups,
        }
    }

    /// One compute pass with the timer's timestamp writes, submitted.
    fn run(&self, kernel: &Kernel) {
        let mut encoder = self.device.create_command_encoder(&Default::default());
        {
            let stamps = self.timer.pass_writes();
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: None,
                timestamp_writes: stamps.as_ref().map(|s| s.writes()),
            });
            pass.set_pipeline(&kernel.pipeline);
            pass.set_bind_group(0, &kernel.bindings, &[]);
            pass.dispatch_workgroups(kernel.groups.0, kernel.groups.1, 1);
        }
        let commands = encoder.finish();
        // The pass cannot begin before this: it anchors device starts.
        self.timer.submitting();
        self.queue.submit([commands]);
    }

    fn wait(&self) {
        if let Err(e) = self.device.poll(wgpu::PollType::wait_indefinitely()) {
            eprintln!("waiting for the device failed: {e}");
        }
    }
}

#[brick("wgsl_matmul", category = Ffn)]
fn matmul(gpu: &Gpu, kernel: &Kernel) {
    gpu.run(kernel);
}

#[brick("wgsl_softmax", category = Attention)]
fn softmax(gpu: &Gpu, kernel: &Kernel) {
    gpu.run(kernel);
}

fn dims(gpu: &Gpu, m: u32, n: u32, k: u32) -> wgpu::Buffer {
    let bytes: Vec<u8> = [m, n, k, 0].iter().flat_map(|v| v.to_le_bytes()).collect();
    gpu.device
        .create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: None,
            contents: &bytes,
            usage: wgpu::BufferUsages::UNIFORM,
        })
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let TimedDevice {
        adapter,
        device,
        queue,
    } = TimedDevice::open(wgpu::Backends::PRIMARY)?;
    println!("adapter: {}", adapter.get_info().name);
    let timer = WgpuTimer::new(&device, &queue)?;
    let gpu = Gpu {
        device,
        queue,
        timer: timer.clone(),
    };
    profiler::Config::new()
        .sync_mode(SyncMode::Deferred)
        .device_timer(timer)
        .enable();

    let n = 128;
    let storage = wgpu::BufferUsages::STORAGE;
    let (a, b, c) = (
        gpu.buffer(n * n, storage),
        gpu.buffer(n * n, storage),
        gpu.buffer(n * n, storage),
    );
    let mm_dims = dims(&gpu, n as u32, n as u32, n as u32);
    let groups = (n as u32).div_ceil(8);
    let mm = gpu.kernel(MATMUL, &[&a, &b, &c, &mm_dims], (groups, groups));
    let rows = 256u32;
    let x = gpu.buffer(rows as usize * 1024, storage);
    let sm_dims = dims(&gpu, rows, 1024, 0);
    let sm = gpu.kernel(SOFTMAX, &[&x, &sm_dims], (rows.div_ceil(64), 1));

    // The host's view of each call: encode, submit and wait for the device.
    let mut host: BTreeMap<&str, Duration> = BTreeMap::new();
    let rounds = 10;
    for _ in 0..rounds {
        sync::reset_epoch();
        let t = Instant::now();
        matmul(&gpu, &mm);
        gpu.wait();
        *host.entry("wgsl_matmul").or_default() += t.elapsed();
        let t = Instant::now();
        softmax(&gpu, &sm);
        gpu.wait();
        *host.entry("wgsl_softmax").or_default() += t.elapsed();
        sync::finalize(sync::elapsed_ns());
    }

    let profile = profiler::snapshot();
    println!(
        "{:<14} {:>6} {:>16} {:>16}",
        "brick", "calls", "device mean", "host mean"
    );
    for (name, total) in &host {
        let Some(stats) = profile.brick(name) else {
            println!("{name:<14} not recorded");
            continue;
        };
        let device_us = stats.total_ns as f64 / stats.count.max(1) as f64 / 1e3;
        let host_us = total.as_secs_f64() * 1e6 / f64::from(rounds);
        println!(
            "{name:<14} {:>6} {device_us:>13.1} us {host_us:>13.1} us",
            stats.count
        );
    }
    for note in &profile.run.notes {
        println!("note: {note}");
    }
    profiler::disable();
    Ok(())
}
