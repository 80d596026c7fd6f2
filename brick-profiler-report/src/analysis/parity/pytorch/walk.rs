//! One pass over a trace's records in time order, folding as it goes: per
//! thread a stack of the events still open (nesting), each event's brick
//! (ownership), the step it falls in, and each device event linked to the
//! host event that launched it (`links.rs`). What is held is bounded by the
//! open events, the launches in flight and each distinct name, never by
//! the number of events; the import and the mapping draft are visitors.

use std::cell::Cell;
use std::collections::{HashMap, VecDeque};
use std::rc::Rc;

pub(crate) use super::node::{Below, DEVICE, HOST, Node, Step};

use super::links::{HORIZON_US, Links, Resolved};
use super::mapping::OpMapping;
use super::names::{Names, module_class};
use super::rules::{Launch, VIEW_OPS, launch, wrapper};
use crate::model::chrome_trace::{Cat, ChromeTrace, EPS_US, Record};
use crate::model::parity_error::ParityError;

/// Prefix of the autograd engine's range around each backward node.
pub(crate) const BACKWARD_PREFIX: &str = "autograd::engine::evaluate_function: ";

/// Records between two looks for launches, device events and steps that
/// waited past the horizon.
const TICK: u32 = 1 << 16;

/// What the import and the draft do with each event.
pub(crate) trait Visitor {
    /// A host event closed: every event inside it was closed before.
    fn closed(&mut self, names: &Names<'_>, node: &Rc<Node>, below: Below);
    /// Step `step` will see no more work: `busy` is final (device work,
    /// host work).
    fn settled(&mut self, step: u32, busy: [bool; 2]);
    /// A device event, in the step of its launch (else its own), with the
    /// host event it was launched from (`None`: not linked).
    fn device(
        &mut self,
        names: &Names<'_>,
        event: &Record,
        step: Option<u32>,
        launch: Option<&Rc<Node>>,
    );
}

/// What the pass found besides what its visitor kept.
#[derive(Debug)]
pub(crate) struct Summary {
    /// Every `ProfilerStep#N` range, in order.
    pub(crate) steps: Vec<Step>,
    /// The trace has device events.
    pub(crate) device: bool,
    /// How device events were linked.
    pub(crate) links: Links,
    /// Backward nodes mapped through their forward op's sequence number.
    pub(crate) backward_linked: usize,
    /// First start and last end of any event, µs.
    pub(crate) span: (f64, f64),
}

/// An open event on its thread's stack.
struct Frame {
    node: Rc<Node>,
    end: f64,
    has_parent: bool,
    below: Below,
}

/// The pass's state.
struct Walk<'t> {
    names: Names<'t>,
    mapping: &'t OpMapping,
    stacks: HashMap<u32, Vec<Frame>>,
    steps: Vec<Step>,
    /// Steps that may still hold the current time, by start.
    active: Vec<u32>,
    /// Steps whose work may not all have been seen, by start.
    unsettled: VecDeque<u32>,
    /// Records since the last look for what waited past the horizon.
    since_tick: u32,
    links: Links,
    /// The root brick of the latest forward op of each sequence number:
    /// this step's and the last one's (a backward node runs in its
    /// forward's step).
    creators: [HashMap<i64, Option<u32>>; 2],
    backward_linked: usize,
    /// Per open module call, the calls of each class inside it so far.
    places: HashMap<u64, HashMap<Box<str>, u32>>,
    op_bricks: HashMap<(u32, Option<u32>, Option<u32>), Option<u32>>,
    range_bricks: HashMap<u32, Option<u32>>,
    module_bricks: HashMap<u32, Option<u32>>,
    node_bricks: HashMap<u32, Option<u32>>,
    backward_bricks: HashMap<u32, u32>,
    span: (f64, f64),
}

/// Walks `trace` in time order, giving each event to `visitor`.
///
/// # Errors
/// [`ParityError::Spill`] when records spilled to temporary files cannot be
/// read back.
pub(crate) fn walk<'t>(
    trace: &'t ChromeTrace,
    mapping: &'t OpMapping,
    visitor: &mut impl Visitor,
) -> Result<(Names<'t>, Summary), ParityError> {
    let spill = |source| ParityError::Spill {
        origin: trace.origin.clone(),
        source,
    };
    let mut w = Walk {
        names: Names::new(&trace.texts),
        mapping,
        stacks: HashMap::new(),
        steps: Vec::new(),
        active: Vec::new(),
        unsettled: VecDeque::new(),
        since_tick: 0,
        links: Links::default(),
        creators: [HashMap::new(), HashMap::new()],
        backward_linked: 0,
        places: HashMap::new(),
        op_bricks: HashMap::new(),
        range_bricks: HashMap::new(),
        module_bricks: HashMap::new(),
        node_bricks: HashMap::new(),
        backward_bricks: HashMap::new(),
        span: (f64::INFINITY, f64::NEG_INFINITY),
    };
    for record in trace.records.iter().map_err(spill)? {
        w.record(&record.map_err(spill)?, visitor);
    }
    w.finish(visitor);
    let summary = Summary {
        steps: w.steps,
        device: w.links.device_events > 0,
        links: w.links,
        backward_linked: w.backward_linked,
        span: w.span,
    };
    Ok((w.names, summary))
}

