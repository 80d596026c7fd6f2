//! Imported kernels as the inputs of the other reports: a [`Profile`]
//! whose bricks are kernels (so the scorecard's hotspots, the roofline,
//! parity and the HTML report work on them) and a [`RunSummary`] that keeps
//! what each tool knows of per-launch times.

use std::collections::BTreeMap;
use std::path::Path;

use profiler_core::profile::CategoryEntry;
use profiler_core::{BrickCategory, BrickStats, Profile};

use crate::model::nsight::{FullProfile, NsysReport};
use crate::model::run::{Clock, Distribution, OpSummary, RunSummary};

fn run_name(origin: &str) -> String {
    Path::new(origin)
        .file_stem()
        .map_or_else(|| origin.to_owned(), |s| s.to_string_lossy().into_owned())
}

fn finish(mut profile: Profile, origin: &str, notes: Vec<String>) -> Profile {
    profile.run.name = run_name(origin);
    // Nsight timed the kernels on the device: not a CPU run.
    profile.run.device_timer = true;
    profile.run.notes = notes;
    profile.bricks.sort_by(|a, b| {
        b.total_ns
            .cmp(&a.total_ns)
            .then_with(|| a.name.cmp(&b.name))
    });
    profile.categories = CategoryEntry::all_of(&profile.bricks);
    profile
}

/// `name`, or `name [2]`, `name [3]` when taken: kernels whose printed
/// names collide (names cut short) stay separate bricks.
fn unique(name: &str, taken: &mut BTreeMap<String, usize>) -> String {
    let n = taken.entry(name.to_owned()).or_insert(0);
    *n += 1;
    if *n == 1 {
        name.to_owned()
    } else {
        format!("{name} [{n}]")
    }
}

impl NsysReport {
    /// A profile with one brick per kernel (category `Other`): count,
    /// total, min and max as summarised. It has no steps, latency histograms,
    /// FLOPs or bytes; its notes say where it came from.
    #[must_use]
    pub fn to_profile(&self) -> Profile {
        let mut p = Profile::empty();
        let mut taken = BTreeMap::new();
        for k in &self.kernels {
            let mut b = BrickStats::new(unique(&k.name, &mut taken), BrickCategory::Other);
            b.count = k.instances;
            b.total_ns = k.total_ns.round() as u64;
            b.min_ns = k.min_ns.round() as u64;
            b.max_ns = k.max_ns.round() as u64;
            p.bricks.push(b);
        }
        let mut notes = vec![format!(
            "imported from the Nsight Systems kernel summary `{}`: bricks are CUDA kernels \
             (total, instances, min, max); no steps, latency histograms, FLOPs or bytes",
            self.origin
        )];
        notes.extend(self.notes.iter().cloned());
        finish(p, &self.origin, notes)
    }

    /// Per kernel its launches, total and the moments the summary gives
    /// (mean, standard deviation), for the diff's `compute_diff`.
    #[must_use]
    pub fn to_run_summary(&self) -> RunSummary {
        let mut taken = BTreeMap::new();
        RunSummary {
            name: self.origin.clone(),
            clock: Clock::Device,
            ops: self
                .kernels
                .iter()
                .map(|k| OpSummary {
                    name: unique(&k.name, &mut taken),
                    calls: Some(k.instances),
                    total_ns: k.total_ns.round() as u64,
                    distribution: match k.stddev_ns {
                        Some(s) => Distribution::Moments {
                            mean: k.avg_ns,
                            stddev: s,
                            n: k.instances,
                        },
                        None if k.min_ns == k.max_ns => {
                            Distribution::Weighted(vec![(k.min_ns, k.instances)])
                        }
                        None => Distribution::Unknown,
                    },
                    median_ns: None,
                    flops_per_call: None,
                })
                .collect(),
            ..RunSummary::default()
        }
    }
}

/// Launches of one kernel name.
fn by_name(profiles: &[FullProfile]) -> BTreeMap<&str, Vec<&FullProfile>> {
    let mut map: BTreeMap<&str, Vec<&FullProfile>> = BTreeMap::new();
    for p in profiles {
        map.entry(p.kernel.name.as_str()).or_default().push(p);
    }
    map
}

/// A profile with one brick per kernel name of `profiles` (imported Nsight
/// Compute launches): count and times over its launches with a duration,
/// and FLOPs and DRAM bytes when every such launch has them.
#[must_use]
pub fn full_profiles_to_profile(profiles: &[FullProfile], origin: &str) -> Profile {
    let mut p = Profile::empty();
    let mut notes = vec![format!(
        "imported from the Nsight Compute export `{origin}`: bricks are kernels, one call per \
         profiled launch (ncu replays each launch, so times are per launch, not a timeline)"
    )];
    for (name, launches) in by_name(profiles) {
        let timed: Vec<(&FullProfile, f64)> = launches
            .iter()
            .filter_map(|l| l.timing.duration_ns.as_ref().map(|d| (*l, d.value)))
            .collect();
        if timed.len() < launches.len() {
            notes.push(format!(
                "`{name}`: {} of {} launches have no duration and are left out",
                launches.len() - timed.len(),
                launches.len()
            ));
        }
        if timed.is_empty() {
            continue;
        }
        let mut b = BrickStats::new(name, BrickCategory::Other);
        b.count = timed.len() as u64;
        b.total_ns = timed.iter().map(|(_, d)| d.round() as u64).sum();
        b.min_ns = timed
            .iter()
            .map(|(_, d)| d.round() as u64)
            .min()
            .unwrap_or(0);
        b.max_ns = timed
            .iter()
            .map(|(_, d)| d.round() as u64)
            .max()
            .unwrap_or(0);
        let all = |f: fn(&FullProfile) -> Option<f64>| -> Option<u64> {
            timed
                .iter()
                .map(|(l, _)| f(l))
                .sum::<Option<f64>>()
                .map(|v| v.round() as u64)
        };
        b.total_flops = all(|l| l.compute.flops.as_ref().map(|f| f.value)).unwrap_or(0);
        b.total_bytes = all(|l| l.memory.dram_bytes.as_ref().map(|f| f.value)).unwrap_or(0);
        p.bricks.push(b);
    }
    finish(p, origin, notes)
}

/// Per kernel name the duration of each launch, for
/// the diff's `compute_diff`.
#[must_use]
pub fn full_profiles_to_run_summary(profiles: &[FullProfile], label: &str) -> RunSummary {
    RunSummary {
        name: label.to_owned(),
        clock: Clock::Device,
        ops: by_name(profiles)
            .into_iter()
            .filter_map(|(name, launches)| {
                let values: Vec<(f64, u64)> = launches
                    .iter()
                    .filter_map(|l| l.timing.duration_ns.as_ref().map(|d| (d.value, 1)))
                    .collect();
                (!values.is_empty()).then(|| OpSummary {
                    name: name.to_owned(),
                    calls: Some(values.len() as u64),
                    total_ns: values.iter().map(|v| v.0).sum::<f64>().round() as u64,
                    distribution: Distribution::Weighted(values),
                    median_ns: None,
                    flops_per_call: None,
                })
            })
            .collect(),
        ..RunSummary::default()
    }
}
