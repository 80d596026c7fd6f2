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
mod tests {
    use super::*;
    use syn::Type;

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
        let expected = "# [inline] pub fn norm (x : & [f32]) -> usize { # ! [allow (unused)] \
            let __brick_guard = { \
            static __BRICK_SITE : :: profiler :: __private :: BrickSite = \
            :: profiler :: __private :: BrickSite :: builtin (:: profiler :: __private :: BrickId :: RmsNorm , \
            :: core :: module_path ! () , :: core :: file ! () , :: core :: line ! ()) ; \
            :: profiler :: __private :: register_site ! (__BRICK_SITE) ; \
            if :: profiler :: __private :: on () { \
            :: profiler :: __private :: enter (& __BRICK_SITE , :: profiler :: __private :: count (x . len ()) , 0 , 0 , :: profiler :: __private :: NO_LAYER) \
            } else { :: profiler :: __private :: BrickGuard :: INERT } } ; \
            x . len () }";
        assert_eq!(text(&out), expected);
        let plain = text(&brick(quote!(RmsNorm), item));
        assert!(
            plain.contains(
                "register_site ! (__BRICK_SITE) ; :: profiler :: __private :: brick (& __BRICK_SITE) } ; x . len () }"
            ),
            "no amounts: one call, {plain}"
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
    fn a_pinned_level_rides_on_the_site_static() {
        let out = text(&brick(
            quote!(RmsNorm, level = l2, bytes = 4),
            quote!(
                fn f() {}
            ),
        ));
        if !OFF {
            assert!(
                out.contains(
                    ":: core :: line ! ()) . with_level (:: profiler :: __private :: BrickLevel :: L2) ;"
                ),
                "{out}"
            );
        }
        let out = text(&brick(
            quote!("Mine"),
            quote!(
                fn f() {}
            ),
        ));
        assert!(!out.contains("with_level"), "no level, no call: {out}");
    }

    #[test]
    fn crate_argument_replaces_the_facade_path_everywhere() {
        let item = quote!(
            fn f(x: &[u8]) -> Vec<u8> {
                x.to_vec()
            }
        );
        let bricked = text(&brick(
            quote!(RmsNorm, elements = x.len(), crate = ::renamed::inner),
            item.clone(),
        ));
        let traced = text(&trace_op(
            quote!(device = "cpu", shapes(x), crate = prof),
            item,
        ));
        assert!(!bricked.contains(":: profiler"), "{bricked}");
        assert!(!traced.contains(":: profiler"), "{traced}");
        assert!(
            bricked.contains(":: renamed :: inner :: __private :: count (x . len ())"),
            "{bricked}"
        );
        assert!(
            traced.contains("prof :: __private :: input_shape (& x)"),
            "{traced}"
        );
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
        let future = quote!(
            fn f() -> impl Future<Output = u8> {
                ready(1)
            }
        );
        let out = text(&brick(quote!("F"), future.clone()));
        assert!(out.contains("would time only the creation"), "{out}");
        assert!(out.ends_with(&text(&future)), "{out}");
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
        assert_eq!(
            unit,
            "fn f () { let __trace_op = :: profiler :: __private :: trace_op (\"f\") ; g () ; }"
        );
        assert!(
            value.contains("let __trace_ret : Vec < u8 > = { g () } ;"),
            "{value}"
        );
        assert!(value.contains("trace_op (\"op\")"), "{value}");
        assert!(opaque.contains("let __trace_ret = { g () } ;"), "{opaque}");
    }

    #[test]
    fn futures_built_in_the_body_are_timed_inside_the_future() {
        let item = quote! {
            fn f(&self, n: usize) -> Pin<Box<dyn Future<Output = Vec<u8>> + Send + '_>> {
                let m = n;
                Box::pin(async move { vec![0; m] })
            }
        };
        let bricked = text(&brick(quote!("F", elements = n), item.clone()));
        let traced = text(&trace_op(quote!(), item));
        if OFF {
            return;
        }
        assert!(
            bricked.starts_with(
                "fn f (& self , n : usize) -> Pin < Box < dyn Future < Output = Vec < u8 >> + Send + '_ >> { \
                 let __brick = {"
            ),
            "{bricked}"
        );
        assert!(
            bricked.contains(
                "Deferred :: with (& __BRICK_SITE , :: profiler :: __private :: count (n) , 0 , 0 , :: profiler :: __private :: NO_LAYER)"
            ),
            "{bricked}"
        );
        assert!(
            bricked.ends_with(
                "let m = n ; Box :: pin (async move { let __brick_guard = __brick . start () ; vec ! [0 ; m] }) }"
            ),
            "{bricked}"
        );
        assert!(
            traced.contains("let __trace = :: profiler :: __private :: DeferredTrace :: new (\"f\") ; let m = n ;"),
            "{traced}"
        );
        assert!(
            traced.contains(
                "Box :: pin (async move { let mut __trace_op = __trace . start () ; \
                 let __trace_ret : Vec < u8 > = { vec ! [0 ; m] } ;"
            ),
            "{traced}"
        );
    }

    #[test]
    fn recognises_unit_return_types() {
        use trace_op::returns_nothing;
        let ty = |tokens: TokenStream| syn::parse2::<Type>(tokens).unwrap();
        assert!(returns_nothing(&ty(quote!(()))));
        assert!(returns_nothing(&ty(quote!(!))));
        assert!(!returns_nothing(&ty(quote!((u8,)))));
    }
}
