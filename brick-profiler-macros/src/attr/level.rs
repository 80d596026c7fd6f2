//! Grammar of the `level = L2` argument of `#[brick(...)]`: the memory
//! level that serves a brick's data, one of `L1`, `L2`, `L3`, `DRAM` in any
//! case (or as a string), spanned on the value for errors.

use proc_macro2::Span;
use syn::ext::IdentExt;
use syn::parse::ParseStream;
use syn::{Error, Expr, Ident, LitStr, Result};

use super::grammar::parse_eq;

/// The levels `level = ..` takes, as written in messages, and the
/// `BrickLevel` variant each names.
const LEVELS: [(&str, &str); 4] = [("L1", "L1"), ("L2", "L2"), ("L3", "L3"), ("DRAM", "Dram")];

/// `level = L2`: the `BrickLevel` variant named, spanned on the value.
pub(crate) struct Level {
    pub(crate) span: Span,
    pub(crate) variant: &'static str,
}

/// `level = L2` (any case) or `level = "l2"`; anything else is an error
/// on the value.
pub(super) fn parse_level(key: &Ident, input: ParseStream) -> Result<Level> {
    parse_eq(key, input, "L2")?;
    let (name, span) = if input.peek(LitStr) {
        let lit: LitStr = input.parse()?;
        (lit.value(), lit.span())
    } else if input.peek(Ident::peek_any) {
        let ident = input.call(Ident::parse_any)?;
        (ident.to_string(), ident.span())
    } else {
        let expected = "expected a memory level: `level = L1`, `L2`, `L3` or `DRAM`";
        let error = match input.parse::<Expr>() {
            Ok(expr) => Error::new_spanned(expr, expected),
            Err(_) => input.error(expected),
        };
        return Err(error);
    };
    LEVELS
        .iter()
        .find(|(written, _)| written.eq_ignore_ascii_case(name.trim()))
        .map(|(_, variant)| Level { span, variant })
        .ok_or_else(|| {
            Error::new(
                span,
                format!("unknown memory level `{name}`, expected one of `L1`, `L2`, `L3`, `DRAM`"),
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proc_macro2::TokenStream;
    use quote::quote;
    use syn::Token;
    use syn::parse::Parser;

    /// Parses `level = ...` the way the brick grammar does.
    fn parse(tokens: TokenStream) -> Result<Level> {
        let parser = |input: ParseStream| {
            let key = input.call(Ident::parse_any)?;
            let level = parse_level(&key, input)?;
            let _ = input.parse::<Option<Token![,]>>()?;
            Ok(level)
        };
        parser.parse2(tokens)
    }

    fn variant(tokens: TokenStream) -> &'static str {
        match parse(tokens) {
            Ok(level) => level.variant,
            Err(error) => panic!("unexpected error: {error}"),
        }
    }

    fn error(tokens: TokenStream) -> String {
        match parse(tokens) {
            Ok(_) => panic!("expected an error"),
            Err(error) => error.to_string(),
        }
    }

    #[test]
    fn a_cache_level_in_any_case_or_a_string() {
        assert_eq!(variant(quote!(level = L2)), "L2");
        assert_eq!(variant(quote!(level = dram)), "Dram");
        assert_eq!(variant(quote!(level = "l1",)), "L1");
        assert_eq!(variant(quote!(level = Dram)), "Dram");
    }

    #[test]
    fn anything_else_is_an_error() {
        let unknown = |l: &str| {
            format!("unknown memory level `{l}`, expected one of `L1`, `L2`, `L3`, `DRAM`")
        };
        assert_eq!(error(quote!(level = L4)), unknown("L4"));
        assert_eq!(error(quote!(level = "hbm")), unknown("hbm"));
        assert_eq!(
            error(quote!(level = 2)),
            "expected a memory level: `level = L1`, `L2`, `L3` or `DRAM`"
        );
        assert_eq!(
            error(quote!(level)),
            "missing value for `level`: write `level = L2`"
        );
    }
}
