//! The runtime calls generated code makes around user expressions, each
//! carrying the expression's span so that a type error points at the
//! user's tokens.

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Expr, Ident, Path};

use crate::attr::Arg;

/// `::profiler::__private`, or `<crate>::__private` under `crate = <path>`.
pub(super) fn private_path(krate: Option<&Arg<Path>>) -> TokenStream {
    match krate {
        Some(Arg { value, .. }) => quote!(#value::__private),
        None => quote!(::profiler::__private),
    }
}

/// `const _: () = <private>::require_version("x.y.z");`: the macros'
/// version, checked against the runtime's at compile time, so a build that
/// mixes releases of the macros and the runtime fails with a message saying
/// so rather than with errors about items the other release lacks.
pub(super) fn version_check(private: &TokenStream) -> TokenStream {
    let version = env!("CARGO_PKG_VERSION");
    quote!(const _: () = #private::require_version(#version);)
}

// Calls wrapping user expressions, spelled out inside `quote_spanned!`
// with the runtime path re-spanned too, so a type error points at the
// user's tokens alone.

pub(super) fn count_call(private: &TokenStream, value: &Expr) -> TokenStream {
    let private = respan(private, value.span());
    quote_spanned!(value.span()=> #private::count(#value))
}

pub(super) fn layer_call(private: &TokenStream, value: &Expr) -> TokenStream {
    let private = respan(private, value.span());
    quote_spanned!(value.span()=> #private::layer_index(#value))
}

pub(super) fn device_call(private: &TokenStream, value: &Expr) -> TokenStream {
    let private = respan(private, value.span());
    quote_spanned!(value.span()=> #private::device_id(&(#value)))
}

pub(super) fn shape_call(private: &TokenStream, param: &Ident) -> TokenStream {
    let private = respan(private, param.span());
    quote_spanned!(param.span()=> #private::input_shape(&#param))
}

/// A path (no groups) with every token given `span`.
pub(super) fn respan(path: &TokenStream, span: Span) -> TokenStream {
    path.clone()
        .into_iter()
        .map(|mut tree| {
            tree.set_span(span);
            tree
        })
        .collect()
}
