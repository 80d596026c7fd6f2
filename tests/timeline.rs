//! Trace mode: timeline events of steps, phases, layers and bricks.

mod common;

use profiler::{Direction, brick, trace::EventKind};

#[brick(GateProjection)]
fn gate() {
    inner();
}

#[brick("InnerOp")]
fn inner() {
    std::hint::black_box(1);
}

#[test]
fn trace_mode_records_properly_nested_events() {
    let _lock = common::exclusive();
    profiler::Config::new().trace_mode(true).apply();
    for _ in 0..2 {
        let _step = profiler::step(8);
        let _fwd = profiler::phase("forward");
        for layer in 0..2 {
            let _l = profiler::layer(layer, Direction::Forward);
            gate();
        }
    }
    gate(); // outside any step
    profiler::Config::new().trace_mode(false).apply();
    gate(); // not traced
    let profile = profiler::snapshot();
    let timeline = &profile.timeline;
    assert_eq!(timeline.threads.len(), 1);
    let events = &timeline.threads[0].events;
    let kinds = |k| events.iter().filter(|e| e.kind == k).count();
    assert_eq!(kinds(EventKind::Step), 2);
    assert_eq!(kinds(EventKind::Phase), 2);
    assert_eq!(kinds(EventKind::Layer), 4);
    assert_eq!(
        kinds(EventKind::Brick),
        10,
        "5 traced gate calls, each with an inner call"
    );
    assert_eq!(
        profile.brick("GateProjection").map(|b| b.count),
        Some(6),
        "aggregates keep counting"
    );
    // Every event lies inside the previous event that contains its start.
    let mut open: Vec<(u64, u64)> = Vec::new();
    for e in events {
        let end = e.start_ns + e.dur_ns;
        while open
            .last()
            .is_some_and(|&(_, parent_end)| parent_end <= e.start_ns)
        {
            open.pop();
        }
        if let Some(&(_, parent_end)) = open.last() {
            assert!(
                end <= parent_end,
                "{} overlaps its parent",
                timeline.name_of(e)
            );
        }
        open.push((e.start_ns, end));
    }
    let first = &events[0];
    assert_eq!(
        (first.kind, timeline.name_of(first)),
        (EventKind::Step, "step 0")
    );
    assert_eq!(timeline.name_of(&events[1]), "forward");
    assert_eq!(timeline.name_of(&events[2]), "layer 0 fwd");
    assert_eq!(timeline.name_of(&events[3]), "GateProjection");
    assert_eq!(timeline.name_of(&events[4]), "InnerOp");
    assert_eq!(timeline.dropped, 0);
}

#[test]
fn a_full_trace_buffer_counts_its_drops() {
    let _lock = common::exclusive();
    profiler::Config::new().trace_capacity(4096).apply();
    profiler::Config::new().trace_mode(true).apply();
    for _ in 0..5000 {
        inner();
    }
    profiler::Config::new().trace_mode(false).apply();
    profiler::Config::new().trace_capacity(1 << 20).apply();
    let profile = profiler::snapshot();
    assert_eq!(profile.timeline.event_count(), 4096);
    assert_eq!(profile.timeline.dropped, 5000 - 4096);
    assert_eq!(profile.counters.timeline_dropped, 5000 - 4096);
    assert_eq!(profile.brick("InnerOp").map(|b| b.count), Some(5000));
}

#[profiler::brick(AttentionScore, elements = n, bytes = 8 * n, flops = 2 * n)]
fn annotated(n: usize) {
    std::hint::black_box(n);
}

#[test]
fn timeline_events_carry_their_arguments_and_counters_their_values() {
    let _lock = common::exclusive();
    profiler::Config::new().trace_mode(true).apply();
    {
        let _step = profiler::step(64);
        let _layer = profiler::layer(3, profiler::Direction::Backward);
        annotated(10);
        profiler::counter("loss", 2.5);
        profiler::counter("loss", f64::NAN); // not kept, counted
    }
    profiler::counter("loss", 1.5);
    profiler::Config::new().trace_mode(false).apply();
    let profile = profiler::snapshot();
    let events = &profile.timeline.threads[0].events;
    let brick = events
        .iter()
        .find(|e| e.kind == profiler::trace::EventKind::Brick)
        .expect("brick event");
    assert_eq!((brick.elements, brick.bytes, brick.flops), (10, 80, 20));
    assert_eq!(
        (brick.layer, brick.direction),
        (Some(3), Some(profiler::Direction::Backward))
    );
    let step = events
        .iter()
        .find(|e| e.kind == profiler::trace::EventKind::Step)
        .expect("step event");
    assert_eq!(step.elements, 64, "a step's tokens");
    let loss = profile
        .counter_tracks
        .iter()
        .find(|t| t.name == "loss")
        .expect("loss track");
    let values: Vec<f64> = loss.samples.iter().map(|s| s.value).collect();
    assert_eq!(values, [2.5, 1.5]);
    assert!(loss.samples[0].t_ns <= loss.samples[1].t_ns);
    assert_eq!(profile.counters.counter_values_rejected, 1);
}

#[test]
fn the_trace_format_set_in_config_is_the_profiles_and_the_report_writer_follows_it() {
    use profiler::profile::TraceFormat;
    let _lock = common::exclusive();
    profiler::Config::new()
        .trace_mode(true)
        .trace_format(TraceFormat::Both)
        .apply();
    gate();
    let profile = profiler::snapshot();
    profiler::Config::new()
        .trace_mode(false)
        .trace_format(TraceFormat::Json)
        .apply();
    assert_eq!(profile.run.trace_format, TraceFormat::Both);
    // Saved and read back, the choice stays; the default is left out.
    let text = serde_json::to_string(&profile).unwrap();
    assert!(text.contains("\"trace_format\":\"both\""), "{text}");
    let back: profiler::Profile = serde_json::from_str(&text).unwrap();
    assert_eq!(back.run.trace_format, TraceFormat::Both);
    assert_eq!(profiler::snapshot().run.trace_format, TraceFormat::Json);
    let json = serde_json::to_string(&profiler::snapshot()).unwrap();
    let at = json
        .find("\"trace_format\":")
        .map(|i| &json[i.saturating_sub(80)..i + 40]);
    assert_eq!(at, None, "the default is not written");

    let dir = std::env::temp_dir().join(format!("trace-format-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let files = profiler_report::export::write_timeline(&profile, &dir).unwrap();
    let names: Vec<_> = files
        .iter()
        .map(|f| f.path.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["trace.json", "trace.pftrace"]);
    assert!(
        files
            .iter()
            .all(|f| f.path.is_file() && f.warnings.is_empty())
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
