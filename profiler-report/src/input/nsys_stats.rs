//! Nsight Systems CUDA kernel summaries (`nsys stats`, text, boxed or CSV):
//! `Total Time` and `Instances` columns in the first bytes, also in a console
//! capture cut anywhere (one that starts at a `[3/8] Executing ...` progress
//! line looks like a JSON array to the first byte); read by
//! [`parse_nsys_stats`].

use super::error::InputError;
use super::format::{Format, Input, Source};
use super::nsight::parse_nsys_stats;
use super::sniff::Head;

/// An `nsys stats` kernel summary.
#[derive(Debug)]
pub struct NsysStatsFormat;

impl Format for NsysStatsFormat {
    fn name(&self) -> &'static str {
        "nsys-stats"
    }

    fn what(&self) -> &'static str {
        "an Nsight Systems summary"
    }

    fn sniff(&self, head: &Head<'_>) -> bool {
        let Some(text) = head.text() else {
            return false;
        };
        (head.json_root().is_none() || starts_with_progress(&text))
            && text.contains("Total Time")
            && text.contains("Instances")
    }

    fn read(&self, source: Source<'_>) -> Result<Input, InputError> {
        let origin = source.origin();
        let text = source.text()?;
        Ok(Input::Nsys(parse_nsys_stats(&text, origin)?))
    }
}

/// Whether text starts with a progress line of `nsys profile --stats=true`
/// (`[3/8] Executing 'nvtx_sum' stats report`, `[1/8] [====...`): the `[`
/// that opens a JSON array, followed by `digits/digits]`, which no JSON
/// document holds.
fn starts_with_progress(text: &str) -> bool {
    let Some(rest) = text.strip_prefix('[') else {
        return false;
    };
    let Some((step, rest)) = rest.split_once('/') else {
        return false;
    };
    let Some((steps, _)) = rest.split_once(']') else {
        return false;
    };
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    digits(step) && digits(steps)
}

#[cfg(test)]
mod tests {
    use super::starts_with_progress;

    #[test]
    fn progress_lines_are_told_from_json_arrays() {
        assert!(starts_with_progress(
            "[3/8] Executing 'nvtx_sum' stats report"
        ));
        assert!(starts_with_progress("[1/8] [====100%] a.nsys-rep"));
        assert!(!starts_with_progress("[3, 8]"));
        assert!(!starts_with_progress("[{\"ph\": \"X\"}]"));
        assert!(!starts_with_progress("[/8]"));
        assert!(!starts_with_progress("Executing [3/8]"));
    }
}
