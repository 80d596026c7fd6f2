//! Functions that are not `async fn` but return a future built in their
//! body, as `#[async_trait]` writes them. Timing such a function's call
//! would measure only the future's creation; the macros time the future.
//!
//! Recognised tails (the body's last expression), as `tracing`'s
//! `#[instrument]` does, plus the `futures` crate's `.boxed()`:
//! `async [move] { .. }`, `Box::pin(async [move] { .. })` (any path ending
//! in `Box::pin`) and `async [move] { .. }.boxed()` / `.boxed_local()`.

use proc_macro2::{Delimiter, TokenStream, TokenTree};
use syn::parse::Parser;
use syn::{
    Block, Expr, GenericArgument, PathArguments, ReturnType, Signature, Stmt, Type, TypeParamBound,
};

/// Where the future of a future-returning body is built.
pub(crate) struct FutureTail {
    /// Indices leading from the body's token trees, through nested groups,
    /// to the async block's `{ .. }` group.
    pub(super) path: Vec<usize>,
    /// The future's `Output` type when the signature names it.
    pub(crate) output: Option<Type>,
}

/// The tail of `stmts` when it builds a future (`None` for `async fn`s,
/// whose body already is the future).
pub(super) fn find(sig: &Signature, stmts: &TokenStream) -> Option<FutureTail> {
    if sig.asyncness.is_some() {
        return None;
    }
    // Bodies that do not end in a group cannot end in an async block.
    if !matches!(stmts.clone().into_iter().last(), Some(TokenTree::Group(_))) {
        return None;
    }
    // Unparsable bodies are left to rustc, which reports the real error.
    let parsed = Block::parse_within.parse2(stmts.clone()).ok()?;
    let Some(Stmt::Expr(tail, None)) = parsed.last() else {
        return None;
    };
    if !builds_future(tail) {
        return None;
    }
    let trees: Vec<TokenTree> = stmts.clone().into_iter().collect();
    Some(FutureTail {
        path: locate(&trees)?,
        output: future_output(sig),
    })
}

fn builds_future(expr: &Expr) -> bool {
    match expr {
        Expr::Async(_) => true,
        Expr::Group(group) => builds_future(&group.expr),
        Expr::Call(call) => {
            let is_box_pin = match &*call.func {
                Expr::Path(func) => {
                    let names: Vec<String> = func
                        .path
                        .segments
                        .iter()
                        .map(|s| s.ident.to_string())
                        .collect();
                    names.ends_with(&["Box".to_owned(), "pin".to_owned()])
                }
                _ => false,
            };
            is_box_pin && call.args.len() == 1 && is_async_block(&call.args[0])
        }
        Expr::MethodCall(call) => {
            (call.method == "boxed" || call.method == "boxed_local")
                && call.args.is_empty()
                && call.turbofish.is_none()
                && is_async_block(&call.receiver)
        }
        _ => false,
    }
}

fn is_async_block(expr: &Expr) -> bool {
    match expr {
        Expr::Async(_) => true,
        Expr::Group(group) => is_async_block(&group.expr),
        _ => false,
    }
}

/// Finds the async block's `{ .. }` among the tail's tokens, which
/// `builds_future` has checked: the last tree, or the last one inside a
/// trailing `( .. )` or invisible group, or the receiver of `.boxed()`.
fn locate(trees: &[TokenTree]) -> Option<Vec<usize>> {
    let last = trees.len().checked_sub(1)?;
    let TokenTree::Group(group) = &trees[last] else {
        return None;
    };
    let inner = |stream: TokenStream| {
        let mut inner: Vec<TokenTree> = stream.into_iter().collect();
        if matches!(inner.last(), Some(TokenTree::Punct(p)) if p.as_char() == ',') {
            inner.pop();
        }
        let mut path = vec![last];
        path.extend(locate(&inner)?);
        Some(path)
    };
    match group.delimiter() {
        Delimiter::Brace => Some(vec![last]),
        Delimiter::None => inner(group.stream()),
        // `.boxed()`: the receiver ends three trees earlier.
        Delimiter::Parenthesis if group.stream().is_empty() => {
            locate(&trees[..last.checked_sub(2)?])
        }
        Delimiter::Parenthesis => inner(group.stream()),
        Delimiter::Bracket => None,
    }
}

