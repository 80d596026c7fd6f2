//! Turning merged [`Totals`] into report data: ticks to ns with one
//! [`Conversion`], then brick statistics, layers and the trace-mode
//! timeline.

use std::collections::BTreeMap;

use crate::catalogue::BrickBottleneck;
use crate::context::phase::phase_name;
use crate::kernel_data::{TileLevel, TileStats};
use crate::profile::{
    CounterSample, CounterTrack, DeviceKernels, DeviceStart, EventKind, LayerOp, LayerStats,
    ThreadTimeline, Timeline, TimelineEvent,
};
use crate::record::amounts::NO_LAYER;
use crate::record::events::RawEvent;
use crate::record::layers::{CHILDREN_CTX, SCOPE_SLOT, unpack};
use crate::record::sample::SampleTotals;
use crate::record::series;
use crate::record::site::SlotMeta;
use crate::record::totals::Totals;
use crate::stats::{BrickStats, LatencyHistogram};
use crate::sync::host_to_ticks;
use crate::tools::tiles::{tile_slots, tile_stats};

/// How to turn ticks into reported nanoseconds.
pub(crate) struct Conversion {
    pub(crate) ns_per_tick: f64,
    /// Whether ticks are CPU cycles (time-stamp counter), reported as cycles.
    pub(crate) ticks_are_cycles: bool,
    /// Ticks subtracted from every sample (overhead subtraction), else 0.
    pub(crate) floor_ticks: u64,
    /// Tick value of the run's start (timeline time zero).
    pub(crate) origin_ticks: u64,
}

impl Conversion {
    pub(crate) fn ns(&self, ticks: u64) -> u64 {
        crate::clock::to_ns(ticks, self.ns_per_tick)
    }

    fn sample_ns(&self, ticks: u64) -> u64 {
        self.ns(ticks.saturating_sub(self.floor_ticks))
    }
}

/// Per-slot statistics for every reported slot with samples, by total time
/// descending; `side(slot)` gives the bottleneck label and compressed bytes.
pub(crate) fn brick_stats(
    totals: &Totals,
    metas: &[SlotMeta],
    conv: &Conversion,
    side: impl Fn(u32) -> (BrickBottleneck, u64),
) -> Vec<BrickStats> {
    let empty = SampleTotals::default();
    let last = totals.slots.len().max(
        totals
            .measured
            .last_key_value()
            .map_or(0, |(s, _)| *s as usize + 1),
    );
    let bricks: Vec<BrickStats> = (0..last)
        .filter_map(|slot| {
            let meta = metas.get(slot).filter(|m| !m.hidden)?;
            let ticks = totals.slots.get(slot).unwrap_or(&empty);
            let measured = totals.measured.get(&(slot as u32));
            if ticks.time.count == 0 && measured.is_none_or(|m| m.time.count == 0) {
                return None;
            }
            let mut stats = slot_stats(ticks, meta, conv, side(slot as u32));
            if let Some(&(_, child)) = totals.layers.get(&(CHILDREN_CTX, slot as u32)) {
                stats.child_ns = conv.ns(child).min(stats.total_ns);
            }
            if let Some(measured) = measured {
                stats.merge(&measured_stats(measured, &stats));
            }
            Some(stats)
        })
        .collect();
    let bricks = by_time(bricks);
    crate::contract::contract_post_brick_ordering!(bricks);
    bricks
}

/// `bricks` by total time descending, then name. Indices are sorted, not
/// the statistics themselves: each is a few hundred bytes, and a sort would
/// move every one of them about log2(n) times.
fn by_time(mut bricks: Vec<BrickStats>) -> Vec<BrickStats> {
    let mut order: Vec<usize> = (0..bricks.len()).collect();
    order.sort_by(|&a, &b| {
        let (a, b) = (&bricks[a], &bricks[b]);
        b.total_ns
            .cmp(&a.total_ns)
            .then_with(|| a.name.cmp(&b.name))
    });
    order
        .into_iter()
        .map(|i| {
            let category = bricks[i].category;
            std::mem::replace(&mut bricks[i], BrickStats::new(String::new(), category))
        })
        .collect()
}

