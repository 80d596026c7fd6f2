//! The import's visitor of the walk: per step, mapped and unmapped time
//! and launches, for device traces and for CPU traces alike (which one the
//! trace is, is known only at its end).

use std::collections::HashMap;
use std::rc::Rc;

use super::names::Names;
use super::rules::{self, Launch, VIEW_OPS};
use super::settle::{Merge, Settling};
use super::walk::{Below, DEVICE, HOST, Node, Summary, Visitor};
use crate::model::chrome_trace::{Cat, Record};

/// What the steps kept (or the time outside every step) add up, per kind
/// of trace ([`DEVICE`], [`HOST`]): the kind is known only at the end.
#[derive(Debug, Default, Clone)]
pub(super) struct Bucket {
    /// Mapped time by brick id, µs.
    pub(super) ops: [HashMap<u32, f64>; 2],
    /// Unmapped time by op name (a text id), µs.
    pub(super) unmapped: [HashMap<u32, f64>; 2],
    /// Kernels; leaf host ops that are not views.
    pub(super) launches: [u64; 2],
    /// Device time (kernels, memcpy, memset), µs.
    pub(super) device_us: f64,
    /// Kernels a graph launch (`cudaGraphLaunch`, ...) replayed.
    pub(super) graph_kernels: u64,
    /// Device time of what graph launches replayed (kernels, memcpy,
    /// memset), µs.
    pub(super) graph_device_us: f64,
    /// Kernel launch calls (`cudaLaunchKernel`, `cuLaunchKernel`,
    /// `hipLaunchKernel`, ...) and graph launches, by call name (a text
    /// id).
    pub(super) launch_calls: HashMap<u32, (Launch, u64)>,
}

impl Merge for Bucket {
    fn merge(&mut self, other: Self) {
        for mode in [DEVICE, HOST] {
            for (k, v) in &other.ops[mode] {
                *self.ops[mode].entry(*k).or_default() += v;
            }
            for (k, v) in &other.unmapped[mode] {
                *self.unmapped[mode].entry(*k).or_default() += v;
            }
            self.launches[mode] += other.launches[mode];
        }
        self.device_us += other.device_us;
        self.graph_kernels += other.graph_kernels;
        self.graph_device_us += other.graph_device_us;
        for (k, (kind, n)) in other.launch_calls {
            self.launch_calls.entry(k).or_insert((kind, 0)).1 += n;
        }
    }
}

/// The import's visitor: sums per step until the step settles, then per
/// kind of work the steps held.
#[derive(Debug, Default)]
pub(super) struct Totals {
    sums: Settling<Bucket>,
}

impl Totals {
    /// The sums of the steps kept (everything when none is).
    pub(super) fn kept(self, summary: &Summary, mode: usize) -> Bucket {
        let any_kept = summary.steps.iter().any(|s| s.busy[mode]);
        self.sums.total(mode, any_kept)
    }
}

impl Visitor for Totals {
    fn closed(&mut self, names: &Names<'_>, node: &Rc<Node>, below: Below) {
        let root = node.is_root().then_some(node.own).flatten();
        let op = node.cat == Cat::CpuOp;
        let launch = op && !below.op_child && !VIEW_OPS.contains(&names.text(node.name));
        let unmapped =
            op && !node.wrapper && !node.under_op && node.root_brick().is_none() && !below.mapped;
        let call = if node.cat == Cat::Runtime {
            rules::launch(names.text(node.name))
        } else {
            None
        };
        self.sums.add(node.step, |b| {
            if let Some(kind) = call {
                b.launch_calls.entry(node.name).or_insert((kind, 0)).1 += 1;
            }
            if let Some(brick) = root {
                *b.ops[HOST].entry(brick).or_default() += node.dur;
            }
            b.launches[HOST] += u64::from(launch);
            if unmapped {
                *b.unmapped[HOST].entry(node.name).or_default() += node.dur;
            }
        });
    }

    fn settled(&mut self, step: u32, busy: [bool; 2]) {
        self.sums.settle(step, busy);
    }

    fn device(
        &mut self,
        names: &Names<'_>,
        event: &Record,
        step: Option<u32>,
        launch: Option<&Rc<Node>>,
    ) {
        let brick = launch.and_then(|l| l.root_brick());
        // Unmapped time is named after the op that launched it, which is
        // what a mapping rule can name; else after the kernel.
        let op = launch.and_then(Node::top_op).map_or(event.name, |o| o.name);
        let graph =
            launch.is_some_and(|l| rules::launch(names.text(l.name)) == Some(Launch::Graph));
        self.sums.add(step, |b| {
            b.device_us += event.dur;
            b.launches[DEVICE] += u64::from(event.cat == Cat::Kernel);
            if graph {
                b.graph_kernels += u64::from(event.cat == Cat::Kernel);
                b.graph_device_us += event.dur;
            }
            match brick {
                Some(brick) => *b.ops[DEVICE].entry(brick).or_default() += event.dur,
                None => *b.unmapped[DEVICE].entry(op).or_default() += event.dur,
            }
        });
    }
}
