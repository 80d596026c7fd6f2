//! The mapping draft's visitor of the walk: where each host event's time
//! goes (the mapped range around it, its leaf module call, or its
//! top-level op), tallied per step; time inside a module call whose
//! leafness is not known yet waits for it to close.

use std::collections::HashMap;
use std::rc::Rc;

use super::names::Names;
use super::rules::{self, Launch, VIEW_OPS};
use super::settle::{Merge, Settling};
use super::walk::{Below, DEVICE, HOST, Node, Visitor};
use crate::model::chrome_trace::{Cat, Record};

/// What a draft rule matches.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(super) enum Key {
    /// A mapped `record_function` range (the built-in rules map some, and
    /// every other maps to itself), by name: what runs inside it is its.
    Range(String),
    /// A leaf module's calls, by generalised path.
    Module(String),
    /// Ops by name, shapes and generalised enclosing module path.
    Op {
        name: String,
        shapes: Option<String>,
        module: Option<String>,
    },
}

/// `TinyTransformer[0].Block[2].Attention[0].Linear[1]` ->
/// `*.Attention[*].Linear[1]`: the calls of that module in every parent
/// call, whatever the parent's place.
pub(super) fn generalise(path: &str) -> String {
    let parts: Vec<&str> = path.split('.').collect();
    let starred = |p: &str| match p.find('[') {
        Some(i) => format!("{}[*]", &p[..i]),
        None => p.to_owned(),
    };
    match parts.as_slice() {
        [] | [_] => path.to_owned(),
        [parent, last] => format!("{}.{last}", starred(parent)),
        [.., parent, last] => format!("*.{}.{last}", starred(parent)),
    }
}

/// An op's enclosing module path with every place starred:
/// `TinyTransformer[0].Block[2].Attention[0]` -> `*.Block[*].Attention[*]`,
/// so the op's calls in every block fall in one rule.
pub(super) fn generalise_all(path: &str) -> String {
    let parts: Vec<String> = path
        .split('.')
        .map(|p| match p.find('[') {
            Some(i) => format!("{}[*]", &p[..i]),
            None => p.to_owned(),
        })
        .collect();
    match parts.as_slice() {
        [] | [_] | [_, _] => parts.join("."),
        [.., parent, last] => format!("*.{parent}.{last}"),
    }
}

/// A draft rule's time (µs), calls and brick (an id), over the steps.
#[derive(Debug, Default, Clone)]
pub(super) struct Tally {
    pub(super) us: f64,
    pub(super) calls: u64,
    pub(super) brick: Option<u32>,
}

/// A draft group by ids, as the walk meets it; several may make one
/// [`Key`] once module paths are generalised.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Group {
    Range(u32),
    Module(u32),
    Op {
        name: u32,
        dims: Option<u32>,
        module: Option<u32>,
    },
}

impl Group {
    fn key(self, names: &Names<'_>) -> Key {
        match self {
            Group::Range(name) => Key::Range(names.text(name).to_owned()),
            Group::Module(path) => Key::Module(generalise(names.path(path))),
            Group::Op { name, dims, module } => Key::Op {
                name: names.text(name).to_owned(),
                shapes: dims.map(|d| names.text(d).to_owned()),
                module: module.map(|m| generalise_all(names.path(m))),
            },
        }
    }
}

/// Where a host event's time goes in the draft.
enum Placed {
    /// To `group`, counting a call of `owner`.
    Group(Rc<Node>, Group),
    /// Not known until this module call closes (whether a module call
    /// runs inside it decides between its group and the op's).
    Wait(Rc<Node>),
    /// Nowhere: backward, a view, or no op.
    Nowhere,
}

