//! Kernel-level tools on three small problems:
//!
//! 1. a cache-blocked matmul timed per tile (macro, midi and micro tiles);
//! 2. a "fast" softmax checked against a reference by output checksums,
//!    where the fast one is deliberately wrong at one position, and the
//!    check names that position;
//! 3. the execution graph of one training-like step, written as DOT.
//!
//! ```sh
//! cargo run --release --example kernels
//! dot -Tsvg target/kernels/step.dot -o step.svg   # with Graphviz installed
//! ```

use std::path::PathBuf;

use profiler::kernel::{self, TileLevel};
use profiler::{Direction, brick};

const N: usize = 192;
const MACRO: usize = 96;
const MIDI: usize = 48;
const MICRO: usize = 16;

/// `c += a * b` for `N x N` row-major matrices, blocked in three levels.
#[brick("BlockedMatmul", category = Ffn, flops = 2 * N * N * N)]
fn blocked_matmul(a: &[f32], b: &[f32], c: &mut [f32]) {
    for i0 in (0..N).step_by(MACRO) {
        for j0 in (0..N).step_by(MACRO) {
            let macro_tile = kernel::start_tile(TileLevel::Macro, i0 as u32, j0 as u32);
            for k0 in (0..N).step_by(MIDI) {
                let midi_tile = kernel::start_tile(TileLevel::Midi, i0 as u32, k0 as u32);
                for i1 in (i0..i0 + MACRO).step_by(MICRO) {
                    for j1 in (j0..j0 + MACRO).step_by(MICRO) {
                        let micro = kernel::start_tile(TileLevel::Micro, i1 as u32, j1 as u32);
                        micro_kernel(a, b, c, (i1, j1, k0));
                        let (elems, flops) = (MICRO * MICRO, 2 * MICRO * MICRO * MIDI);
                        kernel::stop_tile(micro, elems as u64, flops as u64);
                    }
                }
                let flops = 2 * MACRO * MACRO * MIDI;
                kernel::stop_tile(midi_tile, (MACRO * MIDI) as u64, flops as u64);
            }
            let flops = 2 * MACRO * MACRO * N;
            kernel::stop_tile(macro_tile, (MACRO * MACRO) as u64, flops as u64);
        }
    }
}

/// One `MICRO x MICRO` block of `c` over `MIDI` of the inner dimension.
fn micro_kernel(a: &[f32], b: &[f32], c: &mut [f32], (i1, j1, k0): (usize, usize, usize)) {
    for i in i1..i1 + MICRO {
        for k in k0..k0 + MIDI {
            let aik = a[i * N + k];
            let row = &b[k * N + j1..k * N + j1 + MICRO];
            for (cij, bkj) in c[i * N + j1..i * N + j1 + MICRO].iter_mut().zip(row) {
                *cij += aik * bkj;
            }
        }
    }
}

#[brick(AttentionSoftmax, elements = x.len())]
fn softmax_reference(x: &mut [f32]) {
    let max = x.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let sum: f32 = x
        .iter_mut()
        .map(|v| {
            *v = (*v - max).exp();
            *v
        })
        .sum();
    x.iter_mut().for_each(|v| *v /= sum);
}

/// The "fast" softmax: right everywhere but at `wrong_at`, where it forgets
/// to subtract the maximum (a real class of bug: it only shows on large
/// logits).
#[brick("SoftmaxFast", category = Attention, elements = x.len())]
fn softmax_fast(x: &mut [f32], position: usize, wrong_at: usize) {
    let max = if position == wrong_at {
        0.0
    } else {
        x.iter().copied().fold(f32::NEG_INFINITY, f32::max)
    };
    let sum: f32 = x
        .iter_mut()
        .map(|v| {
            *v = (*v - max).exp();
            *v
        })
        .sum();
    x.iter_mut().for_each(|v| *v /= sum);
}

fn logits(position: usize) -> Vec<f32> {
    (0..128)
        .map(|i| ((i * 31 + position * 17) % 97) as f32 * 0.9 - 20.0)
        .collect()
}

#[brick(RmsNorm, elements = x.len())]
fn rms_norm(x: &mut [f32]) {
    let ms = x.iter().map(|v| v * v).sum::<f32>() / x.len() as f32;
    let scale = 1.0 / (ms + 1e-6).sqrt();
    x.iter_mut().for_each(|v| *v *= scale);
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let out = PathBuf::from("target/kernels");
    std::fs::create_dir_all(&out)?;

    // 1. Tiles.
    profiler::Config::new().tile_profiling(true).enable();
    let a: Vec<f32> = (0..N * N).map(|i| (i % 7) as f32 * 0.25).collect();
    let b: Vec<f32> = (0..N * N).map(|i| (i % 5) as f32 * 0.5).collect();
    let mut c = vec![0.0f32; N * N];
    for _ in 0..3 {
        blocked_matmul(&a, &b, &mut c);
    }
    profiler::Config::new().tile_profiling(false).apply();
    let profile = profiler::snapshot();
    let tiles = kernel::TileTable::from(profile.tiles.clone());
    println!("Tiled {N}x{N} matmul, 3 runs:");
    print!(
        "{}",
        profiler_report::kernel::format_tile_table_text(&tiles, None)
    );

    // 2. Checksums: the reference run, then the fast kernel, then compare.
    profiler::reset();
    for position in 0..8 {
        let mut x = logits(position);
        softmax_reference(&mut x);
        kernel::record_checksum("softmax", 0, position as u64, &x);
    }
    let reference = profiler::snapshot();
    profiler::reset();
    for position in 0..8 {
        let mut x = logits(position);
        softmax_fast(&mut x, position, 5);
        kernel::record_checksum("softmax", 0, position as u64, &x);
    }
    let fast = profiler::snapshot();
    println!("\nFast softmax against the reference:");
    match kernel::find_divergence(&reference.checksums, &fast.checksums) {
        Some(divergence) => println!(
            "{}",
            profiler_report::kernel::format_divergence_line(&divergence)
        ),
        None => println!("no divergence"),
    }
    let report = kernel::compare_checksums(&reference.checksums, &fast.checksums);
    print!(
        "{}",
        profiler_report::kernel::format_divergence_text(&report)
    );

    // 3. The execution graph of one step: two layers of norm + matmul.
    profiler::reset();
    profiler::Config::new().execution_graph(true).apply();
    {
        let _step = profiler::step(N as u64);
        for layer in 0..2u32 {
            let _layer = profiler::layer(layer, Direction::Forward);
            let mut x = c[..N].to_vec();
            rms_norm(&mut x);
            blocked_matmul(&a, &b, &mut c);
        }
    }
    profiler::Config::new().execution_graph(false).apply();
    let graph = profiler::snapshot().graph.ok_or("the graph was on")?;
    let dot = out.join("step.dot");
    std::fs::write(&dot, profiler_report::graph::dot(&graph))?;
    println!("\nExecution graph of one step:");
    print!("{}", profiler_report::graph::ascii_tree(&graph));
    let summary = profiler_report::kernel::critical_path_summary(&graph, 5);
    print!(
        "{}",
        profiler_report::kernel::format_critical_path_text(&summary)
    );
    println!("wrote {}", dot.display());
    profiler::disable();
    Ok(())
}
