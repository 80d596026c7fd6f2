//! Execution traces: a small two-worker inference loop traced with
//! `#[trace_op]` (shapes, device) and trace mode (timeline of steps,
//! phases and bricks), then analysed and exported.
//!
//! ```text
//! cargo run --release --example trace
//! ```
//!
//! Writes `target/trace/trace.json` (open in <https://ui.perfetto.dev> or
//! `chrome://tracing`), `flamegraph.svg` (any browser) and
//! `speedscope.json` (<https://www.speedscope.app>), and prints the slowest
//! ops and what `profiler_report::trace` finds: per-device totals, the load
//! imbalance between the two workers and the communication share.

use std::error::Error;
use std::path::Path;
use std::process::ExitCode;

use profiler::{brick, trace::TensorShape, trace_op};
use profiler_report::trace;

/// A row-major matrix: the "tensor" of this example.
#[derive(Clone)]
struct Matrix {
    rows: usize,
    cols: usize,
    data: Vec<f32>,
}

impl TensorShape for Matrix {
    fn shape(&self) -> Vec<usize> {
        vec![self.rows, self.cols]
    }
    fn element_size(&self) -> usize {
        size_of::<f32>()
    }
}

impl Matrix {
    fn filled(rows: usize, cols: usize, seed: u32) -> Self {
        let mut state = seed.wrapping_mul(2_654_435_761).max(1);
        let data = (0..rows * cols)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 17;
                state ^= state << 5;
                (state as f32 / u32::MAX as f32 - 0.5) * 0.1
            })
            .collect();
        Self { rows, cols, data }
    }
}

/// `a · b` on worker `device`.
#[trace_op(name = "matmul", device = device, shapes(a, b))]
#[brick("Matmul", category = Ffn, flops = 2 * a.rows * a.cols * b.cols)]
fn matmul(a: &Matrix, b: &Matrix, device: usize) -> Matrix {
    let mut out = Matrix {
        rows: a.rows,
        cols: b.cols,
        data: vec![0.0; a.rows * b.cols],
    };
    for (a_row, o_row) in a
        .data
        .chunks_exact(a.cols)
        .zip(out.data.chunks_exact_mut(b.cols))
    {
        for (&a_ip, b_row) in a_row.iter().zip(b.data.chunks_exact(b.cols)) {
            for (o, &b_pj) in o_row.iter_mut().zip(b_row) {
                *o += a_ip * b_pj;
            }
        }
    }
    out
}

/// Row-wise softmax on worker `device`.
#[trace_op(name = "softmax", device = device, shapes(x))]
#[brick(Softmax, elements = x.data.len())]
fn softmax(mut x: Matrix, device: usize) -> Matrix {
    for row in x.data.chunks_exact_mut(x.cols) {
        let max = row.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let mut sum = 0.0;
        for v in row.iter_mut() {
            *v = (*v - max).exp();
            sum += *v;
        }
        row.iter_mut().for_each(|v| *v /= sum);
    }
    x
}

/// Combines the workers' partial results (a stand-in for an all-reduce).
/// It runs on the host, so it has no device: per-device analyses skip it.
#[trace_op(name = "allreduce")]
#[brick("AllReduce")]
fn all_reduce(parts: &[Matrix]) -> Matrix {
    let mut out = parts[0].clone();
    for part in &parts[1..] {
        out.data
            .iter_mut()
            .zip(&part.data)
            .for_each(|(o, p)| *o += p);
    }
    out
}

const STEPS: u32 = 20;

/// One worker "device": runs its share of every step, handing each result
/// to the main thread. Worker 1 gets twice the rows: a deliberate imbalance.
fn worker(device: usize, weights: &[Matrix; 2], results: &std::sync::mpsc::Sender<Matrix>) {
    let rows = 32 * (device + 1);
    for step in 0..STEPS {
        let _fwd = profiler::phase("forward");
        let x = Matrix::filled(rows, 256, step + 10 * device as u32);
        let h = softmax(matmul(&x, &weights[0], device), device);
        let y = matmul(&h, &weights[1], device);
        let part = Matrix {
            rows: 32,
            cols: y.cols,
            data: y.data[..32 * y.cols].to_vec(),
        };
        if results.send(part).is_err() {
            return;
        }
    }
}

fn run() -> Result<(), Box<dyn Error>> {
    let weights = [Matrix::filled(256, 256, 1), Matrix::filled(256, 192, 2)];
    profiler::Config::new().run_name("trace").apply();
    profiler::Config::new().trace_mode(true).apply();
    profiler::enable();
    std::thread::scope(|s| {
        let receivers: Vec<_> = (0..2usize)
            .map(|device| {
                let (tx, rx) = std::sync::mpsc::channel();
                let weights = &weights;
                s.spawn(move || worker(device, weights, &tx));
                rx
            })
            .collect();
        for _ in 0..STEPS {
            let _step = profiler::step(2 * 64);
            let parts: Vec<Matrix> = receivers.iter().filter_map(|rx| rx.recv().ok()).collect();
            let _reduce = profiler::phase("reduce");
            std::hint::black_box(all_reduce(&parts));
        }
    });
    profiler::disable();
    let profile = profiler::snapshot();

    let trace = &profile.trace;
    println!(
        "{} trace entries over {} steps",
        trace.entries.len(),
        profile.steps.count
    );
    println!("\nslowest ops (RecordedExecutionTrace::slowest_ops):");
    for e in trace.slowest_ops(3) {
        let device = e.device_id.as_deref().unwrap_or("?");
        println!(
            "  {:<10} device {device:<5} {:>8.1} µs  {:?} -> {:?}",
            e.operation, e.duration_us, e.input_shapes, e.output_shape
        );
    }
    println!("\nTrace analysis, per device:");
    for (device, s) in trace::per_device_summary(trace) {
        println!(
            "  {device:<5} {:>3} ops, {:>6.1} ms",
            s.op_count,
            s.total_duration_us / 1e3
        );
    }
    if let Some(lb) = trace::load_balance_metrics(trace) {
        println!(
            "load imbalance over {} devices: {:.0}% (ideal {:.1} ms each)",
            lb.device_count,
            lb.imbalance_ratio * 100.0,
            lb.ideal_duration_us / 1e3
        );
    }
    for c in trace::communication_bottlenecks(trace, 0.0) {
        println!(
            "communication: {} {:.1}% of traced time",
            c.operation,
            c.ratio_of_total * 100.0
        );
    }

    let out = Path::new("target/trace");
    std::fs::create_dir_all(out).map_err(|e| format!("cannot create `{}`: {e}", out.display()))?;
    let write = |name: &str, bytes: &[u8]| {
        let path = out.join(name);
        profiler::fs::write_atomic(&path, bytes)
            .map_err(|e| format!("cannot write `{}`: {e}", path.display()))
    };
    for warning in profiler_report::write_chrome_trace(&profile, out.join("trace.json"))?.warnings {
        println!("trace.json: {warning}");
    }
    let folded = profiler_report::folded_stacks(&profile);
    if !folded.is_empty() {
        write(
            "flamegraph.svg",
            profiler_report::flamegraph_svg(&folded, "trace")?.as_bytes(),
        )?;
    }
    write(
        "speedscope.json",
        profiler_report::speedscope_json(&profile).as_bytes(),
    )?;
    println!(
        "\nwrote {0}/trace.json, {0}/flamegraph.svg, {0}/speedscope.json",
        out.display()
    );
    Ok(())
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("trace: {e}");
            ExitCode::FAILURE
        }
    }
}
