//! Rules that involve several arguments, or the arguments and the function.

use proc_macro2::TokenStream;
use quote::{ToTokens, quote};
use syn::parse::Parser;
use syn::{Block, Error, FnArg, Ident, Pat, Result, Stmt};

mod contract;

pub(crate) use contract::Binding;

use crate::ast::{Function, returned_future};
use crate::attr::{BrickArgs, BrickName, TraceOpArgs};
use crate::catalogue;
use crate::errors::Errors;

impl Function {
    /// Rules on the function alone: it must be callable at run time, and
    /// a future it returns must be built where the macro can time it.
    pub(crate) fn validate(&self, macro_name: &str) -> Result<()> {
        self.validate_callable(macro_name)?;
        if self.future.is_none()
            && let Some(ty) = returned_future(&self.sig)
        {
            let at = self.tail().unwrap_or_else(|| ty.to_token_stream());
            return Err(Error::new_spanned(
                at,
                format!(
                    "`#[{macro_name}]` would time only the creation of this future, not the \
                     future itself: return `async move {{ ... }}` or \
                     `Box::pin(async move {{ ... }})` as the function's last expression, \
                     or make it an `async fn`"
                ),
            ));
        }
        Ok(())
    }

    /// The function must run at run time: not a `const fn`.
    pub(crate) fn validate_callable(&self, macro_name: &str) -> Result<()> {
        match &self.sig.constness {
            Some(constness) => Err(Error::new_spanned(
                constness,
                format!("`#[{macro_name}]` cannot be applied to a `const fn`"),
            )),
            None => Ok(()),
        }
    }

    /// The body's last expression, if it ends in one.
    fn tail(&self) -> Option<TokenStream> {
        let stmts = Block::parse_within.parse2(self.stmts.clone()).ok()?;
        match stmts.last()? {
            Stmt::Expr(expr, None) => Some(expr.to_token_stream()),
            _ => None,
        }
    }

    /// Names the function's parameters bind, `self` included.
    fn parameter_names(&self) -> Vec<Ident> {
        let mut names = Vec::new();
        for input in &self.sig.inputs {
            match input {
                FnArg::Receiver(receiver) => names.push(Ident::from(receiver.self_token)),
                FnArg::Typed(typed) => bindings(&typed.pat, &mut names),
            }
        }
        names
    }
}

