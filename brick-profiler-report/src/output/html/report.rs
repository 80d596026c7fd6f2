//! [`HtmlReport`]: the page of one profile, its built-in sections in order,
//! the flamegraph, roofline, parity and contract sections when they are
//! given and any added [`Section`]s, with unique anchor ids; and
//! [`write_html_report`], which writes the page.

use std::collections::HashSet;
use std::path::Path;

use profiler_core::Profile;

use super::{
    bricks, definitions, device_kernels, kernels, memory, page, run, sections, steps, tokens,
};
use crate::analysis::contracts::{ContractReport, contracts_section};
use crate::analysis::parity::{
    compute_parity_comparison, compute_parity_multi, parity_multi_section, parity_section,
};
use crate::analysis::roofline::{BrickRoofline, roofline_section};
use crate::analysis::scorecard::TrainingScorecard;
use crate::base::escape;
use crate::base::section::Section;
use crate::base::textfmt;
use crate::model::run::RunSummary;
use crate::output::error::ExportError;
use crate::output::export::EXPORTER;
use crate::output::export::flamegraph::flamegraph_svg;
use crate::output::export::folded::folded_stacks;

/// Ids an inlined inferno flamegraph uses; sections never take them.
const RESERVED_IDS: [&str; 8] = [
    "background",
    "details",
    "frames",
    "matched",
    "search",
    "subtitle",
    "title",
    "unzoom",
];

/// Builds the HTML report of a [`Profile`], as `brick-profiler html` and
/// the training examples write it.
///
/// Sections, in order: run facts (with every warning about lost, dropped or
/// pending records and the run's notes), the training scorecard (when
/// given), step time and throughput over the run with the phases,
/// per-layer forward/backward times, hotspots, the latency distribution of
/// the top bricks, the flamegraph (when drawn or given), every brick (total
/// and self time), counters, the kernel sections the profile has data for
/// (tiles, checksums, the execution graph's critical path), the roofline of
/// the bricks (when [`roofline`](Self::roofline) is given), parity against
/// one or several baselines (when [`parity`](Self::parity) is given; this
/// run is named after its run name, else `ours`), the verdicts of
/// [`contracts`](Self::contracts), then the added [`Section`]s, and last a
/// glossary that every metric name and table header links to. With
/// [`trace_file`](HtmlReport::trace_file) the header links the Chrome trace
/// and says how to open it in Perfetto.
///
/// ```
/// use profiler_report::{HtmlReport, html::Section};
/// let mut profile = profiler::Profile::empty();
/// profile.run.name = "train_tiny".into();
/// let html = HtmlReport::new(&profile)
///     .flamegraph()?
///     .trace_file("trace.json")
///     .section(Section::new("notes", "Notes", "<p>first run</p>"))
///     .render();
/// assert!(html.starts_with("<!DOCTYPE html>"));
/// assert!(html.contains("<section id=\"notes\">"));
/// assert!(html.contains("<a href=\"trace.json\">"));
/// # Ok::<(), profiler_report::ExportError>(())
/// ```
#[derive(Debug, Clone)]
pub struct HtmlReport<'a> {
    profile: &'a Profile,
    title: Option<String>,
    scorecard: Option<&'a TrainingScorecard>,
    flamegraph: Option<String>,
    trace_file: Option<String>,
    checksum_reference: Option<&'a Profile>,
    roofline: Option<&'a BrickRoofline>,
    parity: &'a [RunSummary],
    contracts: &'a [ContractReport],
    extra: Vec<Section>,
}

impl<'a> HtmlReport<'a> {
    /// A report of `profile`, titled after its run name.
    #[must_use]
    pub fn new(profile: &'a Profile) -> Self {
        Self {
            profile,
            title: None,
            scorecard: None,
            flamegraph: None,
            trace_file: None,
            checksum_reference: None,
            roofline: None,
            parity: &[],
            contracts: &[],
            extra: Vec::new(),
        }
    }

    /// Sets the page title (plain text; escaped).
    #[must_use]
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// Adds the training scorecard section (computed, or a saved one).
    #[must_use]
    pub fn scorecard(mut self, scorecard: &'a TrainingScorecard) -> Self {
        self.scorecard = Some(scorecard);
        self
    }

