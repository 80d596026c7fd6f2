//! The run: the model built under the tracing layer, forward passes as
//! profiled steps, then the scorecard, the roofline and the HTML report.

use std::error::Error;
use std::path::{Path, PathBuf};

use clap::Parser;
use profiler::hardware::{Hardware, MemoryLevel, Precision, Source};
use profiler::{Profile, Schedule, sync::SyncMode};
use profiler_report::HtmlReport;
use profiler_report::hardware::{measure, probe::ProbeOptions};
use profiler_report::roofline::BrickRoofline;
use profiler_report::scorecard::{ModelShape, ScorecardBuilder};
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

use crate::model::Model;
use crate::parity::Parity;
use crate::shape::Shape;
use crate::work;

/// Profile a small llama model from candle-transformers on the CPU through
/// candle's own tracing spans, then write profile.json, trace.json,
/// scorecard.json, roofline.svg/.json and report.html.
#[derive(Debug, Clone, Parser)]
#[command(name = "candle-llama")]
pub struct Args {
    /// Forward passes (profiled steps, warm-up included).
    #[arg(long, default_value_t = 12)]
    pub passes: u64,
    /// Warm-up passes left out of the profile.
    #[arg(long, default_value_t = 2)]
    pub warmup: u64,
    /// Transformer blocks.
    #[arg(long, default_value_t = 4)]
    pub layers: usize,
    /// Model width.
    #[arg(long, default_value_t = 128)]
    pub hidden: usize,
    /// Attention heads.
    #[arg(long, default_value_t = 4)]
    pub heads: usize,
    /// Key/value heads.
    #[arg(long, default_value_t = 2)]
    pub kv_heads: usize,
    /// Feed-forward width.
    #[arg(long, default_value_t = 344)]
    pub intermediate: usize,
    /// Vocabulary size.
    #[arg(long, default_value_t = 512)]
    pub vocab: usize,
    /// Tokens per sequence.
    #[arg(long, default_value_t = 64)]
    pub seq: usize,
    /// Sequences per pass.
    #[arg(long, default_value_t = 4)]
    pub batch: usize,
    /// Tokens to generate per request: each pass is then a request, its
    /// sequences the prompts (one `prefill` step), then one `decode` step
    /// per further token, scored by the inference scorecard. 0: forward
    /// passes over the whole sequence only (the roofline's work per call and
    /// the PyTorch comparison need these).
    #[arg(long, default_value_t = 16)]
    pub generate: u64,
    /// Directory for the reports.
    #[arg(long, default_value = "target/candle-llama")]
    pub out: PathBuf,
    /// Skip measuring this machine's bandwidth and peak FLOP/s (no roofline
    /// then, unless PROFILER_HARDWARE names a device).
    #[arg(long)]
    pub no_ceilings: bool,
    /// Size of each bandwidth-probe array, MiB (default: from the cache size).
    #[arg(long, hide = true)]
    pub probe_array_mib: Option<u64>,
    /// A `torch.profiler` trace of the same model (`llama_torch.py`) to
    /// compare per op: writes parity.md, parity.json and parity.svg.
    #[arg(long, requires = "mapping")]
    pub parity_trace: Option<PathBuf>,
    /// The mapping of that trace's ops onto this run's bricks (TOML).
    #[arg(long, requires = "parity_trace")]
    pub mapping: Option<PathBuf>,
}

impl Args {
    /// The model's sizes, checked.
    ///
    /// # Errors
    /// A size candle cannot run, or warm-up that leaves no pass.
    pub fn shape(&self) -> Result<Shape, String> {
        let shape = Shape {
            layers: self.layers,
            hidden: self.hidden,
            heads: self.heads,
            kv_heads: self.kv_heads,
            intermediate: self.intermediate,
            vocab: self.vocab,
            seq: self.seq,
            batch: self.batch,
        };
        shape.check()?;
        if self.parity_trace.is_some() && self.generate > 0 {
            return Err(
                "--parity-trace compares forward passes over the whole sequence: add --generate 0"
                    .to_owned(),
            );
        }
        if self.warmup >= self.passes {
            return Err(format!(
                "--warmup ({}) must be below --passes ({})",
                self.warmup, self.passes
            ));
        }
        Ok(shape)
    }
}

