//! Code generation of `#[brick]`: one statement first in the body; for a
//! body that builds its future, one statement first in the body and one
//! first in the future.

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::{Expr, Ident};

use super::calls::{count_call, layer_call};
use crate::ast::Function;
use crate::attr::{Arg, BrickArgs, BrickName};

/// The instrumented function; everything but the inserted statements stays
/// as written.
pub(super) fn expand(args: &BrickArgs, function: &Function, private: &TokenStream) -> TokenStream {
    let guard = Ident::new("__brick_guard", Span::mixed_site());
    let site = Ident::new("__BRICK_SITE", Span::mixed_site());
    let constructor = site_constructor(args, private);
    let check = super::calls::version_check(private);
    let registered_site = quote! {
        #check
        static #site: #private::BrickSite = #constructor;
        #private::register_site!(#site);
    };
    let amounts = amounts(args, private);
    let Some(tail) = &function.future else {
        // An `async fn`'s body may suspend and resume on another thread: its
        // call takes no part in the thread's brick nesting (self time).
        let (brick, enter) = if function.sig.asyncness.is_some() {
            (quote!(brick_detached), quote!(enter_detached))
        } else {
            (quote!(brick), quote!(enter))
        };
        let start = match amounts {
            None => quote!(#private::#brick(&#site)),
            Some(amounts) => quote! {
                if #private::on() {
                    #private::#enter(&#site, #amounts)
                } else {
                    #private::BrickGuard::INERT
                }
            },
        };
        let mut body = quote!(let #guard = { #registered_site #start };);
        body.extend(function.stmts.clone());
        return function.with_body(body);
    };
    let deferred = Ident::new("__brick", Span::mixed_site());
    let prepare = match amounts {
        None => quote!(#private::Deferred::new(&#site)),
        Some(amounts) => quote! {
            if #private::on() {
                #private::Deferred::with(&#site, #amounts)
            } else {
                #private::Deferred::OFF
            }
        },
    };
    let before = quote!(let #deferred = { #registered_site #prepare };);
    function.with_future_body(tail, before, |stmts, _| {
        let mut body = quote!(let #guard = #deferred.start(););
        body.extend(stmts);
        body
    })
}

/// `BrickSite::builtin(BrickId::RmsNorm, <location>)` or
/// `BrickSite::custom("Name", BrickCategory::Other, <location>)`, then
/// `.with_level(BrickLevel::L2)` when the attribute pins a level.
fn site_constructor(args: &BrickArgs, private: &TokenStream) -> TokenStream {
    let site = named_site(args, private);
    match &args.level {
        Some(Arg { value, .. }) => {
            let variant = Ident::new(value.variant, value.span);
            quote!(#site.with_level(#private::BrickLevel::#variant))
        }
        None => site,
    }
}

fn named_site(args: &BrickArgs, private: &TokenStream) -> TokenStream {
    let location = quote!(::core::module_path!(), ::core::file!(), ::core::line!());
    match &args.name {
        BrickName::Builtin { variant, .. } => {
            let variant = Ident::new(variant, Span::call_site());
            quote!(#private::BrickSite::builtin(#private::BrickId::#variant, #location))
        }
        BrickName::Custom(name) => {
            let category = args.category.as_ref().map_or("Other", |c| c.value.variant);
            let category = Ident::new(category, Span::call_site());
            quote!(#private::BrickSite::custom(#name, #private::BrickCategory::#category, #location))
        }
    }
}

/// `elements, bytes, flops, layer` as the runtime takes them, or `None`
/// when the attribute gives none of them.
fn amounts(args: &BrickArgs, private: &TokenStream) -> Option<TokenStream> {
    let given = [&args.elements, &args.bytes, &args.flops, &args.layer];
    if given.iter().all(|arg| arg.is_none()) {
        return None;
    }
    let count = |arg: &Option<Arg<Expr>>| match arg {
        Some(Arg { value, .. }) => count_call(private, value),
        None => quote!(0),
    };
    let (elements, bytes, flops) = (
        count(&args.elements),
        count(&args.bytes),
        count(&args.flops),
    );
    let layer = match &args.layer {
        Some(Arg { value, .. }) => layer_call(private, value),
        None => quote!(#private::NO_LAYER),
    };
    Some(quote!(#elements, #bytes, #flops, #layer))
}