    /// Draws the flamegraph of the run's stacks
    /// ([`folded_stacks`](crate::output::export::folded::folded_stacks), titled after the run name,
    /// else `profile`) into the flamegraph section; a run that recorded no
    /// stacks (e.g. a build with the `off` feature) gets none.
    ///
    /// # Errors
    /// [`ExportError`] when the flamegraph cannot be drawn from the run's
    /// stacks.
    pub fn flamegraph(mut self) -> Result<Self, ExportError> {
        let folded = folded_stacks(self.profile);
        if !folded.is_empty() {
            let title = run_name(self.profile, "profile");
            self.flamegraph = Some(flamegraph_svg(&folded, title)?);
        }
        Ok(self)
    }

    /// Shows `svg` (e.g. from [`flamegraph_svg`](crate::output::export::flamegraph::flamegraph_svg)) as
    /// the flamegraph, inline. Its XML prolog and doctype are removed, and
    /// so are its scripts: inline, inferno's script would act on the whole
    /// page. Frames keep their hover tooltips.
    #[must_use]
    pub fn flamegraph_svg(mut self, svg: impl Into<String>) -> Self {
        self.flamegraph = Some(svg.into());
        self
    }

    /// Links the run's Chrome trace (e.g. `"trace.json"`, written by
    /// [`write_chrome_trace`](crate::output::export::chrome::write_chrome_trace); a path relative to
    /// the report) from the page's header, with how to open it in Perfetto.
    #[must_use]
    pub fn trace_file(mut self, href: impl Into<String>) -> Self {
        self.trace_file = Some(href.into());
        self
    }

    /// Compares this run's kernel output checksums with `reference`'s (a
    /// known-good run, e.g. the CPU implementation): the checksums section
    /// then shows the first kernel whose output differs, and every other
    /// difference, instead of the list of checksums.
    #[must_use]
    pub fn checksum_reference(mut self, reference: &'a Profile) -> Self {
        self.checksum_reference = Some(reference);
        self
    }

    /// Adds the roofline section of `roofline`, with the ceilings the run
    /// measured beside it.
    #[must_use]
    pub fn roofline(mut self, roofline: &'a BrickRoofline) -> Self {
        self.roofline = Some(roofline);
        self
    }

    /// Adds parity against `baselines`: one comparison for one baseline,
    /// a multi-baseline comparison for several; nothing for none.
    #[must_use]
    pub fn parity(mut self, baselines: &'a [RunSummary]) -> Self {
        self.parity = baselines;
        self
    }

    /// Adds the verdicts of verified contracts (nothing for none).
    #[must_use]
    pub fn contracts(mut self, reports: &'a [ContractReport]) -> Self {
        self.contracts = reports;
        self
    }

    /// Appends a section after the built-in ones (in call order), before
    /// the glossary. An id already taken gets a `-2`, `-3`, ... suffix.
    #[must_use]
    pub fn section(mut self, section: Section) -> Self {
        self.extra.push(section);
        self
    }

    /// The complete HTML document.
    #[must_use]
    pub fn render(&self) -> String {
        let p = self.profile;
        let mut list = self.sections();
        unique_ids(&mut list);
        let title = match (&self.title, p.run.name.as_str()) {
            (Some(t), _) => escape::html(t),
            (None, "") => "Profile report".to_owned(),
            (None, name) => escape::html(name),
        };
        let generator = format!("{EXPORTER} {}", env!("CARGO_PKG_VERSION"));
        let footer = format!(
            "Profile schema {} · generated by {}",
            escape::html(&p.schema_version),
            generator
        );
        let links = self.trace_file.as_deref().map(trace_link);
        page::render(&page::Page {
            title: &title,
            subtitle: &subtitle(p),
            links: links.as_deref(),
            warnings: run::warnings(p).len(),
            sections: &list,
            footer: &footer,
            generator: &generator,
            script: "",
        })
    }

