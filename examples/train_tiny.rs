//! The main job: train a small decoder-only transformer on the CPU with every
//! kernel profiled, then print the training scorecard and write every report.
//!
//! ```text
//! cargo run --release --example train_tiny                 # defaults: 4 layers, 200 steps
//! cargo run --release --example train_tiny -- --help       # sizes, steps, output directory
//! ```
//!
//! The model lives in `examples/tiny-transformer`: every kernel (forward and
//! backward) is a `#[brick]` with its elements, bytes and FLOPs; each step
//! runs the nine canonical training phases, and every block runs inside a
//! layer scope with its direction. This file drives the run and the reports.

use std::error::Error;
use std::path::{Path, PathBuf};
use std::time::Instant;

use clap::Parser;
use profiler::{Profile, Schedule, sync::SyncMode};
use profiler_report::{HtmlReport, TrainingScorecard};
use tiny_transformer::{Batch, Config, Model};

/// Train a tiny transformer on the CPU with every kernel profiled, then print
/// the training scorecard and write profile.json, trace.json, flamegraph.svg,
/// report.html and scorecard.json.
#[derive(Debug, Clone, Parser)]
#[command(name = "train_tiny")]
pub(crate) struct Args {
    /// Training steps.
    #[arg(long, default_value_t = 200)]
    pub(crate) steps: u64,
    /// Transformer layers.
    #[arg(long, default_value_t = 4)]
    pub(crate) layers: usize,
    /// Model width (d_model); a multiple of --heads with an even head size.
    #[arg(long, default_value_t = 64)]
    pub(crate) width: usize,
    /// Attention heads.
    #[arg(long, default_value_t = 4)]
    pub(crate) heads: usize,
    /// Tokens per sequence.
    #[arg(long, default_value_t = 64)]
    pub(crate) seq: usize,
    /// Sequences per batch.
    #[arg(long, default_value_t = 4)]
    pub(crate) batch: usize,
    /// Adam learning rate.
    #[arg(long, default_value_t = 5e-3)]
    pub(crate) lr: f32,
    /// Warm-up steps left out of the profile.
    #[arg(long, default_value_t = 3)]
    pub(crate) warmup: u64,
    /// Print a progress line every N steps.
    #[arg(long, default_value_t = 25)]
    pub(crate) log_every: u64,
    /// Directory for the reports.
    #[arg(long, default_value = "target/profile")]
    pub(crate) out: PathBuf,
    /// Seed of the weights and the data.
    #[arg(long, default_value_t = 42)]
    pub(crate) seed: u64,
}

impl Args {
    /// The model configuration, checked.
    fn config(&self) -> Result<Config, String> {
        let cfg = Config {
            vocab: 64,
            d_model: self.width,
            n_layers: self.layers,
            n_heads: self.heads,
            // SwiGLU's usual 8/3 expansion, rounded up to a multiple of 8.
            d_ff: (self.width * 8 / 3).div_ceil(8) * 8,
            seq_len: self.seq,
            batch: self.batch,
            lr: self.lr,
            seed: self.seed,
        };
        cfg.check()?;
        if self.steps == 0 {
            return Err("--steps must be > 0".to_owned());
        }
        if self.warmup >= self.steps {
            return Err(format!(
                "--warmup ({}) must be below --steps ({})",
                self.warmup, self.steps
            ));
        }
        Ok(cfg)
    }
}

/// What a run produced.
#[derive(Debug)]
pub(crate) struct Outcome {
    /// Training loss of every step.
    pub(crate) losses: Vec<f32>,
    /// Held-out loss before training.
    pub(crate) eval_before: f32,
    /// Held-out loss after training.
    pub(crate) eval_after: f32,
    /// Files written, in order.
    pub(crate) files: Vec<PathBuf>,
}

/// Mean loss over a few held-out batches (steps far beyond any training step).
fn held_out_loss(model: &mut Model, cfg: &Config) -> f32 {
    let batches = 4;
    let total: f32 = (0..batches)
        .map(|i| model.forward_loss(&Batch::generate(cfg, 1_000_000 + i)))
        .sum();
    total / batches as f32
}

