//! The annotated item: a function with a body.
//!
//! The signature is parsed (for its name, parameters, return type and
//! qualifiers) but never re-printed: expansion re-emits the item's own
//! tokens up to the body, and the body's own tokens after its inner
//! attributes, so every span the user wrote survives. A body that builds
//! and returns a future is recognised (`future.rs`) so that the future,
//! not its creation, is timed.

mod future;

pub(crate) use future::{FutureTail, returned_future};

use proc_macro2::{Delimiter, Group, Span, TokenStream, TokenTree};
use quote::ToTokens;
use syn::parse::{ParseStream, Parser};
use syn::{Abi, Attribute, Error, Result, Signature, Token, Visibility};

/// A function item, split into its untouched head and its body.
pub(crate) struct Function {
    /// The parsed signature (read only; its tokens are in `head`).
    pub(crate) sig: Signature,
    /// Everything before the body: attributes, visibility, signature.
    head: TokenStream,
    /// The body's `{ ... }` span.
    body_span: Span,
    /// The body's inner attributes (`#![allow(...)]`, `//!` docs).
    inner_attrs: TokenStream,
    /// The body's statements.
    pub(crate) stmts: TokenStream,
    /// Where the body builds the future it returns, if it does.
    pub(crate) future: Option<FutureTail>,
}

impl Function {
    /// Reads the item `#[name]` was applied to.
    pub(crate) fn parse(item: TokenStream, macro_name: &str) -> Result<Self> {
        let sig = (|input: ParseStream| parse_fn(input, macro_name)).parse2(item.clone())?;
        let mut head: Vec<TokenTree> = item.into_iter().collect();
        let Some(TokenTree::Group(body)) = head.pop() else {
            unreachable!("a parsed function ends with its body")
        };
        let (inner_attrs, stmts) = split_inner_attrs(body.stream());
        let future = future::find(&sig, &stmts);
        Ok(Self {
            sig,
            head: head.into_iter().collect(),
            body_span: body.span(),
            inner_attrs,
            stmts,
            future,
        })
    }

    /// The function with its body replaced by `{ #inner_attrs #body }`,
    /// braced with the original body's span.
    pub(crate) fn with_body(&self, body: TokenStream) -> TokenStream {
        let mut stream = self.inner_attrs.clone();
        stream.extend(body);
        let mut group = Group::new(Delimiter::Brace, stream);
        group.set_span(self.body_span);
        let mut item = self.head.clone();
        item.extend([TokenTree::Group(group)]);
        item
    }

    /// For a body that builds its future (`self.future` is set): the
    /// function with `before` first in its body, and the async block's
    /// statements replaced by `wrap(statements, block span)`. Inner
    /// attributes of the body and of the async block stay first in each.
    pub(crate) fn with_future_body(
        &self,
        tail: &FutureTail,
        before: TokenStream,
        wrap: impl FnOnce(TokenStream, Span) -> TokenStream,
    ) -> TokenStream {
        let stmts = replace_group(self.stmts.clone(), &tail.path, |group| {
            let (inner_attrs, stmts) = split_inner_attrs(group.stream());
            let mut stream = inner_attrs;
            stream.extend(wrap(stmts, group.span()));
            stream
        });
        let mut body = before;
        body.extend(stmts);
        self.with_body(body)
    }

    /// The span of the body's braces.
    pub(crate) fn body_span(&self) -> Span {
        self.body_span
    }

    /// The original statements braced as a block with the body's span.
    pub(crate) fn stmts_block(&self) -> TokenStream {
        let mut group = Group::new(Delimiter::Brace, self.stmts.clone());
        group.set_span(self.body_span);
        TokenTree::Group(group).into()
    }
}

/// Whether a type mentions `impl Trait` anywhere (`impl Sized`,
/// `Box<impl Fn()>`, `(impl Debug, u8)`): such a type cannot be named in a
/// `let`, so expansions leave the binding's type to inference.
pub(crate) fn mentions_impl(ty: &syn::Type) -> bool {
    fn tokens(stream: TokenStream) -> bool {
        stream.into_iter().any(|tree| match tree {
            TokenTree::Ident(ident) => ident == "impl",
            TokenTree::Group(group) => tokens(group.stream()),
            _ => false,
        })
    }
    tokens(ty.to_token_stream())
}

