//! Small helpers for reporting JSON errors.

/// serde_json's message without its " at line L column C" suffix, for
/// errors that report the position in their own fields.
pub(crate) fn message(error: &serde_json::Error) -> String {
    let text = error.to_string();
    match text.split_once(" at line ") {
        Some((message, _)) => message.to_owned(),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn position_suffix_is_dropped() {
        let error = serde_json::from_str::<u32>("\"x\"").unwrap_err();
        assert_eq!(
            super::message(&error),
            "invalid type: string \"x\", expected u32"
        );
    }
}
