//! "Did you mean ...?" for every unknown name the profiler reports: brick
//! and category names, macro arguments, contracts, equations and metrics.
//! A leaf crate (only `strsim`), so the runtime can use it too.
//!
//! ```
//! use profiler_suggest::{did_you_mean, suggest};
//! let names = ["wall_coverage", "decoded_tokens", "layers"];
//! assert_eq!(suggest("wall_coverge", names), Some("wall_coverage"));
//! assert_eq!(
//!     format!("unknown metric `layer`{}", did_you_mean(suggest("layer", names))),
//!     "unknown metric `layer`, did you mean `layers`?"
//! );
//! assert_eq!(did_you_mean(suggest("throughput", names)), "");
//! ```

use std::fmt::Display;

/// The candidate closest to `name`, if one is close enough to suggest.
///
/// Closeness is the Levenshtein distance with ASCII case ignored (so
/// `rmsnorm` finds `RmsNorm`); a candidate is close enough within a third
/// of `name`'s length in characters (at least one edit). Ties go to the
/// earlier candidate.
#[must_use]
pub fn suggest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let lower = name.to_ascii_lowercase();
    let mut best: Option<(usize, &str)> = None;
    for candidate in candidates {
        let distance = strsim::levenshtein(&lower, &candidate.to_ascii_lowercase());
        if best.is_none_or(|(d, _)| distance < d) {
            best = Some((distance, candidate));
        }
    }
    let allowed = name.chars().count().max(3) / 3;
    best.filter(|(d, _)| *d <= allowed).map(|(_, c)| c)
}

/// ", did you mean `X`?" for a suggestion, or nothing: the tail every
/// "unknown ..." message shares.
#[must_use]
pub fn did_you_mean(suggestion: Option<impl Display>) -> String {
    suggestion.map_or_else(String::new, |s| format!(", did you mean `{s}`?"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn close_names_are_suggested_and_far_ones_are_not() {
        let names = ["wall_coverage", "decoded_tokens", "layers"];
        assert_eq!(suggest("wall_coverge", names), Some("wall_coverage"));
        assert_eq!(suggest("layer", names), Some("layers"));
        assert_eq!(suggest("throughput", names), None);
        assert_eq!(suggest("anything", []), None);
    }

    #[test]
    fn case_is_ignored_and_the_distance_is_bounded_by_length() {
        let bricks = ["RmsNorm", "SpMV", "Softmax", "Solver"];
        assert_eq!(suggest("rmsnorm", bricks), Some("RmsNorm"));
        assert_eq!(suggest("RmsNrom", bricks), Some("RmsNorm"));
        assert_eq!(suggest("SPMV", bricks), Some("SpMV"));
        assert_eq!(suggest("Sovler", bricks), Some("Solver"));
        assert_eq!(suggest("Convolution", bricks), None);
        // Short names get one edit.
        assert_eq!(suggest("Up", ["Us"]), Some("Us"));
        assert_eq!(suggest("Up", ["Xy"]), None);
    }

    #[test]
    fn ties_go_to_the_earlier_candidate() {
        assert_eq!(suggest("ab", ["ax", "ay"]), Some("ax"));
        assert_eq!(suggest("ab", ["ay", "ax"]), Some("ay"));
    }

    #[test]
    fn the_message_tail_is_empty_without_a_suggestion() {
        assert_eq!(did_you_mean(Some("x")), ", did you mean `x`?");
        assert_eq!(did_you_mean(None::<&str>), "");
    }
}