/// Trains, profiles and writes the reports.
///
/// # Errors
/// A bad configuration, or a report that cannot be written.
pub(crate) fn run(args: &Args) -> Result<Outcome, Box<dyn Error>> {
    let cfg = args.config()?;
    let mut model = Model::new(&cfg);
    let tokens_per_step = (cfg.batch * cfg.seq_len) as u64;
    println!(
        "train_tiny: {} layers, width {}, {} heads, seq {}, batch {}: {} parameters, {} steps",
        cfg.n_layers,
        cfg.d_model,
        cfg.n_heads,
        cfg.seq_len,
        cfg.batch,
        cfg.num_params(),
        args.steps
    );
    let eval_before = held_out_loss(&mut model, &cfg); // not profiled: recording is off

    profiler::Config::new().run_name("train_tiny").apply();
    profiler::sync::set_sync_mode(SyncMode::None); // CPU kernels finish before they return
    profiler::Config::new()
        .schedule(Schedule::skip_warmup(args.warmup))
        .apply();
    profiler::Config::new().trace_mode(true).apply();
    profiler::enable();

    let mut losses = Vec::new();
    let mut window = (Instant::now(), 0u64);
    for step in 0..args.steps {
        let batch = Batch::generate(&cfg, step);
        let step_guard = profiler::step(tokens_per_step);
        losses.push(model.train_step(&batch));
        drop(step_guard);
        window.1 += tokens_per_step;
        let done = step + 1;
        if done % args.log_every.max(1) == 0 || done == args.steps {
            let recent = &losses[losses.len().saturating_sub(args.log_every.max(1) as usize)..];
            let loss = recent.iter().sum::<f32>() / recent.len() as f32;
            let tok_s = window.1 as f64 / window.0.elapsed().as_secs_f64();
            println!(
                "step {done:>5}/{}  loss {loss:.4}  {tok_s:>9.0} tok/s",
                args.steps
            );
            window = (Instant::now(), 0);
        }
    }
    profiler::disable();
    profiler::Config::new().trace_mode(false).apply();

    let eval_after = held_out_loss(&mut model, &cfg);

    let scorecard = profiler_report::scorecard();
    println!("\n{scorecard}");
    let files = write_reports(&profiler::snapshot(), &scorecard, &args.out)?;
    Ok(Outcome {
        losses,
        eval_before,
        eval_after,
        files,
    })
}

/// Writes profile.json, trace.json, flamegraph.svg, report.html and
/// scorecard.json (usable as a baseline) into `out`.
fn write_reports(
    profile: &Profile,
    scorecard: &TrainingScorecard,
    out: &Path,
) -> Result<Vec<PathBuf>, Box<dyn Error>> {
    std::fs::create_dir_all(out).map_err(|e| format!("cannot create `{}`: {e}", out.display()))?;
    let path = |name: &str| out.join(name);

    let mut files = Vec::new();
    profile.write(path("profile.json"))?;
    files.push(path("profile.json"));
    for warning in profiler_report::write_chrome_trace(profile, path("trace.json"))?.warnings {
        println!("trace.json: {warning}");
    }
    files.push(path("trace.json"));
    // No stacks at all (e.g. built with the `off` feature): no flamegraph.
    let folded = profiler_report::folded_stacks(profile);
    let svg = if folded.is_empty() {
        None
    } else {
        let svg = profiler_report::flamegraph_svg(&folded, "train_tiny")?;
        profiler::__private::write_atomic(&path("flamegraph.svg"), svg.as_bytes())
            .map_err(|e| format!("cannot write `{}`: {e}", path("flamegraph.svg").display()))?;
        files.push(path("flamegraph.svg"));
        Some(svg)
    };
    let mut report = HtmlReport::new(profile)
        .title("train_tiny")
        .scorecard(scorecard);
    if let Some(svg) = svg {
        report = report.flamegraph_svg(svg);
    }
    profiler_report::write_html_report(&report.render(), path("report.html"))?;
    files.push(path("report.html"));
    scorecard.save_baseline(path("scorecard.json"))?;
    files.push(path("scorecard.json"));
    Ok(files)
}

fn main() -> std::process::ExitCode {
    match run(&Args::parse()) {
        Ok(outcome) => {
            let tail = &outcome.losses[outcome.losses.len().saturating_sub(10)..];
            let last = tail.iter().sum::<f32>() / tail.len().max(1) as f32;
            println!(
                "training loss (last 10 steps) {last:.4}; held-out loss {:.4} -> {:.4}; wrote:",
                outcome.eval_before, outcome.eval_after
            );
            for file in &outcome.files {
                println!("  {}", file.display());
            }
            std::process::ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("train_tiny: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
