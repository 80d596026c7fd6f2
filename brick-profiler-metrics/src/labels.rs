//! The labels every series carries: who this process is in the run (rank,
//! world size, run id, host), read from the profiler's rank identity.

use std::borrow::Cow;

use profiler_core::profile::RankIdentity;

/// The `rank`, `world_size`, `run` and `host` labels of every series.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RankLabels {
    /// This process's rank (`0` without a launcher).
    pub rank: u32,
    /// Ranks in the run (`1` without a launcher).
    pub world_size: u32,
    /// The run id every rank shares.
    pub run: String,
    /// Host name, empty when unknown.
    pub host: String,
}

impl RankLabels {
    /// The labels of this process, as `profiler::rank_identity()` says now.
    #[must_use]
    pub fn current() -> Self {
        Self::from(&profiler_core::rank_identity())
    }

    /// The labels as `(name, value)` pairs, in exposition order.
    pub(crate) fn pairs(&self) -> Vec<(Cow<'static, str>, Cow<'static, str>)> {
        vec![
            (Cow::Borrowed("rank"), Cow::Owned(self.rank.to_string())),
            (
                Cow::Borrowed("world_size"),
                Cow::Owned(self.world_size.to_string()),
            ),
            (Cow::Borrowed("run"), Cow::Owned(self.run.clone())),
            (Cow::Borrowed("host"), Cow::Owned(self.host.clone())),
        ]
    }

    /// The Pushgateway grouping key of this process: `job` is the run,
    /// `instance` the rank, so every rank of every run keeps its own group.
    #[must_use]
    pub fn grouping_path(&self) -> String {
        format!(
            "job/{}/instance/{}",
            path_segment(&self.run),
            path_segment(&format!("rank-{}", self.rank))
        )
    }
}

impl From<&RankIdentity> for RankLabels {
    fn from(id: &RankIdentity) -> Self {
        Self {
            rank: id.rank,
            world_size: id.world_size,
            run: id.run_id.clone(),
            host: id.host.clone(),
        }
    }
}

/// A grouping-key value as one URL path segment: the Pushgateway reads
/// percent-encoded segments, and an empty one would end the path early.
fn path_segment(value: &str) -> String {
    if value.is_empty() {
        return "unknown".to_owned();
    }
    let mut out = String::with_capacity(value.len());
    for byte in value.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'_' | b'.' | b'~') {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(run: &str, rank: u32) -> RankLabels {
        RankLabels {
            rank,
            world_size: 2,
            run: run.to_owned(),
            host: "node-1".to_owned(),
        }
    }

    #[test]
    fn grouping_path_names_run_and_rank() {
        assert_eq!(
            labels("job7", 1).grouping_path(),
            "job/job7/instance/rank-1"
        );
    }

    #[test]
    fn grouping_path_escapes_slashes_and_spaces() {
        assert_eq!(
            labels("a/b c", 0).grouping_path(),
            "job/a%2Fb%20c/instance/rank-0"
        );
        assert_eq!(labels("", 0).grouping_path(), "job/unknown/instance/rank-0");
    }

    #[test]
    fn pairs_carry_all_four_labels() {
        let names: Vec<_> = labels("r", 3)
            .pairs()
            .into_iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        assert_eq!(names, ["rank=3", "world_size=2", "run=r", "host=node-1"]);
    }
}
