//! Nsight Systems CUDA kernel summaries (`nsys stats`, text, boxed or CSV):
//! `Total Time` and `Instances` columns in the first bytes; read by
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
        head.json_root().is_none()
            && head
                .text()
                .is_some_and(|t| t.contains("Total Time") && t.contains("Instances"))
    }

    fn read(&self, source: Source<'_>) -> Result<Input, InputError> {
        let origin = source.origin();
        let text = source.text()?;
        Ok(Input::Nsys(parse_nsys_stats(&text, origin)?))
    }
}
