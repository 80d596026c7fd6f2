//! Which host event launched each kernel, memcpy and memset, the way
//! Kineto and Holistic Trace Analysis link them: the device event and the
//! runtime call (`cudaLaunchKernel`, `hipLaunchKernel`, `cuLaunchKernel`,
//! ...) share `args.correlation`; the `ac2g` flow with that id, which
//! starts at the launch, is the cross-check and the fallback. `External id`
//! links a kernel to an op only in traces without correlation ids.
//!
//! The walk meets launches before their device events (a kernel starts
//! after its launch), so launches are held until their device events come:
//! those of the last ten seconds of trace time, and the last 65,536 at
//! most (a stream queues about a thousand launches). A device event met
//! before its launch waits for it as long.

use std::collections::{HashMap, VecDeque};
use std::rc::Rc;

use super::node::Node;
use crate::model::chrome_trace::{Cat, Record};

/// How long a launch waits for its device events, and a device event for
/// its launch, µs of trace time.
pub(crate) const HORIZON_US: f64 = 10e6;

/// The most launches (and flows, ops, waiting device events) held.
const HELD: usize = 1 << 16;

/// Entries by id, oldest first out.
#[derive(Debug)]
struct Held<V> {
    map: HashMap<i64, (u64, V)>,
    /// (id, insertion number, start) in the order they came; an entry
    /// replaced or removed since is skipped.
    order: VecDeque<(i64, u64, f64)>,
    inserted: u64,
}

impl<V> Default for Held<V> {
    fn default() -> Self {
        Self {
            map: HashMap::new(),
            order: VecDeque::new(),
            inserted: 0,
        }
    }
}

impl<V> Held<V> {
    fn insert(&mut self, id: i64, ts: f64, value: V) {
        let n = self.inserted;
        self.inserted += 1;
        self.map.insert(id, (n, value));
        self.order.push_back((id, n, ts));
    }

    fn get(&self, id: i64) -> Option<&V> {
        self.map.get(&id).map(|(_, v)| v)
    }

    fn get_mut(&mut self, id: i64) -> Option<&mut V> {
        self.map.get_mut(&id).map(|(_, v)| v)
    }

    fn remove(&mut self, id: i64) -> Option<V> {
        self.map.remove(&id).map(|(_, v)| v)
    }

    /// Takes out, oldest first, the entries that started before `horizon`
    /// and those past the [`HELD`] most recent.
    fn evict(&mut self, horizon: f64) -> Vec<(i64, V)> {
        let mut out = Vec::new();
        while let Some(&(id, n, ts)) = self.order.front() {
            let live = self.map.get(&id).is_some_and(|(m, _)| *m == n);
            if live && ts >= horizon && self.map.len() <= HELD {
                break;
            }
            self.order.pop_front();
            if live && let Some((_, v)) = self.map.remove(&id) {
                out.push((id, v));
            }
        }
        out
    }
}

/// A device event and the host event that launched it, if found.
#[derive(Debug)]
pub(crate) struct Resolved {
    pub(crate) event: Record,
    /// The step of the device event's own start (used when not linked).
    pub(crate) step: Option<u32>,
    pub(crate) launch: Option<Rc<Node>>,
}

/// Colliding correlation ids named in the note.
const NAMED_IDS: usize = 3;

/// A launch held until its device events come.
#[derive(Debug)]
struct Launched {
    node: Rc<Node>,
    /// Another held launch had its correlation id.
    reused: bool,
    /// A graph launch: many device events share its id.
    many: bool,
    /// Device events linked to it so far.
    linked: u32,
}

/// Device events waiting for their launch: each with the step of its own
/// start.
type Waiting = Vec<(Record, Option<u32>)>;

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
    /// Device events whose correlation id another launch also holds (the
    /// id was reused while held, or a one-kernel launch got a second
    /// device event): linked, but perhaps to the wrong op.
    pub(crate) colliding: usize,
    /// Launches whose correlation id another held launch had.
    pub(crate) reused_ids: usize,
    /// The first colliding ids (at most [`NAMED_IDS`]).
    pub(crate) collided: Vec<i64>,
    launches: Held<Launched>,
    flows: Held<Flow>,
    external: Held<Rc<Node>>,
    waiting: Held<Waiting>,
}

impl Links {
    /// Device events linked to their launch, through colliding ids too
    /// (see [`Links::colliding`]).
    pub(crate) fn linked(&self) -> usize {
        self.by_correlation + self.by_flow + self.by_external_id
    }

