//! The reports `train_tiny` writes after training: this machine's saved or
//! measured ceilings, the scorecard's peak from them, the per-brick
//! roofline, parity against the baselines given, and every file of the run.

use std::error::Error;
use std::path::{Path, PathBuf};

use profiler::Profile;
use profiler::hardware::{Figure, Hardware, MemoryLevel, Precision, Source};
use profiler_report::{
    HtmlReport,
    hardware::{load_saved, probe::ProbeOptions, saved_ceilings_path},
    parity::OpMapping,
    roofline::{BrickRoofline, RooflineOptions},
    run::RunSummary,
    scorecard::TrainingScorecard,
};

use super::Args;

/// The ceilings a run is judged against: saved once on a quiet machine,
/// or measured now (and kept in every later snapshot).
#[derive(Debug)]
pub(crate) enum Ceilings {
    /// Read from a saved-ceilings file.
    Saved(Hardware, PathBuf),
    /// Measured by the probes before training.
    Measured(Hardware),
}

/// The saved ceilings when the file exists (`--saved-ceilings`, else this
/// machine's file in the user's cache directory), else measured now.
///
/// # Errors
/// A saved-ceilings file that exists but cannot be read; probes that
/// measured nothing usable.
pub(crate) fn ceilings(args: &Args) -> Result<Ceilings, Box<dyn Error>> {
    let path = match &args.saved_ceilings {
        Some(p) => Some(p.clone()),
        None => saved_ceilings_path(|k| std::env::var(k).ok()).ok(),
    };
    if let Some(path) = path
        && let Some(hw) = load_saved(&path)?
    {
        println!(
            "ceilings: saved on a quiet machine, read from {} (measure again with `brick-profiler probe --save`)",
            path.display()
        );
        // No probe ran: an earlier run's measured ceilings must not speak
        // for this one.
        profiler::Config::new().hardware(None).apply();
        return Ok(Ceilings::Saved(hw, path));
    }
    Ok(Ceilings::Measured(measure(args)?))
}

/// Measures this machine's ceilings, prints them and keeps them in every
/// later snapshot.
fn measure(args: &Args) -> Result<Hardware, Box<dyn Error>> {
    let options = ProbeOptions {
        array_bytes: args.probe_array_mib.map(|m| m << 20),
        ..ProbeOptions::default()
    };
    let t0 = std::time::Instant::now();
    let hw = profiler_report::hardware::measure(&options)?;
    let mut parts = Vec::new();
    // How far each best converged: its best three repetitions' spread.
    let within = |f: &Figure| match f.source.measurement() {
        Some(how) => match how.best_spread_pct {
            Some(s) => format!("best of {}, best three within {s:.1}%", how.repetitions),
            None => format!("best of {}", how.repetitions),
        },
        None => "how not kept".to_owned(),
    };
    // The caches fastest first, then DRAM.
    for (level, f) in hw
        .memory_ceilings()
        .filter(|(l, _)| *l <= MemoryLevel::Dram)
    {
        parts.push(format!("{level} {:.1} GB/s ({})", f.value, within(f)));
    }
    for (precision, f) in hw.compute_ceilings() {
        let how = f.source.measurement();
        parts.push(format!(
            "{precision} peak {:.1} G{}/s ({}, {} threads, {})",
            f.value * 1e3,
            precision.operation(),
            how.and_then(|h| h.isa.as_deref()).unwrap_or("?"),
            how.map_or(0, |h| h.threads),
            within(f)
        ));
    }
    println!(
        "measured on this machine in {} ms: {}",
        t0.elapsed().as_millis(),
        parts.join(", ")
    );
    let sizes: Vec<String> = hw
        .cache_sizes()
        .map(|(level, f)| format!("{level} {} KiB", f.value as u64 >> 10))
        .collect();
    if let Some((_, first)) = hw.cache_sizes().next() {
        println!("caches: {} ({})", sizes.join(", "), first.source);
    }
    if let Some(q) = hw.probe.as_ref().filter(|_| hw.busy.is_none()) {
        println!(
            "machine quiet while probing: {} stolen, each best repetition with {} of its CPU, \
             medians up to {:.0}% below the bests (noise the bests rise above)",
            q.steal_pct
                .map_or("no figure for time".to_owned(), |s| format!(
                    "{s:.1}% of CPU time"
                )),
            q.best_cpu_pct
                .map_or("no figure for the share".to_owned(), |p| format!(
                    "at least {p:.0}%"
                )),
            q.spread_pct
        );
    }
    for note in hw.probe.iter().flat_map(|p| &p.notes) {
        println!("  note: {note}");
    }
    profiler::Config::new().hardware(hw.clone()).apply();
    Ok(hw)
}