impl BrickArgs {
    /// `category` only names the category of a custom brick.
    pub(crate) fn validate(&self) -> Result<()> {
        if let (BrickName::Builtin { ident, variant }, Some(category)) =
            (&self.name, &self.category)
        {
            let key = &category.key;
            let value = &category.value.ident;
            return Err(Error::new_spanned(
                quote!(#key #value),
                format!(
                    "`category` only applies to custom bricks: built-in `{ident}` is always in `{}`",
                    catalogue::brick_category(variant)
                ),
            ));
        }
        if let (BrickName::Custom(name), Some(category)) = (&self.name, &self.category)
            && let Some(variant) = catalogue::brick(&name.value())
        {
            let key = &category.key;
            let value = &category.value.ident;
            return Err(Error::new_spanned(
                quote!(#key #value),
                format!(
                    "`category` only applies to custom bricks: {:?} names built-in `{variant}`, which is always in `{}`",
                    name.value(),
                    catalogue::brick_category(variant)
                ),
            ));
        }
        Ok(())
    }
}

impl TraceOpArgs {
    /// Every `shapes(...)` entry must be a parameter of the function.
    pub(crate) fn validate(&self, function: &Function) -> Result<()> {
        let Some(shapes) = &self.shapes else {
            return Ok(());
        };
        let params = function.parameter_names();
        let mut errors = Errors::default();
        for shape in &shapes.value {
            if !params.contains(shape) {
                errors.push(Error::new_spanned(
                    shape,
                    format!("`{shape}` is not a parameter of `{}`", function.sig.ident),
                ));
            }
        }
        errors.finish(|| ())
    }
}

/// Collects the identifiers a parameter pattern binds.
fn bindings(pat: &Pat, names: &mut Vec<Ident>) {
    match pat {
        Pat::Ident(p) => {
            names.push(p.ident.clone());
            if let Some((_, sub)) = &p.subpat {
                bindings(sub, names);
            }
        }
        Pat::Paren(p) => bindings(&p.pat, names),
        Pat::Reference(p) => bindings(&p.pat, names),
        Pat::Type(p) => bindings(&p.pat, names),
        Pat::Or(p) => p.cases.iter().for_each(|case| bindings(case, names)),
        Pat::Slice(p) => p.elems.iter().for_each(|elem| bindings(elem, names)),
        Pat::Tuple(p) => p.elems.iter().for_each(|elem| bindings(elem, names)),
        Pat::TupleStruct(p) => p.elems.iter().for_each(|elem| bindings(elem, names)),
        Pat::Struct(p) => p
            .fields
            .iter()
            .for_each(|field| bindings(&field.pat, names)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proc_macro2::TokenStream;

    fn trace_op_error(args: TokenStream, item: TokenStream) -> Option<String> {
        let args = TraceOpArgs::parse(args).unwrap();
        let function = Function::parse(item, "trace_op").unwrap();
        args.validate(&function).err().map(|e| e.to_string())
    }

    #[test]
    fn shapes_must_name_parameters() {
        let item = quote! {
            fn f(&self, a: &[f32], (b, mut c): (u8, u8), Pair { d, e: ref f }: Pair, [g, ..]: [u8; 2]) {}
        };
        assert_eq!(
            trace_op_error(quote!(shapes(self, a, b, c, d, f, g)), item.clone()),
            None
        );
        assert_eq!(
            trace_op_error(quote!(shapes(a, x)), item.clone()).as_deref(),
            Some("`x` is not a parameter of `f`")
        );
        assert_eq!(
            trace_op_error(quote!(shapes(e)), item).as_deref(),
            Some("`e` is not a parameter of `f`"),
            "a struct field is not a binding when renamed"
        );
        assert_eq!(
            trace_op_error(
                quote!(),
                quote!(
                    fn g() {}
                )
            ),
            None
        );
    }

    #[test]
    fn const_fn_is_rejected_at_const() {
        let f = Function::parse(
            quote!(
                pub const fn f() {}
            ),
            "brick",
        )
        .unwrap();
        assert_eq!(
            f.validate("brick").unwrap_err().to_string(),
            "`#[brick]` cannot be applied to a `const fn`"
        );
        let f = Function::parse(
            quote!(
                pub fn f() {}
            ),
            "brick",
        )
        .unwrap();
        assert!(f.validate("brick").is_ok());
    }

    #[test]
    fn futures_must_be_built_where_they_can_be_timed() {
        let error = |item: TokenStream| {
            Function::parse(item, "brick")
                .unwrap()
                .validate("brick")
                .err()
                .map(|e| e.to_string())
        };
        let message = "`#[brick]` would time only the creation of this future, not the \
                       future itself: return `async move { ... }` or \
                       `Box::pin(async move { ... })` as the function's last expression, \
                       or make it an `async fn`";
        assert_eq!(
            error(quote!(
                fn f() -> impl Future<Output = u8> {
                    std::future::ready(1)
                }
            ))
            .as_deref(),
            Some(message)
        );
        assert_eq!(
            error(quote!(
                fn f() -> BoxFuture<'static, u8> {
                    return g();
                }
            ))
            .as_deref(),
            Some(message)
        );
        assert_eq!(
            error(quote!(
                fn f() -> impl Future<Output = u8> {
                    async { 1 }
                }
            )),
            None
        );
        assert_eq!(
            error(quote!(
                async fn f() -> impl Future<Output = u8> {
                    std::future::ready(1)
                }
            )),
            None
        );
        assert_eq!(
            error(quote!(
                fn f() -> u8 {
                    1
                }
            )),
            None
        );
    }

    #[test]
    fn category_only_on_custom_bricks() {
        let args = BrickArgs::parse(quote!("Mine", category = Ffn)).unwrap();
        assert!(args.validate().is_ok());
        let args = BrickArgs::parse(quote!("Softmax", category = Ffn)).unwrap();
        assert_eq!(
            args.validate().unwrap_err().to_string(),
            "`category` only applies to custom bricks: \"Softmax\" names built-in `AttentionSoftmax`, which is always in `Attention`"
        );
        let args = BrickArgs::parse(quote!(Gate, category = Ffn)).unwrap();
        assert_eq!(
            args.validate().unwrap_err().to_string(),
            "`category` only applies to custom bricks: built-in `Gate` is always in `Ffn`"
        );
    }
}