/// Parses `#[attrs] vis sig { body }` and returns the signature.
fn parse_fn(input: ParseStream, macro_name: &str) -> Result<Signature> {
    input.call(Attribute::parse_outer)?;
    input.parse::<Visibility>()?;
    let safe: Option<Token![safe]> = input.parse()?;
    if !is_signature(input) {
        return Err(not_a_function(input, macro_name));
    }
    let sig: Signature = input.parse()?;
    if let Some(semi) = input.parse::<Option<Token![;]>>()? {
        return Err(Error::new_spanned(
            quote::quote!(#safe #sig #semi),
            format!("`#[{macro_name}]` needs a function body"),
        ));
    }
    let content;
    syn::braced!(content in input);
    content.parse::<TokenStream>()?;
    Ok(sig)
}

/// Whether a function signature starts here (`const async unsafe extern "C" fn`).
fn is_signature(input: ParseStream) -> bool {
    let fork = input.fork();
    fork.parse::<Option<Token![const]>>().is_ok()
        && fork.parse::<Option<Token![async]>>().is_ok()
        && fork.parse::<Option<Token![unsafe]>>().is_ok()
        && fork.parse::<Option<Abi>>().is_ok()
        && fork.peek(Token![fn])
}

/// "can only be applied to functions", pointing at the item's head
/// (`struct Foo`, `impl Trait for Foo`, `const X`) rather than all of it.
fn not_a_function(input: ParseStream, macro_name: &str) -> Error {
    let mut head = TokenStream::new();
    let _ = input.step(|cursor| {
        let mut rest = *cursor;
        while let Some((tree, next)) = rest.token_tree() {
            let stop = match &tree {
                TokenTree::Group(g) => g.delimiter() != Delimiter::None,
                TokenTree::Punct(p) => matches!(p.as_char(), ';' | '=' | ':' | '<'),
                _ => false,
            };
            if stop {
                break;
            }
            tree.to_tokens(&mut head);
            rest = next;
        }
        Ok(((), rest))
    });
    let message = format!("`#[{macro_name}]` can only be applied to functions");
    if head.is_empty() {
        Error::new(input.span(), message)
    } else {
        Error::new_spanned(head, message)
    }
}

/// `stream` with the group at `path` (indices through nested groups) given
/// the contents `contents(group)`, keeping its delimiter and span.
fn replace_group(
    stream: TokenStream,
    path: &[usize],
    contents: impl FnOnce(&Group) -> TokenStream,
) -> TokenStream {
    let Some((&index, rest)) = path.split_first() else {
        return stream;
    };
    let mut trees: Vec<TokenTree> = stream.into_iter().collect();
    if let Some(TokenTree::Group(group)) = trees.get(index) {
        let inner = if rest.is_empty() {
            contents(group)
        } else {
            replace_group(group.stream(), rest, contents)
        };
        let mut replaced = Group::new(group.delimiter(), inner);
        replaced.set_span(group.span());
        trees[index] = TokenTree::Group(replaced);
    }
    trees.into_iter().collect()
}

/// Splits a body's leading `#![...]` attributes from its statements.
fn split_inner_attrs(body: TokenStream) -> (TokenStream, TokenStream) {
    let trees: Vec<TokenTree> = body.into_iter().collect();
    let mut split = 0;
    while let [
        TokenTree::Punct(pound),
        TokenTree::Punct(bang),
        TokenTree::Group(group),
        ..,
    ] = &trees[split..]
    {
        let is_inner = pound.as_char() == '#'
            && bang.as_char() == '!'
            && group.delimiter() == Delimiter::Bracket;
        if !is_inner {
            break;
        }
        split += 3;
    }
    let mut trees = trees.into_iter();
    let inner: TokenStream = trees.by_ref().take(split).collect();
    (inner, trees.collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    fn parse(item: TokenStream) -> Result<Function> {
        Function::parse(item, "brick")
    }

    fn message(item: TokenStream) -> String {
        match parse(item) {
            Ok(_) => panic!("expected an error"),
            Err(error) => error.to_string(),
        }
    }

    #[test]
    fn splits_head_inner_attributes_and_statements() {
        let f = parse(quote! {
            #[doc = "Docs."]
            #[inline]
            pub(crate) unsafe extern "C" fn f<T: Copy>(x: T) -> T where T: Send {
                #![allow(unused)]
                #![doc = "Inner docs."]
                let y = x;
                y
            }
        })
        .unwrap();
        assert_eq!(f.sig.ident, "f");
        assert_eq!(
            f.inner_attrs.to_string(),
            quote!(#![allow(unused)] #![doc = "Inner docs."]).to_string()
        );
        assert_eq!(f.stmts.to_string(), quote!(let y = x; y).to_string());
        let rebuilt = f.with_body(quote!(start(); body()));
        let expected = quote! {
            #[doc = "Docs."]
            #[inline]
            pub(crate) unsafe extern "C" fn f<T: Copy>(x: T) -> T where T: Send {
                #![allow(unused)]
                #![doc = "Inner docs."]
                start(); body()
            }
        };
        assert_eq!(rebuilt.to_string(), expected.to_string());
    }

    #[test]
    fn accepts_every_qualifier() {
        for item in [
            quote!(
                async fn f() {}
            ),
            quote!(
                const fn f() {}
            ),
            quote!(
                unsafe fn f() {}
            ),
            quote!(
                extern "C" fn f() {}
            ),
            quote!(
                async unsafe fn f(&self) {}
            ),
            quote!(
                fn f(self: Box<Self>) -> impl Sized {}
            ),
        ] {
            assert!(parse(item).is_ok());
        }
    }

    #[test]
    fn rejects_items_that_are_not_functions() {
        for item in [
            quote!(
                struct S;
            ),
            quote!(
                pub struct S {
                    x: u8,
                }
            ),
            quote!(
                const X: u8 = 1;
            ),
            quote!(impl S { fn f() {} }),
            quote!(
                mod m {}
            ),
            quote!(
                extern "C" {
                    fn f();
                }
            ),
        ] {
            assert_eq!(message(item), "`#[brick]` can only be applied to functions");
        }
    }

    #[test]
    fn impl_trait_is_found_at_any_depth() {
        let ty = |tokens: TokenStream| syn::parse2::<syn::Type>(tokens).unwrap();
        assert!(mentions_impl(&ty(quote!(impl Sized))));
        assert!(mentions_impl(&ty(quote!(Box<impl Fn()>))));
        assert!(mentions_impl(&ty(quote!((impl Debug, u8)))));
        assert!(mentions_impl(&ty(quote!([impl Copy; 2]))));
        assert!(!mentions_impl(&ty(quote!(Box<dyn Fn()>))));
        assert!(!mentions_impl(&ty(quote!(Vec<(u8, Implement)>))));
    }

    #[test]
    fn rejects_functions_without_body() {
        assert_eq!(
            message(quote!(
                fn f(&self);
            )),
            "`#[brick]` needs a function body"
        );
        assert_eq!(
            message(quote!(safe fn f();)),
            "`#[brick]` needs a function body"
        );
    }
}
