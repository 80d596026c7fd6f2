//! Code generation of `#[contract]`: the function twice, under
//! `cfg(debug_assertions)` with its pre- and postconditions checked around
//! the body, and under `cfg(not(debug_assertions))` exactly as written.

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Error, Expr, FnArg, ItemFn, Pat, Result, ReturnType, Type};

use super::attr::ContractArgs;
use super::lookup::{self, Known};
use profiler_contracts::{Condition, Contract, Equation};

pub(super) fn expand(args: &ContractArgs, item: &ItemFn) -> Result<TokenStream> {
    let known = Known::load(&args.contract)?;
    let contract = known.contract(&args.contract)?;
    let eq = lookup::equation(contract, &args.equation)?;
    if eq.preconditions.is_empty() && eq.postconditions.is_empty() {
        return Err(Error::new_spanned(
            &args.equation,
            format!(
                "equation `{}` of contract `{}` has no preconditions or postconditions to check",
                eq.name, contract.name
            ),
        ));
    }
    if let Some(c) = &item.sig.constness {
        return Err(Error::new_spanned(
            c,
            "`#[contract]` cannot check a `const fn`",
        ));
    }
    let reads_input = eq
        .preconditions
        .iter()
        .chain(&eq.postconditions)
        .any(|k| k.uses_input);
    let input = match (&args.input, reads_input) {
        (Some((key, _)), false) => {
            return Err(Error::new_spanned(
                key,
                format!(
                    "no condition of `{}` reads `input`; remove `input = ...`",
                    eq.name
                ),
            ));
        }
        (Some((_, expr)), true) => Some(quote!(#expr)),
        (None, true) => Some(default_input(item, eq)?),
        (None, false) => None,
    };

    let pre = checks(contract, eq, &eq.preconditions, "precondition")?;
    let post = checks(contract, eq, &eq.postconditions, "postcondition")?;
    let bind_input = |uses: bool| match (&input, uses) {
        (Some(expr), true) => quote!(let input = &(#expr);),
        _ => quote!(),
    };
    let allow = quote!(#[allow(unused_variables, clippy::all, clippy::pedantic, clippy::nursery)]);
    let pre_block = if eq.preconditions.is_empty() {
        quote!()
    } else {
        let bind = bind_input(eq.preconditions.iter().any(|k| k.uses_input));
        quote!(#allow { #bind #(#pre)* })
    };
    let track = track(&known, contract);
    let block = &item.block;
    let body = if eq.postconditions.is_empty() {
        quote!({ #track #pre_block #block })
    } else {
        let bind = bind_input(eq.postconditions.iter().any(|k| k.uses_input));
        let ret_ty = match &item.sig.output {
            ReturnType::Type(_, ty) if !mentions_impl(ty) => quote!(: #ty),
            ReturnType::Default => quote!(: ()),
            ReturnType::Type(..) => quote!(),
        };
        let call = if item.sig.asyncness.is_some() {
            quote_spanned!(block.span()=> async #block .await)
        } else {
            quote_spanned!(block.span()=> (|| #block)())
        };
        quote!({
            #track
            #pre_block
            // The closure catches `return` and `?` so postconditions see them.
            #[allow(clippy::redundant_closure_call)]
            let __contract_result #ret_ty = #call;
            #allow {
                let result = &__contract_result;
                #bind
                #(#post)*
            }
            __contract_result
        })
    };
    let ItemFn {
        attrs, vis, sig, ..
    } = item;
    Ok(quote! {
        #[cfg(debug_assertions)]
        #(#attrs)* #vis #sig #body
        #[cfg(not(debug_assertions))]
        #item
    })
}

/// `input` when the attribute does not name it: the function's only
/// parameter (or `self`).
fn default_input(item: &ItemFn, eq: &Equation) -> Result<TokenStream> {
    let params: Vec<&FnArg> = item.sig.inputs.iter().collect();
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
                item.sig.ident.span()
            } else {
                item.sig.inputs.span()
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

fn mentions_impl(ty: &Type) -> bool {
    quote!(#ty)
        .into_iter()
        .any(|t| matches!(t, proc_macro2::TokenTree::Ident(ref i) if i == "impl"))
        || matches!(ty, Type::ImplTrait(_))
}