/// Whether the signature's return type is a future (`impl Future<..>`,
/// `Pin<Box<dyn Future<..>>>`, `BoxFuture<..>`): such a body must build its
/// future in one of the recognised ways. Returns the type to point at.
pub(crate) fn returned_future(sig: &Signature) -> Option<&Type> {
    match &sig.output {
        ReturnType::Type(_, ty) if sig.asyncness.is_none() && is_future(ty) => Some(ty),
        _ => None,
    }
}

fn is_future(ty: &Type) -> bool {
    match ty {
        Type::ImplTrait(t) => future_bound(&t.bounds).is_some(),
        Type::TraitObject(t) => future_bound(&t.bounds).is_some(),
        Type::Paren(t) => is_future(&t.elem),
        Type::Group(t) => is_future(&t.elem),
        Type::Path(t) => {
            let Some(last) = t.path.segments.last() else {
                return false;
            };
            match last.ident.to_string().as_str() {
                "BoxFuture" | "LocalBoxFuture" => true,
                // `Pin<Box<dyn Future<..>>>`
                "Pin" | "Box" => first_type_argument(&last.arguments).is_some_and(is_future),
                _ => false,
            }
        }
        _ => false,
    }
}

/// The `Future` bound among `bounds`, if any.
fn future_bound(
    bounds: &syn::punctuated::Punctuated<TypeParamBound, syn::Token![+]>,
) -> Option<&PathArguments> {
    bounds.iter().find_map(|bound| match bound {
        TypeParamBound::Trait(trait_bound) => trait_bound
            .path
            .segments
            .last()
            .filter(|s| s.ident == "Future")
            .map(|s| &s.arguments),
        _ => None,
    })
}

fn first_type_argument(arguments: &PathArguments) -> Option<&Type> {
    let PathArguments::AngleBracketed(arguments) = arguments else {
        return None;
    };
    arguments.args.iter().find_map(|arg| match arg {
        GenericArgument::Type(ty) => Some(ty),
        _ => None,
    })
}

/// The `T` of `Future<Output = T>` in the return type (of
/// `BoxFuture<'a, T>`, the second argument).
fn future_output(sig: &Signature) -> Option<Type> {
    let ReturnType::Type(_, ty) = &sig.output else {
        return None;
    };
    output_of(ty).cloned()
}

