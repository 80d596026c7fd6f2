//! Prefill and decode phases are kept one by one, with the step they ran in,
//! so token latencies can be computed from a profile.

use profiler_core as profiler;
use profiler_core::profile::{GenerationPhase, TokenEvent};

#[test]
fn prefill_and_decode_occurrences_are_recorded_in_order_with_their_steps() {
    profiler::enable();
    {
        let _step = profiler::step(16);
        let _prefill = profiler::phase("prefill");
        std::hint::black_box((0..1000).sum::<u64>());
    }
    for _ in 0..3 {
        let _step = profiler::step(1);
        let _decode = profiler::phase("decode");
        std::hint::black_box((0..100).sum::<u64>());
    }
    // Outside any step: kept, with no step.
    drop(profiler::phase("decode"));
    // Other names are not generation phases.
    drop(profiler::phase("forward"));
    let profile = profiler::snapshot();
    profiler::disable();

    let events: &[TokenEvent] = &profile.generation.events;
    let phases: Vec<_> = events.iter().map(|e| e.phase).collect();
    use GenerationPhase::{Decode, Prefill};
    assert_eq!(phases, [Prefill, Decode, Decode, Decode, Decode]);
    let steps: Vec<_> = events.iter().map(|e| e.step).collect();
    let step_indices: Vec<_> = profile
        .steps
        .samples_index
        .iter()
        .map(|&i| Some(i))
        .collect();
    assert_eq!(steps[..4], step_indices[..]);
    assert_eq!(steps[4], None);
    for pair in events.windows(2) {
        assert!(
            pair[0].end_ns() <= pair[1].start_ns,
            "in order, not overlapping: {pair:?}"
        );
    }
    let decode = profile.phases.iter().find(|p| p.name == "decode").unwrap();
    assert_eq!(decode.count, 4);
    let recorded: u64 = events
        .iter()
        .filter(|e| e.phase == Decode)
        .map(|e| e.duration_ns)
        .sum();
    // Each occurrence is converted to ns on its own: rounding differs by < 1 ns each.
    assert!(
        recorded.abs_diff(decode.total_ns) <= decode.count,
        "the occurrences add up to the phase total: {recorded} vs {}",
        decode.total_ns
    );
    assert_eq!(profile.generation.dropped, 0);

    let json = serde_json::to_string(&profile).unwrap();
    let back: profiler::Profile = serde_json::from_str(&json).unwrap();
    assert_eq!(back.generation, profile.generation);

    profiler::reset();
    assert!(
        profiler::snapshot().generation.is_empty(),
        "reset clears it"
    );
}
