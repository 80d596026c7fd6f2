//! The main job: train a small decoder-only transformer on the CPU with every
//! kernel profiled, then print the training scorecard and write every report.
//!
//! ```text
//! cargo run --release --example train_tiny                 # defaults: 4 layers, 200 steps
//! cargo run --release --example train_tiny -- --help       # sizes, steps, output directory
//! cargo run --release --example train_tiny -- --ranks 4 --slow-rank 2 --out run  # 4 ranks
//! cargo run --release --example train_tiny -- --ranks 4 --slow-rank 2 --allreduce --out run
//! ```
//!
//! The model lives in `examples/tiny-transformer`: every kernel (forward and
//! backward) is a `#[brick]` with its elements, bytes and FLOPs; each step
//! runs the nine canonical training phases, and every block runs inside a
//! layer scope with its direction; the loss and tokens per second of each
//! step are counters. The tracking allocator charges every allocation to
//! the brick that made it. This file drives the run and the reports.
//!
//! Before training it reads this machine's saved ceilings (`brick-profiler-report
//! probe --save` writes them once, on a quiet machine), or else measures them
//! (bandwidth of every memory level, peak FP32 and FP64 FLOP/s, and whether
//! other work shared the CPU; `--no-ceilings` skips both) and keeps them in
//! the profile: they are the roofline's ceilings and the scorecard's peak
//! unless `PROFILER_HARDWARE` or `PROFILER_PEAK_BW_GB_S` name other
//! hardware. Ceilings measured on a busy machine withhold the grade. With `--baseline-profile FILE` (a saved profile.json) or
//! `--baseline-pytorch FILE` (a torch.profiler Chrome trace, with an
//! optional `--mapping FILE`) it also reports parity per op.
//!
//! For fleets, `--metrics ADDR` serves live metrics on `http://ADDR/metrics`
//! for Prometheus to scrape (port 0 picks a free port; the address is
//! printed), and `--pushgateway URL` pushes them to a Pushgateway every
//! `--push-interval` seconds and once more at exit. With `--ranks N`, rank r
//! serves on the `--metrics` port plus r; `--allreduce` makes the ranks data
//! parallel: each trains on its own batches and every step they average
//! their gradients over loopback TCP (the phase `allreduce`), so a slow
//! rank makes the others wait, as in DDP.

use std::error::Error;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use clap::Parser;
use profiler::hardware::{MemoryLevel, Precision};
use profiler::profile::TraceFormat;
use profiler::{Schedule, sync::SyncMode};
use profiler_metrics::WithMetrics;
use tiny_transformer::{Batch, Config, Model};

// Every allocation is charged to the brick that made it: the report's memory
// section and the scorecard's peak step. Disabled, it costs one load more.
#[global_allocator]
static ALLOC: profiler::alloc::Tracking<std::alloc::System> =
    profiler::alloc::Tracking::new(std::alloc::System);

// Reached by path, so the test that includes this file finds it too.
#[path = "train_tiny/allreduce.rs"]
mod allreduce;
#[path = "train_tiny/ranks.rs"]
mod ranks;
#[path = "train_tiny/reports.rs"]
mod reports;

use reports::{baselines, ceiling_peak, ceilings, parity, roofline, write_reports};