    /// Every section of the page, in order, ids not yet made unique.
    fn sections(&self) -> Vec<Section> {
        let p = self.profile;
        let mut list = vec![Section::new("run", "Run", run::run(p))];
        if let Some(sc) = self.scorecard {
            list.push(Section {
                framed: true,
                ..Section::new(
                    "scorecard",
                    format!("{} Scorecard", sc.run_kind.noun()),
                    sc.to_html_in_report(),
                )
            });
        }
        list.push(Section::new("steps", "Steps", steps::steps(p)));
        list.push(Section::new("layers", "Layers", sections::layers(p)));
        list.push(Section::new(
            "hotspots",
            "Hotspots",
            sections::hotspots(p, self.scorecard),
        ));
        if tokens::generated(&p.generation) {
            list.push(Section::new(
                "token-latency",
                "Token latency",
                tokens::token_latency(p),
            ));
        }
        list.push(Section::new(
            "latency",
            "Latency per brick",
            sections::latency(p),
        ));
        if let Some(svg) = &self.flamegraph {
            list.push(Section::new(
                "flamegraph",
                "Flamegraph",
                sections::flamegraph(svg, p),
            ));
        }
        list.push(Section::new("bricks", "Bricks", bricks::bricks(p)));
        list.push(Section::new("counters", "Counters", sections::counters(p)));
        if p.memory.is_some() {
            list.push(Section::new("memory", "Memory", memory::memory(p)));
        }
        list.extend(kernels::sections(p, self.checksum_reference));
        list.extend(device_kernels::section(p));
        list.extend(self.analyses());
        list.extend(self.extra.iter().cloned());
        list.push(Section::new(
            "glossary",
            "Glossary",
            definitions::glossary(crate::analysis::scorecard::timed_a_device(p)),
        ));
        list
    }

    /// The roofline, parity and contract sections that were asked for.
    fn analyses(&self) -> Vec<Section> {
        let p = self.profile;
        let mut list = Vec::new();
        if let Some(r) = self.roofline {
            list.push(roofline_section(r));
        }
        let ours = || RunSummary::from_profile(p, run_name(p, "ours"));
        match self.parity {
            [] => {}
            [one] => list.push(parity_section(&compute_parity_comparison(&ours(), one))),
            many => list.push(parity_multi_section(&compute_parity_multi(&ours(), many))),
        }
        if !self.contracts.is_empty() {
            list.push(contracts_section(self.contracts));
        }
        list
    }
}

/// Writes a rendered report to `path` atomically (temporary file, then
/// rename), so a browser never sees a half-written page.
///
/// # Errors
/// [`ExportError::Write`] naming the path.
pub fn write_html_report(html: &str, path: impl AsRef<Path>) -> Result<(), ExportError> {
    crate::output::error::write_text(path.as_ref(), html)
}

/// Gives every section an id no other section (nor the inlined flamegraph)
/// takes, suffixing repeats with `-2`, `-3`, ...
fn unique_ids(list: &mut [Section]) {
    let mut taken: HashSet<String> = RESERVED_IDS.iter().map(|s| (*s).to_owned()).collect();
    for section in list {
        let base = section.id.clone();
        let mut n = 1;
        while !taken.insert(section.id.clone()) {
            n += 1;
            section.id = format!("{base}-{n}");
        }
    }
}

/// The header's line under the title: host, start, wall time, steps.
fn subtitle(p: &Profile) -> String {
    let mut parts = Vec::new();
    if !p.run.host.is_empty() {
        parts.push(escape::html(&p.run.host));
    }
    if p.run.started_at_unix_ns > 0 {
        parts.push(format!(
            "started {}",
            textfmt::utc_iso8601(p.run.started_at_unix_ns)
        ));
    }
    parts.push(format!("wall {}", textfmt::duration(p.run.wall_ns as f64)));
    parts.push(format!("{} steps", textfmt::int(p.steps.count)));
    parts.join(" · ")
}

/// The header's link to the run's Chrome trace, with how to open it.
fn trace_link(href: &str) -> String {
    format!(
        "Timeline of every step, phase, layer and brick: <a href=\"{0}\"><code>{0}</code></a>. \
         Open it in Perfetto: go to <a href=\"https://ui.perfetto.dev\">ui.perfetto.dev</a> and \
         choose <em>Open trace file</em> (the trace is read in your browser, not uploaded); \
         click a slice for its layer, direction, FLOPs and bytes.",
        escape::html(href)
    )
}

/// The run's name, or `fallback` when it has none.
fn run_name<'p>(profile: &'p Profile, fallback: &'p str) -> &'p str {
    if profile.run.name.is_empty() {
        fallback
    } else {
        &profile.run.name
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_sanitised_and_deduplicated() {
        assert_eq!(Section::new("a b\"<", "t", "").id(), "a-b--");
        assert_eq!(Section::new("", "t", "").id(), "section");
        let p = Profile::empty();
        let html = HtmlReport::new(&p)
            .section(Section::new("run", "Again", ""))
            .section(Section::new("frames", "Frames", ""))
            .render();
        assert!(html.contains("<section id=\"run-2\">"));
        assert!(html.contains("<section id=\"frames-2\">"));
        assert!(!html.contains("id=\"frames\""));
    }
}