/// What a run produced.
#[derive(Debug)]
pub struct Outcome {
    /// The profile of the passes after warm-up.
    pub profile: Profile,
    /// Files written, in order.
    pub files: Vec<PathBuf>,
    /// The comparison with the PyTorch trace, when one was given.
    pub parity: Option<Parity>,
}

/// Builds the model, profiles the passes and writes the reports.
///
/// # Errors
/// Bad sizes, a candle error, or a report that cannot be written.
pub fn run(args: &Args) -> Result<Outcome, Box<dyn Error>> {
    let shape = args.shape()?;
    let ceilings = if args.no_ceilings {
        None
    } else {
        let options = ProbeOptions {
            array_bytes: args.probe_array_mib.map(|m| m << 20),
            ..ProbeOptions::default()
        };
        let hw = measure(&options)?;
        profiler::Config::new().hardware(hw.clone()).apply();
        Some(hw)
    };

    let generate = args.generate;
    // Installed before the model is built: candle makes its spans then.
    let layer = if generate > 0 {
        work::generation_layer()
    } else {
        work::brick_layer(&shape)
    };
    let _subscriber = tracing_subscriber::registry().with(layer).set_default();
    let positions = shape.seq + usize::try_from(generate).unwrap_or(usize::MAX);
    let mut model = Model::with_positions(shape, positions)?;
    println!(
        "candle-llama: {} blocks, width {}, {} heads ({} key/value), seq {}, batch {}, {} passes{}",
        shape.layers,
        shape.hidden,
        shape.heads,
        shape.kv_heads,
        shape.seq,
        shape.batch,
        args.passes,
        if generate > 0 {
            format!(", {generate} tokens generated per pass")
        } else {
            String::new()
        }
    );

    // Generation: each pass is as many steps as tokens it generates.
    let steps_per_pass = generate.max(1);
    profiler::Config::new()
        .run_name("candle-llama")
        .sync_mode(SyncMode::None)
        .schedule(Schedule::skip_warmup(args.warmup * steps_per_pass))
        .trace_mode(true)
        .enable();
    for pass in 0..args.passes {
        let tokens = model.tokens(pass)?;
        if generate > 0 {
            generate_tokens(&mut model, &tokens, shape, generate)?;
        } else {
            let _step = profiler::step(shape.tokens() as u64);
            model.forward(&tokens)?;
        }
    }
    profiler::disable();
    profiler::Config::new().trace_mode(false).apply();

    let env_hardware = profiler_report::hardware::from_vars(|k| std::env::var(k).ok())
        .ok()
        .flatten();
    if env_hardware.is_none()
        && let Some(info) = ceilings.as_ref().and_then(measured_peak)
    {
        profiler::Config::new().hardware(info).apply();
    }
    let profile = profiler::snapshot();
    let scorecard = if generate > 0 {
        // Without PROFILER_HARDWARE the profile's recorded hardware (the
        // measured peak) is used, with the probe's busy-machine mark.
        inference_scorecard(&profile, env_hardware.clone(), &model, shape, generate)?
    } else {
        profiler_report::scorecard()
    };
    println!("\n{scorecard}");
    let roofline = roofline(&profile, env_hardware.as_ref().or(ceilings.as_ref()));
    if let Some(r) = &roofline {
        println!("\n{r}");
    }
    let parity = match (&args.parity_trace, &args.mapping) {
        (Some(trace), Some(mapping)) => Some(Parity::compare(&profile, trace, mapping)?),
        _ => None,
    };
    if let Some(p) = &parity {
        println!("\n{}", p.comparison);
    }
    let mut files = write_reports(
        &profile,
        &scorecard,
        roofline.as_ref(),
        parity.as_ref(),
        &args.out,
    )?;
    if let Some(p) = &parity {
        files.extend(p.write(&args.out)?);
    }
    Ok(Outcome {
        profile,
        files,
        parity,
    })
}

/// One request: the prompts `tokens` as one `prefill` step of all their
/// tokens, then `generate - 1` `decode` steps of one token per sequence.
fn generate_tokens(
    model: &mut Model,
    tokens: &candle_core::Tensor,
    shape: Shape,
    generate: u64,
) -> Result<(), Box<dyn Error>> {
    let mut next = {
        let _step = profiler::step(shape.tokens() as u64);
        let _prefill = profiler::phase("prefill");
        model.prefill(tokens)?
    };
    for i in 1..generate {
        let _step = profiler::step(shape.batch as u64);
        let _decode = profiler::phase("decode");
        let pos = shape.seq + usize::try_from(i - 1).unwrap_or(usize::MAX);
        next = model.decode(&next, pos)?;
    }
    Ok(())
}

