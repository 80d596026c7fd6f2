//! Code generation of `#[trace_op]`: a guard first in the body (first in
//! the future, for a body that builds its future) and, when the function
//! returns a value, the value's shape recorded as the output shape.

use proc_macro2::{Span, TokenStream, TokenTree};
use quote::quote;
use syn::{Ident, LitStr, ReturnType, Type};

use super::calls::{device_call, shape_call};
use crate::ast::{Function, mentions_impl};
use crate::attr::{Arg, TraceOpArgs};

/// The instrumented function.
pub(super) fn expand(
    args: &TraceOpArgs,
    function: &Function,
    private: &TokenStream,
) -> TokenStream {
    let trace = Ident::new("__trace_op", Span::mixed_site());
    let name = match &args.name {
        Some(Arg { value, .. }) => value.clone(),
        None => {
            let ident = &function.sig.ident;
            LitStr::new(&syn::ext::IdentExt::unraw(ident).to_string(), ident.span())
        }
    };
    let inputs = inputs(args, private);
    let check = super::calls::version_check(private);
    let Some(tail) = &function.future else {
        let start = match inputs {
            None => quote!(#private::trace_op(#name)),
            Some(inputs) => quote! {
                if #private::on() {
                    #private::TraceOpGuard::start(#name, #inputs)
                } else {
                    #private::TraceOpGuard::INERT
                }
            },
        };
        let output = match &function.sig.output {
            ReturnType::Type(_, ty) if !returns_nothing(ty) => Some(&**ty),
            _ => None,
        };
        let body = match output {
            None => {
                let mut body = quote!(#check let #trace = #start;);
                body.extend(function.stmts.clone());
                body
            }
            Some(ty) => {
                let mut body = check;
                body.extend(with_output(
                    &trace,
                    &start,
                    ty,
                    function.stmts_block(),
                    private,
                ));
                body
            }
        };
        return function.with_body(body);
    };
    let deferred = Ident::new("__trace", Span::mixed_site());
    let prepare = match inputs {
        None => quote!(#private::DeferredTrace::new(#name)),
        Some(inputs) => quote! {
            if #private::on() {
                #private::DeferredTrace::with(#name, #inputs)
            } else {
                #private::DeferredTrace::OFF
            }
        },
    };
    let start = quote!(#deferred.start());
    let before = quote!(#check let #deferred = #prepare;);
    // Without a nameable `Output` the value's type may not be known where
    // its shape would be taken, so the entry goes without an output shape.
    let output = tail.output.as_ref().filter(|ty| !returns_nothing(ty));
    function.with_future_body(tail, before, |stmts, span| match output {
        None => {
            let mut body = quote!(let #trace = #start;);
            body.extend(stmts);
            body
        }
        Some(ty) => {
            let mut block = proc_macro2::Group::new(proc_macro2::Delimiter::Brace, stmts);
            block.set_span(span);
            with_output(&trace, &start, ty, TokenTree::Group(block).into(), private)
        }
    })
}

/// `device, input shapes` as `TraceOpGuard::start` takes them, or `None`
/// when the attribute gives neither.
fn inputs(args: &TraceOpArgs, private: &TokenStream) -> Option<TokenStream> {
    if args.device.is_none() && args.shapes.is_none() {
        return None;
    }
    let device = match &args.device {
        Some(Arg { value, .. }) => device_call(private, value),
        None => quote!(::core::option::Option::None),
    };
    let shapes = match &args.shapes {
        Some(Arg { value, .. }) => {
            let shapes = value.iter().map(|param| shape_call(private, param));
            quote!(::std::vec![#(#shapes),*])
        }
        None => quote!(::std::vec::Vec::new()),
    };
    Some(quote!(#device, #shapes))
}

/// The guard, then `block` as a value whose shape becomes the entry's
/// output shape when the block completes, then the value.
fn with_output(
    trace: &Ident,
    start: &TokenStream,
    ty: &Type,
    block: TokenStream,
    private: &TokenStream,
) -> TokenStream {
    let ret = Ident::new("__trace_ret", Span::mixed_site());
    // `impl Trait` cannot be named in a `let`; the block's type is concrete there.
    let annotation = (!mentions_impl(ty)).then(|| quote!(: #ty));
    quote! {
        let mut #trace = #start;
        let #ret #annotation = #block;
        // Only for what follows the block, which may diverge (`todo!()`).
        #[allow(unreachable_code)]
        let #ret = {
            if #trace.is_active() {
                use #private::{OutputShapeKnown as _, OutputShapeUnknown as _};
                #trace.set_output((&#private::ShapeOf(&#ret)).output_shape());
            }
            #ret
        };
        #ret
    }
}

/// `()` and `!`: nothing to take a shape of.
pub(super) fn returns_nothing(ty: &Type) -> bool {
    match ty {
        Type::Tuple(tuple) => tuple.elems.is_empty(),
        Type::Never(_) => true,
        Type::Paren(paren) => returns_nothing(&paren.elem),
        _ => false,
    }
}
