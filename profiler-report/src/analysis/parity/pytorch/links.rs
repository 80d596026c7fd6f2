//! Which host event launched each kernel, memcpy and memset, the way
//! Kineto and Holistic Trace Analysis link them: the device event and the
//! runtime call (`cudaLaunchKernel`, `hipLaunchKernel`, `cuLaunchKernel`,
//! ...) share `args.correlation`; the `ac2g` flow with that id, which
//! starts at the launch, is the cross-check and the fallback. `External id`
//! links a kernel to an op only in traces without correlation ids.
//!
//! The walk meets launches before their device events (a kernel starts
//! after its launch), so launches are held until their device events come:
//! those of the last ten seconds of trace time, no more. A device event
//! met before its launch waits for it as long.

use std::collections::HashMap;
use std::rc::Rc;

use super::node::Node;
use crate::model::chrome_trace::{Cat, Record};

/// How long a launch waits for its device events, and a device event for
/// its launch, µs of trace time.
pub(crate) const HORIZON_US: f64 = 10e6;

/// A device event and the host event that launched it, if found.
#[derive(Debug)]
pub(crate) struct Resolved {
    pub(crate) event: Record,
    /// The step of the device event's own start (used when not linked).
    pub(crate) step: Option<u32>,
    pub(crate) launch: Option<Rc<Node>>,
}

/// An `ac2g` flow start: where on the host a launch happened.
#[derive(Debug)]
struct Flow {
    thread: u32,
    ts: f64,
    /// The open host event around the flow's start.
    host: Option<Rc<Node>>,
}

/// Launches in flight, and how device events were linked.
#[derive(Debug, Default)]
pub(crate) struct Links {
    /// Device events (kernels, memcpy, memset) met.
    pub(crate) device_events: usize,
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
    launches: HashMap<i64, Rc<Node>>,
    flows: HashMap<i64, Flow>,
    external: HashMap<i64, Rc<Node>>,
    waiting: HashMap<i64, Vec<(Record, Option<u32>)>>,
}

impl Links {
    /// Device events linked to their launch.
    pub(crate) fn linked(&self) -> usize {
        self.by_correlation + self.by_flow + self.by_external_id
    }

    /// A host event opened: a runtime call with a correlation id is a
    /// launch (device events that came first are linked now), a CPU op
    /// with an `External id` the launch of older traces.
    pub(crate) fn host(&mut self, node: &Rc<Node>, r: &Record) -> Vec<Resolved> {
        match (r.cat, r.correlation(), r.external_id()) {
            (Cat::Runtime, Some(c), _) => {
                self.launches.insert(c, Rc::clone(node));
                let waiting = self.waiting.remove(&c).unwrap_or_default();
                waiting
                    .into_iter()
                    .map(|(event, step)| self.by_launch(event, step, c, node))
                    .collect()
            }
            (Cat::CpuOp, _, Some(x)) => {
                self.external.insert(x, Rc::clone(node));
                Vec::new()
            }
            _ => Vec::new(),
        }
    }

    /// An `ac2g` flow starts inside `host` (if any).
    pub(crate) fn flow(&mut self, r: &Record, host: Option<Rc<Node>>) {
        if let Some(c) = r.correlation() {
            let flow = Flow {
                thread: r.thread,
                ts: r.ts,
                host,
            };
            self.flows.insert(c, flow);
        }
    }

    /// A device event in `step` (of its own start): linked now, or `None`
    /// when it waits for a launch yet to come.
    pub(crate) fn device(&mut self, r: &Record, step: Option<u32>) -> Option<Resolved> {
        self.device_events += 1;
        let Some(c) = r.correlation() else {
            let op = r.external_id().and_then(|x| self.external.get(&x)).cloned();
            if op.is_some() {
                self.by_external_id += 1;
            } else {
                self.unlinked += 1;
            }
            return Some(Resolved {
                event: *r,
                step,
                launch: op,
            });
        };
        if let Some(launch) = self.launches.get(&c).cloned() {
            return Some(self.by_launch(*r, step, c, &launch));
        }
        if self.flows.contains_key(&c) {
            return Some(self.by_flow(*r, step, c));
        }
        self.waiting.entry(c).or_default().push((*r, step));
        None
    }

    /// Forgets launches, flows and ops older than the horizon; device
    /// events that waited that long are given up on (linked by their flow,
    /// if one came).
    pub(crate) fn evict(&mut self, now: f64) -> Vec<Resolved> {
        let horizon = now - HORIZON_US;
        self.launches.retain(|_, n| n.ts >= horizon);
        self.flows.retain(|_, f| f.ts >= horizon);
        self.external.retain(|_, n| n.ts >= horizon);
        let mut late: Vec<i64> = self
            .waiting
            .iter()
            .filter(|(_, events)| events.iter().all(|(e, _)| e.ts < horizon))
            .map(|(&c, _)| c)
            .collect();
        late.sort_unstable();
        self.give_up(&late)
    }

    /// Device events still waiting at the end of the trace.
    pub(crate) fn finish(&mut self) -> Vec<Resolved> {
        let mut left: Vec<i64> = self.waiting.keys().copied().collect();
        left.sort_unstable();
        self.give_up(&left)
    }

    fn give_up(&mut self, ids: &[i64]) -> Vec<Resolved> {
        let mut done = Vec::new();
        for c in ids {
            for (event, step) in self.waiting.remove(c).unwrap_or_default() {
                if self.flows.contains_key(c) {
                    done.push(self.by_flow(event, step, *c));
                } else {
                    self.unlinked += 1;
                    done.push(Resolved {
                        event,
                        step,
                        launch: None,
                    });
                }
            }
        }
        done
    }

    fn by_launch(
        &mut self,
        event: Record,
        step: Option<u32>,
        c: i64,
        launch: &Rc<Node>,
    ) -> Resolved {
        if self
            .flows
            .get(&c)
            .is_some_and(|f| f.thread != launch.thread || (f.ts - launch.ts).abs() > 1.0)
        {
            self.flow_disagrees += 1;
        }
        self.by_correlation += 1;
        Resolved {
            event,
            step,
            launch: Some(Rc::clone(launch)),
        }
    }

    fn by_flow(&mut self, event: Record, step: Option<u32>, c: i64) -> Resolved {
        let launch = self.flows.get(&c).and_then(|f| f.host.clone());
        if launch.is_some() {
            self.by_flow += 1;
        } else {
            self.unlinked += 1;
        }
        Resolved {
            event,
            step,
            launch,
        }
    }

    /// A note on how device events were linked, when any were.
    pub(crate) fn note(&self) -> Option<String> {
        let linked = self.linked();
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
