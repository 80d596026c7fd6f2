//! Perfetto's own schema (`perfetto_trace_pb2` from the PyPI package
//! `perfetto`) decodes the `trace.pftrace` of a run of the main job, and it
//! shows what the same run's `trace.json` shows: the same slices on the same
//! tracks with the same names, categories, timestamps and durations to the
//! nanosecond, nesting depths and args (the derived rates `gflop_per_s`,
//! `gb_per_s`, `flop_per_byte` and `tokens_per_s` included), the same counter values, flows and warnings. The hostile-name
//! fixture goes through both formats the same way, every name intact.

use std::path::Path;
use std::process::Command;

use profiler_integration::python;

#[path = "../../brick-profiler-report/tests/hostile_names/fixture.rs"]
mod fixture;

const EXE: &str = env!("CARGO_BIN_EXE_train_tiny");

/// What both scripts start with: the schema, and every packet of a file
/// with `compressed_packets` inflated in place.
const PRELUDE: &str = r##"
import json, sys, zlib
from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb

def packets(path):
    outer = pb.Trace()
    with open(path, "rb") as f:
        outer.ParseFromString(f.read())
    for p in outer.packet:
        if p.HasField("compressed_packets"):
            inner = pb.Trace()
            inner.ParseFromString(zlib.decompress(p.compressed_packets))
            yield from inner.packet
        else:
            yield p
"##;

/// Decodes `DIR/trace.pftrace` (inflating `compressed_packets`, following
/// each sequence's interning, default track and incremental clock) and
/// `DIR/trace.json`, compares them, and prints what it found as JSON; a
/// difference is an error naming the first items that differ.
const SCRIPT: &str = r##"
CLEARED, NEEDS = 1, 2
BEGIN, END, INSTANT, COUNTER = 1, 2, 3, 4
INCREMENTAL = 64

def fail(message):
    sys.exit(message)


def value(a):
    for field in ("uint_value", "int_value", "double_value", "string_value", "bool_value"):
        if a.HasField(field):
            return getattr(a, field)
    if a.HasField("legacy_json_value"):
        return json.loads(a.legacy_json_value)
    if len(a.dict_entries):
        return {e.name: value(e) for e in a.dict_entries}
    if len(a.array_values):
        return [value(e) for e in a.array_values]
    return None

def key(item):
    return json.dumps(item, sort_keys=True)

