//! Code generation, and the parse -> validate -> expand chain of each macro.
//!
//! Generated locals are `__`-prefixed with mixed-site hygiene, so they
//! neither see nor shadow the user's names. A call that wraps a user
//! expression is spelled out whole inside `quote_spanned!` (no
//! interpolated paths with other spans), so a type error in the expression
//! points at the user's tokens alone.

use proc_macro2::{Span, TokenStream, TokenTree};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Expr, Ident, LitStr, ReturnType, Type};

use crate::ast::Function;
use crate::attr::{Arg, BrickArgs, BrickName, TraceOpArgs};
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
        |args, _| args.validate(),
        |args, function, item| {
            if OFF {
                let counts = [&args.elements, &args.bytes, &args.flops];
                let checks = counts.into_iter().flatten().map(|a| count_call(&a.value));
                let checks = checks.chain(args.layer.iter().map(|a| layer_call(&a.value)));
                compiled_out(item, &function, checks)
            } else {
                expand_brick(&args, &function)
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
    checked(item, "trace_op", args, validate, |args, function, item| {
        if OFF {
            let device = args.device.iter().map(|a| device_call(&a.value));
            let shapes = args
                .shapes
                .iter()
                .flat_map(|a| a.value.iter().map(shape_call));
            compiled_out(item, &function, device.chain(shapes))
        } else {
            expand_trace_op(&args, &function)
        }
    })
}

/// The chain both macros share: parses the function, validates it and the
/// arguments (`validate` sees the function when it parsed), gathering every
/// error; on error, the errors and the untouched item, else `expand`'s code.
fn checked<A>(
    item: TokenStream,
    macro_name: &str,
    args: syn::Result<A>,
    validate: impl FnOnce(&A, Option<&Function>) -> syn::Result<()>,
    expand: impl FnOnce(A, Function, TokenStream) -> TokenStream,
) -> TokenStream {
    let mut errors = Errors::default();
    let args = errors.keep(args);
    let function = errors.keep(Function::parse(item.clone(), macro_name));
    if let Some(function) = &function {
        errors.keep(function.validate(macro_name));
    }
    if let Some(args) = &args {
        errors.keep(validate(args, function.as_ref()));
    }
    match (errors.finish(|| ()), args, function) {
        (Err(error), ..) => with_error(&error, item),
        (Ok(()), Some(args), Some(function)) => expand(args, function, item),
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

// Calls wrapping user expressions, spelled out whole inside `quote_spanned!`
// so a type error points at the user's tokens alone.

fn count_call(value: &Expr) -> TokenStream {
    quote_spanned!(value.span()=> ::profiler::__private::count(#value))
}

fn layer_call(value: &Expr) -> TokenStream {
    quote_spanned!(value.span()=> ::profiler::__private::layer_index(#value))
}

fn device_call(value: &Expr) -> TokenStream {
    quote_spanned!(value.span()=> ::profiler::__private::device_id(&(#value)))
}

fn shape_call(param: &Ident) -> TokenStream {
    quote_spanned!(param.span()=> ::profiler::__private::input_shape(&#param))
}

fn with_error(error: &syn::Error, item: TokenStream) -> TokenStream {
    let mut out = error.to_compile_error();
    out.extend(item);
    out
}

/// Puts the brick guard first in the body; everything else stays as it was.
fn expand_brick(args: &BrickArgs, function: &Function) -> TokenStream {
    let private = quote!(::profiler::__private);
    let guard = Ident::new("__brick_guard", Span::mixed_site());
    let recording = Ident::new("__recording", Span::mixed_site());
    let site = Ident::new("__BRICK_SITE", Span::mixed_site());
    let location = quote!(::core::module_path!(), ::core::file!(), ::core::line!());
    let constructor = match &args.name {
        BrickName::Builtin { variant, .. } => {
            let variant = Ident::new(variant, Span::call_site());
            quote!(#private::BrickSite::builtin(#private::BrickId::#variant, #location))
        }
        BrickName::Custom(name) => {
            let category = args.category.as_ref().map_or("Other", |c| c.value.variant);
            let category = Ident::new(category, Span::call_site());
            quote!(#private::BrickSite::custom(#name, #private::BrickCategory::#category, #location))
        }
    };
    let count = |arg: &Option<Arg<Expr>>| match arg {
        Some(Arg { value, .. }) => count_call(value),
        None => quote!(0),
    };
    let (elements, bytes, flops) = (
        count(&args.elements),
        count(&args.bytes),
        count(&args.flops),
    );
    let layer = match &args.layer {
        Some(Arg { value, .. }) => layer_call(value),
        None => quote!(::core::primitive::u32::MAX),
    };
    let statement = quote! {
        let #guard = {
            static #site: #private::BrickSite = #constructor;
            #private::inventory::submit! { #private::SiteRef(&#site) }
            match #private::recording() {
                ::core::option::Option::Some(#recording) => #recording.enter(
                    &#site,
                    #private::Amounts {
                        elements: #elements,
                        bytes: #bytes,
                        flops: #flops,
                        layer: #layer,
                    },
                ),
                ::core::option::Option::None => #private::BrickGuard::INERT,
            }
        };
    };
    let mut body = statement;
    body.extend(function.stmts.clone());
    function.with_body(body)
}

/// Starts a trace guard first in the body; for functions that return a
/// value, the statements become a block whose value's shape is recorded.
fn expand_trace_op(args: &TraceOpArgs, function: &Function) -> TokenStream {
    let private = quote!(::profiler::__private);
    let trace = Ident::new("__trace_op", Span::mixed_site());
    let ret = Ident::new("__trace_ret", Span::mixed_site());
    let name = match &args.name {
        Some(Arg { value, .. }) => value.clone(),
        None => {
            let ident = &function.sig.ident;
            LitStr::new(&syn::ext::IdentExt::unraw(ident).to_string(), ident.span())
        }
    };
    let device = match &args.device {
        Some(Arg { value, .. }) => device_call(value),
        None => quote!(::core::option::Option::None),
    };
    let shapes = match &args.shapes {
        Some(Arg { value, .. }) => {
            let shapes = value.iter().map(shape_call);
            quote!(::std::vec![#(#shapes),*])
        }
        None => quote!(::std::vec::Vec::new()),
    };
    let start = quote! {
        match #private::recording() {
            ::core::option::Option::Some(_) => #private::TraceOpGuard::start(#name, #device, #shapes),
            ::core::option::Option::None => #private::TraceOpGuard::INERT,
        }
    };
    let output = match &function.sig.output {
        ReturnType::Type(_, ty) if !returns_nothing(ty) => Some(ty),
        _ => None,
    };
    let Some(ty) = output else {
        let mut body = quote!(let #trace = #start;);
        body.extend(function.stmts.clone());
        return function.with_body(body);
    };
    // `impl Trait` cannot be named in a `let`; the body's type is concrete there.
    let annotation = (!mentions_impl(&quote!(#ty))).then(|| quote!(: #ty));
    let block = function.stmts_block();
    function.with_body(quote! {
        let mut #trace = #start;
        let #ret #annotation = #block;
        // Only for what follows the body, which may diverge (`todo!()`).
        #[allow(unreachable_code)]
        let #ret = {
            if #trace.is_active() {
                use #private::{OutputShapeKnown as _, OutputShapeUnknown as _};
                #trace.set_output((&#private::ShapeOf(&#ret)).output_shape());
            }
            #ret
        };
        #ret
    })
}

/// `()` and `!`: nothing to take a shape of.
fn returns_nothing(ty: &Type) -> bool {
    match ty {
        Type::Tuple(tuple) => tuple.elems.is_empty(),
        Type::Never(_) => true,
        Type::Paren(paren) => returns_nothing(&paren.elem),
        _ => false,
    }
}

fn mentions_impl(tokens: &TokenStream) -> bool {
    tokens.clone().into_iter().any(|tree| match tree {
        TokenTree::Ident(ident) => ident == "impl",
        TokenTree::Group(group) => mentions_impl(&group.stream()),
        _ => false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(tokens: &TokenStream) -> String {
        tokens.to_string()
    }

    #[test]
    fn brick_inserts_one_statement_or_nothing_when_off() {
        let item = quote! {
            #[inline]
            pub fn norm(x: &[f32]) -> usize {
                #![allow(unused)]
                x.len()
            }
        };
        let out = brick(quote!(RmsNorm, elements = x.len()), item.clone());
        if OFF {
            // Unchanged but for a dead statement that type-checks the argument
            // as the instrumented build does and keeps `x` used.
            let expected = "# [inline] pub fn norm (x : & [f32]) -> usize { # ! [allow (unused)] \
                            if false { let _ = (:: profiler :: __private :: count (x . len ()) ,) ; } \
                            x . len () }";
            assert_eq!(text(&out), expected);
            let plain = brick(quote!(RmsNorm), item.clone());
            assert_eq!(text(&plain), text(&item), "no expressions: byte-for-byte");
            return;
        }
        let out = text(&out);
        let head = "# [inline] pub fn norm (x : & [f32]) -> usize { # ! [allow (unused)] let __brick_guard = {";
        assert!(out.starts_with(head), "{out}");
        assert!(out.ends_with("} ; x . len () }"), "{out}");
        assert!(out.contains("BrickId :: RmsNorm"), "{out}");
        assert!(
            out.contains(":: profiler :: __private :: count (x . len ())"),
            "{out}"
        );
        assert!(
            out.contains("layer : :: core :: primitive :: u32 :: MAX"),
            "{out}"
        );
    }

    #[test]
    fn custom_bricks_default_to_other() {
        let out = text(&brick(
            quote!("Mine"),
            quote!(
                fn f() {}
            ),
        ));
        if !OFF {
            assert!(out.contains("BrickSite :: custom (\"Mine\" , :: profiler :: __private :: BrickCategory :: Other"), "{out}");
        }
        let out = text(&brick(
            quote!("Mine", category = FFT),
            quote!(
                fn f() {}
            ),
        ));
        if !OFF {
            assert!(out.contains("BrickCategory :: Fft"), "{out}");
        }
    }

    #[test]
    fn errors_come_with_the_untouched_item_even_when_off() {
        let item = quote!(
            fn f() {}
        );
        let out = text(&brick(quote!(RmsNrom), item.clone()));
        assert!(out.starts_with(":: core :: compile_error ! {"), "{out}");
        assert!(out.ends_with(&text(&item)), "{out}");
        let out = text(&trace_op(
            quote!(shapes(y)),
            quote!(
                fn f(x: u8) {}
            ),
        ));
        assert!(out.contains("`y` is not a parameter of `f`"), "{out}");
        let out = text(&trace_op(
            quote!(),
            quote!(
                const fn f() {}
            ),
        ));
        assert!(out.contains("cannot be applied to a `const fn`"), "{out}");
    }

    #[test]
    fn trace_op_wraps_only_functions_that_return_a_value() {
        let unit = text(&trace_op(
            quote!(),
            quote!(
                fn f() {
                    g();
                }
            ),
        ));
        let value = text(&trace_op(
            quote!(name = "op"),
            quote!(
                fn f() -> Vec<u8> {
                    g()
                }
            ),
        ));
        let opaque = text(&trace_op(
            quote!(),
            quote!(
                fn f() -> impl Sized {
                    g()
                }
            ),
        ));
        if OFF {
            assert_eq!(unit, "fn f () { g () ; }");
            return;
        }
        assert!(
            unit.starts_with("fn f () { let __trace_op = match"),
            "{unit}"
        );
        assert!(unit.ends_with("} ; g () ; }"), "{unit}");
        assert!(!unit.contains("__trace_ret"), "{unit}");
        assert!(unit.contains("start (\"f\" , :: core :: option :: Option :: None , :: std :: vec :: Vec :: new ())"), "{unit}");
        assert!(
            value.contains("let __trace_ret : Vec < u8 > = { g () } ;"),
            "{value}"
        );
        assert!(value.contains("start (\"op\""), "{value}");
        assert!(opaque.contains("let __trace_ret = { g () } ;"), "{opaque}");
    }

    #[test]
    fn recognises_unit_and_opaque_return_types() {
        let ty = |tokens: TokenStream| syn::parse2::<Type>(tokens).unwrap();
        assert!(returns_nothing(&ty(quote!(()))));
        assert!(returns_nothing(&ty(quote!(!))));
        assert!(!returns_nothing(&ty(quote!((u8,)))));
        assert!(mentions_impl(&quote!(Box<impl Fn()>)));
        assert!(!mentions_impl(&quote!(Box<dyn Fn()>)));
    }
}
