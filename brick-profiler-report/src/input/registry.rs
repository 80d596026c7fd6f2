//! Every input format, in the order they are tried: the first whose sniff
//! accepts an input's first bytes reads it. A new format is one file (in
//! `chrome/`, `nsight/` or `native/`) and one line here.

use super::chrome::{ChromeTraceFormat, PytorchTraceFormat};
use super::format::Format;
use super::native::{
    ExecutionTraceFormat, ParityFormat, ProfileFormat, ScorecardFormat, StepLogFormat,
};
use super::nsight::{FullProfilesFormat, NcuCsvFormat, NsysStatsFormat};

/// The formats, most specific first: JSON formats by their keys, then the
/// Nsight text exports by their headers, then logs (any other text).
static REGISTRY: &[&dyn Format] = &[
    &ProfileFormat,
    &ParityFormat,
    &ChromeTraceFormat,
    &PytorchTraceFormat,
    &ExecutionTraceFormat,
    &ScorecardFormat,
    &FullProfilesFormat,
    &NcuCsvFormat,
    &NsysStatsFormat,
    &StepLogFormat,
];

/// Every input format, in the order `detect` tries them.
#[must_use]
pub fn registry() -> &'static [&'static dyn Format] {
    REGISTRY
}

#[cfg(test)]
mod tests {
    //! A format added the way a contributor adds one: one type implementing
    //! [`Format`] (here rocprof's kernel summary, `rocprof --stats`), and one
    //! line putting it in the list the files are told by.

    use super::*;
    use crate::input::error::InputError;
    use crate::input::format::{Input, Source};
    use crate::input::open::open_in;
    use crate::input::sniff::Head;
    use crate::model::nsight::{NsysForm, NsysKernel, NsysReport};

    /// `results.stats.csv` of `rocprof --stats`: one row per kernel.
    struct RocprofStats;

    impl Format for RocprofStats {
        fn name(&self) -> &'static str {
            "rocprof-stats"
        }

        fn what(&self) -> &'static str {
            "a rocprof kernel summary"
        }

        fn sniff(&self, head: &Head<'_>) -> bool {
            head.text()
                .is_some_and(|t| t.starts_with("\"Name\",\"Calls\",\"TotalDurationNs\""))
        }

        fn read(&self, source: Source<'_>) -> Result<Input, InputError> {
            let origin = source.origin().to_owned();
            let text = source.text()?;
            let mut kernels = Vec::new();
            for (i, row) in csv::Reader::from_reader(text.as_bytes())
                .records()
                .enumerate()
            {
                let bad = |message: String| InputError::Malformed {
                    format: "rocprof summary",
                    origin: origin.clone(),
                    line: i + 2,
                    column: 1,
                    message,
                };
                let row = row.map_err(|e| bad(e.to_string()))?;
                let num = |c: usize| -> Result<f64, InputError> {
                    row.get(c)
                        .and_then(|v| v.parse().ok())
                        .ok_or_else(|| bad(format!("column {c}")))
                };
                let (calls, total) = (num(1)?, num(2)?);
                kernels.push(NsysKernel {
                    name: row.get(0).unwrap_or_default().to_owned(),
                    time_pct: Some(num(4)?),
                    total_ns: total,
                    instances: calls as u64,
                    avg_ns: num(3)?,
                    med_ns: None,
                    min_ns: num(3)?,
                    max_ns: num(3)?,
                    stddev_ns: None,
                    truncated: false,
                    line: i + 2,
                });
            }
            Ok(Input::Nsys(NsysReport {
                origin,
                form: NsysForm::Csv,
                run: None,
                header_line: 1,
                kernels,
                notes: vec!["min and max are the mean: rocprof's summary has neither".into()],
            }))
        }
    }

    #[test]
    fn a_format_is_one_type_and_one_line_in_the_list() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("results.stats.csv");
        std::fs::write(
            &path,
            "\"Name\",\"Calls\",\"TotalDurationNs\",\"AverageNs\",\"Percentage\"\n\
             \"gemm_kernel\",4,4000,1000,80.0\n\"softmax\",2,1000,500,20.0\n",
        )
        .unwrap();
        // Without its line, no format takes the file.
        let err = crate::input::open(&path).unwrap_err();
        assert!(matches!(err, InputError::Unrecognised { .. }), "{err}");

        // The one line: the new format, before the logs that take any text.
        let formats: Vec<&dyn Format> = [&RocprofStats as _]
            .into_iter()
            .chain(REGISTRY.iter().copied())
            .collect();

        let head = std::fs::read(&path).unwrap();
        let found = crate::input::open::detect_in(&formats, &head).map(|f| f.name());
        assert_eq!(found, Some("rocprof-stats"));
        let Input::Nsys(report) = open_in(&formats, &path).unwrap() else {
            panic!("read as a kernel summary")
        };
        let names: Vec<_> = report.kernels.iter().map(|k| k.name.as_str()).collect();
        assert_eq!(names, ["gemm_kernel", "softmax"]);
        assert_eq!(report.kernels[0].instances, 4);
        // Every report that takes a kernel summary takes it.
        let profile = crate::input::Run::Nsys(report)
            .into_profile(&crate::analysis::roofline::FullProfileOptions::default())
            .unwrap();
        let total: u64 = profile.bricks.iter().map(|b| b.count).sum();
        assert_eq!(total, 6);
        // The built-in formats still read their own files.
        let log = dir.path().join("train.log");
        std::fs::write(&log, "step 1\n").unwrap();
        let err = open_in(&formats, &log).unwrap_err().to_string();
        assert_eq!(err, crate::input::open(&log).unwrap_err().to_string());
    }
}
