//! What the import asks of every event's ancestry and of the step ranges,
//! computed once: whether an op encloses the event, its outermost op, its
//! module path, whether it runs in a backward node, and which step (if
//! any) a time falls in.

use std::collections::HashMap;

use crate::model::chrome_trace::{Cat, Event, MODULE_PREFIX};

/// Prefix of the autograd engine's range around each backward node.
pub(crate) const BACKWARD_PREFIX: &str = "autograd::engine::evaluate_function: ";

/// Facts of each event's chain of parents, computed in one pass.
#[derive(Debug)]
pub(crate) struct Tree {
    /// Whether a CPU op encloses the event (itself excluded).
    pub(crate) under_op: Vec<bool>,
    /// Whether the event is a backward node or runs inside one.
    pub(crate) in_backward: Vec<bool>,
    /// The outermost CPU op enclosing the event (itself included).
    pub(crate) top_op: Vec<Option<usize>>,
    /// The module path the event runs in, as an index into `paths`.
    pub(crate) module: Vec<Option<u32>>,
    /// The innermost module call enclosing the event (itself included).
    pub(crate) module_call: Vec<Option<usize>>,
    /// Module paths: `TinyTransformer[0].Block[2].Attention[0].Linear[1]`,
    /// each element a module class and its call's place among the calls of
    /// that class inside the parent module's call.
    pub(crate) paths: Vec<String>,
}

impl Tree {
    /// Events come sorted with each parent before its children, so one
    /// forward pass reads every parent's facts before its children need
    /// them: linear time, where walking each chain is quadratic in depth.
    pub(crate) fn new(events: &[Event]) -> Self {
        let n = events.len();
        let mut under_op = vec![false; n];
        let mut in_backward = vec![false; n];
        let mut top_op = vec![None; n];
        let mut module = vec![None; n];
        // The innermost module call enclosing each event (itself included).
        let mut module_call: Vec<Option<usize>> = vec![None; n];
        let mut paths = Paths::default();
        let mut calls: HashMap<(usize, &str), u32> = HashMap::new();
        for (i, e) in events.iter().enumerate() {
            let backward = e.name.starts_with(BACKWARD_PREFIX);
            let own_op = (e.cat == Cat::CpuOp).then_some(i);
            match e.parent() {
                Some(p) => {
                    under_op[i] = under_op[p] || events[p].cat == Cat::CpuOp;
                    in_backward[i] = backward || in_backward[p];
                    top_op[i] = top_op[p].or(own_op);
                    module[i] = module[p];
                    module_call[i] = module_call[p];
                }
                None => {
                    in_backward[i] = backward;
                    top_op[i] = own_op;
                }
            }
            if e.cat == Cat::Module {
                let class = module_class(&e.name);
                // A module called outside any other is the model: each call
                // is a new pass, not its next child.
                let (place, parent_path) = match module_call[i] {
                    Some(m) => {
                        let next = calls.entry((m, class)).or_insert(0);
                        *next += 1;
                        (
                            *next - 1,
                            module[i].map(|p| paths.list[p as usize].as_str()),
                        )
                    }
                    None => (0, None),
                };
                let path = match parent_path {
                    Some(parent) => format!("{parent}.{class}[{place}]"),
                    None => format!("{class}[{place}]"),
                };
                module[i] = Some(paths.id(path));
                module_call[i] = Some(i);
            }
        }
        Self {
            under_op,
            in_backward,
            top_op,
            module,
            module_call,
            paths: paths.list,
        }
    }

    /// The module path of event `i`, when it runs inside a module.
    pub(crate) fn module_path(&self, i: usize) -> Option<&str> {
        self.module[i].map(|p| self.paths[p as usize].as_str())
    }
}

/// Module paths, each stored once.
#[derive(Default)]
struct Paths {
    list: Vec<String>,
    ids: HashMap<String, u32>,
}

impl Paths {
    fn id(&mut self, path: String) -> u32 {
        if let Some(&id) = self.ids.get(&path) {
            return id;
        }
        let id = u32::try_from(self.list.len()).unwrap_or(u32::MAX);
        self.list.push(path.clone());
        self.ids.insert(path, id);
        id
    }
}

/// `Linear` of `nn.Module: Linear_5`: the class without the profiler's
/// instance counter.
fn module_class(name: &str) -> &str {
    let class = name.strip_prefix(MODULE_PREFIX).unwrap_or(name);
    match class.rsplit_once('_') {
        Some((head, n)) if !head.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => head,
        _ => class,
    }
}

/// The `ProfilerStep#N` ranges, sorted, for membership tests in
/// logarithmic time.
#[derive(Debug)]
pub(crate) struct StepWindows {
    /// (start, end), by start.
    ranges: Vec<(f64, f64)>,
    /// Each range's index in the list given.
    given: Vec<usize>,
    /// The largest end among `ranges[..=i]`.
    reach: Vec<f64>,
}

impl StepWindows {
    pub(crate) fn new(steps: &[(f64, f64)]) -> Self {
        let mut given: Vec<usize> = (0..steps.len()).collect();
        given.sort_by(|&a, &b| steps[a].0.total_cmp(&steps[b].0));
        let ranges: Vec<(f64, f64)> = given.iter().map(|&i| steps[i]).collect();
        let reach = ranges
            .iter()
            .scan(f64::NEG_INFINITY, |m, &(_, end)| {
                *m = m.max(end);
                Some(*m)
            })
            .collect();
        Self {
            ranges,
            given,
            reach,
        }
    }

    /// The step (its index in the list given) that `ts` falls in: the
    /// latest to start at or before `ts`, when it reaches `ts`.
    pub(crate) fn which(&self, ts: f64) -> Option<usize> {
        let started = self.ranges.partition_point(|&(start, _)| start <= ts);
        let last = started.checked_sub(1)?;
        (self.ranges[last].1 >= ts).then(|| self.given[last])
    }

    /// Whether `ts` falls in a step (always, without steps).
    pub(crate) fn contains(&self, ts: f64) -> bool {
        if self.ranges.is_empty() {
            return true;
        }
        // Ranges starting at or before `ts`; one of them reaches it when
        // the furthest end among them does.
        let started = self.ranges.partition_point(|&(start, _)| start <= ts);
        started > 0 && self.reach[started - 1] >= ts
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn step_windows_match_a_linear_scan() {
        let steps = [(10.0, 20.0), (0.0, 5.0), (12.0, 30.0), (40.0, 41.0)];
        let w = StepWindows::new(&steps);
        for ts in [
            -1.0, 0.0, 5.0, 6.0, 10.0, 25.0, 30.0, 35.0, 40.5, 41.0, 42.0,
        ] {
            let linear = steps.iter().any(|&(s, e)| ts >= s && ts <= e);
            assert_eq!(w.contains(ts), linear, "ts {ts}");
        }
        assert!(StepWindows::new(&[]).contains(-5.0));
    }
}
