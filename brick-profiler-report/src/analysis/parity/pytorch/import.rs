//! Turning a `torch.profiler` Chrome trace into a [`RunSummary`]: ops
//! mapped to bricks by an [`OpMapping`], times per recorded step, device
//! time linked to ops through their launches, and launches counted as
//! device kernels (or, in a CPU-only trace, as leaf ops that do work), all
//! added up in one pass over the trace in time order; what the trace says
//! of its device (launch calls, `deviceProperties`, rank) is named in notes.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::mapping::OpMapping;
use super::names::Names;
use super::rules::{self, Launch};
use super::totals::{Bucket, Totals};
use super::walk::{DEVICE, HOST, Step, Summary, walk};
use crate::model::chrome_trace::ChromeTrace;
use crate::model::hardware::{DEVICES, DeviceSpec};
use crate::model::parity_error::ParityError;
use crate::model::run::{Clock, OpSummary, RunSummary};

/// An op no rule mapped, with its time.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UnmappedOp {
    /// Event name.
    pub name: String,
    /// Time, ms per step.
    pub ms: f64,
}

/// A PyTorch trace as a parity baseline, with what the import did.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PytorchImport {
    /// The baseline: op totals over the steps kept, launches per step,
    /// step time, throughput (when tokens per step are known); notes say
    /// how each was counted.
    pub summary: RunSummary,
    /// `ProfilerStep#N` ranges found (0: the whole trace counts as one step).
    pub steps: u64,
    /// Whether op times are device times (else CPU time of op ranges).
    pub device_kernels: bool,
    /// Mapped time over [`PytorchImport::basis_ms`], as is: above 1 when
    /// mapped ranges on several threads overlap in time.
    pub mapped_fraction: f64,
    /// What mapped time is a share of, ms per step: device time (kernels,
    /// memcpy, memset) in device traces, else the step time.
    pub basis_ms: f64,
    /// `ProfilerStep#N` ranges left out for holding no work.
    pub empty_steps: Vec<String>,
    /// Device events (kernels, memcpy, memset) in the trace.
    pub device_events: u64,
    /// Device events linked to the host call that launched them, by an id
    /// no other launch holds.
    pub linked_device_events: u64,
    /// Device events linked through a correlation id that collides (held
    /// by several launches): counted apart, their op may be wrong.
    #[serde(default)]
    pub colliding_device_events: u64,
    /// The largest ops no rule mapped, ms per step, descending (at most 10).
    pub unmapped: Vec<UnmappedOp>,
    /// Kernel launch calls (`cudaLaunchKernel`, `cuLaunchKernel`,
    /// `hipLaunchKernel`, ...) in the steps kept, graph launches aside.
    #[serde(default)]
    pub launch_calls: u64,
    /// The trace launched kernels but holds no device event: a GPU run
    /// whose device activity was not recorded (op times are CPU times).
    #[serde(default)]
    pub device_activity_missing: bool,
    /// The device named by the trace's `deviceProperties` (the first; a
    /// process lists every device it sees).
    #[serde(default)]
    pub device: Option<String>,
    /// `distributedInfo.rank`.
    #[serde(default)]
    pub rank: Option<i64>,
}