/// Train a tiny transformer on the CPU with every kernel profiled, then print
/// the training scorecard and write profile.json, trace.json (or
/// trace.pftrace, see --trace-format), flamegraph.svg,
/// roofline.svg, report.html and scorecard.json (and parity.* with a
/// baseline).
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
    /// Skip measuring this machine's bandwidth and peak FLOP/s.
    #[arg(long)]
    pub(crate) no_ceilings: bool,
    /// Saved ceilings to judge against (default: this machine's file that
    /// `brick-profiler probe --save` writes in the user's cache directory);
    /// measured now when the file does not exist.
    #[arg(long)]
    pub(crate) saved_ceilings: Option<PathBuf>,
    /// Size of each bandwidth-probe array, MiB (default: from the cache size).
    #[arg(long, hide = true)]
    pub(crate) probe_array_mib: Option<u64>,
    /// Precision of the roof bricks are judged against (fp32, bf16, fp16,
    /// tf32, int8; default fp32 when the hardware has it).
    #[arg(long, value_parser = |s: &str| s.parse::<Precision>())]
    pub(crate) roofline_precision: Option<Precision>,
    /// One memory level for every brick's roof (l1, l2, l3, dram, pcie;
    /// default: each brick's own, the fastest cache its bytes per call fit
    /// in, DRAM past the caches or without cache sizes).
    #[arg(long, value_parser = |s: &str| s.parse::<MemoryLevel>())]
    pub(crate) roofline_level: Option<MemoryLevel>,
    /// Pin one brick's roof level: NAME=LEVEL (repeatable), e.g. MatMul=l2.
    #[arg(long, value_parser = pin)]
    pub(crate) roofline_pin: Vec<(String, MemoryLevel)>,
    /// Report parity against a saved profile of an earlier run (profile.json).
    #[arg(long)]
    pub(crate) baseline_profile: Option<PathBuf>,
    /// Report parity against a PyTorch trace (torch.profiler's Chrome trace).
    #[arg(long)]
    pub(crate) baseline_pytorch: Option<PathBuf>,
    /// Op mapping for --baseline-pytorch (.toml or .json).
    #[arg(long, requires = "baseline_pytorch")]
    pub(crate) mapping: Option<PathBuf>,
    /// Serve live metrics for Prometheus on ADDR (host:port) at /metrics.
    /// With --ranks, rank r serves on port PORT+r (port 0: each rank picks
    /// a free port and prints it).
    #[arg(long, value_name = "ADDR")]
    pub(crate) metrics: Option<String>,
    /// Push live metrics to the Prometheus Pushgateway at URL.
    #[arg(long, value_name = "URL")]
    pub(crate) pushgateway: Option<String>,
    /// Seconds between pushes to --pushgateway.
    #[arg(long, default_value_t = 10.0, requires = "pushgateway")]
    pub(crate) push_interval: f64,
    /// Keep serving --metrics this many seconds after the reports are
    /// written, so a scraper sees the run's final values.
    #[arg(long, default_value_t = 0.0, value_name = "SECS", requires = "metrics")]
    pub(crate) metrics_linger: f64,
    /// Start N processes, one rank each, writing into --out/rank-NNNNN/.
    #[arg(long, value_name = "N")]
    pub(crate) ranks: Option<u32>,
    /// With --ranks: average the ranks' gradients every step over loopback
    /// TCP (a synchronous all-reduce, the phase `allreduce`), each rank
    /// training on its own batches, as data parallelism does.
    #[arg(long)]
    pub(crate) allreduce: bool,
    /// The all-reduce server a rank joins (set by --ranks --allreduce).
    #[arg(long, hide = true, value_name = "ADDR")]
    pub(crate) reduce_server: Option<String>,
    /// The rank that waits three times its training time, and at least
    /// 0.5 s, every step (a straggler to find).
    #[arg(long, value_name = "R")]
    pub(crate) slow_rank: Option<u32>,
    /// Plant a slowdown: BRICK=FACTOR makes that brick take FACTOR times as
    /// long (e.g. RmsNorm=1.15), to test a performance gate.
    #[arg(long, value_name = "BRICK=FACTOR", value_parser = slowdown)]
    pub(crate) slow: Option<(String, f64)>,
    /// Timeline file(s) to write: json (trace.json: HTA, chrome://tracing,
    /// jq), perfetto (trace.pftrace: a fifteenth of the size or less, for
    /// long runs in the Perfetto UI) or both.
    #[arg(long, default_value_t = TraceFormat::Json, value_parser = |s: &str| s.parse::<TraceFormat>())]
    pub(crate) trace_format: TraceFormat,
}

/// Parses `BRICK=FACTOR`.
fn slowdown(s: &str) -> Result<(String, f64), String> {
    let (name, factor) = s
        .split_once('=')
        .ok_or_else(|| format!("`{s}` is not BRICK=FACTOR"))?;
    let factor = factor
        .trim()
        .parse::<f64>()
        .map_err(|e| format!("`{factor}`: {e}"))?;
    Ok((name.trim().to_owned(), factor))
}

