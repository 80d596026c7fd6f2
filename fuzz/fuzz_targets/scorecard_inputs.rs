//! Any text through the scorecard's readers: the step-profiler log parser
//! and the baseline scorecard reader. Reading never panics; an accepted
//! log line scores into a scorecard (or a typed error), an accepted
//! baseline renders and serves as the baseline of that scorecard, and
//! every scorecard's JSON reads back.

#![no_main]

#[path = "../common/mod.rs"]
mod common;

use libfuzzer_sys::fuzz_target;
use profiler_report::input::native::parse_last_step_profiler_line;
use profiler_report::scorecard::{ScorecardBuilder, TrainingScorecard};

fuzz_target!(|data: &[u8]| {
    let Some(text) = common::text(data) else {
        return;
    };
    let baseline = TrainingScorecard::from_json(text).ok();
    if let Some(b) = &baseline {
        common::check_scorecard(b);
    }
    let Ok(input) = parse_last_step_profiler_line(text) else {
        return;
    };
    for throughput in [0.0, 1234.5] {
        let mut builder = ScorecardBuilder::from_input(input.clone(), throughput);
        if let Some(b) = &baseline {
            builder = builder.baseline(b.clone());
        }
        if let Ok(sc) = builder.build() {
            common::check_scorecard(&sc);
        }
    }
});