/// Reads `torch.profiler`'s Chrome trace (`prof.export_chrome_trace(path)`)
/// at `path` as a parity baseline; see [`import_pytorch_trace_str`].
///
/// # Errors
/// [`ParityError::Read`], [`ParityError::Malformed`] (a truncated file, with
/// line and column), [`ParityError::NotATrace`], or
/// [`ParityError::InvalidValue`], each naming the file; [`ParityError::Spill`]
/// when a large trace's temporary files fail.
pub fn import_pytorch_trace(
    path: impl AsRef<Path>,
    mapping: &OpMapping,
) -> Result<PytorchImport, ParityError> {
    let path = path.as_ref();
    let file = crate::input::open_file(path).map_err(|source| ParityError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let reader = std::io::BufReader::new(file);
    let trace = ChromeTrace::from_reader(reader, &path.display().to_string())?;
    import_chrome_trace(&trace, mapping)
}

/// Imports a `torch.profiler` Chrome trace given as text; `origin` names it
/// in errors. See [`import_chrome_trace`] for how it is mapped.
///
/// # Errors
/// As [`import_pytorch_trace`].
pub fn import_pytorch_trace_str(
    text: &str,
    origin: &str,
    mapping: &OpMapping,
) -> Result<PytorchImport, ParityError> {
    import_chrome_trace(&ChromeTrace::from_json(text, origin)?, mapping)
}

/// A Chrome trace already read, mapped onto bricks as a parity baseline.
///
/// - Steps are the `ProfilerStep#N` ranges; times are per step. Without
///   them the whole trace is one step (a note says so).
/// - An event maps by `mapping`; the outermost mapped range wins, so time is
///   never counted twice. Backward nodes (`autograd::engine::evaluate_function:
///   XBackward0`) map through their forward op's sequence number to the
///   forward brick's backward name (`RmsNorm` -> `RmsNormBackward`).
/// - With device events in the trace, an op's time is the device time
///   (kernels, memcpy, memset) of what it launched: the device event and
///   the runtime call share a correlation id (the `ac2g` flow as fallback),
///   and the op enclosing that call owns it. Launches are kernels.
///   Otherwise an op's time is the CPU time of its range and launches are
///   leaf ops that are not views or metadata reads.
/// - `ProfilerStep#N` ranges with no work (no kernel, or no op that is not
///   a view) are left out, with a note.
/// - Notes give the share of device (or step) time the mapped ops cover,
///   as is (above 100% when ranges on several threads overlap), and the
///   largest unmapped ops.
/// - Throughput needs tokens per step: the mapping's, else the trace's
///   top-level `tokens_per_step` (`prof.add_metadata_json`).
/// - Events with a negative or non-finite start or duration are left out;
///   a note counts and names them.
///
/// One pass in time order: memory holds the open events, the launches in
/// flight and per step each distinct op's time, not the events.
///
/// # Errors
/// [`ParityError::Spill`] when a large trace's temporary files cannot be
/// read back.
pub fn import_chrome_trace(
    trace: &ChromeTrace,
    mapping: &OpMapping,
) -> Result<PytorchImport, ParityError> {
    let mut totals = Totals::default();
    let (names, summary) = walk(trace, mapping, &mut totals)?;
    let mut notes: Vec<String> = dropped_note(trace.dropped(), trace.dropped_count())
        .into_iter()
        .collect();
    let device = summary.device;
    let mode = if device { DEVICE } else { HOST };
    let (kept, empty): (Vec<&Step>, Vec<&Step>) = summary.steps.iter().partition(|s| s.busy[mode]);
    notes.extend(empty_steps_note(&empty, &names, device));
    let step_count = kept.len().max(1) as f64;
    let step_ms = mean_step_ms(&summary, &kept, &mut notes);
    notes.extend((summary.backward_linked > 0).then(|| {
        format!(
            "{} backward nodes mapped through their forward op's sequence number",
            summary.backward_linked
        )
    }));
    let sums = totals.kept(&summary, mode);
    let calls = LaunchCalls::of(&sums.launch_calls, &names);
    let device_activity_missing = !device && calls.any();
    notes.extend(where_note(trace));
    let launches = launches_counted(trace, &summary, &sums, &calls, step_count, &mut notes);

    let mut ops_us: BTreeMap<String, f64> = BTreeMap::new();
    for (&brick, &us) in &sums.ops[mode] {
        *ops_us.entry(names.brick(brick).to_owned()).or_default() += us;
    }
    let basis_ms = if device {
        sums.device_us / 1e3 / step_count
    } else {
        step_ms
    };
    let mapped_fraction = mapped_fraction(&ops_us, step_count, basis_ms);
    let unmapped = largest_unmapped(&sums.unmapped[mode], &names, step_count);
    let throughput = throughput(mapping, trace, step_ms, &mut notes);
    notes.extend((basis_ms > 0.0).then(|| coverage_note(mapped_fraction, device)));
    notes.extend(lumped_note(trace));
    notes.extend(unmapped_note(&unmapped));
    let name = mapping.runtime.as_deref().unwrap_or("pytorch");
    let summary_of_run = RunSummary {
        name: name.to_owned(),
        device: trace.devices().first().map(|d| d.name.clone()),
        clock: if device { Clock::Device } else { Clock::Host },
        ops: ops_us
            .into_iter()
            .map(|(name, us)| OpSummary::total(name, (us * 1e3).round() as u64))
            .collect(),
        steps: Some(kept.len().max(1) as u64),
        step_ns: Some(step_ms * 1e6).filter(|ns| *ns > 0.0),
        tokens_per_s: throughput,
        launches_per_step: Some((launches as f64 / step_count).round() as u64),
        device_ns_per_step: device.then_some(basis_ms * 1e6),
        notes,
        ..RunSummary::default()
    };
    let links = &summary.links;
    Ok(PytorchImport {
        summary: summary_of_run,
        steps: kept.len() as u64,
        device_kernels: device,
        mapped_fraction,
        basis_ms,
        empty_steps: empty
            .iter()
            .map(|s| names.text(s.name).to_owned())
            .collect(),
        device_events: links.device_events as u64,
        linked_device_events: (links.linked() - links.colliding) as u64,
        colliding_device_events: links.colliding as u64,
        unmapped,
        launch_calls: calls.kernels,
        device_activity_missing,
        device: trace.devices().first().map(|d| d.name.clone()),
        rank: trace.rank().and_then(|r| r.rank).map(i64::from),
    })
}

/// Mapped time (µs over the steps) over `basis_ms` per step, as is.
fn mapped_fraction(ops_us: &BTreeMap<String, f64>, step_count: f64, basis_ms: f64) -> f64 {
    // A fold from +0.0: an empty f64 sum is -0.0, printed as "-0.0%".
    let mapped_ms: f64 = ops_us
        .values()
        .fold(0.0, |a, us| a + us / (1e3 * step_count));
    if basis_ms > 0.0 {
        mapped_ms / basis_ms
    } else {
        0.0
    }
}

/// The mean of the steps kept, ms; without one, the whole trace's span as
/// one step, with a note.
fn mean_step_ms(summary: &Summary, kept: &[&Step], notes: &mut Vec<String>) -> f64 {
    if kept.is_empty() {
        notes.push(
            "no ProfilerStep ranges with work (use torch.profiler's schedule and prof.step()): \
             the whole trace counts as one step"
                .to_owned(),
        );
        (summary.span.1 - summary.span.0).max(0.0) / 1e3
    } else {
        kept.iter().map(|s| s.dur).sum::<f64>() / 1e3 / kept.len() as f64
    }
}

/// Launches in the steps kept: kernels in a device trace, the launch calls
/// of a GPU run recorded without its device, else leaf host ops; a note
/// says which.
fn launches_counted(
    trace: &ChromeTrace,
    summary: &Summary,
    sums: &Bucket,
    calls: &LaunchCalls,
    step_count: f64,
    notes: &mut Vec<String>,
) -> u64 {
    if summary.device {
        notes.extend(summary.links.note());
        notes.push(
            "op times are device time (kernels, memcpy, memset) of what each op launched, linked \
             by correlation id, on the device clock; launches are kernels"
                .to_owned(),
        );
        notes.extend(graph_note(sums, calls, step_count));
        notes.extend(calls_without_kernels_note(sums, calls, step_count));
        return sums.launches[DEVICE];
    }
    if calls.any() {
        notes.push(calls.missing_note());
        return calls.kernels;
    }
    let what = match trace.devices().first().map(|d| &d.name) {
        // Kineto lists the devices it sees whatever it was asked to record:
        // the run may have used one without it being recorded.
        Some(d) => format!(
            "no device events and no kernel launch calls, though deviceProperties lists `{d}`: \
             a CPU run, or a GPU run profiled without ProfilerActivity.CUDA (record the device \
             with torch.profiler.profile(activities=[ProfilerActivity.CPU, \
             ProfilerActivity.CUDA]))"
        ),
        None => "a CPU run (no device events and no kernel launch calls in the trace)".to_owned(),
    };
    notes.push(format!(
        "{what}: op times are CPU time of each mapped range on the host clock; launches are \
         leaf ops that are not views or metadata reads"
    ));
    sums.launches[HOST]
}

/// The largest ops no rule mapped, ms per step, descending (at most 10).
fn largest_unmapped(
    by_name: &HashMap<u32, f64>,
    names: &Names<'_>,
    step_count: f64,
) -> Vec<UnmappedOp> {
    let mut unmapped: HashMap<u32, f64> = HashMap::new();
    for (&name, &us) in by_name {
        *unmapped.entry(name).or_default() += us;
    }
    let mut unmapped: Vec<UnmappedOp> = unmapped
        .into_iter()
        .map(|(name, us)| UnmappedOp {
            name: names.text(name).to_owned(),
            ms: us / 1e3 / step_count,
        })
        .collect();
    unmapped.sort_by(|a, b| b.ms.total_cmp(&a.ms).then_with(|| a.name.cmp(&b.name)));
    unmapped.truncate(10);
    unmapped
}

/// Tokens per second, from the mapping's (else the trace's) tokens per
/// step; unknown, with a note, without them or without a step time.
fn throughput(
    mapping: &OpMapping,
    trace: &ChromeTrace,
    step_ms: f64,
    notes: &mut Vec<String>,
) -> Option<f64> {
    match mapping.tokens_per_step.or(trace.tokens_per_step) {
        Some(t) if step_ms > 0.0 => Some(t / (step_ms / 1e3)).filter(|r| *r > 0.0),
        _ => {
            notes.push(
                "tokens per step unknown (no `tokens_per_step` in the trace or the mapping): \
                 throughput is unknown"
                    .to_owned(),
            );
            None
        }
    }
}

/// Events read under the names bound's catch-all name, when there are any.
fn lumped_note(trace: &ChromeTrace) -> Option<String> {
    (trace.lumped_names() > 0).then(|| {
        format!(
            "{} events came after the distinct names held reached their bound and are read as \
             `{}`: their time counts, but no rule can name them",
            trace.lumped_names(),
            crate::input::chrome::OTHER_NAMES
        )
    })
}

/// The five largest unmapped ops, when there are any.
fn unmapped_note(unmapped: &[UnmappedOp]) -> Option<String> {
    (!unmapped.is_empty()).then(|| {
        let list: Vec<String> = unmapped
            .iter()
            .take(5)
            .map(|u| format!("`{}` {:.3} ms", u.name, u.ms))
            .collect();
        format!("largest unmapped ops (ms per step): {}", list.join(", "))
    })
}

/// A note naming the steps left out, when there are any.
pub(super) fn empty_steps_note(empty: &[&Step], names: &Names<'_>, device: bool) -> Option<String> {
    if empty.is_empty() {
        return None;
    }
    let work = if device {
        "no kernel"
    } else {
        "no op that does work"
    };
    let listed: Vec<String> = empty
        .iter()
        .take(3)
        .map(|s| format!("{} ({:.3} ms)", names.text(s.name), s.dur / 1e3))
        .collect();
    let more = empty.len().saturating_sub(3);
    let tail = if more > 0 {
        format!(" and {more} more")
    } else {
        String::new()
    };
    Some(format!(
        "{} ProfilerStep ranges with {work} left out: {}{tail}",
        empty.len(),
        listed.join(", ")
    ))
}

/// In a device trace, what graph launches replayed: their kernels count as
/// launches (the device ran them), though the host made one call per graph.
fn graph_note(sums: &Bucket, calls: &LaunchCalls, steps: f64) -> Option<String> {
    if calls.graphs == 0 && sums.graph_kernels == 0 {
        return None;
    }
    let graphs: Vec<String> = calls
        .by_name
        .iter()
        .filter(|(name, _)| rules::launch(name) == Some(Launch::Graph))
        .map(|(name, n)| format!("`{name}` {n}"))
        .collect();
    Some(format!(
        "{} of the {} kernels per step were replayed by graph launches ({}; {} kernel launch \
         calls besides, per step): launches count the kernels the device ran, not the host's \
         calls; the graphs' device time, {:.3} ms per step, goes to the op around each graph \
         launch",
        (sums.graph_kernels as f64 / steps).round(),
        (sums.launches[DEVICE] as f64 / steps).round(),
        if graphs.is_empty() {
            "outside the steps kept".to_owned()
        } else {
            graphs.join(", ")
        },
        (calls.kernels as f64 / steps).round(),
        sums.graph_device_us / 1e3 / steps
    ))
}

/// In a device trace, kernel launch calls beyond the kernels they launched:
/// calls made while a graph was captured launch nothing then, and a trace
/// whose device activity was partly lost holds fewer kernels than calls.
fn calls_without_kernels_note(sums: &Bucket, calls: &LaunchCalls, steps: f64) -> Option<String> {
    let direct = sums.launches[DEVICE].saturating_sub(sums.graph_kernels);
    if calls.kernels <= direct {
        return None;
    }
    let listed: Vec<String> = calls
        .by_name
        .iter()
        .filter(|(name, _)| rules::launch(name) == Some(Launch::Kernel))
        .map(|(name, n)| format!("`{name}` {n}"))
        .collect();
    Some(format!(
        "{} of the {} kernel launch calls per step have no kernel event ({}): calls made while a \
         CUDA or HIP graph was captured launch nothing then, else the device activity was partly \
         not recorded; launches count the {} kernels recorded",
        ((calls.kernels - direct) as f64 / steps).round(),
        (calls.kernels as f64 / steps).round(),
        listed.join(", "),
        (sums.launches[DEVICE] as f64 / steps).round()
    ))
}

/// How much of the device or step time the mapped ops cover, shown as is.
fn coverage_note(fraction: f64, device: bool) -> String {
    let of = if device {
        "device time (kernels, memcpy, memset per step)"
    } else {
        "step time (wall, per step)"
    };
    let mut note = format!("mapped ops cover {:.1}% of the {of}", fraction * 100.0);
    if fraction > 1.0 {
        note.push_str(
            " (above 100%: mapped ranges on several threads or streams overlap in time, and \
             each is counted in full)",
        );
    }
    note
}

/// A note counting and naming the events left out, when there are any.
fn dropped_note(dropped: &[(usize, String)], count: usize) -> Option<String> {
    const NAMED: usize = 3;
    if count == 0 {
        return None;
    }
    let names: Vec<String> = dropped
        .iter()
        .take(NAMED)
        .map(|(i, name)| format!("`{name}` (traceEvents[{i}])"))
        .collect();
    let more = count.saturating_sub(NAMED.min(dropped.len()));
    let tail = if more > 0 {
        format!(" and {more} more")
    } else {
        String::new()
    };
    Some(format!(
        "{count} events left out for a negative or non-finite start or duration: {}{tail}",
        names.join(", ")
    ))
}

/// Kernel launch calls by name, in the steps kept.
struct LaunchCalls {
    kernels: u64,
    graphs: u64,
    /// (name, count), most first.
    by_name: Vec<(String, u64)>,
}

impl LaunchCalls {
    fn of(calls: &HashMap<u32, (Launch, u64)>, names: &Names<'_>) -> Self {
        let mut by_name: Vec<(String, u64)> = calls
            .iter()
            .map(|(&name, &(_, n))| (names.text(name).to_owned(), n))
            .collect();
        by_name.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        let count = |kind: Launch| {
            calls
                .values()
                .filter(|(k, _)| *k == kind)
                .map(|(_, n)| n)
                .sum()
        };
        Self {
            kernels: count(Launch::Kernel),
            graphs: count(Launch::Graph),
            by_name,
        }
    }

    fn any(&self) -> bool {
        self.kernels + self.graphs > 0
    }

    /// What a trace with launch calls and no device event is, and how to
    /// record its device side.
    fn missing_note(&self) -> String {
        let listed: Vec<String> = self
            .by_name
            .iter()
            .map(|(name, n)| format!("`{name}` {n}"))
            .collect();
        format!(
            "device activity absent: a GPU run (kernel launch calls: {}) whose trace holds no \
             kernel, memcpy or memset event, so the device side was not recorded; op times are \
             CPU time of each mapped range on the host clock, and launches are the {} kernel \
             launch calls{}. Record the device with torch.profiler.profile(activities=\
             [ProfilerActivity.CPU, ProfilerActivity.CUDA])",
            listed.join(", "),
            self.kernels,
            if self.graphs > 0 {
                format!(
                    " ({} graph launches more, each running many kernels)",
                    self.graphs
                )
            } else {
                String::new()
            }
        )
    }
}

/// The preset of the table whose name a device name holds: `NVIDIA
/// H100 80GB HBM3` holds `h100`. Matched by name only (case, spaces, `-`
/// and `_` ignored; the longest alias wins): the preset's ceilings are
/// published figures for that family, which may not be this exact part.
#[must_use]
pub fn device_preset(device: &str) -> Option<&'static DeviceSpec> {
    let flat = |s: &str| -> String {
        s.chars()
            .filter(|c| !matches!(c, ' ' | '-' | '_'))
            .flat_map(char::to_lowercase)
            .collect()
    };
    let name = flat(device);
    DEVICES
        .iter()
        .filter(|d| !d.reference)
        .flat_map(|d| d.aliases.iter().map(move |a| (d, flat(a))))
        .filter(|(_, alias)| alias.len() >= 3 && name.contains(alias.as_str()))
        .max_by_key(|(_, alias)| alias.len())
        .map(|(d, _)| d)
}