    /// A host event opened: a runtime call with a correlation id is a
    /// launch (device events that came first are linked now; `many`: a
    /// graph launch, whose id many device events share), a CPU op with an
    /// `External id` the launch of older traces.
    pub(crate) fn host(&mut self, node: &Rc<Node>, r: &Record, many: bool) -> Vec<Resolved> {
        match (r.cat, r.correlation(), r.external_id()) {
            (Cat::Runtime, Some(c), _) => {
                let reused = self.launches.get(c).is_some();
                if reused {
                    self.reused_ids += 1;
                    self.name_collision(c);
                }
                let launched = Launched {
                    node: Rc::clone(node),
                    reused,
                    many,
                    linked: 0,
                };
                self.launches.insert(c, r.ts, launched);
                let waiting = self.waiting.remove(c).unwrap_or_default();
                waiting
                    .into_iter()
                    .map(|(event, step)| self.by_launch(event, step, c))
                    .collect()
            }
            (Cat::CpuOp, _, Some(x)) => {
                self.external.insert(x, r.ts, Rc::clone(node));
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
            self.flows.insert(c, r.ts, flow);
        }
    }

    /// A device event in `step` (of its own start): linked now, or `None`
    /// when it waits for a launch yet to come.
    pub(crate) fn device(&mut self, r: &Record, step: Option<u32>) -> Option<Resolved> {
        self.device_events += 1;
        let Some(c) = r.correlation() else {
            let op = r.external_id().and_then(|x| self.external.get(x)).cloned();
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
        if self.launches.get(c).is_some() {
            return Some(self.by_launch(*r, step, c));
        }
        if self.flows.get(c).is_some() {
            return Some(self.by_flow(*r, step, c));
        }
        match self.waiting.get_mut(c) {
            Some(waiting) => waiting.push((*r, step)),
            None => self.waiting.insert(c, r.ts, vec![(*r, step)]),
        }
        None
    }

    /// Forgets launches, flows and ops older than the horizon or past the
    /// most held; device events that waited as long are given up on
    /// (linked by their flow, if one came).
    pub(crate) fn evict(&mut self, now: f64) -> Vec<Resolved> {
        let horizon = now - HORIZON_US;
        self.launches.evict(horizon);
        self.flows.evict(horizon);
        self.external.evict(horizon);
        let late = self.waiting.evict(horizon);
        self.give_up(late)
    }

    /// Device events still waiting at the end of the trace.
    pub(crate) fn finish(&mut self) -> Vec<Resolved> {
        let left = self.waiting.evict(f64::INFINITY);
        self.give_up(left)
    }

    fn give_up(&mut self, late: Vec<(i64, Waiting)>) -> Vec<Resolved> {
        let mut done = Vec::new();
        for (c, events) in late {
            for (event, step) in events {
                if self.flows.get(c).is_some() {
                    done.push(self.by_flow(event, step, c));
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

    /// Links a device event to the held launch of id `c`.
    fn by_launch(&mut self, event: Record, step: Option<u32>, c: i64) -> Resolved {
        let Some(held) = self.launches.get_mut(c) else {
            self.unlinked += 1;
            return Resolved {
                event,
                step,
                launch: None,
            };
        };
        held.linked += 1;
        let collides = held.reused || (!held.many && held.linked > 1);
        let launch = Rc::clone(&held.node);
        if collides {
            self.colliding += 1;
            self.name_collision(c);
        }
        if self
            .flows
            .get(c)
            .is_some_and(|f| f.thread != launch.thread || (f.ts - launch.ts).abs() > 1.0)
        {
            self.flow_disagrees += 1;
        }
        self.by_correlation += 1;
        Resolved {
            event,
            step,
            launch: Some(launch),
        }
    }

    fn name_collision(&mut self, c: i64) {
        if self.collided.len() < NAMED_IDS && !self.collided.contains(&c) {
            self.collided.push(c);
        }
    }

    fn by_flow(&mut self, event: Record, step: Option<u32>, c: i64) -> Resolved {
        let launch = self.flows.get(c).and_then(|f| f.host.clone());
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
            "{} of {} device events linked to their launch ({} by correlation id, {} by \
             ac2g flow, {} by External id)",
            linked - self.colliding,
            linked + self.unlinked,
            self.by_correlation - self.colliding,
            self.by_flow,
            self.by_external_id
        )];
        if self.unlinked > 0 {
            parts.push(format!(
                "{} with no launch in the trace count as unmapped",
                self.unlinked
            ));
        }
        if self.colliding + self.reused_ids > 0 {
            let ids: Vec<String> = self.collided.iter().map(i64::to_string).collect();
            let more = if self.collided.len() == NAMED_IDS {
                ", ..."
            } else {
                ""
            };
            parts.push(format!(
                "correlation ids collide: {} launch calls reuse an id another launch in flight \
                 holds and {} device events are linked through such an id (ids {}{more}); those \
                 links may name the wrong op",
                self.reused_ids,
                self.colliding,
                ids.join(", ")
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn held_entries_go_oldest_first_past_the_horizon_or_the_most_held() {
        let mut held: Held<u32> = Held::default();
        for id in 0..(HELD as i64 + 10) {
            held.insert(id, id as f64, 0);
        }
        held.insert(3, 1e9, 1); // Replaced: its first entry is stale.
        let out: Vec<i64> = held.evict(5.0).into_iter().map(|(id, _)| id).collect();
        // 0..5 started before the horizon; then the oldest go until the
        // most held is left (3 was replaced, so it stays).
        assert_eq!(out, [0, 1, 2, 4, 5, 6, 7, 8, 9, 10]);
        assert_eq!(held.map.len(), HELD);
        assert_eq!(held.get(3), Some(&1));
        assert_eq!(held.remove(11), Some(0));
        assert!(held.evict(5.0).is_empty());
    }
}