/// The inference scorecard: decode graded against the DRAM bandwidth with
/// the bytes a token reads (every weight once per step, shared by the
/// batch, plus its key/value cache), prefill against the dense peak with
/// the model's forward FLOPs per token.
fn inference_scorecard(
    profile: &Profile,
    hardware: Option<Hardware>,
    model: &Model,
    shape: Shape,
    generate: u64,
) -> Result<profiler_report::scorecard::TrainingScorecard, Box<dyn Error>> {
    let weights = model.weight_bytes();
    let embedding = (shape.vocab * shape.hidden) as u64;
    let u = |v: usize| v as u64;
    let model_shape = ModelShape {
        // The embedding is a lookup: no multiply-adds.
        params: (weights / 4).saturating_sub(embedding),
        layers: u(shape.layers),
        heads: u(shape.heads),
        head_dim: u(shape.head_dim()),
        seq_len: u(shape.seq),
    };
    let mut builder = ScorecardBuilder::from_profile(profile)
        .bytes_per_token(work::decode_bytes_per_token(&shape, weights, generate))
        .model_shape(model_shape);
    if let Some(hw) = hardware {
        builder = builder.hardware(hw);
    }
    Ok(builder.build()?)
}

/// The scorecard's peak: the machine as measured, its FP32 peak (the
/// precision the model runs at) standing in for the dense peak MFU is
/// computed against.
fn measured_peak(measured: &Hardware) -> Option<Hardware> {
    measured.memory(MemoryLevel::Dram)?;
    let mut hw = measured.clone();
    hw.name = format!("{} (measured)", measured.name);
    if let Some(fp32) = measured.compute(Precision::Fp32) {
        let mut stand_in = fp32.clone();
        if let Source::Measured { how: Some(how) } = &mut stand_in.source {
            how.method = format!(
                "the FP32 peak, the precision the model runs at, standing in for the dense \
                 peak: {}",
                how.method
            );
        }
        for p in [Precision::Bf16, Precision::Fp16] {
            hw.set_compute(p, stand_in.clone()).ok()?;
        }
    }
    Some(hw)
}

/// The per-brick roofline on the named hardware, else on the measured
/// ceilings; a printed note when neither is there.
fn roofline(profile: &Profile, hardware: Option<&Hardware>) -> Option<BrickRoofline> {
    let Some(roof) = hardware else {
        println!("no roofline: ceilings not measured and no hardware configured");
        return None;
    };
    BrickRoofline::from_profile(profile, roof, None, None)
        .map_err(|e| println!("no roofline: {e}"))
        .ok()
}

/// Writes profile.json, trace.json, roofline.svg/.json, report.html (with
/// the PyTorch baseline, if any) and scorecard.json into `out`.
fn write_reports(
    profile: &Profile,
    scorecard: &profiler_report::scorecard::TrainingScorecard,
    roofline: Option<&BrickRoofline>,
    parity: Option<&Parity>,
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
    let baselines: Vec<_> = parity
        .map(|p| p.baseline.summary.clone())
        .into_iter()
        .collect();
    let mut report = HtmlReport::new(profile)
        .flamegraph()?
        .title("candle-llama")
        .scorecard(scorecard)
        .trace_file("trace.json");
    if let Some(r) = roofline {
        for (name, text) in [("roofline.svg", r.to_svg()), ("roofline.json", r.to_json())] {
            profiler::fs::write_atomic(&path(name), text.as_bytes())
                .map_err(|e| format!("cannot write `{}`: {e}", path(name).display()))?;
            files.push(path(name));
        }
        report = report.roofline(r);
    }
    if !baselines.is_empty() {
        report = report.parity(&baselines);
    }
    profiler_report::write_html_report(&report.render(), path("report.html"))?;
    files.push(path("report.html"));
    scorecard.save_baseline(path("scorecard.json"))?;
    files.push(path("scorecard.json"));
    Ok(files)
}
