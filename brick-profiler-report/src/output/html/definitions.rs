//! The glossary section: every metric the page shows, defined once, with
//! an anchor each tooltip and metric name links to. On a run that timed no
//! device, the GPU-only terms say why the page does not show them.

use std::fmt::Write as _;

use crate::base::escape;
use crate::base::glossary::Metric;

/// The glossary as a definition list; `device_timed` is false for a run
/// that timed no device (a CPU run).
pub(crate) fn glossary(device_timed: bool) -> String {
    glossary_of(&Metric::ALL, device_timed)
}

/// The glossary of `metrics` only, in their order.
pub(crate) fn glossary_of(metrics: &[Metric], device_timed: bool) -> String {
    let mut s = String::from("<dl class=\"glossary\">\n");
    for &metric in metrics {
        let t = metric.term();
        let _ = write!(
            s,
            "<div><dt id=\"glossary-{}\">{}</dt>\n<dd>{}",
            t.id,
            escape::html(t.name),
            escape::html(t.text)
        );
        if t.device_only && !device_timed {
            s.push_str(
                " <em>Not shown for this run: it timed no device (a CPU run), so there is \
                 nothing to measure.</em>",
            );
        }
        s.push_str("</dd></div>\n");
    }
    s.push_str("</dl>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_term_has_an_anchor_and_cpu_runs_explain_gpu_terms() {
        let cpu = glossary(false);
        assert_eq!(cpu.matches("<dt id=\"glossary-").count(), Metric::ALL.len());
        assert!(cpu.contains("<div><dt id=\"glossary-self-time\">Self time</dt>"));
        assert_eq!(cpu.matches("timed no device (a CPU run)").count(), 2);
        assert!(!glossary(true).contains("timed no device (a CPU run)"));
    }
}