def perfetto_view(path):
    seqs, tracks, stacks = {}, {}, {}
    slices, counters, instants, flow_from, flow_to = [], {}, [], {}, {}
    interned = 0
    for p in packets(path):
        sid = p.trusted_packet_sequence_id
        if p.sequence_flags & CLEARED:
            seqs[sid] = {"names": {}, "cats": {}, "keys": {}, "values": {}, "track": None, "clock": None}
        if sid not in seqs:
            fail(f"sequence {sid} is used before a packet clears its state")
        st = seqs[sid]
        if p.HasField("trace_packet_defaults"):
            d = p.trace_packet_defaults
            if d.timestamp_clock_id != INCREMENTAL:
                fail(f"unexpected default clock {d.timestamp_clock_id}")
            st["track"] = d.track_event_defaults.track_uuid
        if p.HasField("clock_snapshot"):
            for c in p.clock_snapshot.clocks:
                if c.clock_id == INCREMENTAL:
                    st["clock"] = c.timestamp
            continue
        if p.HasField("track_descriptor"):
            d = p.track_descriptor
            if d.HasField("thread"):
                tracks[d.uuid] = d.thread.thread_name
            elif d.HasField("process"):
                tracks[d.uuid] = d.process.process_name
            else:
                tracks[d.uuid] = d.name
        if p.HasField("interned_data"):
            i = p.interned_data
            for table, entries, text in (
                (st["names"], i.event_names, lambda e: e.name),
                (st["cats"], i.event_categories, lambda e: e.name),
                (st["keys"], i.debug_annotation_names, lambda e: e.name),
                (st["values"], i.debug_annotation_string_values, lambda e: e.str.decode("utf-8")),
            ):
                for e in entries:
                    if e.iid in table or text(e) in table.values():
                        fail(f"{text(e)!r} interned twice on sequence {sid}")
                    table[e.iid] = text(e)
                    interned += 1
        if not p.HasField("track_event"):
            continue
        if not p.sequence_flags & NEEDS:
            fail("a track event without SEQ_NEEDS_INCREMENTAL_STATE")
        e = p.track_event
        if st["clock"] is not None and not p.HasField("timestamp_clock_id"):
            st["clock"] += p.timestamp
            ts = st["clock"]
        else:
            ts = p.timestamp
        track = e.track_uuid if e.HasField("track_uuid") else st["track"]
        if e.type == BEGIN:
            args = {}
            for a in e.debug_annotations:
                name = st["keys"][a.name_iid]
                args[name] = st["values"][a.string_value_iid] if a.HasField("string_value_iid") else value(a)
            name, cat = st["names"][e.name_iid], st["cats"][e.category_iids[0]]
            stack = stacks.setdefault(track, [])
            stack.append([tracks[track], name, cat, ts, None, len(stack), args or None])
            for f in e.flow_ids:
                flow_from[f] = [name, ts]
            for f in e.terminating_flow_ids:
                flow_to[f] = [name, ts]
        elif e.type == END:
            item = stacks[track].pop()
            item[4] = ts - item[3]
            slices.append(item)
        elif e.type == COUNTER:
            counters.setdefault(tracks[track], []).append([ts, e.double_counter_value])
        elif e.type == INSTANT:
            instants.append(st["names"][e.name_iid])
    if any(stacks.values()):
        fail("slices left open")
    flows = [[flow_from[f], flow_to[f]] for f in flow_from]
    return slices, counters, flows, instants, interned

def ns(us):
    return round(us * 1000)

def json_view(path):
    with open(path) as f:
        events = json.load(f)["traceEvents"]
    names = {(e["pid"], e["tid"]): e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == "thread_name"}
    slices, counters, instants, stacks, by_track = [], {}, [], {}, {}
    flow_from, flow_to = {}, {}
    for e in events:
        where = (e["pid"], e["tid"])
        if e["ph"] == "X":
            ts, dur = ns(e["ts"]), ns(e["dur"])
            stack = stacks.setdefault(where, [])
            while stack and stack[-1] <= ts:
                stack.pop()
            args = dict(e.get("args", {}))
            slices.append([names[where], e["name"], e["cat"], ts, dur, len(stack), args or None])
            by_track.setdefault(where, []).append((ts, e["name"]))
            stack.append(ts + dur)
        elif e["ph"] == "C":
            v = e["args"].get("value", e["args"].get("bytes"))
            counters.setdefault(e["name"], []).append([ns(e["ts"]), float(v)])
        elif e["ph"] == "i":
            instants.append(e["name"])
        elif e["ph"] in "sf":
            (flow_from if e["ph"] == "s" else flow_to)[e["id"]] = (where, ns(e["ts"]))
    def bound(point):
        where, ts = point
        name = [n for t, n in by_track[where] if t == ts][-1]
        return [name, ts]
    flows = [[bound(flow_from[f]), bound(flow_to[f])] for f in flow_from]
    return slices, counters, flows, instants

ours = perfetto_view(sys.argv[1] + "/trace.pftrace")
theirs = json_view(sys.argv[1] + "/trace.json")
for what, a, b in zip(("slices", "counters", "flows", "instants"), ours, theirs):
    if isinstance(a, dict):
        a = {k: sorted(v) for k, v in a.items()}
        b = {k: sorted(v) for k, v in b.items()}
        if a != b:
            fail(f"{what} differ: pftrace {sorted(a)} vs json {sorted(b)}")
    else:
        a, b = sorted(a, key=key), sorted(b, key=key)
        if a != b:
            diff = [(x, y) for x, y in zip(a, b) if x != y][:3]
            fail(f"{what} differ ({len(a)} vs {len(b)}): {diff}")
