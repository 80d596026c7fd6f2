//! "Did you mean ...?" for contract, equation and metric names.

/// The closest of `candidates` to `name`, if one is close enough to suggest.
#[must_use]
pub fn suggest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    candidates
        .into_iter()
        .map(|c| (strsim::normalized_damerau_levenshtein(name, c), c))
        .filter(|(score, _)| *score >= 0.6)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, c)| c)
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
    }
}
