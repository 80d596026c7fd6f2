//! Argument grammar of `#[contract(...)]`:
//! `contract_name::equation` then optionally `input = <expr>`.

use syn::parse::{Parse, ParseStream};
use syn::{Error, Expr, Ident, Path, Result, Token};

/// The parsed arguments, with their tokens for error spans.
pub(super) struct ContractArgs {
    /// `gpu_decode_profiling_v1` in `gpu_decode_profiling_v1::wall_coverage`.
    pub(super) contract: Ident,
    /// `wall_coverage`.
    pub(super) equation: Ident,
    /// `input = <expr>`: what the conditions' `input` is bound to.
    pub(super) input: Option<(Ident, Expr)>,
}

const USAGE: &str = "expected a contract equation, e.g. \
                     `#[contract(gpu_decode_profiling_v1::wall_coverage)]`";

impl Parse for ContractArgs {
    fn parse(input: ParseStream) -> Result<Self> {
        if input.is_empty() {
            return Err(input.error(USAGE));
        }
        let path: Path = input.parse().map_err(|e| Error::new(e.span(), USAGE))?;
        let segments: Vec<&Ident> = path.segments.iter().map(|s| &s.ident).collect();
        let [contract, equation] = segments[..] else {
            return Err(Error::new_spanned(
                &path,
                "expected `contract_name::equation`, e.g. `gpu_decode_profiling_v1::wall_coverage`",
            ));
        };
        let (contract, equation) = (contract.clone(), equation.clone());
        let mut bound: Option<(Ident, Expr)> = None;
        while !input.is_empty() {
            input.parse::<Token![,]>()?;
            if input.is_empty() {
                break;
            }
            let key: Ident = input.parse()?;
            if key != "input" {
                let message = match profiler_contracts::suggest(&key.to_string(), ["input"]) {
                    Some(close) => format!("unknown argument `{key}`, did you mean `{close}`?"),
                    None => format!("unknown argument `{key}`, expected `input = <expression>`"),
                };
                return Err(Error::new_spanned(&key, message));
            }
            if bound.is_some() {
                return Err(Error::new_spanned(&key, "duplicate argument `input`"));
            }
            if input.parse::<Option<Token![=]>>()?.is_none()
                || input.is_empty()
                || input.peek(Token![,])
            {
                return Err(Error::new_spanned(
                    &key,
                    "missing value for `input`: write `input = <expression over the parameters>`",
                ));
            }
            bound = Some((key, input.parse()?));
        }
        Ok(Self {
            contract,
            equation,
            input: bound,
        })
    }
}
