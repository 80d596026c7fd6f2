//! Counters: a named value at a point in time (loss, tokens/s, memory),
//! recorded at about a brick's cost into the thread's bounded event buffer,
//! in or out of trace mode. Snapshots gather them into counter tracks.

use crate::counter::bump;
use crate::record::guard::recording;
use crate::record::series;
use crate::record::state::RAW_CLOCK;
use crate::record::thread::with_slab;

/// Records `value` of the counter `name` now, e.g. the loss of a step.
///
/// While the profiler is off this costs one relaxed load. Values that are
/// not finite (a diverging loss) are not kept but counted, and so are
/// samples beyond the event budget or of names beyond the first 4096.
///
/// ```
/// # use profiler_core as profiler;
/// profiler::enable();
/// for step in 0..3 {
///     let loss = 1.0 / f64::from(step + 1);
///     profiler::counter("loss", loss);
/// }
/// let tracks = profiler::snapshot().counter_tracks;
/// assert_eq!(tracks.iter().find(|t| t.name == "loss").map(|t| t.samples.len()), Some(3));
/// # profiler::disable();
/// ```
#[inline]
pub fn counter(name: &'static str, value: f64) {
    let Some(recording) = recording() else {
        return;
    };
    let state = recording.state();
    let ticks = crate::clock::now(state & RAW_CLOCK != 0);
    let series = series::id(name).filter(|_| value.is_finite());
    with_slab(state, |slab, _| match series {
        Some(series) => slab.events.push_counter(series, ticks, value),
        None => bump(&slab.counters_rejected, 1),
    });
}
