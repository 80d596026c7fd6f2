//! Turning a `torch.profiler` Chrome trace into a [`ParityProfile`]: ops
//! mapped to bricks by an [`OpMapping`], times per recorded step, and launches
//! counted as device kernels (or, in a CPU-only trace, as leaf ops that do
//! work).

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::events::{Cat, ChromeTrace, Event};
use super::mapping::OpMapping;
use super::tree::{BACKWARD_PREFIX, StepWindows, Tree};
use crate::parity::error::ParityError;
use crate::parity::model::ParityProfile;

/// Ops that only make views or read metadata: they launch no kernel and are
/// not counted as launches in a CPU-only trace.
const VIEW_OPS: &[&str] = &[
    "aten::view",
    "aten::reshape",
    "aten::_reshape_alias",
    "aten::_unsafe_view",
    "aten::t",
    "aten::transpose",
    "aten::permute",
    "aten::expand",
    "aten::expand_as",
    "aten::as_strided",
    "aten::slice",
    "aten::select",
    "aten::unsqueeze",
    "aten::squeeze",
    "aten::detach",
    "aten::alias",
    "aten::resolve_conj",
    "aten::resolve_neg",
    "aten::unbind",
    "aten::split",
    "aten::chunk",
    "aten::narrow",
    "aten::flatten",
    "aten::unflatten",
    "aten::empty",
    "aten::empty_like",
    "aten::empty_strided",
    "aten::new_empty",
    "aten::new_empty_strided",
    "aten::result_type",
    "aten::contiguous",
    "aten::lift_fresh",
    "aten::to",
    "aten::numpy_T",
    "aten::view_as",
    "aten::_unsafe_split",
];

/// An op no rule mapped, with its time.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UnmappedOp {
    /// Event name.
    pub name: String,
    /// Time, ms per step.
    pub ms: f64,
}

/// A PyTorch trace as a parity baseline, with what the import did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PytorchImport {
    /// The baseline: ops in ms per step, launches per step, step time,
    /// throughput (when tokens per step are known); notes say how each was
    /// counted.
    pub profile: ParityProfile,
    /// `ProfilerStep#N` ranges found (0: the whole trace counts as one step).
    pub steps: u64,
    /// Whether op times are device-kernel times (else CPU time of op ranges).
    pub device_kernels: bool,
    /// Mapped time over step time (CPU traces), in `[0, 1]`.
    pub mapped_fraction: f64,
    /// The largest ops no rule mapped, ms per step, descending (at most 10).
    pub unmapped: Vec<UnmappedOp>,
}