slices, counters, flows, instants, interned = ours
print(json.dumps({
    "slices": len(slices),
    "depth": max((s[5] for s in slices), default=0),
    "kinds": sorted({s[2] for s in slices}),
    "counter_values": sum(len(v) for v in counters.values()),
    "counters": sorted(counters),
    "flows": len(flows),
    "instants": instants,
    "interned": interned,
    "names": sorted({s[1] for s in slices}),
}))
"##;

/// Runs the comparison on `dir` and returns what Python found.
fn compare(dir: &Path) -> serde_json::Value {
    let python = python().unwrap_or_else(|e| panic!("{e}"));
    let done = Command::new(&python)
        .args(["-c", &format!("{PRELUDE}{SCRIPT}")])
        .arg(dir)
        .output()
        .expect("python starts");
    let stderr = String::from_utf8_lossy(&done.stderr);
    assert!(
        !stderr.contains("No module named 'perfetto'"),
        "the `perfetto` package is missing: .venv/bin/pip install -r requirements-ci.txt\n{stderr}"
    );
    assert!(
        done.status.success(),
        "pftrace and trace.json differ: {stderr}"
    );
    serde_json::from_slice(&done.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&done.stdout)))
}

#[test]
fn the_main_jobs_pftrace_decodes_to_what_its_trace_json_shows() {
    let out = tempfile::tempdir().expect("temp dir");
    let done = Command::new(EXE)
        .args(["--steps", "12", "--warmup", "2", "--log-every", "100"])
        .args([
            "--layers", "2", "--width", "32", "--heads", "2", "--seq", "32",
        ])
        .args(["--batch", "2", "--no-ceilings", "--trace-format", "both"])
        .arg("--out")
        .arg(out.path())
        .output()
        .expect("the main job starts");
    assert!(
        done.status.success(),
        "the main job failed: {}",
        String::from_utf8_lossy(&done.stderr)
    );
    let found = compare(out.path());
    // What the run recorded is there: 10 steps of phases, layers and
    // bricks, nested, and the loss and memory counters.
    let kinds = found["kinds"].to_string();
    for kind in ["step", "phase", "layer", "brick"] {
        assert!(kinds.contains(kind), "{kind} slices: {found}");
    }
    assert!(found["slices"].as_u64() > Some(500), "{found}");
    assert!(
        found["depth"].as_u64() >= Some(3),
        "step > phase > layer > brick: {found}"
    );
    assert!(found["counter_values"].as_u64() >= Some(10), "{found}");
    let json = std::fs::metadata(out.path().join("trace.json")).expect("trace.json");
    let pftrace = std::fs::metadata(out.path().join("trace.pftrace")).expect("trace.pftrace");
    assert!(
        pftrace.len() * 5 <= json.len(),
        "pftrace {} bytes, json {} bytes",
        pftrace.len(),
        json.len()
    );
}

#[test]
fn hostile_names_decode_as_the_same_strings() {
    let out = tempfile::tempdir().expect("temp dir");
    let profile = fixture::profile();
    profiler_report::write_chrome_trace(&profile, out.path().join("trace.json"))
        .expect("trace.json");
    profiler_report::write_perfetto_trace(&profile, out.path().join("trace.pftrace"))
        .expect("trace.pftrace");
    let found = compare(out.path());
    let names: Vec<&str> = found["names"]
        .as_array()
        .expect("names")
        .iter()
        .filter_map(|n| n.as_str())
        .collect();
    for name in fixture::hostile() {
        assert!(names.contains(&name.as_str()), "pftrace lost {name:?}");
    }
}

/// Decodes the merged `DIR/merged.pftrace` and reads `DIR/merged.json`:
/// per pid, the process name and the number of slices in each; prints
/// both as JSON.
const RANKS_SCRIPT: &str = r##"