impl Walk<'_> {
    fn record(&mut self, r: &Record, visitor: &mut impl Visitor) {
        if r.flow {
            let host = self.enclosing(r.thread, r.ts);
            self.links.flow(r, host);
            return;
        }
        self.span = (self.span.0.min(r.ts), self.span.1.max(r.end()));
        self.since_tick += 1;
        if self.since_tick == TICK {
            self.since_tick = 0;
            for done in self.links.evict(r.ts) {
                self.emit(done, visitor);
            }
            self.settle(r.ts - HORIZON_US, visitor);
        }
        if r.cat.on_device() {
            let step = self.step_at(r.ts);
            if let Some(done) = self.links.device(r, step) {
                self.emit(done, visitor);
            }
            return;
        }
        let mut stack = self.stacks.remove(&r.thread).unwrap_or_default();
        // Close what ended before `r` began; the event left on top encloses it.
        while let Some(top) = stack.last() {
            if r.ts >= top.end - EPS_US && r.dur > 0.0 || r.ts > top.end + EPS_US {
                self.close(&mut stack, visitor); // `top` ended before `r` began.
            } else if r.end() <= top.end + EPS_US {
                break;
            } else {
                self.close(&mut stack, visitor); // Overlap without nesting: not a parent.
            }
        }
        let node = Rc::new(self.open(r, stack.last().map(|f| &f.node)));
        let many = r.cat == Cat::Runtime && launch(self.names.text(r.name)) == Some(Launch::Graph);
        for done in self.links.host(&node, r, many) {
            self.emit(done, visitor);
        }
        stack.push(Frame {
            has_parent: !stack.is_empty(),
            node,
            end: r.end(),
            below: Below::default(),
        });
        self.stacks.insert(r.thread, stack);
    }

    /// Closes the frame on top of `stack`, telling its parent what it was.
    fn close(&mut self, stack: &mut Vec<Frame>, visitor: &mut impl Visitor) {
        let Some(frame) = stack.pop() else { return };
        let node = &frame.node;
        node.closed.set(true);
        if frame.has_parent
            && let Some(parent) = stack.last_mut()
        {
            parent.below.op_child |= node.cat == Cat::CpuOp;
            parent.below.mapped |= node.is_root() || frame.below.mapped;
        }
        if node.cat == Cat::Module {
            self.places.remove(&node.id);
        }
        visitor.closed(&self.names, node, frame.below);
    }

    /// A device event linked (or not), in its step.
    fn emit(&mut self, done: Resolved, visitor: &mut impl Visitor) {
        let step = done.launch.as_ref().map_or(done.step, |l| l.step);
        if let Some(s) = step.and_then(|s| self.steps.get_mut(s as usize)) {
            s.busy[DEVICE] = true;
        }
        visitor.device(&self.names, &done.event, step, done.launch.as_ref());
    }

    /// The innermost open event on `thread` that reaches `ts`.
    fn enclosing(&self, thread: u32, ts: f64) -> Option<Rc<Node>> {
        let stack = self.stacks.get(&thread)?;
        stack
            .iter()
            .rev()
            .find(|f| f.end >= ts)
            .map(|f| Rc::clone(&f.node))
    }

    /// The latest-started step that reaches `ts` (the walk's current time).
    fn step_at(&mut self, ts: f64) -> Option<u32> {
        let steps = &self.steps;
        self.active
            .retain(|&s| steps[s as usize].ts + steps[s as usize].dur >= ts);
        self.active.last().copied()
    }

    /// A new host event inside `parent`.
    fn open(&mut self, r: &Record, parent: Option<&Rc<Node>>) -> Node {
        let name = self.names.text(r.name);
        let backward = r.cat == Cat::CpuOp && name.starts_with(BACKWARD_PREFIX);
        let is_step = r.cat == Cat::Annotation && name.starts_with("ProfilerStep#");
        if is_step {
            self.active.push(self.steps.len() as u32);
            self.unsettled.push_back(self.steps.len() as u32);
            self.steps.push(Step {
                name: r.name,
                ts: r.ts,
                dur: r.dur,
                busy: [false; 2],
            });
            let last = std::mem::take(&mut self.creators[0]);
            self.creators[1] = last;
        }
        let step = self.step_at(r.ts);
        let works = matches!(r.cat, Cat::CpuOp | Cat::Annotation | Cat::Module)
            && r.dur > 0.0
            && !is_step
            && !VIEW_OPS.contains(&name);
        if works && let Some(s) = step {
            self.steps[s as usize].busy[HOST] = true;
        }
        let module_above = parent.and_then(Node::module_call);
        let mut module = parent.and_then(|p| p.module);
        if r.cat == Cat::Module {
            module = Some(self.module_path(name, module, module_above.as_deref()));
        }
        let mut node = Node {
            id: r.index,
            name: r.name,
            dims: r.dims(),
            cat: r.cat,
            thread: r.thread,
            ts: r.ts,
            dur: r.dur,
            own: None,
            module,
            in_backward: backward || parent.is_some_and(|p| p.in_backward),
            under_op: parent.is_some_and(|p| p.under_op || (p.cat == Cat::CpuOp && !p.wrapper)),
            wrapper: r.cat == Cat::CpuOp && wrapper(name),
            step,
            inner_module: Cell::new(false),
            closed: Cell::new(false),
            counted: [Cell::new(false), Cell::new(false)],
            root_above: parent.and_then(Node::root),
            top_above: parent.and_then(Node::top_op),
            wrapper_above: parent.and_then(Node::top_wrapper),
            module_above,
        };
        node.own = if backward {
            self.backward_brick(r, name)
        } else {
            self.own_brick(r, module)
        };
        if r.cat == Cat::CpuOp
            && !node.in_backward
            && let Some(seq) = r.seq()
        {
            // Records come by start: the latest op of a number wins.
            self.creators[0].insert(seq, node.root_brick());
        }
        node
    }

    /// The module path of a module call: its parent module's path and its
    /// class with its place among that parent's calls of the class.
    fn module_path(&mut self, name: &str, parent_path: Option<u32>, outer: Option<&Node>) -> u32 {
        let class = module_class(name);
        let (place, parent_path) = match outer {
            Some(m) => {
                m.inner_module.set(true);
                let places = self.places.entry(m.id).or_default();
                let next = match places.get_mut(class) {
                    Some(n) => n,
                    None => places.entry(Box::from(class)).or_insert(0),
                };
                *next += 1;
                (*next - 1, parent_path)
            }
            // A module called outside any other is the model: each call is
            // a new pass, not its next child.
            None => (0, None),
        };
        let path = match parent_path {
            Some(p) => format!("{}.{class}[{place}]", self.names.path(p)),
            None => format!("{class}[{place}]"),
        };
        self.names.path_id(&path)
    }

    /// The brick of a range, op or module call by the mapping (rules are
    /// tried once per distinct name, shapes and module path).
    fn own_brick(&mut self, r: &Record, module: Option<u32>) -> Option<u32> {
        let (names, mapping) = (&mut self.names, self.mapping);
        match r.cat {
            Cat::Annotation => *self.range_bricks.entry(r.name).or_insert_with(|| {
                let brick = mapping.annotation(names.text(r.name));
                brick.map(|b| names.brick_id(b))
            }),
            Cat::CpuOp => *self
                .op_bricks
                .entry((r.name, r.dims(), module))
                .or_insert_with(|| {
                    let dims = r.dims().map(|d| names.text(d));
                    let path = module.map(|m| names.path(m));
                    let brick = mapping.op_in(names.text(r.name), dims, path);
                    brick.map(|b| names.brick_id(b))
                }),
            Cat::Module => {
                let path = module?;
                *self.module_bricks.entry(path).or_insert_with(|| {
                    let brick = mapping.module(names.path(path));
                    brick.map(|b| names.brick_id(b))
                })
            }
            _ => None,
        }
    }

    /// A backward node's brick: its forward op's, by sequence number, as a
    /// backward brick; else the mapping's for the node's name.
    fn backward_brick(&mut self, r: &Record, name: &str) -> Option<u32> {
        let forward = r.seq().and_then(|s| {
            let found = self.creators[0]
                .get(&s)
                .or_else(|| self.creators[1].get(&s));
            found.copied().flatten()
        });
        if let Some(f) = forward {
            self.backward_linked += 1;
            let (names, mapping) = (&mut self.names, self.mapping);
            return Some(*self.backward_bricks.entry(f).or_insert_with(|| {
                let backward = mapping.backward_name(names.brick(f));
                names.brick_id(&backward)
            }));
        }
        let node = name.strip_prefix(BACKWARD_PREFIX).unwrap_or(name);
        let (names, mapping) = (&mut self.names, self.mapping);
        *self.node_bricks.entry(r.name).or_insert_with(|| {
            let brick = mapping.op(node);
            brick.map(|b| names.brick_id(b))
        })
    }

    /// Closes every open event and links what is still waiting.
    fn finish(&mut self, visitor: &mut impl Visitor) {
        let mut threads: Vec<u32> = self.stacks.keys().copied().collect();
        threads.sort_unstable();
        for thread in threads {
            let mut stack = self.stacks.remove(&thread).unwrap_or_default();
            while !stack.is_empty() {
                self.close(&mut stack, visitor);
            }
        }
        for done in self.links.finish() {
            self.emit(done, visitor);
        }
        self.settle(f64::INFINITY, visitor);
    }

    /// Settles the steps that ended before `before`: a launch waits for its
    /// device events no longer than the horizon, so no more work comes.
    fn settle(&mut self, before: f64, visitor: &mut impl Visitor) {
        while let Some(&s) = self.unsettled.front() {
            let step = &self.steps[s as usize];
            if step.ts + step.dur >= before {
                break;
            }
            self.unsettled.pop_front();
            visitor.settled(s, step.busy);
        }
    }
}

#[cfg(test)]
mod tests;
