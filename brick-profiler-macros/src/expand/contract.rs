//! Code generation of `#[contract]`: the function twice, under
//! `cfg(debug_assertions)` with its pre- and postconditions checked around
//! the body, and under `cfg(not(debug_assertions))` exactly as written.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::ReturnType;

use crate::ast::{Function, mentions_impl};
use crate::valid::Binding;

/// The checked function, then the item as written for release builds.
pub(super) fn expand(binding: &Binding, function: &Function, item: TokenStream) -> TokenStream {
    let Binding {
        pre,
        post,
        pre_input,
        post_input,
        track,
    } = binding;
    let bind = |input: &Option<TokenStream>| match input {
        Some(expr) => quote!(let input = &(#expr);),
        None => quote!(),
    };
    let allow = quote!(#[allow(unused_variables, clippy::all, clippy::pedantic, clippy::nursery)]);
    let pre_block = if pre.is_empty() {
        quote!()
    } else {
        let bind = bind(pre_input);
        quote!(#allow { #bind #(#pre)* })
    };
    let block = function.stmts_block();
    let body = if post.is_empty() {
        quote!(#track #pre_block #block)
    } else {
        let bind = bind(post_input);
        let ret_ty = match &function.sig.output {
            ReturnType::Type(_, ty) if !mentions_impl(ty) => quote!(: #ty),
            ReturnType::Default => quote!(: ()),
            ReturnType::Type(..) => quote!(),
        };
        let span = function.body_span();
        let call = if function.sig.asyncness.is_some() {
            quote_spanned!(span=> async #block .await)
        } else {
            quote_spanned!(span=> (|| #block)())
        };
        quote! {
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
        }
    };
    let checked = function.with_body(body);
    quote! {
        #[cfg(debug_assertions)]
        #checked
        #[cfg(not(debug_assertions))]
        #item
    }
}
