//! Which host launch queued each kernel, memcpy and memset, the way Kineto
//! and Holistic Trace Analysis link them: the device event and the runtime
//! call (`cudaLaunchKernel`, `hipLaunchKernel`, `cuLaunchKernel`, ...) share
//! `args.correlation`; the `ac2g` flow with that id, which starts at the
//! launch, is the cross-check and the fallback. `External id` links a
//! kernel to an op only in traces without correlation ids.

use std::collections::HashMap;

use crate::model::chrome_trace::{Cat, ChromeTrace, Event};

/// The launch of each device event, and how the links were made.
#[derive(Debug, Default)]
pub(crate) struct Links {
    /// Per event: the host event the device event was launched from (the
    /// runtime call, or the event enclosing a flow's start).
    pub(crate) launch: Vec<Option<usize>>,
    /// Device events linked through a runtime call's correlation id.
    pub(crate) by_correlation: usize,
    /// Device events linked through an `ac2g` flow alone.
    pub(crate) by_flow: usize,
    /// Device events linked through `External id` (traces without
    /// correlation ids).
    pub(crate) by_external_id: usize,
    /// Device events whose flow start is not where their runtime call is.
    pub(crate) flow_disagrees: usize,
    /// Device events with no launch found.
    pub(crate) unlinked: usize,
}

impl Links {
    /// When event `i` started on the host: its launch's start for a linked
    /// device event, else its own.
    pub(crate) fn host_ts(&self, events: &[Event], i: usize) -> f64 {
        self.launch
            .get(i)
            .copied()
            .flatten()
            .map_or(events[i].ts, |l| events[l].ts)
    }

    pub(crate) fn new(trace: &ChromeTrace) -> Self {
        let events = &trace.events[..];
        let mut links = Links {
            launch: vec![None; events.len()],
            ..Links::default()
        };
        let runtime: HashMap<i64, usize> = events
            .iter()
            .enumerate()
            .filter(|(_, e)| e.cat == Cat::Runtime)
            .filter_map(|(i, e)| Some((e.correlation()?, i)))
            .collect();
        let by_external: HashMap<i64, usize> = events
            .iter()
            .enumerate()
            .filter(|(_, e)| e.cat == Cat::CpuOp)
            .filter_map(|(i, e)| Some((e.external_id()?, i)))
            .collect();
        for (i, e) in events.iter().enumerate().filter(|(_, e)| e.cat.on_device()) {
            let flow = e
                .correlation()
                .and_then(|c| trace.flows.get(&c))
                .map(|f| (f.thread.as_ref(), f.ts));
            let launch = e.correlation().and_then(|c| runtime.get(&c)).copied();
            links.launch[i] = match (launch, flow) {
                (Some(l), flow) => {
                    let at = &events[l];
                    if flow.is_some_and(|(thread, ts)| {
                        thread != at.thread.as_ref() || (ts - at.ts).abs() > 1.0
                    }) {
                        links.flow_disagrees += 1;
                    }
                    links.by_correlation += 1;
                    Some(l)
                }
                (None, Some((thread, ts))) => {
                    let host = enclosing(events, thread, ts);
                    links.by_flow += usize::from(host.is_some());
                    host
                }
                (None, None) if e.correlation().is_none() => {
                    let op = e.external_id().and_then(|x| by_external.get(&x)).copied();
                    links.by_external_id += usize::from(op.is_some());
                    op
                }
                (None, None) => None,
            };
            links.unlinked += usize::from(links.launch[i].is_none());
        }
        links
    }

    /// A note on how device events were linked, when any were.
    pub(crate) fn note(&self) -> Option<String> {
        let linked = self.by_correlation + self.by_flow + self.by_external_id;
        if linked + self.unlinked == 0 {
            return None;
        }
        let mut parts = vec![format!(
            "{linked} of {} device events linked to their launch ({} by correlation id, {} by \
             ac2g flow, {} by External id)",
            linked + self.unlinked,
            self.by_correlation,
            self.by_flow,
            self.by_external_id
        )];
        if self.unlinked > 0 {
            parts.push(format!(
                "{} with no launch in the trace count as unmapped",
                self.unlinked
            ));
        }
        if self.flow_disagrees > 0 {
            parts.push(format!(
                "{} ac2g flows start elsewhere than their runtime call (the runtime call was used)",
                self.flow_disagrees
            ));
        }
        Some(parts.join("; "))
    }
}

/// The innermost host event on `thread` that encloses `ts`. Events are
/// sorted by thread, then start, with parents set.
fn enclosing(events: &[Event], thread: &str, ts: f64) -> Option<usize> {
    let after = events.partition_point(|e| (e.thread.as_ref(), e.ts) <= (thread, ts));
    let mut at = after.checked_sub(1)?;
    while events[at].cat.on_device() {
        at = at.checked_sub(1)?;
    }
    if events[at].thread.as_ref() != thread {
        return None;
    }
    let mut cur = Some(at);
    while let Some(i) = cur {
        if events[i].end() >= ts {
            return Some(i);
        }
        cur = events[i].parent();
    }
    None
}
