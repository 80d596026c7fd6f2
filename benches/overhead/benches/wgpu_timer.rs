//! The wgpu device timer's CPU cost per brick, from record to read-back:
//! bricks that each encode one empty compute pass, with the timer (deferred
//! mode, timestamp writes, `finalize` reading the timestamps back) against
//! the same loop unprofiled. Needs an adapter with timestamp queries
//! (lavapipe on Linux).
//!
//! ```text
//! cargo bench -p overhead-bench --features wgpu --bench wgpu_timer
//! ```

use std::hint::black_box;
use std::process::ExitCode;

use overhead_bench::measure::thread_cpu_ns;
use profiler::brick;
use profiler::device::wgpu::{TimedDevice, WgpuTimer};
use profiler::sync::{self, SyncMode};

/// Bricks per pass (one `finalize` each), and timed passes.
const BRICKS: u64 = 2_000;
const PASSES: usize = 5;

const EMPTY: &str = "@compute @workgroup_size(1) fn main() {}";

struct Rig {
    device: wgpu::Device,
    queue: wgpu::Queue,
    timer: WgpuTimer,
    pipeline: wgpu::ComputePipeline,
}

impl Rig {
    fn encode(&self, encoder: &mut wgpu::CommandEncoder, timed: bool) {
        let stamps = timed.then(|| self.timer.pass_writes()).flatten();
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: None,
            timestamp_writes: stamps.as_ref().map(|s| s.writes()),
        });
        pass.set_pipeline(&self.pipeline);
        pass.dispatch_workgroups(1, 1, 1);
    }
}

#[brick("empty_pass")]
fn timed_brick(rig: &Rig, encoder: &mut wgpu::CommandEncoder) {
    rig.encode(encoder, true);
}

/// Host CPU ns of one pass of `BRICKS` bricks: the calling loop, and the
/// work after the device finished (`finalize`, read-back included).
fn one_pass(rig: &Rig, timed: bool) -> (u64, u64) {
    let mut encoder = rig.device.create_command_encoder(&Default::default());
    sync::reset_epoch();
    let start = thread_cpu_ns().unwrap_or(0);
    for _ in 0..BRICKS {
        if timed {
            timed_brick(rig, &mut encoder);
        } else {
            rig.encode(&mut encoder, false);
        }
    }
    let looped = thread_cpu_ns().unwrap_or(0) - start;
    rig.queue.submit([encoder.finish()]);
    let _ = rig.device.poll(wgpu::PollType::wait_indefinitely());
    let start = thread_cpu_ns().unwrap_or(0);
    if timed {
        sync::finalize(sync::elapsed_ns());
    }
    (looped, thread_cpu_ns().unwrap_or(0) - start)
}

fn main() -> ExitCode {
    let TimedDevice {
        adapter,
        device,
        queue,
    } = match TimedDevice::open(wgpu::Backends::PRIMARY) {
        Ok(opened) => opened,
        Err(e) => {
            eprintln!("wgpu timer bench: {e}");
            return ExitCode::FAILURE;
        }
    };
    let timer = match WgpuTimer::new(&device, &queue) {
        Ok(timer) => timer,
        Err(e) => {
            eprintln!("wgpu timer bench: {e}");
            return ExitCode::FAILURE;
        }
    };
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: None,
        source: wgpu::ShaderSource::Wgsl(EMPTY.into()),
    });
    let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: None,
        layout: None,
        module: &module,
        entry_point: Some("main"),
        compilation_options: Default::default(),
        cache: None,
    });
    let rig = Rig {
        device,
        queue,
        timer: timer.clone(),
        pipeline,
    };
    profiler::Config::new()
        .sync_mode(SyncMode::Deferred)
        .device_timer(timer)
        .enable();
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!(
        "wgpu timer bench: {}, {BRICKS} bricks x {PASSES} passes, load average {}",
        adapter.get_info().name,
        load.split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" ")
    );
    black_box(one_pass(&rig, true)); // warm-up: query sets, pipelines
    let (mut plain, mut timed, mut finalize) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..PASSES {
        plain.push(one_pass(&rig, false).0);
        let (looped, fin) = one_pass(&rig, true);
        timed.push(looped);
        finalize.push(fin);
    }
    let profile = profiler::snapshot();
    let recorded = profile.brick("empty_pass").map_or(0, |b| b.count);
    let expected = BRICKS * (PASSES as u64 + 1);
    let per = |v: &mut Vec<u64>| {
        v.sort_unstable();
        v[v.len() / 2] as f64 / BRICKS as f64
    };
    let (plain, timed, finalize) = (per(&mut plain), per(&mut timed), per(&mut finalize));
    println!("{:<44} {:>10}", "per brick (median pass, thread CPU)", "ns");
    println!(
        "{:<44} {plain:>10.0}",
        "encode one compute pass, unprofiled"
    );
    println!(
        "{:<44} {timed:>10.0}",
        "same pass as a brick with timestamp writes"
    );
    println!(
        "{:<44} {finalize:>10.0}",
        "finalize: resolve, read back, attribute"
    );
    println!(
        "{:<44} {:>10.0}",
        "wgpu timer cost, record to read-back",
        timed - plain + finalize
    );
    println!(
        "bricks recorded {recorded} of {expected}, fallbacks {}",
        profile.counters.device_timer_fallbacks
    );
    profiler::disable();
    if recorded == expected && profile.counters.device_timer_fallbacks == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
