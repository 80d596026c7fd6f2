//! Rules of `#[contract]` that involve the contract it names: the contract
//! and the equation exist, the equation has conditions that parse as Rust,
//! and `input` is bound exactly when a condition reads it.

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Error, Expr, FnArg, Pat, Result};

use profiler_contracts::{Condition, Contract, Equation};

use crate::ast::Function;
use crate::attr::ContractArgs;
use crate::contracts::{self, Known};
use crate::errors::Errors;

/// What expansion needs of a validated `#[contract]`: the equation's checks
/// as code, what `input` is bound to, and the file to track.
pub(crate) struct Binding {
    /// One `if !(cond) { panic!(..) }` per precondition.
    pub(crate) pre: Vec<TokenStream>,
    /// One per postcondition.
    pub(crate) post: Vec<TokenStream>,
    /// `input`'s expression, when a precondition reads it.
    pub(crate) pre_input: Option<TokenStream>,
    /// `input`'s expression, when a postcondition reads it.
    pub(crate) post_input: Option<TokenStream>,
    /// `const _: &str = include_str!(..)` of a user contract file, so that
    /// editing it recompiles the crate.
    pub(crate) track: TokenStream,
}

impl ContractArgs {
    /// Resolves the equation and checks the arguments against it and the
    /// function (when it parsed), gathering every error.
    pub(crate) fn validate(&self, function: Option<&Function>) -> Result<Binding> {
        let known = Known::load(&self.path.contract)?;
        let contract = known.contract(&self.path.contract)?;
        let eq = contracts::equation(contract, &self.path.equation)?;
        if eq.preconditions.is_empty() && eq.postconditions.is_empty() {
            return Err(Error::new_spanned(
                &self.path.equation,
                format!(
                    "equation `{}` of contract `{}` has no preconditions or postconditions to check",
                    eq.name, contract.name
                ),
            ));
        }
        let mut errors = Errors::default();
        let reads = |list: &[Condition]| list.iter().any(|k| k.uses_input);
        let reads_input = reads(&eq.preconditions) || reads(&eq.postconditions);
        let input = match (&self.input, reads_input) {
            (Some(arg), false) => {
                errors.push(Error::new_spanned(
                    &arg.key,
                    format!(
                        "no condition of `{}` reads `input`; remove `input = ...`",
                        eq.name
                    ),
                ));
                None
            }
            (Some(arg), true) => {
                let value = &arg.value;
                Some(quote!(#value))
            }
            (None, true) => function.and_then(|f| errors.keep(default_input(f, eq))),
            (None, false) => None,
        };
        let pre = errors.keep(checks(contract, eq, &eq.preconditions, "precondition"));
        let post = errors.keep(checks(contract, eq, &eq.postconditions, "postcondition"));
        let track = track(&known, contract);
        errors.finish(|| Binding {
            pre: pre.unwrap_or_default(),
            post: post.unwrap_or_default(),
            pre_input: input.clone().filter(|_| reads(&eq.preconditions)),
            post_input: input.filter(|_| reads(&eq.postconditions)),
            track,
        })
    }
}

/// `input` when the attribute does not name it: the function's only
/// parameter (or `self`).
fn default_input(function: &Function, eq: &Equation) -> Result<TokenStream> {
    let sig = &function.sig;
    let params: Vec<&FnArg> = sig.inputs.iter().collect();
    match params[..] {
        [FnArg::Receiver(r)] => Ok(quote_spanned!(r.self_token.span=> self)),
        [FnArg::Typed(p)] => match &*p.pat {
            Pat::Ident(i) => {
                let ident = &i.ident;
                Ok(quote!(#ident))
            }
            other => Err(Error::new_spanned(
                other,
                format!(
                    "equation `{}` reads `input`: bind it with `input = <expression>` (the parameter is a pattern)",
                    eq.name
                ),
            )),
        },
        _ => Err(Error::new(
            if params.is_empty() {
                sig.ident.span()
            } else {
                sig.inputs.span()
            },
            format!(
                "equation `{}` reads `input`: name it with `input = <expression over the parameters>` \
                 (the function has {} parameters)",
                eq.name,
                params.len()
            ),
        )),
    }
}

/// One `if !(cond) { panic!(...) }` per condition.
fn checks(
    contract: &Contract,
    eq: &Equation,
    list: &[Condition],
    noun: &str,
) -> Result<Vec<TokenStream>> {
    list.iter()
        .map(|k| {
            let cond: Expr = syn::parse_str(&k.text).map_err(|e| {
                Error::new(
                    Span::call_site(),
                    format!("{}:{}: {e}", contract.source, k.line),
                )
            })?;
            let message = format!(
                "contract `{}`, equation `{}`: {noun} failed: `{}` ({}:{})",
                contract.name,
                eq.name,
                k.text.trim(),
                contract.source,
                k.line
            );
            Ok(quote!(if !(#cond) { ::core::panic!("{}", #message); }))
        })
        .collect()
}

/// `include_str!` of the user's contract file, so editing it recompiles.
fn track(known: &Known, contract: &Contract) -> TokenStream {
    if !known.is_user(contract) || known.dir.is_none() {
        return quote!();
    }
    let path = std::path::Path::new(&contract.source);
    match path.canonicalize() {
        Ok(abs) => {
            let abs = abs.display().to_string();
            quote!(
                const _: &str = ::core::include_str!(#abs);
            )
        }
        Err(_) => quote!(),
    }
}
