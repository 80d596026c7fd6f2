//! The reports `train_tiny` writes after training: this machine's measured
//! ceilings, the scorecard's measured peak, the per-brick roofline, parity
//! against the baselines given, and every file of the run.

use std::error::Error;
use std::path::{Path, PathBuf};

use profiler::{Profile, profile::HardwareInfo, profile::MeasuredCeilings};
use profiler_report::{
    TrainingScorecard,
    hardware::{Hardware, probe::ProbeOptions},
    html::FullReport,
    parity::{OpMapping, ParityProfile},
    roofline::{BrickRoofline, KernelRoofline},
};

use super::Args;

/// Measures this machine's ceilings, prints them and keeps them in every
/// later snapshot.
pub(crate) fn measure(args: &Args) -> MeasuredCeilings {
    let options = ProbeOptions {
        array_bytes: args.probe_array_mib.map(|m| m << 20),
        ..ProbeOptions::default()
    };
    let c = profiler_report::hardware::probe::measure_ceilings_with(&options);
    let mut parts = Vec::new();
    for bw in [&c.memory_bandwidth, &c.cache_bandwidth]
        .into_iter()
        .flatten()
    {
        parts.push(format!("{} {:.1} GB/s", bw.level, bw.gb_s));
    }
    if let Some(f) = &c.peak_flops {
        parts.push(format!(
            "{} peak {:.1} GFLOP/s ({}, {} threads)",
            f.precision.to_uppercase(),
            f.gflops,
            f.isa,
            f.threads
        ));
    }
    println!("measured on this machine: {}", parts.join(", "));
    for note in &c.notes {
        println!("  note: {note}");
    }
    profiler::Config::new().measured_ceilings(c.clone()).apply();
    c
}

/// The scorecard's peak from the measured ceilings: DRAM bandwidth; the
/// scorecard divides it by the bytes per token the annotated bricks move
/// (and says so). `None` when no brick declared bytes or no step carried
/// tokens: there is then nothing honest to grade against.
pub(crate) fn measured_peak(c: &MeasuredCeilings, profile: &Profile) -> Option<HardwareInfo> {
    let bw = c.memory_bandwidth.as_ref()?.gb_s;
    let bytes: u64 = profile.bricks.iter().map(|b| b.total_bytes).sum();
    if profile.steps.tokens == 0 || bytes == 0 || !(bw.is_finite() && bw > 0.0) {
        return None;
    }
    println!(
        "scorecard ceiling: {bw:.1} GB/s DRAM measured on this machine, over the bytes per token the bricks declare"
    );
    Some(HardwareInfo {
        name: format!(
            "{} (measured)",
            if c.cpu.is_empty() { "this CPU" } else { &c.cpu }
        ),
        peak_bw_gb_s: Some(bw),
        peak_tflops: c.peak_flops.as_ref().map(|f| f.gflops / 1e3),
        bytes_per_token: None,
    })
}

/// The per-brick roofline: on the hardware the environment names, else on
/// the measured ceilings. A roofline that cannot be built (no ceilings, or
/// none of the precision or level asked for) is a printed note, not a failed
/// run.
pub(crate) fn roofline(
    profile: &Profile,
    env: Option<&Hardware>,
    args: &Args,
) -> Option<BrickRoofline> {
    let roof = match (env, &profile.run.measured_ceilings) {
        (Some(hw), _) => Ok(KernelRoofline::from_hardware(hw)),
        (None, Some(c)) => KernelRoofline::from_measured(c),
        (None, None) => {
            println!("no roofline: ceilings not measured and no hardware configured");
            return None;
        }
    };
    let r = roof.and_then(|roof| {
        BrickRoofline::from_profile(profile, &roof, args.roofline_precision, args.roofline_level)
    });
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
pub(crate) fn baselines(args: &Args) -> Result<Vec<ParityProfile>, Box<dyn Error>> {
    let mut baselines = Vec::new();
    if let Some(path) = &args.baseline_profile {
        let name = path.file_stem().map_or_else(
            || "earlier run".to_owned(),
            |s| s.to_string_lossy().into_owned(),
        );
        baselines.push(ParityProfile::from_profile(&Profile::read(path)?, name));
    }
    if let Some(path) = &args.baseline_pytorch {
        let mapping = match &args.mapping {
            Some(m) => OpMapping::from_file(m)?,
            None => OpMapping::defaults(),
        };
        baselines.push(profiler_report::parity::import_pytorch_trace(path, &mapping)?.profile);
    }
    Ok(baselines)
}

/// Parity of the run against `baselines`, in every output form.
pub(crate) fn parity(profile: &Profile, baselines: &[ParityProfile]) -> Option<Parity> {
    let ours = ParityProfile::from_profile(profile, "train_tiny");
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

/// Writes profile.json, trace.json, flamegraph.svg, roofline.svg (and
/// roofline.json), parity.md/.json/.svg with a baseline, report.html,
/// scorecard.json (usable as a baseline) and the Parquet tables
/// (bricks, steps, layers, counters) into `out`.
pub(crate) fn write_reports(
    profile: &Profile,
    scorecard: &TrainingScorecard,
    roofline: Option<&BrickRoofline>,
    parity: Option<&Parity>,
    baselines: &[ParityProfile],
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
        text_file("graph.dot", &graph.to_dot())?;
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
    let mut report = FullReport::new(profile)
        .title("train_tiny")
        .scorecard(scorecard)
        .trace_file("trace.json")
        .parity(baselines);
    if let Some(r) = roofline {
        report = report.roofline(r);
    }
    profiler_report::write_html_report(&report.render()?, path("report.html"))?;
    files.push(path("report.html"));
    scorecard.save_baseline(path("scorecard.json"))?;
    files.push(path("scorecard.json"));
    Ok(files)
}