d = sys.argv[1]
processes, parent, pid_of, default, slices = {}, {}, {}, {}, {}
for p in packets(d + "/merged.pftrace"):
    sid = p.trusted_packet_sequence_id
    if p.HasField("trace_packet_defaults"):
        default[sid] = p.trace_packet_defaults.track_event_defaults.track_uuid
    if p.HasField("track_descriptor"):
        t = p.track_descriptor
        if t.HasField("process"):
            processes[t.process.pid] = t.process.process_name
            pid_of[t.uuid] = t.process.pid
        elif t.HasField("thread"):
            pid_of[t.uuid] = t.thread.pid
        else:
            parent[t.uuid] = t.parent_uuid
    if p.HasField("track_event") and p.track_event.type == 1:
        e = p.track_event
        track = e.track_uuid if e.HasField("track_uuid") else default[sid]
        pid = pid_of.get(track, pid_of.get(parent.get(track)))
        slices[pid] = slices.get(pid, 0) + 1
with open(d + "/merged.json") as f:
    events = json.load(f)["traceEvents"]
json_slices, json_names = {}, {}
for e in events:
    if e["ph"] == "X":
        json_slices[e["pid"]] = json_slices.get(e["pid"], 0) + 1
    if e["ph"] == "M" and e["name"] == "process_name":
        json_names[e["pid"]] = e["args"]["name"]
print(json.dumps({
    "processes": {str(k): v for k, v in sorted(processes.items())},
    "slices": {str(k): v for k, v in sorted(slices.items())},
    "json_slices": {str(k): v for k, v in sorted(json_slices.items())},
    "json_names": {str(k): v for k, v in sorted(json_names.items())},
}))
"##;

#[test]
fn merged_ranks_decode_as_one_process_per_rank_with_the_json_merges_slices() {
    let out = tempfile::tempdir().expect("temp dir");
    let mut profiles = Vec::new();
    for rank in 0..3u32 {
        let mut p = fixture::profile();
        p.run.rank = Some(rank);
        p.run.world_size = Some(3);
        p.run.host = format!("node-{rank}");
        p.run.started_at_unix_ns = 1_000_000_000 + u64::from(rank) * 5_000;
        // Ranks differ in what they recorded: rank 2 kept half its events.
        if rank == 2 {
            let events = &mut p.timeline.threads[0].events;
            events.truncate(events.len() / 2);
        }
        profiles.push(p);
    }
    let ranked: Vec<(u32, &profiler::Profile)> = (0..).zip(&profiles).collect();
    let merged = profiler_report::export::merge_ranked(&ranked, Default::default());
    std::fs::write(out.path().join("merged.json"), &merged.chrome_json).expect("merged.json");
    let file = std::fs::File::create(out.path().join("merged.pftrace")).expect("merged.pftrace");
    let file = std::io::BufWriter::new(file);
    profiler_report::export::write_ranked_perfetto_trace_to(&ranked, file).expect("written");
    let python = python().unwrap_or_else(|e| panic!("{e}"));
    let done = Command::new(&python)
        .args(["-c", &format!("{PRELUDE}{RANKS_SCRIPT}")])
        .arg(out.path())
        .output()
        .expect("python starts");
    let stderr = String::from_utf8_lossy(&done.stderr);
    assert!(
        !stderr.contains("No module named 'perfetto'"),
        "the `perfetto` package is missing: .venv/bin/pip install -r requirements-ci.txt\n{stderr}"
    );
    assert!(done.status.success(), "decoding failed: {stderr}");
    let found: serde_json::Value = serde_json::from_slice(&done.stdout).expect("JSON");
    assert_eq!(
        found["processes"],
        serde_json::json!({"0": "rank 0 (node-0)", "1": "rank 1 (node-1)", "2": "rank 2 (node-2)"})
    );
    assert_eq!(found["slices"], found["json_slices"], "{found}");
    let per_rank = found["slices"].as_object().expect("slices");
    assert_eq!(per_rank.len(), 3, "{found}");
    assert!(per_rank["2"].as_u64() < per_rank["0"].as_u64(), "{found}");
}
