//! [`RooflineError`]: what can be wrong with a roofline's inputs, naming the
//! field, preset or ceiling at fault.

/// Error building or querying a roofline.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RooflineError {
    /// A number that must be finite and greater than zero is not.
    #[error("invalid {field} `{value}`: {reason}")]
    InvalidValue {
        /// The field, e.g. `bandwidth_gb_s` or `RTX 4090 fp32 peak`.
        field: String,
        /// The value found, as text (so NaN and inf show as such).
        value: String,
        /// What is wrong.
        reason: &'static str,
    },
    /// The hardware the roofline was to be built from is not usable.
    #[error("{message}")]
    Hardware {
        /// The hardware model's error, as text.
        message: String,
    },
    /// The roofline has no ceiling for this precision or memory level.
    #[error("roofline `{device}` has no {what} ceiling; it has: {available}")]
    MissingCeiling {
        /// The roofline's name.
        device: String,
        /// The precision or memory level asked for.
        what: String,
        /// The ceilings it does have.
        available: String,
    },
}

/// `value` if finite and `> 0`, else [`RooflineError::InvalidValue`].
pub(crate) fn positive(field: &str, value: f64) -> Result<f64, RooflineError> {
    let reason = if value.is_nan() {
        "not a number"
    } else if !value.is_finite() {
        "not finite"
    } else if value <= 0.0 {
        "must be greater than 0"
    } else {
        return Ok(value);
    };
    Err(RooflineError::InvalidValue {
        field: field.to_owned(),
        value: value.to_string(),
        reason,
    })
}

impl From<crate::model::hardware::HardwareError> for RooflineError {
    fn from(e: crate::model::hardware::HardwareError) -> Self {
        Self::Hardware {
            message: e.to_string(),
        }
    }
}

/// `value` if finite and `>= 0`, else [`RooflineError::InvalidValue`].
pub(crate) fn non_negative(field: &str, value: f64) -> Result<f64, RooflineError> {
    if value == 0.0 {
        Ok(0.0)
    } else {
        positive(field, value).map_err(|e| match e {
            RooflineError::InvalidValue {
                field,
                value,
                reason: "must be greater than 0",
            } => RooflineError::InvalidValue {
                field,
                value,
                reason: "must not be negative",
            },
            e => e,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checks_name_the_field_and_the_problem() {
        assert_eq!(positive("x", 2.0), Ok(2.0));
        for (v, reason) in [
            (f64::NAN, "not a number"),
            (f64::INFINITY, "not finite"),
            (0.0, "must be greater than 0"),
            (-1.0, "must be greater than 0"),
        ] {
            let e = positive("bandwidth_gb_s", v).unwrap_err();
            assert!(e.to_string().contains("bandwidth_gb_s"), "{e}");
            assert!(e.to_string().contains(reason), "{e}");
        }
        assert_eq!(non_negative("b", 0.0), Ok(0.0));
        let e = non_negative("bits_per_weight", -4.0).unwrap_err();
        assert!(e.to_string().contains("must not be negative"), "{e}");
        assert!(non_negative("b", f64::NAN).is_err());
    }
}
