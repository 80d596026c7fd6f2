//! Code generation, and the parse -> validate -> expand chain of each macro.
//!
//! Generated code is lean: each call site names a few entry points of the
//! runtime's `__private` module and nothing else, so that annotating many
//! functions costs little compile time. Generated locals are `__`-prefixed
//! with mixed-site hygiene, so they neither see nor shadow the user's names.
//! A call that wraps a user expression carries the expression's span on
//! every token, so a type error in the expression points at the user's
//! tokens alone.

mod brick;
mod calls;
mod contract;
mod trace_op;

use calls::{count_call, device_call, layer_call, private_path, shape_call};

use proc_macro2::TokenStream;
use quote::quote;

use crate::ast::Function;
use crate::attr::{BrickArgs, ContractArgs, TraceOpArgs};
use crate::errors::Errors;

/// Whether instrumentation is compiled out (the `off` feature).
const OFF: bool = cfg!(feature = "off");

/// `#[brick(...)]`: on error, the error and the untouched item.
pub(crate) fn brick(args: TokenStream, item: TokenStream) -> TokenStream {
    let args = BrickArgs::parse(args);
    checked(
        item,
        "brick",
        args,
        Function::validate,
        |args, _| args.validate(),
        |args, (), function, item| {
            let private = private_path(args.krate.as_ref());
            if OFF {
                let counts = [&args.elements, &args.bytes, &args.flops];
                let checks = counts
                    .into_iter()
                    .flatten()
                    .map(|a| count_call(&private, &a.value));
                let checks =
                    checks.chain(args.layer.iter().map(|a| layer_call(&private, &a.value)));
                compiled_out(item, &function, checks)
            } else {
                brick::expand(&args, &function, &private)
            }
        },
    )
}

/// `#[trace_op(...)]`: on error, the error and the untouched item.
pub(crate) fn trace_op(args: TokenStream, item: TokenStream) -> TokenStream {
    let args = TraceOpArgs::parse(args);
    let validate = |args: &TraceOpArgs, function: Option<&Function>| {
        function.map_or(Ok(()), |function| args.validate(function))
    };
    checked(
        item,
        "trace_op",
        args,
        Function::validate,
        validate,
        |args, (), function, item| {
            let private = private_path(args.krate.as_ref());
            if OFF {
                let device = args.device.iter().map(|a| device_call(&private, &a.value));
                let shapes = args
                    .shapes
                    .iter()
                    .flat_map(|a| a.value.iter().map(|p| shape_call(&private, p)));
                compiled_out(item, &function, device.chain(shapes))
            } else {
                trace_op::expand(&args, &function, &private)
            }
        },
    )
}

/// `#[contract(...)]`: on error, the errors and the untouched item. Not
/// affected by the `off` feature: the checks exist in debug builds only.
pub(crate) fn contract(args: TokenStream, item: TokenStream) -> TokenStream {
    let args = ContractArgs::parse(args);
    checked(
        item,
        "contract",
        args,
        Function::validate_callable,
        |args: &ContractArgs, function| args.validate(function),
        |_, binding, function, item| contract::expand(&binding, &function, item),
    )
}

/// The chain every macro shares: parses the function and checks it
/// (`function_rules`), then validates the arguments (`validate` sees the
/// function when it parsed, and returns what expansion needs), gathering
/// every error; on error, the errors and the untouched item, else
/// `expand`'s code.
fn checked<A, V>(
    item: TokenStream,
    macro_name: &str,
    args: syn::Result<A>,
    function_rules: fn(&Function, &str) -> syn::Result<()>,
    validate: impl FnOnce(&A, Option<&Function>) -> syn::Result<V>,
    expand: impl FnOnce(A, V, Function, TokenStream) -> TokenStream,
) -> TokenStream {
    let mut errors = Errors::default();
    let args = errors.keep(args);
    let function = errors.keep(Function::parse(item.clone(), macro_name));
    if let Some(function) = &function {
        errors.keep(function_rules(function, macro_name));
    }
    let valid = args
        .as_ref()
        .and_then(|args| errors.keep(validate(args, function.as_ref())));
    match (errors.finish(|| ()), args, valid, function) {
        (Err(error), ..) => with_error(&error, item),
        (Ok(()), Some(args), Some(valid), Some(function)) => expand(args, valid, function, item),
        (Ok(()), ..) => unreachable!("no errors means both parsed"),
    }
}

/// The function as written, plus (when the attribute had expressions) a
/// statement that never runs but checks them exactly as the instrumented
/// build does (same helper calls, same trait bounds) and keeps their
/// variables used, so compiling instrumentation out neither accepts an
/// argument the normal build rejects nor turns a parameter used only in
/// `layer = layer` into an `unused_variables` warning.
fn compiled_out(
    item: TokenStream,
    function: &Function,
    checks: impl Iterator<Item = TokenStream>,
) -> TokenStream {
    let checks: Vec<TokenStream> = checks.collect();
    if checks.is_empty() {
        return item;
    }
    let mut body = quote! {
        if false {
            let _ = (#(#checks,)*);
        }
    };
    body.extend(function.stmts.clone());
    function.with_body(body)
}

fn with_error(error: &syn::Error, item: TokenStream) -> TokenStream {
    let mut out = error.to_compile_error();
    out.extend(item);
    out
}

#[cfg(test)]
mod tests;
