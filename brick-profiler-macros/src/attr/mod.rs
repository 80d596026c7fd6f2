//! Argument grammar of `#[brick(...)]`, `#[trace_op(...)]` and
//! `#[contract(...)]`.
//!
//! Parsing goes on after a bad argument (it skips to the next comma), so one
//! compile reports every mistake, each at its own token.

mod brick;
mod contract;
mod grammar;
mod level;
mod trace_op;

pub(crate) use brick::{BrickArgs, BrickName};
pub(crate) use contract::ContractArgs;
pub(crate) use grammar::Arg;
pub(crate) use trace_op::TraceOpArgs;

/// Helpers shared by the tests of both grammars.
#[cfg(test)]
mod test_util {
    use quote::ToTokens;
    use syn::Expr;

    use super::Arg;

    pub(super) fn path_text(arg: Option<&Arg<syn::Path>>) -> String {
        arg.expect("argument present")
            .value
            .to_token_stream()
            .to_string()
    }

    pub(super) fn text(arg: Option<&Arg<Expr>>) -> String {
        arg.expect("argument present")
            .value
            .to_token_stream()
            .to_string()
    }
}