/// The group a host event's time counts in: the outermost mapped range
/// around it (it wins in parity, so it does here), else its leaf module
/// call, else its top-level op.
fn place(names: &Names<'_>, event: &Rc<Node>) -> Placed {
    if event.in_backward {
        return Placed::Nowhere;
    }
    if let Some(r) = event.root()
        && r.cat == Cat::Annotation
    {
        let name = r.name;
        return Placed::Group(r, Group::Range(name));
    }
    if let Some(m) = event.module_call() {
        if !m.closed.get() {
            return Placed::Wait(m);
        }
        if !m.inner_module.get()
            && let Some(path) = m.module
        {
            return Placed::Group(m, Group::Module(path));
        }
    }
    // Time launched inside a compiled region outside any op stays with
    // the region: no rule could name it otherwise.
    let Some(op) = event.top_op().or_else(|| event.top_wrapper()) else {
        return Placed::Nowhere;
    };
    let name = names.text(op.name);
    if VIEW_OPS.contains(&name) || name.starts_with("ProfilerStep#") {
        return Placed::Nowhere;
    }
    let group = Group::Op {
        name: op.name,
        dims: op.dims,
        module: op.module,
    };
    Placed::Group(op, group)
}

/// A share of time: a device event's, given to its launch, or a host
/// event's own range; it waits when its group waits for a module call.
struct Share {
    event: Rc<Node>,
    step: Option<u32>,
    us: f64,
    mode: usize,
}

/// Each group's tally.
#[derive(Debug, Default, Clone)]
struct Groups(HashMap<Group, Tally>);

impl Merge for Groups {
    fn merge(&mut self, other: Self) {
        for (group, t) in other.0 {
            self.0.entry(group).or_default().add(&t);
        }
    }
}

impl Tally {
    fn add(&mut self, other: &Tally) {
        self.us += other.us;
        self.calls += other.calls;
        if self.brick.is_none() {
            self.brick = other.brick;
        }
    }
}

/// The draft's visitor: per kind of share (a device event's, a host
/// range's) each group's tally, by step until the step settles.
#[derive(Default)]
pub(super) struct Draft {
    /// Tallies of device events' shares ([`DEVICE`]), of host ranges'
    /// ([`HOST`]).
    sums: [Settling<Groups>; 2],
    /// Ranges that map to no brick (transparent: the rules reach inside
    /// them), their host time by name.
    ranges: Settling<Groups>,
    /// Shares waiting, by the module call they wait for.
    parked: HashMap<u64, Vec<Share>>,
    /// Device time, and the part of it launched under no op.
    unreached: Settling<Unreached>,
}

/// Device events no rule reaches through their launch: launched outside
/// every op and module call (kernels of a graph replayed outside any op, a
/// trace of runtime calls only), or linked to no launch call. The draft
/// says how much of the device time they hold.
#[derive(Debug, Default, Clone)]
pub(super) struct Unreached {
    /// Device time of every device event, µs.
    pub(super) device_us: f64,
    /// Device time launched outside every op and module call, µs.
    pub(super) us: f64,
    /// Kernels launched outside every op and module call.
    pub(super) kernels: u64,
    /// Of those, kernels a graph launch replayed.
    pub(super) graph_kernels: u64,
    /// Device time linked to no launch call, µs.
    pub(super) unlinked_us: f64,
    /// Device events linked to no launch call.
    pub(super) unlinked: u64,
}

impl Merge for Unreached {
    fn merge(&mut self, other: Self) {
        self.device_us += other.device_us;
        self.us += other.us;
        self.kernels += other.kernels;
        self.graph_kernels += other.graph_kernels;
        self.unlinked_us += other.unlinked_us;
        self.unlinked += other.unlinked;
    }
}

impl Draft {
    /// The tallies of the steps kept (everything, when none is) of the
    /// trace's kind, by rule.
    pub(super) fn merged(
        self,
        names: &Names<'_>,
        mode: usize,
        any_kept: bool,
    ) -> (HashMap<Key, Tally>, HashMap<Key, Tally>, Unreached) {
        let [device, host] = self.sums;
        let sums = if mode == DEVICE { device } else { host };
        let keyed = |groups: Groups| {
            let mut tallies: HashMap<Key, Tally> = HashMap::new();
            for (group, t) in groups.0 {
                tallies.entry(group.key(names)).or_default().add(&t);
            }
            tallies
        };
        (
            keyed(sums.total(mode, any_kept)),
            keyed(self.ranges.total(mode, any_kept)),
            self.unreached.total(mode, any_kept),
        )
    }