/// The scorecard's peak from the ceilings: DRAM bandwidth; the scorecard
/// divides it by the bytes per token the annotated bricks move (and says
/// so). `None` when no brick declared bytes or no step carried tokens:
/// there is then nothing honest to grade against.
///
/// Measured ceilings keep every figure the probes took, with how; the
/// FP32 peak, the precision this run trains at, stands in for the dense
/// peak MFU is computed against.
pub(crate) fn ceiling_peak(c: &Ceilings, profile: &Profile) -> Option<Hardware> {
    let (hw, from, kind) = match c {
        Ceilings::Measured(hw) => (hw, "measured on this machine".to_owned(), "measured"),
        Ceilings::Saved(hw, path) => (hw, format!("saved in {}", path.display()), "saved"),
    };
    let bw = hw.memory(MemoryLevel::Dram)?.value;
    let bytes: u64 = profile.bricks.iter().map(|b| b.total_bytes).sum();
    if profile.steps.tokens == 0 || bytes == 0 || !(bw.is_finite() && bw > 0.0) {
        return None;
    }
    println!(
        "scorecard ceiling: {bw:.1} GB/s DRAM {from}, over the bytes per token the bricks declare"
    );
    // The machine's FP32 peak is the dense peak its training runs at: MFU
    // and the kernel report judge against it.
    let fp32 = hw.compute(Precision::Fp32).cloned();
    let mut peak = match c {
        Ceilings::Measured(hw) => hw.clone(),
        Ceilings::Saved(_, path) => {
            // The saved file's DRAM figure, marked as read from it.
            let mut saved = Hardware::new("");
            let source = Source::File {
                path: path.clone(),
                estimate: false,
            };
            saved
                .set_memory(MemoryLevel::Dram, Figure::new(bw, source.clone()))
                .ok()?;
            saved
        }
    };
    let name = if hw.name.is_empty() {
        "this CPU"
    } else {
        &hw.name
    };
    peak.name = format!("{name} ({kind})");
    for p in [Precision::Bf16, Precision::Fp16] {
        if let Some(f) = &fp32 {
            let figure = match c {
                Ceilings::Measured(_) => stand_in(f),
                Ceilings::Saved(_, path) => Figure::new(
                    f.value,
                    Source::File {
                        path: path.clone(),
                        estimate: false,
                    },
                ),
            };
            peak.set_compute(p, figure).ok()?;
        }
    }
    Some(peak)
}

/// The FP32 peak `f` standing in for a dense peak, saying so in how it
/// was measured.
fn stand_in(f: &Figure) -> Figure {
    let mut f = f.clone();
    if let Source::Measured { how: Some(how) } = &mut f.source {
        how.method = format!(
            "the FP32 peak, the precision the run trains at, standing in for the dense peak: {}",
            how.method
        );
    }
    f
}

/// The per-brick roofline: on the hardware the environment names, else on
/// the saved or measured ceilings, each brick against the roof of the
/// memory level its working set fits in (or the level and pins asked for).
/// A roofline that cannot be built (no ceilings, or none of the precision
/// or level asked for) is a printed note, not a failed run.
pub(crate) fn roofline(
    profile: &Profile,
    env: Option<&Hardware>,
    ceilings: Option<&Ceilings>,
    args: &Args,
) -> Option<BrickRoofline> {
    let roof = match (env, ceilings) {
        (Some(hw), _) | (None, Some(Ceilings::Saved(hw, _))) => Ok(hw.clone()),
        (None, Some(Ceilings::Measured(hw))) => Ok(hw.clone()),
        (None, None) => {
            println!("no roofline: ceilings not measured and no hardware configured");
            return None;
        }
    };
    let options = RooflineOptions {
        precision: args.roofline_precision,
        level: args.roofline_level,
        pins: args.roofline_pin.iter().cloned().collect(),
    };
    let r = roof.and_then(|roof| BrickRoofline::from_profile_with(profile, &roof, &options));
    r.map_err(|e| println!("no roofline: {e}")).ok()
}

/// A parity comparison in every output form.
pub(crate) struct Parity {
    pub(crate) terminal: String,
    markdown: String,
    json: String,
    svg: String,
}

