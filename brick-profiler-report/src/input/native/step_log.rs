//! Trainers' logs with step-profiler lines (`"_profiler":
//! "step_profiler_v2"`): any text that no other format claims, read line by
//! line (a line past 1 MiB is skipped unread), keeping the last tagged line
//! that parses.

use std::io::{BufRead, Read};

use super::step_parse::{is_tagged, parse_at};
use crate::input::error::InputError;
use crate::input::format::{Format, Input, Source};
use crate::input::sniff::Head;

/// The longest line read; step-profiler lines are a few KiB.
const MAX_LINE: u64 = 1 << 20;

/// A trainer's log (or one step-profiler line).
#[derive(Debug)]
pub struct StepLogFormat;

impl Format for StepLogFormat {
    fn name(&self) -> &'static str {
        "step-log"
    }

    fn what(&self) -> &'static str {
        "a step-profiler line"
    }

    /// A JSON document only when its first object is a tagged step record
    /// (a log of them, one per line, starts like one); otherwise any text,
    /// since the tagged line of a long log comes at its end.
    fn sniff(&self, head: &Head<'_>) -> bool {
        match head.json_root() {
            Some(_) => head.has_key("_profiler"),
            None => head.text().is_some_and(|t| !t.is_empty()),
        }
    }

    fn read(&self, mut source: Source<'_>) -> Result<Input, InputError> {
        let origin = source.origin().to_owned();
        let reader = source.reader();
        let io = |source| InputError::Read {
            path: origin.clone().into(),
            source,
        };
        let (mut found, mut failed, mut first) = (None, None, None::<String>);
        let mut buf = Vec::new();
        for number in 1.. {
            buf.clear();
            let n = (&mut *reader)
                .take(MAX_LINE)
                .read_until(b'\n', &mut buf)
                .map_err(io)?;
            if n == 0 {
                break;
            }
            if n as u64 == MAX_LINE && buf.last() != Some(&b'\n') {
                reader.skip_until(b'\n').map_err(io)?;
                continue;
            }
            let text = String::from_utf8_lossy(&buf);
            let line = text.trim_start_matches('\u{feff}').trim_end();
            if first.is_none() && !line.trim().is_empty() {
                first = Some(line.chars().take(60).collect());
            }
            if !is_tagged(line) {
                continue;
            }
            match parse_at(line, Some(number)) {
                Ok(input) => found = Some(input),
                Err(e) => failed = Some(e),
            }
        }
        match (found, failed) {
            (Some(input), _) => Ok(Input::StepLog(input)),
            (None, Some(source)) => Err(InputError::Scorecard { origin, source }),
            (None, None) => Err(InputError::Unrecognised {
                origin,
                start: first.unwrap_or_default(),
            }),
        }
    }
}