    /// Adds `us` of `event` (a device event's launch, or a host event
    /// whose own range counts) in `step`.
    fn add(&mut self, names: &Names<'_>, share: Share) {
        match place(names, &share.event) {
            Placed::Group(owner, group) => {
                // A host event counts only its own range: what runs inside
                // a group's owner is in the owner's range already.
                if share.mode == HOST && !Rc::ptr_eq(&owner, &share.event) {
                    return;
                }
                let share_of = Tally {
                    us: share.us,
                    calls: u64::from(!owner.counted[share.mode].replace(true)),
                    brick: owner.root_brick(),
                };
                self.sums[share.mode].add(share.step, |groups| {
                    groups.0.entry(group).or_default().add(&share_of);
                });
            }
            Placed::Wait(m) => self.parked.entry(m.id).or_default().push(share),
            Placed::Nowhere => {}
        }
    }
}

impl Visitor for Draft {
    fn settled(&mut self, step: u32, busy: [bool; 2]) {
        for sums in &mut self.sums {
            sums.settle(step, busy);
        }
        self.ranges.settle(step, busy);
        self.unreached.settle(step, busy);
    }

    fn closed(&mut self, names: &Names<'_>, node: &Rc<Node>, _: Below) {
        if node.cat == Cat::Annotation
            && node.root_brick().is_none()
            && !names.text(node.name).starts_with("ProfilerStep#")
        {
            let range = Tally {
                us: node.dur,
                calls: 1,
                brick: None,
            };
            self.ranges.add(node.step, |groups| {
                groups
                    .0
                    .entry(Group::Range(node.name))
                    .or_default()
                    .add(&range);
            });
        }
        let share = Share {
            event: Rc::clone(node),
            step: node.step,
            us: node.dur,
            mode: HOST,
        };
        self.add(names, share);
        if node.cat == Cat::Module {
            for share in self.parked.remove(&node.id).unwrap_or_default() {
                self.add(names, share);
            }
        }
    }

    fn device(
        &mut self,
        names: &Names<'_>,
        event: &Record,
        step: Option<u32>,
        launch: Option<&Rc<Node>>,
    ) {
        let outside = launch.is_some_and(|l| {
            !l.in_backward
                && l.root().is_none()
                && l.module_call().is_none()
                && l.top_op().or_else(|| l.top_wrapper()).is_none()
        });
        let graph =
            launch.is_some_and(|l| rules::launch(names.text(l.name)) == Some(Launch::Graph));
        let kernel = u64::from(event.cat == Cat::Kernel);
        self.unreached.add(step, |u| {
            u.device_us += event.dur;
            if launch.is_none() {
                u.unlinked_us += event.dur;
                u.unlinked += 1;
            } else if outside {
                u.us += event.dur;
                u.kernels += kernel;
                u.graph_kernels += kernel * u64::from(graph);
            }
        });
        if let Some(l) = launch {
            let share = Share {
                event: Rc::clone(l),
                step,
                us: event.dur,
                mode: DEVICE,
            };
            self.add(names, share);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_generalise_to_the_parent_class_and_the_call_place() {
        assert_eq!(
            generalise("TinyTransformer[0].Block[2].Attention[0].Linear[1]"),
            "*.Attention[*].Linear[1]"
        );
        assert_eq!(
            generalise("TinyTransformer[0].Linear[0]"),
            "TinyTransformer[*].Linear[0]"
        );
        assert_eq!(generalise("TinyTransformer[0]"), "TinyTransformer[0]");
        assert_eq!(
            generalise_all("TinyTransformer[0].Block[2].Attention[0]"),
            "*.Block[*].Attention[*]"
        );
        assert_eq!(
            generalise_all("TinyTransformer[0].Block[1]"),
            "TinyTransformer[*].Block[*]"
        );
    }
}