/// Reads `torch.profiler`'s Chrome trace (`prof.export_chrome_trace(path)`)
/// at `path` as a parity baseline; see [`import_pytorch_trace_str`].
///
/// # Errors
/// [`ParityError::Read`], [`ParityError::Malformed`] (a truncated file, with
/// line and column), [`ParityError::NotATrace`], or
/// [`ParityError::InvalidValue`], each naming the file.
pub fn import_pytorch_trace(
    path: impl AsRef<Path>,
    mapping: &OpMapping,
) -> Result<PytorchImport, ParityError> {
    let path = path.as_ref();
    let file = std::fs::File::open(path).map_err(|source| ParityError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let reader = std::io::BufReader::new(file);
    let trace = ChromeTrace::from_reader(reader, &path.display().to_string())?;
    Ok(import_chrome_trace(&trace, mapping))
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
    Ok(import_chrome_trace(
        &ChromeTrace::from_json(text, origin)?,
        mapping,
    ))
}

/// A Chrome trace already read, mapped onto bricks as a parity baseline.
///
/// - Steps are the `ProfilerStep#N` ranges; times are per step. Without
///   them the whole trace is one step (a note says so).
/// - An event maps by `mapping`; the outermost mapped range wins, so time is
///   never counted twice. Backward nodes (`autograd::engine::evaluate_function:
///   XBackward0`) map through their forward op's sequence number to the
///   forward brick's backward name (`RmsNorm` -> `RmsNormBackward`).
/// - With device kernels in the trace, an op's time is the time of the
///   kernels it launched and launches are kernels; otherwise it is the CPU
///   time of the op's range and launches are leaf ops that are not views or
///   metadata reads.
/// - Throughput needs tokens per step: the mapping's, else the trace's
///   top-level `tokens_per_step` (`prof.add_metadata_json`).
/// - Events with a negative or non-finite start or duration are left out;
///   a note counts and names them.
#[must_use]
pub fn import_chrome_trace(trace: &ChromeTrace, mapping: &OpMapping) -> PytorchImport {
    let events = &trace.events[..];
    let mut notes = Vec::new();
    if let Some(note) = dropped_note(&trace.dropped) {
        notes.push(note);
    }

    let steps: Vec<(f64, f64)> = events
        .iter()
        .filter(|e| e.cat == Cat::Annotation && e.name.starts_with("ProfilerStep#"))
        .map(|e| (e.ts, e.end()))
        .collect();
    let windows = StepWindows::new(&steps);
    let in_step = |ts: f64| windows.contains(ts);
    let step_count = steps.len().max(1) as f64;
    let step_ms = if steps.is_empty() {
        let start = events.iter().map(|e| e.ts).fold(f64::INFINITY, f64::min);
        let end = events
            .iter()
            .map(Event::end)
            .fold(f64::NEG_INFINITY, f64::max);
        notes.push(
            "no ProfilerStep ranges (use torch.profiler's schedule and prof.step()): the whole \
             trace counts as one step"
                .to_owned(),
        );
        (end - start) / 1e3
    } else {
        steps.iter().map(|(s, e)| e - s).sum::<f64>() / 1e3 / step_count
    };

    let tree = Tree::new(events);
    let own = own_maps(events, &tree, mapping, &mut notes);
    let root = roots(events, &own);
    let device = events.iter().any(|e| e.cat == Cat::Kernel);

    let mut ops: BTreeMap<String, f64> = BTreeMap::new();
    let mut unmapped: HashMap<&str, f64> = HashMap::new();
    let mut launches = 0u64;
    if device {
        let by_external: HashMap<i64, usize> = events
            .iter()
            .enumerate()
            .filter(|(_, e)| e.cat == Cat::CpuOp)
            .filter_map(|(i, e)| Some((e.external_id?, i)))
            .collect();
        for k in events.iter().filter(|e| e.cat == Cat::Kernel) {
            let op = k.external_id.and_then(|x| by_external.get(&x)).copied();
            if !op.map_or(in_step(k.ts), |i| in_step(events[i].ts)) {
                continue;
            }
            launches += 1;
            match op.and_then(|i| root[i]).and_then(|r| own[r].as_deref()) {
                Some(name) => *ops.entry(name.to_owned()).or_default() += k.dur,
                None => *unmapped.entry(k.name.as_str()).or_default() += k.dur,
            }
        }
        notes.push(
            "op times are device time of the kernels each op launched; launches are kernels"
                .to_owned(),
        );
    } else {
        let mut has_op_child = vec![false; events.len()];
        // Whether a mapped root lies below an event; children come after
        // their parents, so one backward pass sees every subtree first.
        let mut mapped_below = vec![false; events.len()];
        for (i, e) in events.iter().enumerate().rev() {
            if let Some(parent) = e.parent {
                if e.cat == Cat::CpuOp {
                    has_op_child[parent] = true;
                }
                if root[i] == Some(i) || mapped_below[i] {
                    mapped_below[parent] = true;
                }
            }
        }
        for (i, e) in events.iter().enumerate() {
            if !in_step(e.ts) {
                continue;
            }
            if root[i] == Some(i)
                && let Some(name) = &own[i]
            {
                *ops.entry(name.clone()).or_default() += e.dur;
            }
            if e.cat != Cat::CpuOp {
                continue;
            }
            if !has_op_child[i] && !VIEW_OPS.contains(&e.name.as_str()) {
                launches += 1;
            }
            if !tree.under_op[i] && root[i].is_none() && !mapped_below[i] {
                *unmapped.entry(e.name.as_str()).or_default() += e.dur;
            }
        }
        notes.push(
            "op times are CPU time of each mapped range (no device kernels in the trace); \
             launches are leaf ops that are not views or metadata reads"
                .to_owned(),
        );
    }

    for ms in ops.values_mut() {
        *ms /= 1e3 * step_count;
    }
    // A fold from +0.0: an empty f64 sum is -0.0, printed as "-0.0%".
    let mapped_ms: f64 = ops.values().fold(0.0, |a, b| a + b);
    let mapped_fraction = if step_ms > 0.0 && !device {
        (mapped_ms / step_ms).clamp(0.0, 1.0)
    } else {
        0.0
    };
    let mut unmapped: Vec<UnmappedOp> = unmapped
        .into_iter()
        .map(|(name, us)| UnmappedOp {
            name: name.to_owned(),
            ms: us / 1e3 / step_count,
        })
        .collect();
    unmapped.sort_by(|a, b| b.ms.total_cmp(&a.ms).then_with(|| a.name.cmp(&b.name)));
    unmapped.truncate(10);

    let tokens = mapping.tokens_per_step.or(trace.tokens_per_step);
    let throughput = match tokens {
        Some(t) if step_ms > 0.0 => t / (step_ms / 1e3),
        _ => {
            notes.push(
                "tokens per step unknown (no `tokens_per_step` in the trace or the mapping): \
                 throughput is unknown"
                    .to_owned(),
            );
            0.0
        }
    };
    if !device && step_ms > 0.0 {
        notes.push(format!(
            "mapped ops cover {:.1}% of the step time",
            mapped_fraction * 100.0
        ));
    }
    PytorchImport {
        profile: ParityProfile {
            runtime: mapping
                .runtime
                .clone()
                .unwrap_or_else(|| "pytorch".to_owned()),
            throughput_tok_s: throughput,
            step_time_ms: step_ms,
            kernel_launches_per_step: (launches as f64 / step_count).round() as u64,
            ops,
            notes,
        },
        steps: steps.len() as u64,
        device_kernels: device,
        mapped_fraction,
        unmapped,
    }
}

/// A note counting and naming the events left out, when there are any.
fn dropped_note(dropped: &[(usize, String)]) -> Option<String> {
    const NAMED: usize = 3;
    if dropped.is_empty() {
        return None;
    }
    let names: Vec<String> = dropped
        .iter()
        .take(NAMED)
        .map(|(i, name)| format!("`{name}` (traceEvents[{i}])"))
        .collect();
    let more = dropped.len().saturating_sub(NAMED);
    let tail = if more > 0 {
        format!(" and {more} more")
    } else {
        String::new()
    };
    Some(format!(
        "{} events left out for a negative or non-finite start or duration: {}{tail}",
        dropped.len(),
        names.join(", ")
    ))
}

/// Each event's own brick, before nesting: annotations and ops by the
/// mapping, backward nodes through their forward op's sequence number.
fn own_maps(
    events: &[Event],
    tree: &Tree,
    mapping: &OpMapping,
    notes: &mut Vec<String>,
) -> Vec<Option<String>> {
    let mut own: Vec<Option<String>> = events
        .iter()
        .map(|e| match e.cat {
            Cat::Annotation => mapping.annotation(&e.name).map(str::to_owned),
            Cat::CpuOp if !e.name.starts_with(BACKWARD_PREFIX) => {
                mapping.op(&e.name).map(str::to_owned)
            }
            _ => None,
        })
        .collect();
    let forward_root = roots(events, &own);
    // The op that created autograd node N is the last forward op recording
    // sequence number N (ops that create no node report the next number).
    let in_backward = |i: usize| tree.in_backward[i];
    let mut creator: HashMap<i64, usize> = HashMap::new();
    for (i, e) in events.iter().enumerate() {
        if e.cat == Cat::CpuOp
            && let Some(seq) = e.seq
            && !in_backward(i)
        {
            let slot = creator.entry(seq).or_insert(i);
            if events[*slot].ts <= e.ts {
                *slot = i;
            }
        }
    }
    let mut linked = 0usize;
    for (i, e) in events.iter().enumerate() {
        let Some(node) = e.name.strip_prefix(BACKWARD_PREFIX) else {
            continue;
        };
        if e.cat != Cat::CpuOp {
            continue;
        }
        let forward = e
            .seq
            .and_then(|s| creator.get(&s))
            .and_then(|&f| forward_root[f])
            .and_then(|r| own[r].clone());
        own[i] = match forward {
            Some(name) => {
                linked += 1;
                Some(mapping.backward_name(&name))
            }
            None => mapping.op(node).map(str::to_owned),
        };
    }
    if linked > 0 {
        notes.push(format!(
            "{linked} backward nodes mapped through their forward op's sequence number"
        ));
    }
    own
}

/// For each event, the outermost enclosing event (itself included) with a
/// brick. Parents come before children in the sorted order.
fn roots(events: &[Event], own: &[Option<String>]) -> Vec<Option<usize>> {
    let mut root: Vec<Option<usize>> = vec![None; events.len()];
    for i in 0..events.len() {
        root[i] = events[i]
            .parent
            .and_then(|p| root[p])
            .or(own[i].as_ref().map(|_| i));
    }
    root
}