/// The device and rank the trace names, when it names them.
fn where_note(trace: &ChromeTrace) -> Option<String> {
    let devices: Vec<&str> = trace.devices().iter().map(|d| d.name.as_str()).collect();
    let device = devices.first().map(|d| {
        let more = devices.len().saturating_sub(1);
        let mut s = if more > 0 {
            format!(
                "device `{d}` (the first of {} in deviceProperties)",
                devices.len()
            )
        } else {
            format!("device `{d}`")
        };
        if let Some(p) = device_preset(d) {
            s.push_str(&format!(
                ", which names the `{}` hardware preset",
                p.aliases.first().copied().unwrap_or(p.name)
            ));
        }
        s
    });
    let rank = match trace.rank().map(|r| (r.rank, r.world_size)) {
        Some((Some(r), Some(w))) => Some(format!("rank {r} of {w}")),
        Some((Some(r), None)) => Some(format!("rank {r}")),
        _ => None,
    };
    match (device, rank) {
        (None, None) => None,
        (d, r) => Some([d, r].into_iter().flatten().collect::<Vec<_>>().join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_device_name_matches_the_preset_its_family_names() {
        let name = |d: &str| device_preset(d).map(|p| p.name);
        assert_eq!(name("NVIDIA H200"), Some("H200 SXM"));
        assert_eq!(name("NVIDIA GeForce RTX 4090"), Some("RTX 4090"));
        assert_eq!(name("NVIDIA A100-SXM4-80GB"), Some("A100 80GB SXM"));
        assert_eq!(name("Tesla V100-SXM2-32GB"), None);
        assert_eq!(name(""), None);
    }
}