/// Parses `NAME=LEVEL`.
fn pin(s: &str) -> Result<(String, MemoryLevel), String> {
    let (name, level) = s
        .split_once('=')
        .ok_or_else(|| format!("`{s}` is not NAME=LEVEL"))?;
    let level = level.parse::<MemoryLevel>().map_err(|e| e.to_string())?;
    Ok((name.trim().to_owned(), level))
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
    if args.allreduce && args.reduce_server.is_none() {
        return Err("--allreduce needs --ranks N (the ranks average their gradients)".into());
    }
    if let Some((brick, factor)) = &args.slow {
        tiny_transformer::slowdown::plant(brick, *factor)?;
    }
    // Baselines are read first, so a bad file fails fast (and before any
    // model runs, even unprofiled).
    let baselines = baselines(args)?;
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
    // Read or measured before training, so the probes and the run never
    // share the CPU.
    let ceilings = if args.no_ceilings {
        None
    } else {
        Some(ceilings(args)?)
    };

    let config = profiler::Config::new()
        .run_name("train_tiny")
        .sync_mode(SyncMode::None) // CPU kernels finish before they return
        .schedule(Schedule::skip_warmup(args.warmup))
        .trace_mode(true)
        .trace_format(args.trace_format);
    let metrics = live_metrics(config, args).enable();

    let slow = ranks::is_slow(args);
    let identity = profiler::rank_identity();
    let mut reduce = args
        .reduce_server
        .as_deref()
        .map(|addr| allreduce::Client::connect(addr, identity.rank))
        .transpose()?;
    let mut losses = Vec::new();
    let mut window = (Instant::now(), 0u64);
    for step in 0..args.steps {
        if step + 1 == args.steps {
            // The execution graph of the last step: its scopes and bricks.
            profiler::Config::new().execution_graph(true).apply();
        }
        let step_guard;
        let started;
        let loss = if let Some(reduce) = reduce.as_mut() {
            // Each rank trains on its own batches; the averaged gradients
            // keep the ranks' weights equal.
            let batch = Batch::generate(
                &cfg,
                step * u64::from(identity.world_size) + u64::from(identity.rank),
            );
            step_guard = profiler::step(tokens_per_step);
            started = Instant::now();
            // The slow rank's extra time comes before the collective, so
            // the others wait for it there.
            model.train_step_with(&batch, |grads| {
                if slow {
                    ranks::extra_work(started.elapsed());
                }
                reduce.all_reduce(grads)
            })?
        } else {
            let batch = Batch::generate(&cfg, step);
            step_guard = profiler::step(tokens_per_step);
            started = Instant::now();
            let loss = model.train_step(&batch);
            if slow {
                ranks::extra_work(started.elapsed());
            }
            loss
        };
        // Recorded inside the step, so each sample sits on its step in the
        // trace; a counter costs about as much as a brick call.
        profiler::counter("loss", f64::from(loss));
        profiler::counter(
            "tok/s",
            tokens_per_step as f64 / started.elapsed().as_secs_f64().max(1e-9),
        );
        drop(step_guard);
        losses.push(loss);
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
    profiler::Config::new()
        .trace_mode(false)
        .execution_graph(false)
        .apply();

    let eval_after = held_out_loss(&mut model, &cfg);

    // Hardware named in the environment wins over the measured ceilings (a
    // bad setting is reported by the scorecard).
    let env_hardware = profiler_report::hardware::from_vars(|k| std::env::var(k).ok())
        .ok()
        .flatten();
    if env_hardware.is_none()
        && let Some(info) = ceilings
            .as_ref()
            .and_then(|c| ceiling_peak(c, &profiler::snapshot()))
    {
        profiler::Config::new().hardware(info).apply();
    }
    let scorecard = profiler_report::scorecard();
    println!("\n{scorecard}");
    let profile = profiler::snapshot();
    let roofline = roofline(&profile, env_hardware.as_ref(), ceilings.as_ref(), args);
    if let Some(r) = &roofline {
        println!("\n{r}");
    }
    let parity = parity(&profile, &baselines);
    if let Some(p) = &parity {
        println!("\n{}", p.terminal);
    }
    let files = write_reports(
        &profile,
        &scorecard,
        roofline.as_ref(),
        parity.as_ref(),
        &baselines,
        &args.out,
    )?;
    if let Ok(linger) = Duration::try_from_secs_f64(args.metrics_linger) {
        std::thread::sleep(linger);
    }
    // The final push, after the profile is written; a failure was printed
    // and does not fail the run.
    let _ = metrics.finish();
    Ok(Outcome {
        losses,
        eval_before,
        eval_after,
        files,
    })
}

/// The profiler settings with the endpoint and the push the flags ask for.
fn live_metrics(config: profiler::Config, args: &Args) -> WithMetrics {
    let mut with = WithMetrics::from(config);
    if let Some(addr) = &args.metrics {
        with = with.metrics_endpoint(addr.as_str());
    }
    if let Some(url) = &args.pushgateway {
        let every =
            Duration::try_from_secs_f64(args.push_interval).unwrap_or(Duration::from_secs(10));
        with = with.pushgateway(url.as_str(), every);
    }
    with
}

fn main() -> std::process::ExitCode {
    let args = Args::parse();
    if let Some(world) = args.ranks {
        return match ranks::launch(&args, world) {
            Ok(()) => std::process::ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("train_tiny: {e}");
                std::process::ExitCode::FAILURE
            }
        };
    }
    match run(&args) {
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
