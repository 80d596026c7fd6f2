//! Grammar of `#[contract(...)]`: the leading `contract_name::equation`
//! path, then the optional `input = <expr>` argument.

use proc_macro2::{Span, TokenStream};
use syn::parse::{ParseStream, Parser};
use syn::{Error, Expr, Ident, Path, Result, Token};

use super::grammar::{Arg, parse_args, parse_expr, skip_argument, store, unknown_argument};
use crate::errors::Errors;

const USAGE: &str = "expected a contract equation, e.g. \
                     `#[contract(gpu_decode_profiling_v1::wall_coverage)]`";

const CONTRACT_ARGS: &[&str] = &["input"];

/// `gpu_decode_profiling_v1::wall_coverage`: the idents as written.
pub(crate) struct EquationPath {
    /// `gpu_decode_profiling_v1`.
    pub(crate) contract: Ident,
    /// `wall_coverage`.
    pub(crate) equation: Ident,
}

/// Arguments of `#[contract(...)]`.
pub(crate) struct ContractArgs {
    pub(crate) path: EquationPath,
    /// `input = <expr>`: what the conditions' `input` is bound to.
    pub(crate) input: Option<Arg<Expr>>,
}

impl ContractArgs {
    /// Parses the tokens inside `#[contract(...)]`.
    pub(crate) fn parse(args: TokenStream) -> Result<Self> {
        Self::parse_stream.parse2(args)
    }

    fn parse_stream(input: ParseStream) -> Result<Self> {
        let mut errors = Errors::default();
        let path = parse_equation_path(input, &mut errors);
        let mut bound = None;
        parse_args(
            input,
            &mut errors,
            "an argument: `input = <expr>`",
            |key, input, errors| {
                if key != "input" {
                    return Err(unknown_argument(&key, CONTRACT_ARGS));
                }
                let value = parse_expr(&key, input)?;
                store(&mut bound, key, value, errors);
                Ok(())
            },
        );
        errors.finish(|| Self {
            path: path.expect("a missing path is an error"),
            input: bound,
        })
    }
}

/// The leading `contract::equation` and the comma after it. `None` (with
/// an error gathered) when it is missing or not a two-segment path.
fn parse_equation_path(input: ParseStream, errors: &mut Errors) -> Option<EquationPath> {
    if input.is_empty() {
        errors.push(Error::new(Span::call_site(), USAGE));
        return None;
    }
    if input.peek2(Token![=]) {
        // A leading `key = value` is parsed as the first argument.
        errors.push(input.error(USAGE));
        return None;
    }
    let path = errors.keep(
        input
            .parse::<Path>()
            .map_err(|e| Error::new(e.span(), USAGE))
            .and_then(equation_path),
    );
    if !input.is_empty()
        && let Err(error) = input.parse::<Token![,]>()
    {
        errors.push(error);
        skip_argument(input);
        let _ = input.parse::<Option<Token![,]>>();
    }
    path
}

fn equation_path(path: Path) -> Result<EquationPath> {
    let segments: Vec<&Ident> = path.segments.iter().map(|s| &s.ident).collect();
    match segments[..] {
        [contract, equation] if path.leading_colon.is_none() => Ok(EquationPath {
            contract: contract.clone(),
            equation: equation.clone(),
        }),
        _ => Err(Error::new_spanned(
            &path,
            "expected `contract_name::equation`, e.g. `gpu_decode_profiling_v1::wall_coverage`",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attr::test_util::text;
    use quote::quote;

    fn errors(args: TokenStream) -> Vec<String> {
        match ContractArgs::parse(args) {
            Ok(_) => panic!("expected an error"),
            Err(error) => error.into_iter().map(|e| e.to_string()).collect(),
        }
    }

    #[test]
    fn parses_the_path_and_input() {
        let args = ContractArgs::parse(quote!(roofline_model_v1::model_bytes, input = (a, b),))
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(args.path.contract, "roofline_model_v1");
        assert_eq!(args.path.equation, "model_bytes");
        assert_eq!(text(args.input.as_ref()), "(a , b)");
        let args = ContractArgs::parse(quote!(a::b)).unwrap_or_else(|e| panic!("{e}"));
        assert!(args.input.is_none());
    }

    #[test]
    fn every_mistake_is_reported() {
        let path =
            "expected `contract_name::equation`, e.g. `gpu_decode_profiling_v1::wall_coverage`";
        assert_eq!(errors(quote!()), [USAGE]);
        assert_eq!(errors(quote!(input = x)), [USAGE]);
        assert_eq!(errors(quote!(wall_coverage)), [path]);
        assert_eq!(errors(quote!(a::b::c)), [path]);
        assert_eq!(
            errors(quote!(
                wall_coverage,
                inputs = x,
                input = y,
                input = z,
                input
            )),
            [
                path,
                "unknown argument `inputs`, did you mean `input`? expected one of `input`",
                "duplicate argument `input`",
                "missing value for `input`: write `input = <expr>`",
            ]
        );
    }
}
