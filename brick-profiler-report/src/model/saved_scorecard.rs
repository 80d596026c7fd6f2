//! [`SavedScorecard`]: a scorecard saved as JSON (a baseline) as input reads
//! it; the training analysis turns it into a `TrainingScorecard`.

/// A saved scorecard's JSON document, checked to be well-formed JSON when
/// read. Its fields are the scorecard's business: `TrainingScorecard::
/// from_saved` reads them and names a field of the wrong shape.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SavedScorecard {
    origin: String,
    json: String,
}

impl SavedScorecard {
    /// The document `json`, named `origin` in errors.
    ///
    /// # Errors
    /// The `serde_json` error (with line and column) when `json` is not one
    /// well-formed JSON value.
    pub fn new(origin: impl Into<String>, json: String) -> Result<Self, serde_json::Error> {
        // Checks the syntax without building a tree; only the text is kept.
        serde_json::from_str::<serde::de::IgnoredAny>(&json)?;
        Ok(Self {
            origin: origin.into(),
            json,
        })
    }

    /// The name errors give the document (its file, usually).
    #[must_use]
    pub fn origin(&self) -> &str {
        &self.origin
    }

    /// The JSON text.
    #[must_use]
    pub fn json(&self) -> &str {
        &self.json
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_well_formed_json_is_kept() {
        let saved = SavedScorecard::new("b.json", "{\"efficiency\": 0.5}".to_owned()).unwrap();
        assert_eq!(
            (saved.origin(), saved.json()),
            ("b.json", "{\"efficiency\": 0.5}")
        );
        let e = SavedScorecard::new("b.json", "{\"efficiency\": ".to_owned()).unwrap_err();
        assert_eq!(e.line(), 1, "{e}");
    }
}
