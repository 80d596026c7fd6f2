//! One scrape: a snapshot of the profiler written as OpenMetrics text (what
//! `/metrics` serves) or as Prometheus text 0.0.4 (what the Pushgateway reads).

use std::sync::Arc;

use profiler_core::Profile;
use prometheus_client::encoding::{prometheus_text, text};
use prometheus_client::registry::Registry;

use crate::error::MetricsError;
use crate::families::Families;
use crate::labels::RankLabels;

/// The text formats the metrics are written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// OpenMetrics 1.0 text, served on `/metrics`.
    OpenMetrics,
    /// Prometheus text 0.0.4, pushed to the Pushgateway (which does not read
    /// OpenMetrics).
    PrometheusText,
}

impl Format {
    /// The `Content-Type` of this format.
    #[must_use]
    pub const fn content_type(self) -> &'static str {
        match self {
            Self::OpenMetrics => "application/openmetrics-text; version=1.0.0; charset=utf-8",
            Self::PrometheusText => prometheus_text::CONTENT_TYPE,
        }
    }
}

/// Writes `profile` with `labels` on every series in `format`; every metric
/// name starts with `profiler_`.
///
/// # Errors
/// [`MetricsError::Encode`] when the encoder refuses a value.
pub fn encode(
    profile: Profile,
    labels: &RankLabels,
    format: Format,
) -> Result<String, MetricsError> {
    let mut registry = Registry::with_prefix_and_labels("profiler", labels.pairs().into_iter());
    registry.register_collector(Box::new(Families {
        profile: Arc::new(profile),
        push_failures: crate::error::failures(),
    }));
    let mut out = String::new();
    match format {
        Format::OpenMetrics => text::encode(&mut out, &registry)?,
        Format::PrometheusText => prometheus_text::encode(&mut out, &registry)?,
    }
    Ok(out)
}

/// Takes a snapshot now and writes it with this process's rank labels: what
/// a scrape of the endpoint returns.
///
/// # Errors
/// [`MetricsError::Encode`] when the encoder refuses a value.
pub fn scrape(format: Format) -> Result<String, MetricsError> {
    encode(profiler_core::snapshot(), &RankLabels::current(), format)
}