fn output_of(ty: &Type) -> Option<&Type> {
    fn from_bound(arguments: Option<&PathArguments>) -> Option<&Type> {
        let PathArguments::AngleBracketed(arguments) = arguments? else {
            return None;
        };
        arguments.args.iter().find_map(|arg| match arg {
            GenericArgument::AssocType(assoc) if assoc.ident == "Output" => Some(&assoc.ty),
            _ => None,
        })
    }
    match ty {
        Type::ImplTrait(t) => from_bound(future_bound(&t.bounds)),
        Type::TraitObject(t) => from_bound(future_bound(&t.bounds)),
        Type::Paren(t) => output_of(&t.elem),
        Type::Group(t) => output_of(&t.elem),
        Type::Path(t) => {
            let last = t.path.segments.last()?;
            match last.ident.to_string().as_str() {
                "BoxFuture" | "LocalBoxFuture" => {
                    let PathArguments::AngleBracketed(arguments) = &last.arguments else {
                        return None;
                    };
                    arguments.args.iter().find_map(|arg| match arg {
                        GenericArgument::Type(ty) => Some(ty),
                        _ => None,
                    })
                }
                "Pin" | "Box" => output_of(first_type_argument(&last.arguments)?),
                _ => None,
            }
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::{ToTokens, quote};

    fn tail(item: TokenStream) -> Option<FutureTail> {
        let f: syn::ItemFn = syn::parse2(item).unwrap();
        let stmts: TokenStream = f
            .block
            .stmts
            .iter()
            .map(ToTokens::to_token_stream)
            .collect();
        find(&f.sig, &stmts)
    }

    fn output(item: TokenStream) -> Option<String> {
        tail(item)
            .expect("a future tail")
            .output
            .map(|ty| ty.to_token_stream().to_string())
    }

    #[test]
    fn recognises_futures_built_in_the_body() {
        let boxed = quote! {
            fn f(&self) -> Pin<Box<dyn Future<Output = u32> + Send + '_>> {
                let x = 1;
                Box::pin(async move { x })
            }
        };
        assert_eq!(tail(boxed.clone()).unwrap().path, [9, 2]);
        assert_eq!(output(boxed).as_deref(), Some("u32"));
        let opaque = quote! {
            fn f() -> impl Future<Output = Vec<u8>> + Send { async { vec![] } }
        };
        assert_eq!(tail(opaque.clone()).unwrap().path, [1]);
        assert_eq!(output(opaque).as_deref(), Some("Vec < u8 >"));
        let qualified = quote! {
            fn f() -> BoxFuture<'static, ()> { ::std::boxed::Box::pin(async move {},) }
        };
        assert_eq!(output(qualified).as_deref(), Some("()"));
        let dot_boxed = quote! {
            fn f() -> BoxFuture<'static, u8> { async move { 1 }.boxed() }
        };
        assert_eq!(tail(dot_boxed).unwrap().path, [2]);
        let unnamed = quote! { fn f() -> MyFuture { async {} } };
        assert!(tail(unnamed).unwrap().output.is_none());
    }

    #[test]
    fn leaves_other_bodies_alone() {
        for item in [
            quote!(
                async fn f() -> u32 {
                    async { 1 }.await
                }
            ),
            quote!(
                fn f() -> u32 {
                    block_on(async { 1 })
                }
            ),
            quote!(
                fn f() -> Pin<Box<u32>> {
                    Box::pin(3)
                }
            ),
            quote!(
                fn f() -> impl Fn() -> u32 {
                    || 3
                }
            ),
            quote!(
                fn f() -> impl Future<Output = ()> {
                    let fut = async {};
                    fut
                }
            ),
            quote!(
                fn f() {
                    async {};
                }
            ),
            quote!(
                fn f() -> Box<dyn Future<Output = ()>> {
                    Box::new(async {})
                }
            ),
            quote!(
                fn f() -> u8 {
                    if c { 1 } else { 2 }
                }
            ),
        ] {
            assert!(tail(item.clone()).is_none(), "{item}");
        }
    }

    #[test]
    fn recognises_future_return_types() {
        let sig = |tokens: TokenStream| syn::parse2::<Signature>(tokens).unwrap();
        for yes in [
            quote!(fn f() -> impl Future<Output = u8>),
            quote!(fn f() -> impl Send + core::future::Future<Output = u8>),
            quote!(fn f() -> Pin<Box<dyn Future<Output = u8> + Send + 'static>>),
            quote!(fn f() -> std::pin::Pin<Box<dyn std::future::Future<Output = u8>>>),
            quote!(fn f() -> BoxFuture<'static, u8>),
            quote!(fn f() -> futures::future::LocalBoxFuture<'_, u8>),
        ] {
            assert!(returned_future(&sig(yes.clone())).is_some(), "{yes}");
        }
        for no in [
            quote!(async fn f() -> impl Future<Output = u8>),
            quote!(fn f() -> Pin<Box<u8>>),
            quote!(fn f() -> impl Iterator<Item = u8>),
            quote!(fn f() -> PriceFuture),
            quote!(fn f()),
        ] {
            assert!(returned_future(&sig(no.clone())).is_none(), "{no}");
        }
    }
}