/// One brick's statistics from its timed samples (ticks); `side` holds
/// what lives outside the slabs: the bottleneck label and compressed bytes.
fn slot_stats(
    t: &SampleTotals,
    meta: &SlotMeta,
    conv: &Conversion,
    (bottleneck, compressed): (BrickBottleneck, u64),
) -> BrickStats {
    let time = t.time;
    let floor_total = time.count.saturating_mul(conv.floor_ticks);
    let mut latency = LatencyHistogram::from_ticks(&t.hist, conv.ns_per_tick);
    if conv.floor_ticks > 0 {
        let floor_ns = conv.ns(conv.floor_ticks);
        for b in &mut latency.buckets {
            b.lo_ns = b.lo_ns.saturating_sub(floor_ns);
            b.hi_ns = b.hi_ns.saturating_sub(floor_ns).max(b.lo_ns + 1);
        }
    }
    let cycles = |v: u64| if conv.ticks_are_cycles { v } else { 0 };
    BrickStats {
        name: meta.name.to_string(),
        category: meta.category,
        count: time.count,
        total_ns: conv.ns(time.total.saturating_sub(floor_total)),
        child_ns: 0,
        min_ns: if time.count == 0 {
            u64::MAX
        } else {
            conv.sample_ns(time.min)
        },
        max_ns: conv.sample_ns(time.max),
        total_elements: t.elements,
        total_bytes: t.bytes,
        total_compressed_bytes: compressed,
        total_flops: t.flops,
        bottleneck,
        total_cycles: cycles(time.total),
        min_cycles: if conv.ticks_are_cycles && time.count > 0 {
            time.min
        } else {
            u64::MAX
        },
        max_cycles: cycles(time.max),
        latency,
    }
}

/// Statistics of samples measured elsewhere, in exact ns: never converted,
/// never overhead-corrected; named and labelled like `like`.
fn measured_stats(m: &SampleTotals, like: &BrickStats) -> BrickStats {
    BrickStats {
        count: m.time.count,
        total_ns: m.time.total,
        min_ns: m.time.min,
        max_ns: m.time.max,
        total_elements: m.elements,
        total_bytes: m.bytes,
        total_flops: m.flops,
        latency: LatencyHistogram::from_ticks(&m.hist, 1.0),
        ..BrickStats::new(String::new(), like.category)
    }
}

/// Per-layer statistics from the (context, slot) table.
pub(crate) fn layers(totals: &Totals, metas: &[SlotMeta], conv: &Conversion) -> Vec<LayerStats> {
    let mut out: BTreeMap<u32, LayerStats> = BTreeMap::new();
    for (&(ctx, slot), &(count, ticks)) in &totals.layers {
        if ctx == CHILDREN_CTX {
            continue;
        }
        let (index, direction) = unpack(ctx);
        let layer = out.entry(ctx).or_insert_with(|| LayerStats {
            index,
            direction,
            scope_count: 0,
            scope_ns: 0,
            ops: Vec::new(),
        });
        if slot == SCOPE_SLOT {
            layer.scope_count = layer.scope_count.saturating_add(count);
            layer.scope_ns = layer.scope_ns.saturating_add(conv.ns(ticks));
        } else if let Some(meta) = metas.get(slot as usize).filter(|m| !m.hidden) {
            let total = ticks.saturating_sub(count.saturating_mul(conv.floor_ticks));
            layer.ops.push(LayerOp {
                name: meta.name.to_string(),
                count,
                total_ns: conv.ns(total),
            });
        }
    }
    let mut layers: Vec<LayerStats> = out.into_values().collect();
    for l in &mut layers {
        l.ops.sort_by(|a, b| {
            b.total_ns
                .cmp(&a.total_ns)
                .then_with(|| a.name.cmp(&b.name))
        });
    }
    layers
}

