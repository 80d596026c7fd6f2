//! Kernel sections, present when the profile holds their data: the tile
//! table (with cache efficiency against the run's peak), the kernel output
//! checksums (compared with a reference run when one is given) and the
//! critical path of the execution graph.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use profiler_core::Profile;
use profiler_core::hardware::Precision;
use profiler_core::kernel::{TileTable, compare_checksums};

use super::parts::note;
use crate::analysis::kernel::{
    DEFAULT_CRITICAL_PATH_ROWS, critical_path_body, critical_path_summary, divergence_body,
    tile_table_body,
};
use crate::base::escape;
use crate::base::section::Section;
use crate::base::textfmt::int;

/// The kernel sections `profile` has data for, in page order.
pub(super) fn sections(profile: &Profile, reference: Option<&Profile>) -> Vec<Section> {
    let mut out = Vec::new();
    if profile.tiles.iter().any(|t| !t.is_empty()) {
        let (peak, source) = peak_gflops(profile);
        let mut body = tile_table_body(&TileTable::from(profile.tiles.clone()), peak);
        if let Some(source) = source {
            body.push_str(&note(&format!("Peak: {}.", escape::html(&source))));
        }
        out.push(Section::new("tiles", "Tiles", body));
    }
    if !profile.checksums.is_empty() || reference.is_some_and(|r| !r.checksums.is_empty()) {
        let body = match reference {
            Some(reference) => {
                let report = compare_checksums(&reference.checksums, &profile.checksums);
                let mut body = note(&format!(
                    "Kernel outputs of this run against the reference run <q>{}</q>, matched by \
                     kernel, layer and position.",
                    escape::html(&reference.run.name)
                ));
                body.push_str(&divergence_body(&report));
                body
            }
            None => checksum_table(profile),
        };
        out.push(Section::new("checksums", "Checksums", body));
    }
    if let Some(graph) = profile.graph.as_ref().filter(|g| !g.is_empty()) {
        let summary = critical_path_summary(graph, DEFAULT_CRITICAL_PATH_ROWS);
        out.push(Section::new(
            "critical-path",
            "Critical path",
            critical_path_body(&summary),
        ));
    }
    out
}

/// The peak GFLOP/s tile cache efficiency is measured against, and where
/// it comes from: the hardware's stated peak, else the machine's measured
/// one.
fn peak_gflops(profile: &Profile) -> (Option<f64>, Option<String>) {
    let run = &profile.run;
    if let Some((name, tflops)) = run
        .hardware
        .as_ref()
        .and_then(|h| h.dense_peak_tflops().map(|t| (&h.name, t)))
    {
        return (Some(tflops * 1e3), Some(format!("{name} (stated)")));
    }
    if let Some(fp32) = run
        .hardware
        .as_ref()
        .and_then(|h| h.compute(Precision::Fp32))
        .filter(|f| f.source.is_measured())
    {
        let gflops = fp32.value * 1e3;
        return (
            Some(gflops),
            Some(format!(
                "{} GFLOP/s measured on this machine",
                int(gflops.round() as u64)
            )),
        );
    }
    (None, None)
}

/// Without a reference run: how many outputs each kernel checksummed, and
/// how to compare them.
fn checksum_table(profile: &Profile) -> String {
    let mut per_kernel: BTreeMap<&str, (u64, u64)> = BTreeMap::new();
    for c in &profile.checksums {
        let entry = per_kernel.entry(&c.name).or_default();
        entry.0 += 1;
        entry.1 = c.checksum;
    }
    let mut s = note(&format!(
        "{} kernel output checksums recorded. Give the report a reference run \
         (<code>HtmlReport::checksum_reference</code>) to find the first kernel whose \
         output differs.",
        int(profile.checksums.len() as u64)
    ));
    s.push_str(
        "<table class=\"data\">\n<thead><tr><th>Kernel</th><th class=\"num\">Outputs</th>\
         <th>Last checksum</th></tr></thead>\n<tbody>\n",
    );
    for (name, (count, last)) in per_kernel {
        let _ = writeln!(
            s,
            "<tr><td>{}</td><td class=\"num\">{}</td><td><code>{last:016x}</code></td></tr>",
            escape::html(name),
            int(count)
        );
    }
    s.push_str("</tbody>\n</table>\n");
    s
}
