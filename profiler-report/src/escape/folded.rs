//! Frame names for folded stacks (`frame;frame;frame count` lines, the input
//! of flamegraph tools).

use std::borrow::Cow;

/// A name made safe for a folded-stack frame: `;` separates frames and a
/// line break ends the record, so both become `_`.
pub(crate) fn frame(name: &str) -> Cow<'_, str> {
    if name.contains([';', '\n', '\r']) {
        Cow::Owned(name.replace([';', '\n', '\r'], "_"))
    } else {
        Cow::Borrowed(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frame_names_lose_separators() {
        assert_eq!(frame("a;b\nc"), "a_b_c");
        assert!(matches!(frame("layer 0 fwd"), Cow::Borrowed(_)));
    }
}
