//! The checks every reader of saved profiles and traces shares: values that
//! no measurement can produce (negative or non-finite durations, a sum of
//! durations that overflows, rates outside their range) are refused with
//! the field and the entry that hold them; an execution graph whose
//! precedence edges loop is refused with the nodes of the loop.

use super::data::Profile;
use super::run::RunInfo;
use super::trace::RecordedExecutionTrace;
use crate::kernel_data::GraphError;

/// A value in a profile or trace that no measurement can produce.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{field}`: {problem}")]
pub struct InvalidValue {
    /// Where the value is, e.g. `trace.entries[3].duration_us`.
    pub field: String,
    /// What is wrong with it.
    pub problem: String,
}

fn invalid(field: impl Into<String>, problem: impl Into<String>) -> InvalidValue {
    InvalidValue {
        field: field.into(),
        problem: problem.into(),
    }
}

/// `value` must be finite and at least 0.
fn non_negative(field: impl FnOnce() -> String, value: f64) -> Result<(), InvalidValue> {
    if value.is_finite() && value >= 0.0 {
        Ok(())
    } else {
        Err(invalid(
            field(),
            format!("{value} is not a finite, non-negative number"),
        ))
    }
}

/// `value`, when given, must be finite and above 0.
fn positive(field: &str, value: Option<f64>) -> Result<(), InvalidValue> {
    match value {
        Some(v) if !(v.is_finite() && v > 0.0) => Err(invalid(
            field,
            format!("{v} is not a finite, positive number"),
        )),
        _ => Ok(()),
    }
}

impl RecordedExecutionTrace {
    /// Checks what every reader of traces requires: each duration and start
    /// is finite and non-negative, their running sum stays finite, and so
    /// does the recorded total. `prefix` names the trace in errors (e.g.
    /// `"trace."` inside a profile, `""` for a trace file).
    ///
    /// # Errors
    /// [`InvalidValue`] naming the field and the entry index.
    pub fn validate(&self, prefix: &str) -> Result<(), InvalidValue> {
        let mut sum = 0.0f64;
        for (i, e) in self.entries.iter().enumerate() {
            let field = |name: &str| format!("{prefix}entries[{i}].{name}");
            non_negative(|| field("duration_us"), e.duration_us)?;
            if let Some(start) = e.start_us {
                non_negative(|| field("start_us"), start)?;
            }
            sum += e.duration_us;
            if !sum.is_finite() {
                return Err(invalid(
                    field("duration_us"),
                    "the durations up to this entry add up to more than a double can hold",
                ));
            }
        }
        non_negative(
            || format!("{prefix}total_duration_us"),
            self.total_duration_us,
        )
    }
}

impl RunInfo {
    /// Checks the run's values a reader relies on: the clock ratio, the
    /// measured overhead, hardware figures and the cache hit rate.
    ///
    /// # Errors
    /// [`InvalidValue`] naming the field as a profile holds it
    /// (`run.clock.ns_per_tick`).
    pub fn validate(&self) -> Result<(), InvalidValue> {
        non_negative(|| "run.clock.ns_per_tick".into(), self.clock.ns_per_tick)?;
        if let Some(o) = &self.overhead {
            non_negative(|| "run.overhead.per_call_ns".into(), o.per_call_ns)?;
            non_negative(|| "run.overhead.floor_ns".into(), o.floor_ns)?;
        }
        if let Some(hw) = &self.hardware {
            // Finite and positive, as readers need; a figure beyond any real
            // device is left to the reports, which set it aside.
            let figures = hw
                .compute_ceilings()
                .map(|(p, f)| (format!("compute.{p}"), f))
                .chain(
                    hw.memory_ceilings()
                        .map(|(l, f)| (format!("memory.{l}"), f)),
                )
                .chain(
                    hw.cache_sizes()
                        .map(|(l, f)| (format!("cache_bytes.{l}"), f)),
                )
                .chain(
                    hw.bytes_per_token()
                        .map(|f| ("bytes_per_token".to_owned(), f)),
                );
            for (field, f) in figures {
                positive(&format!("run.hardware.{field}"), Some(f.value))?;
            }
        }
        if let Some(rate) = self.l2_cache_hit_rate
            && !(0.0..=1.0).contains(&rate)
        {
            return Err(invalid(
                "run.l2_cache_hit_rate",
                format!("{rate} is outside [0, 1]"),
            ));
        }
        Ok(())
    }
}

impl Profile {
    /// Checks the values a reader relies on: the trace (see
    /// [`RecordedExecutionTrace::validate`]), the run (see
    /// [`RunInfo::validate`]) and counter values.
    ///
    /// # Errors
    /// [`InvalidValue`] naming the field.
    pub fn validate(&self) -> Result<(), InvalidValue> {
        self.trace.validate("trace.")?;
        self.run.validate()?;
        for (t, track) in self.counter_tracks.iter().enumerate() {
            for (i, s) in track.samples.iter().enumerate() {
                if !s.value.is_finite() {
                    return Err(invalid(
                        format!("counter_tracks[{t}].samples[{i}].value"),
                        "not a finite number",
                    ));
                }
            }
        }
        Ok(())
    }

    /// Checks that the execution graph, when there is one, can be analysed:
    /// its precedence edges must not loop, since a critical path or a
    /// schedule of a cyclic graph means nothing.
    ///
    /// # Errors
    /// [`GraphError::Cycle`] naming the nodes of one loop, in edge order.
    pub fn validate_graph(&self) -> Result<(), GraphError> {
        match &self.graph {
            Some(graph) => graph.topological_order().map(drop),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::RecordedTraceEntry;

    fn entry(duration_us: f64) -> RecordedTraceEntry {
        RecordedTraceEntry {
            duration_us,
            ..RecordedTraceEntry::new(0, "op")
        }
    }

    #[test]
    fn traces_refuse_negative_non_finite_and_overflowing_durations() {
        let mut t = RecordedExecutionTrace::new();
        t.entries = vec![entry(1.0), entry(-500.0)];
        let err = t.validate("trace.").unwrap_err();
        assert_eq!(err.field, "trace.entries[1].duration_us");
        t.entries = vec![entry(1e308), entry(1e308)];
        assert_eq!(t.validate("").unwrap_err().field, "entries[1].duration_us");
        t.entries = vec![entry(f64::NAN)];
        assert!(t.validate("").is_err());
        t.entries = vec![entry(3.0)];
        t.total_duration_us = -10.0;
        assert_eq!(t.validate("").unwrap_err().field, "total_duration_us");
        t.total_duration_us = 3.0;
        assert_eq!(t.validate(""), Ok(()));
    }
}
