//! The walk: nesting per thread, and linking across threads whatever the
//! order the file gives.

use super::*;

/// Each closed host event as (name, its top-level op, under an op), and
/// each device event as (name, its launch).
#[derive(Default)]
struct Seen {
    closed: Vec<(String, Option<String>, bool)>,
    device: Vec<(String, Option<String>)>,
}

impl Visitor for Seen {
    fn settled(&mut self, _: u32, _: [bool; 2]) {}

    fn closed(&mut self, names: &Names<'_>, node: &Rc<Node>, _: Below) {
        let top = node.top_op().map(|t| names.text(t.name).to_owned());
        self.closed
            .push((names.text(node.name).to_owned(), top, node.under_op));
    }

    fn device(
        &mut self,
        names: &Names<'_>,
        event: &Record,
        _: Option<u32>,
        launch: Option<&Rc<Node>>,
    ) {
        let launch = launch.map(|l| names.text(l.name).to_owned());
        self.device
            .push((names.text(event.name).to_owned(), launch));
    }
}

fn seen(text: &str) -> (Seen, Summary) {
    let trace = ChromeTrace::from_json(text, "t.json").unwrap();
    let mut seen = Seen::default();
    let (_, summary) = walk(&trace, &OpMapping::defaults(), &mut seen).unwrap();
    (seen, summary)
}

#[test]
fn events_nest_per_thread_and_close_innermost_first() {
    let (seen, _) = seen(
        r#"[
        {"ph": "X", "cat": "cpu_op", "name": "c", "pid": 1, "tid": 1, "ts": 5, "dur": 5},
        {"ph": "X", "cat": "cpu_op", "name": "b", "pid": 1, "tid": 1, "ts": 2, "dur": 1},
        {"ph": "X", "cat": "user_annotation", "name": "Outer", "pid": 1, "tid": 1, "ts": 0, "dur": 10},
        {"ph": "X", "cat": "cpu_op", "name": "a", "pid": 1, "tid": 1, "ts": 1, "dur": 4},
        {"ph": "X", "cat": "cpu_op", "name": "other", "pid": 1, "tid": 2, "ts": 1, "dur": 1}
    ]"#,
    );
    let closed: Vec<(&str, Option<&str>, bool)> = seen
        .closed
        .iter()
        .map(|(n, t, u)| (n.as_str(), t.as_deref(), *u))
        .collect();
    assert_eq!(
        closed,
        [
            ("b", Some("a"), true),
            ("a", Some("a"), false),
            // `c` starts as `a` ends: inside `Outer`, not `a`.
            ("c", Some("c"), false),
            ("Outer", None, false),
            ("other", Some("other"), false),
        ]
    );
}

#[test]
fn a_kernel_is_linked_to_its_launch_in_either_order_and_by_flow_alone() {
    let (seen, summary) = seen(
        r#"[
        {"ph": "X", "cat": "kernel", "name": "early", "pid": 0, "tid": 7, "ts": 9, "dur": 2, "args": {"correlation": 1}},
        {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 10, "dur": 5},
        {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 11, "dur": 1, "args": {"correlation": 1}},
        {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 20, "dur": 5},
        {"ph": "s", "cat": "ac2g", "name": "ac2g", "id": 2, "pid": 1, "tid": 1, "ts": 21},
        {"ph": "X", "cat": "kernel", "name": "flowed", "pid": 0, "tid": 7, "ts": 30, "dur": 2, "args": {"correlation": 2}},
        {"ph": "X", "cat": "kernel", "name": "lost", "pid": 0, "tid": 7, "ts": 40, "dur": 2, "args": {"correlation": 3}}
    ]"#,
    );
    let mut device = seen.device.clone();
    device.sort();
    let device: Vec<(&str, Option<&str>)> = device
        .iter()
        .map(|(k, l)| (k.as_str(), l.as_deref()))
        .collect();
    assert_eq!(
        device,
        [
            // Written (and timed) before its launch: it waits for it.
            ("early", Some("cudaLaunchKernel")),
            ("flowed", Some("aten::add")),
            ("lost", None),
        ]
    );
    let links = &summary.links;
    assert_eq!(
        (links.by_correlation, links.by_flow, links.unlinked),
        (1, 1, 1)
    );
}
