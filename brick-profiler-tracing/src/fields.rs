//! Reads a span's layer index and per-call work from its fields, when it
//! is made and when it records values later.

use std::fmt;

use profiler_core::dynamic::CallWork;
use tracing_core::field::{Field, Visit};

use crate::plan::WORK_FIELDS;

/// Writes the fields it visits into a call's work.
pub(crate) struct WorkVisitor<'a> {
    pub(crate) work: &'a mut CallWork,
    pub(crate) layer_fields: &'a [String],
}

impl WorkVisitor<'_> {
    fn set(&mut self, field: &Field, value: u64) {
        let name = field.name();
        if self.layer_fields.iter().any(|n| n == name) {
            // Indices past u32 cannot be packed; the core clamps the largest.
            self.work.layer = Some(u32::try_from(value).unwrap_or(u32::MAX - 1));
            return;
        }
        match WORK_FIELDS.iter().position(|w| *w == name) {
            Some(0) => self.work.elements = value,
            Some(1) => self.work.bytes = value,
            Some(2) => self.work.flops = value,
            _ => {}
        }
    }
}

impl Visit for WorkVisitor<'_> {
    fn record_u64(&mut self, field: &Field, value: u64) {
        self.set(field, value);
    }

    fn record_i64(&mut self, field: &Field, value: i64) {
        // A negative index or amount means nothing: it is left as it was.
        if let Ok(value) = u64::try_from(value) {
            self.set(field, value);
        }
    }

    fn record_u128(&mut self, field: &Field, value: u128) {
        self.set(field, u64::try_from(value).unwrap_or(u64::MAX));
    }

    fn record_f64(&mut self, field: &Field, value: f64) {
        if value.is_finite() && value >= 0.0 {
            // `as` saturates at u64::MAX, as the core does with huge counts.
            self.set(field, value as u64);
        }
    }

    fn record_debug(&mut self, _field: &Field, _value: &dyn fmt::Debug) {}
}
