//! Grammar of `#[trace_op(...)]`: the optional `name = "..."`,
//! `device = <expr>`, `shapes(<parameters>)` and `crate = path` arguments.

use proc_macro2::TokenStream;
use syn::ext::IdentExt;
use syn::parse::{ParseStream, Parser};
use syn::punctuated::Punctuated;
use syn::{Error, Expr, Ident, LitStr, Path, Result, Token, token};

use super::grammar::{Arg, parse_args, parse_crate, parse_eq, parse_expr, store, unknown_argument};
use crate::errors::Errors;

const TRACE_OP_ARGS: &[&str] = &["name", "device", "shapes", "crate"];

/// Arguments of `#[trace_op(...)]`.
#[derive(Default)]
pub(crate) struct TraceOpArgs {
    pub(crate) name: Option<Arg<LitStr>>,
    pub(crate) device: Option<Arg<Expr>>,
    pub(crate) shapes: Option<Arg<Vec<Ident>>>,
    /// `crate = path`: the facade's path when the dependency is renamed.
    pub(crate) krate: Option<Arg<Path>>,
}

impl TraceOpArgs {
    /// Parses the tokens inside `#[trace_op(...)]`.
    pub(crate) fn parse(args: TokenStream) -> Result<Self> {
        Self::parse_stream.parse2(args)
    }

    fn parse_stream(input: ParseStream) -> Result<Self> {
        let mut errors = Errors::default();
        let mut args = Self::default();
        let expected = "an argument: `name = \"...\"`, `device = <expr>`, \
                        `shapes(<parameters>)` or `crate = <path>`";
        parse_args(input, &mut errors, expected, |key, input, errors| {
            match key.to_string().as_str() {
                "name" => {
                    let value = parse_name(&key, input)?;
                    store(&mut args.name, key, value, errors);
                }
                "device" => {
                    let value = parse_expr(&key, input)?;
                    store(&mut args.device, key, value, errors);
                }
                "shapes" => {
                    let value = parse_shapes(&key, input)?;
                    store(&mut args.shapes, key, value, errors);
                }
                "crate" => {
                    let value = parse_crate(&key, input)?;
                    store(&mut args.krate, key, value, errors);
                }
                _ => return Err(unknown_argument(&key, TRACE_OP_ARGS)),
            }
            Ok(())
        });
        errors.finish(|| args)
    }
}

fn parse_name(key: &Ident, input: ParseStream) -> Result<LitStr> {
    parse_eq(key, input, "\"matmul\"")?;
    if !input.peek(LitStr) {
        return Err(input.error("expected a string literal: `name = \"matmul\"`"));
    }
    let name: LitStr = input.parse()?;
    if name.value().trim().is_empty() {
        return Err(Error::new_spanned(name, "`name` cannot be empty"));
    }
    Ok(name)
}

fn parse_shapes(key: &Ident, input: ParseStream) -> Result<Vec<Ident>> {
    if !input.peek(token::Paren) {
        return Err(Error::new_spanned(
            key,
            "expected a parameter list: `shapes(a, b)`",
        ));
    }
    let content;
    let parens = syn::parenthesized!(content in input);
    let list = Punctuated::<Ident, Token![,]>::parse_terminated_with(&content, Ident::parse_any)?;
    if list.is_empty() {
        return Err(Error::new(
            parens.span.join(),
            "`shapes(...)` needs at least one parameter",
        ));
    }
    let mut params: Vec<Ident> = Vec::with_capacity(list.len());
    for ident in list {
        if params.contains(&ident) {
            return Err(Error::new_spanned(
                &ident,
                format!("duplicate parameter `{ident}` in `shapes(...)`"),
            ));
        }
        params.push(ident);
    }
    Ok(params)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attr::test_util::text;
    use quote::quote;

    fn trace_op_errors(args: TokenStream) -> Vec<String> {
        match TraceOpArgs::parse(args) {
            Ok(_) => panic!("expected an error"),
            Err(error) => error.into_iter().map(|e| e.to_string()).collect(),
        }
    }

    #[test]
    fn parses_trace_op_arguments() {
        let args = TraceOpArgs::parse(quote!()).unwrap();
        assert!(args.name.is_none() && args.device.is_none() && args.shapes.is_none());
        let args = TraceOpArgs::parse(quote!(
            name = "matmul",
            device = self.device,
            shapes(self, b),
        ))
        .unwrap();
        assert_eq!(
            args.name.map(|n| n.value.value()).as_deref(),
            Some("matmul")
        );
        assert_eq!(text(args.device.as_ref()), "self . device");
        let shapes: Vec<String> = args
            .shapes
            .unwrap()
            .value
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(shapes, ["self", "b"]);
    }

    #[test]
    fn bad_trace_op_arguments() {
        assert_eq!(
            trace_op_errors(quote!(
                nme = "x",
                name = "",
                shapes = a,
                shapes(),
                shapes(a, a),
                device
            )),
            [
                "unknown argument `nme`, did you mean `name`? expected one of `name`, `device`, `shapes`, `crate`",
                "`name` cannot be empty",
                "expected a parameter list: `shapes(a, b)`",
                "`shapes(...)` needs at least one parameter",
                "duplicate parameter `a` in `shapes(...)`",
                "missing value for `device`: write `device = <expr>`",
            ]
        );
        assert_eq!(
            trace_op_errors(quote!(name = matmul)),
            ["expected a string literal: `name = \"matmul\"`"]
        );
        assert_eq!(
            trace_op_errors(quote!("matmul")),
            [
                "expected an argument: `name = \"...\"`, `device = <expr>`, `shapes(<parameters>)` or `crate = <path>`"
            ]
        );
        assert_eq!(
            trace_op_errors(quote!(name = "a", name = "b")),
            ["duplicate argument `name`"]
        );
    }
}