/// Reads the baselines given on the command line (before training, so a bad
/// file fails fast).
pub(crate) fn baselines(args: &Args) -> Result<Vec<RunSummary>, Box<dyn Error>> {
    let mut baselines = Vec::new();
    if let Some(path) = &args.baseline_profile {
        let name = path.file_stem().map_or_else(
            || "earlier run".to_owned(),
            |s| s.to_string_lossy().into_owned(),
        );
        baselines.push(RunSummary::from_profile(&Profile::read(path)?, name));
    }
    if let Some(path) = &args.baseline_pytorch {
        let mapping = match &args.mapping {
            Some(m) => OpMapping::from_file(m)?,
            None => OpMapping::defaults(),
        };
        baselines.push(profiler_report::parity::import_pytorch_trace(path, &mapping)?.summary);
    }
    Ok(baselines)
}

/// Parity of the run against `baselines`, in every output form.
pub(crate) fn parity(profile: &Profile, baselines: &[RunSummary]) -> Option<Parity> {
    let ours = RunSummary::from_profile(profile, "train_tiny");
    match baselines {
        [] => None,
        [one] => {
            let c = profiler_report::parity::compute_parity_comparison(&ours, one);
            Some(Parity {
                terminal: c.to_string(),
                markdown: c.to_markdown(),
                json: c.to_json(),
                svg: c.to_svg(),
            })
        }
        many => {
            let c = profiler_report::parity::compute_parity_multi(&ours, many);
            Some(Parity {
                terminal: c.to_string(),
                markdown: c.to_markdown(),
                json: c.to_json(),
                svg: c.to_svg(),
            })
        }
    }
}

/// Writes profile.json, trace.json and/or trace.pftrace (as the profile's
/// `run.trace_format` says), flamegraph.svg, roofline.svg (and
/// roofline.json), parity.md/.json/.svg with a baseline, report.html,
/// scorecard.json (usable as a baseline) and the Parquet tables
/// (bricks, steps, layers, counters) into `out`.
pub(crate) fn write_reports(
    profile: &Profile,
    scorecard: &TrainingScorecard,
    roofline: Option<&BrickRoofline>,
    parity: Option<&Parity>,
    baselines: &[RunSummary],
    out: &Path,
) -> Result<Vec<PathBuf>, Box<dyn Error>> {
    std::fs::create_dir_all(out).map_err(|e| format!("cannot create `{}`: {e}", out.display()))?;
    let path = |name: &str| out.join(name);

    let mut files = Vec::new();
    profile.write(path("profile.json"))?;
    files.push(path("profile.json"));
    for file in profiler_report::export::write_timeline(profile, out)? {
        let name = file.path.file_name().unwrap_or_default().to_string_lossy();
        for warning in &file.warnings {
            println!("{name}: {warning}");
        }
        files.push(file.path);
    }
    // Bricks, steps, layers and counters for DuckDB and `fleet`.
    files.extend(profiler_report::export::write_parquet(profile, out)?);
    // No stacks at all (e.g. built with the `off` feature): no flamegraph.
    let folded = profiler_report::folded_stacks(profile);
    if !folded.is_empty() {
        let svg = profiler_report::flamegraph_svg(&folded, "train_tiny")?;
        profiler::fs::write_atomic(&path("flamegraph.svg"), svg.as_bytes())
            .map_err(|e| format!("cannot write `{}`: {e}", path("flamegraph.svg").display()))?;
        files.push(path("flamegraph.svg"));
    }
    let mut text_file = |name: &str, text: &str| -> Result<(), Box<dyn Error>> {
        profiler::fs::write_atomic(&path(name), text.as_bytes())
            .map_err(|e| format!("cannot write `{}`: {e}", path(name).display()))?;
        files.push(path(name));
        Ok(())
    };
    if let Some(graph) = &profile.graph {
        text_file("graph.dot", &profiler_report::graph::dot(graph))?;
    }
    if let Some(r) = roofline {
        text_file("roofline.svg", &r.to_svg())?;
        text_file("roofline.json", &r.to_json())?;
    }
    if let Some(p) = parity {
        text_file("parity.md", &p.markdown)?;
        text_file("parity.json", &p.json)?;
        text_file("parity.svg", &p.svg)?;
    }
    // The page names the run after its run name, "train_tiny" (see `run`).
    let mut report = HtmlReport::new(profile)
        .flamegraph()?
        .title("train_tiny")
        .scorecard(scorecard)
        .trace_file(if profile.run.trace_format.json() {
            "trace.json"
        } else {
            "trace.pftrace"
        })
        .parity(baselines);
    if let Some(r) = roofline {
        report = report.roofline(r);
    }
    profiler_report::write_html_report(&report.render(), path("report.html"))?;
    files.push(path("report.html"));
    scorecard.save_baseline(path("scorecard.json"))?;
    files.push(path("scorecard.json"));
    Ok(files)
}
