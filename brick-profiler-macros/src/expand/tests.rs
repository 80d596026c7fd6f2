//! The expansions of `#[brick]` and `#[trace_op]`, and their errors.

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
        const _ : () = :: profiler :: __private :: require_version (\"0.1.0\") ; \
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
        assert!(
            out.contains(
                "BrickSite :: custom (\"Mine\" , :: profiler :: __private :: BrickCategory :: Other"
            ),
            "{out}"
        );
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
        "fn f () { const _ : () = :: profiler :: __private :: require_version (\"0.1.0\") ; \
         let __trace_op = :: profiler :: __private :: trace_op (\"f\") ; g () ; }"
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
        traced.contains(
            "let __trace = :: profiler :: __private :: DeferredTrace :: new (\"f\") ; let m = n ;"
        ),
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
