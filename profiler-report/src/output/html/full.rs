//! [`FullReport`]: the whole HTML page of a run from its options: the
//! built-in sections, the flamegraph, and the roofline, parity and contract
//! sections when their inputs are given, always in the same order.

use profiler_core::Profile;

use super::report::HtmlReport;
use crate::analysis::contract::{ContractReport, contracts_section};
use crate::analysis::parity::{
    compute_parity_comparison, compute_parity_multi, parity_multi_section, parity_section,
};
use crate::analysis::roofline::{BrickRoofline, roofline_section};
use crate::analysis::training::TrainingScorecard;
use crate::base::section::Section;
use crate::model::run::RunSummary;
use crate::output::error::ExportError;
use crate::output::export::{flamegraph_svg, folded_stacks};

/// Builds the complete report page of a run, as `profiler-report html` and
/// the training examples write it.
///
/// The page is an [`HtmlReport`] with, after the built-in sections: the
/// flamegraph of the run's stacks (unless turned off, or nothing was
/// recorded), the roofline of the bricks (when [`roofline`](Self::roofline)
/// is given), parity against one or several baselines (when
/// [`parity`](Self::parity) is given; this run is named after its run name,
/// else `ours`), the verdicts of [`contracts`](Self::contracts), then any
/// added [`Section`]s.
///
/// ```
/// use profiler_report::html::FullReport;
/// let mut profile = profiler::Profile::empty();
/// profile.run.name = "train_tiny".into();
/// let html = FullReport::new(&profile).trace_file("trace.json").render()?;
/// assert!(html.contains("<a href=\"trace.json\">"));
/// # Ok::<(), profiler_report::ExportError>(())
/// ```
#[derive(Debug, Clone)]
pub struct FullReport<'a> {
    profile: &'a Profile,
    title: Option<String>,
    scorecard: Option<&'a TrainingScorecard>,
    trace_file: Option<String>,
    checksum_reference: Option<&'a Profile>,
    flamegraph: bool,
    roofline: Option<&'a BrickRoofline>,
    parity: &'a [RunSummary],
    contracts: &'a [ContractReport],
    extra: Vec<Section>,
}

impl<'a> FullReport<'a> {
    /// The page of `profile`, titled after its run name, with its flamegraph.
    #[must_use]
    pub fn new(profile: &'a Profile) -> Self {
        Self {
            profile,
            title: None,
            scorecard: None,
            trace_file: None,
            checksum_reference: None,
            flamegraph: true,
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

    /// Shows `scorecard` (computed, or a saved one).
    #[must_use]
    pub fn scorecard(mut self, scorecard: &'a TrainingScorecard) -> Self {
        self.scorecard = Some(scorecard);
        self
    }

    /// Links the run's Chrome trace (a path relative to the page) from the
    /// header; see [`HtmlReport::trace_file`].
    #[must_use]
    pub fn trace_file(mut self, href: impl Into<String>) -> Self {
        self.trace_file = Some(href.into());
        self
    }

    /// Compares the kernel output checksums with a known-good run's; see
    /// [`HtmlReport::checksum_reference`].
    #[must_use]
    pub fn checksum_reference(mut self, reference: &'a Profile) -> Self {
        self.checksum_reference = Some(reference);
        self
    }

    /// Whether to draw the flamegraph (on by default).
    #[must_use]
    pub fn flamegraph(mut self, on: bool) -> Self {
        self.flamegraph = on;
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

    /// Appends a section after every other one but the glossary.
    #[must_use]
    pub fn section(mut self, section: Section) -> Self {
        self.extra.push(section);
        self
    }

    /// The complete HTML document.
    ///
    /// # Errors
    /// [`ExportError`] when the flamegraph cannot be drawn from the run's
    /// stacks.
    pub fn render(&self) -> Result<String, ExportError> {
        let p = self.profile;
        let mut page = HtmlReport::new(p);
        if let Some(sc) = self.scorecard {
            page = page.scorecard(sc);
        }
        if let Some(title) = &self.title {
            page = page.title(title.clone());
        }
        if let Some(href) = &self.trace_file {
            page = page.trace_file(href.clone());
        }
        if let Some(reference) = self.checksum_reference {
            page = page.checksum_reference(reference);
        }
        let folded = if self.flamegraph {
            folded_stacks(p)
        } else {
            String::new()
        };
        // No stacks at all (e.g. a build with the `off` feature): no flamegraph.
        if !folded.is_empty() {
            page = page.flamegraph_svg(flamegraph_svg(&folded, run_name(p, "profile"))?);
        }
        if let Some(r) = self.roofline {
            page = page.section(roofline_section(r, p.run.measured_ceilings.as_ref()));
        }
        if let Some(section) = self.parity_section() {
            page = page.section(section);
        }
        if !self.contracts.is_empty() {
            page = page.section(contracts_section(self.contracts));
        }
        for section in &self.extra {
            page = page.section(section.clone());
        }
        Ok(page.render())
    }

    fn parity_section(&self) -> Option<Section> {
        let ours = || RunSummary::from_profile(self.profile, run_name(self.profile, "ours"));
        match self.parity {
            [] => None,
            [one] => Some(parity_section(&compute_parity_comparison(&ours(), one))),
            many => Some(parity_multi_section(&compute_parity_multi(&ours(), many))),
        }
    }
}

/// The run's name, or `fallback` when it has none.
fn run_name<'p>(profile: &'p Profile, fallback: &'p str) -> &'p str {
    if profile.run.name.is_empty() {
        fallback
    } else {
        &profile.run.name
    }
}
