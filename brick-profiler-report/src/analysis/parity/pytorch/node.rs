//! A host event as the walk over a trace knows it: its place in the nesting
//! (the mapped event, the top-level op and the module call around it), its
//! brick and step, shared by its frame and by launches made inside it.

use std::cell::Cell;
use std::rc::Rc;

use crate::model::chrome_trace::Cat;

/// Device work (`DEVICE`) or host work (`HOST`): the two ways a step is busy
/// and a draft counts calls, of which the trace's kind picks one at the end.
pub(crate) const DEVICE: usize = 0;
/// See [`DEVICE`].
pub(crate) const HOST: usize = 1;

/// A host event as the walk knows it once opened, shared by its frame and
/// by the launches made inside it (which may resolve after it closed).
#[derive(Debug)]
pub(crate) struct Node {
    /// Place in `traceEvents` (unique).
    pub(crate) id: u64,
    /// Name, a text id.
    pub(crate) name: u32,
    /// Input shapes, a text id.
    pub(crate) dims: Option<u32>,
    pub(crate) cat: Cat,
    pub(crate) thread: u32,
    /// Start and duration, µs.
    pub(crate) ts: f64,
    pub(crate) dur: f64,
    /// Its own brick, before nesting (a brick id).
    pub(crate) own: Option<u32>,
    /// The module path it runs in (a path id).
    pub(crate) module: Option<u32>,
    /// A backward node, or inside one.
    pub(crate) in_backward: bool,
    /// A CPU op encloses it (itself excluded), wrappers aside.
    pub(crate) under_op: bool,
    /// A CPU op that only wraps others (a compiled region, ...).
    pub(crate) wrapper: bool,
    /// The step its start falls in.
    pub(crate) step: Option<u32>,
    /// A module call: another module call ran inside it.
    pub(crate) inner_module: Cell<bool>,
    /// Its frame has been closed: everything inside it has been seen.
    pub(crate) closed: Cell<bool>,
    /// The draft counted a call of it, per [`DEVICE`] and [`HOST`].
    pub(crate) counted: [Cell<bool>; 2],
    /// The root of its parent (see [`Node::root`]).
    pub(super) root_above: Option<Rc<Node>>,
    /// The top-level op of its parent.
    pub(super) top_above: Option<Rc<Node>>,
    /// The outermost wrapper op around its parent (a compiled region).
    pub(super) wrapper_above: Option<Rc<Node>>,
    /// The module call of its parent.
    pub(super) module_above: Option<Rc<Node>>,
}

impl Node {
    /// The outermost event around it (itself included) with a brick.
    pub(crate) fn root(self: &Rc<Self>) -> Option<Rc<Node>> {
        self.root_above
            .clone()
            .or_else(|| self.own.map(|_| Rc::clone(self)))
    }

    /// The brick of [`Node::root`].
    pub(crate) fn root_brick(&self) -> Option<u32> {
        self.root_above.as_ref().map_or(self.own, |r| r.own)
    }

    /// Whether it is its own root: mapped, with nothing mapped around it.
    pub(crate) fn is_root(&self) -> bool {
        self.root_above.is_none() && self.own.is_some()
    }

    /// The outermost CPU op around it (itself included) that is not a
    /// wrapper.
    pub(crate) fn top_op(self: &Rc<Self>) -> Option<Rc<Node>> {
        self.top_above
            .clone()
            .or_else(|| (self.cat == Cat::CpuOp && !self.wrapper).then(|| Rc::clone(self)))
    }

    /// The outermost wrapper op around it (itself included): where time
    /// launched outside any op inside a compiled region goes.
    pub(crate) fn top_wrapper(self: &Rc<Self>) -> Option<Rc<Node>> {
        self.wrapper_above
            .clone()
            .or_else(|| self.wrapper.then(|| Rc::clone(self)))
    }

    /// The innermost module call around it (itself included).
    pub(crate) fn module_call(self: &Rc<Self>) -> Option<Rc<Node>> {
        if self.cat == Cat::Module {
            return Some(Rc::clone(self));
        }
        self.module_above.clone()
    }
}

/// What the events inside a closed one were.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Below {
    /// A CPU op ran directly inside it.
    pub(crate) op_child: bool,
    /// A mapped event that is its own root ran inside it.
    pub(crate) mapped: bool,
}

/// A `ProfilerStep#N` range and whether work fell in it.
#[derive(Debug, Clone)]
pub(crate) struct Step {
    pub(crate) name: u32,
    pub(crate) ts: f64,
    pub(crate) dur: f64,
    /// A device event was launched in it ([`DEVICE`]), or a host op or
    /// range that does work ran in it ([`HOST`]).
    pub(crate) busy: [bool; 2],
}