/// The trace-mode timeline, names interned, events sorted per thread.
pub(crate) fn timeline(totals: &Totals, metas: &[SlotMeta], conv: &Conversion) -> Timeline {
    let mut names: Vec<String> = Vec::new();
    let mut index: BTreeMap<(EventKind, u64), u32> = BTreeMap::new();
    let mut name_of = |kind: EventKind, id: u64| -> u32 {
        *index.entry((kind, id)).or_insert_with(|| {
            let name = match kind {
                EventKind::Brick => metas
                    .get(id as usize)
                    .map_or_else(|| format!("slot {id}"), |m| m.name.to_string()),
                EventKind::Phase => phase_name(id as u32).unwrap_or_else(|| format!("phase {id}")),
                EventKind::Layer => {
                    let (i, d) = unpack(id as u32);
                    format!("layer {i} {}", d.short_name())
                }
                EventKind::Step => format!("step {id}"),
            };
            names.push(name);
            names.len() as u32 - 1
        })
    };
    let mut device_starts = Vec::new();
    let mut threads: Vec<ThreadTimeline> = totals
        .timelines
        .iter()
        .map(|(info, raw, starts)| {
            let mut starts = starts.iter().peekable();
            // Each event with its device start (ns), carried through the
            // filter and the sort below.
            let mut events: Vec<(TimelineEvent, Option<u64>)> = raw
                .iter()
                .enumerate()
                .map(|(i, e)| {
                    while starts.next_if(|&&(at, _)| at < i).is_some() {}
                    let start = starts.next_if(|&&(at, _)| at == i).map(|&(_, t)| t);
                    (
                        e,
                        start.map(|t| conv.ns(t.saturating_sub(conv.origin_ticks))),
                    )
                })
                .filter(|(e, _)| {
                    e.kind != EventKind::Brick
                        || metas.get(e.id as usize).is_some_and(|m| !m.hidden)
                })
                .map(|(e, start)| (timeline_event(e, &mut name_of, conv), start))
                .collect();
            // Outer scopes first: earlier start, then longer, then coarser kind.
            events.sort_by(|(a, _), (b, _)| {
                a.start_ns
                    .cmp(&b.start_ns)
                    .then(b.dur_ns.cmp(&a.dur_ns))
                    .then(a.kind.rank().cmp(&b.kind.rank()))
            });
            device_starts.extend(events.iter().enumerate().filter_map(|(i, (_, start))| {
                Some(DeviceStart {
                    thread: info.thread,
                    event: u32::try_from(i).ok()?,
                    start_ns: (*start)?,
                })
            }));
            ThreadTimeline {
                thread: info.thread,
                name: info.name.clone(),
                events: events.into_iter().map(|(e, _)| e).collect(),
            }
        })
        .collect();
    threads.sort_by_key(|t| t.thread);
    device_starts.sort_by_key(|d| (d.thread, d.event));
    Timeline {
        names,
        threads,
        dropped: totals.timeline_dropped,
        device_starts,
    }
}

/// One raw event as the profile reports it, its name interned by `name_of`.
fn timeline_event(
    e: &RawEvent,
    name_of: &mut impl FnMut(EventKind, u64) -> u32,
    conv: &Conversion,
) -> TimelineEvent {
    let ctx = match e.kind {
        EventKind::Brick => e.ctx,
        EventKind::Layer => e.id as u32,
        _ => NO_LAYER,
    };
    let (layer, direction) = if ctx == NO_LAYER {
        (None, None)
    } else {
        let (index, direction) = unpack(ctx);
        (Some(index), Some(direction))
    };
    TimelineEvent {
        kind: e.kind,
        name: name_of(e.kind, e.id),
        start_ns: conv.ns(e.start.saturating_sub(conv.origin_ticks)),
        dur_ns: conv.ns(e.end.saturating_sub(e.start)),
        layer,
        direction,
        elements: e.args[0],
        bytes: e.args[1],
        flops: e.args[2],
    }
}

/// One track per counter name, samples of every thread by time.
pub(crate) fn counter_tracks(totals: &Totals, conv: &Conversion) -> Vec<CounterTrack> {
    let mut by_series: BTreeMap<u32, Vec<CounterSample>> = BTreeMap::new();
    for (thread, samples) in &totals.samples {
        for s in samples {
            by_series.entry(s.series).or_default().push(CounterSample {
                t_ns: conv.ns(s.ticks.saturating_sub(conv.origin_ticks)),
                value: s.value,
                thread: *thread,
            });
        }
    }
    by_series
        .into_iter()
        .map(|(id, mut samples)| {
            samples.sort_by_key(|s| (s.t_ns, s.thread));
            let name = series::name(id).map_or_else(|| format!("counter {id}"), str::to_owned);
            CounterTrack { name, samples }
        })
        .collect()
}

/// Tile statistics of the levels with samples, from their hidden slots.
pub(crate) fn tiles(totals: &Totals, conv: &Conversion) -> Vec<TileStats> {
    let slots = tile_slots();
    TileLevel::ALL
        .iter()
        .filter_map(|&level| {
            let t = totals.slots.get(slots[level.index()] as usize)?;
            (t.time.count > 0).then(|| {
                tile_stats(
                    level,
                    t.time.count,
                    (
                        conv.ns(t.time.total),
                        conv.ns(t.time.min),
                        conv.ns(t.time.max),
                    ),
                    (t.elements, t.bytes, t.flops),
                )
            })
        })
        .collect()
}

/// Moves captured kernels' events from the profiler's host clock to the
/// timeline (ns since the run's start), with a reading of both clocks
/// taken together now.
pub(crate) fn kernels_on_timeline(kernels: &mut DeviceKernels, conv: &Conversion) {
    let now_ticks = crate::clock::now(crate::clock::init());
    let now_host = crate::clock::host_ns();
    let at = |host: u64| {
        let ticks = host_to_ticks(host, (now_host, now_ticks), conv.ns_per_tick);
        conv.ns(ticks.saturating_sub(conv.origin_ticks))
    };
    for event in &mut kernels.events {
        event.start_ns = at(event.start_ns);
        event.launch_ns = event.launch_ns.map(at);
    }
}
