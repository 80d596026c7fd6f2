//! Collecting several errors so one compile shows every mistake at once.

use syn::{Error, Result};

/// Errors gathered while parsing or validating, combined in order.
#[derive(Default)]
pub(crate) struct Errors(Option<Error>);

impl Errors {
    /// Adds an error after the ones already gathered.
    pub(crate) fn push(&mut self, error: Error) {
        match &mut self.0 {
            Some(first) => first.combine(error),
            None => self.0 = Some(error),
        }
    }

    /// Keeps the value of `result`, or gathers its error.
    pub(crate) fn keep<T>(&mut self, result: Result<T>) -> Option<T> {
        result.map_err(|error| self.push(error)).ok()
    }

    /// `Ok(value)` when nothing was gathered, else every error combined.
    pub(crate) fn finish<T>(self, value: impl FnOnce() -> T) -> Result<T> {
        match self.0 {
            Some(error) => Err(error),
            None => Ok(value()),
        }
    }
}
