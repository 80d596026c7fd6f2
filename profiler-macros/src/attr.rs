//! Argument grammar of `#[brick(...)]` and `#[trace_op(...)]`.
//!
//! Parsing goes on after a bad argument (it skips to the next comma), so one
//! compile reports every mistake, each at its own token.

use proc_macro2::{Span, TokenStream, TokenTree};
use syn::ext::IdentExt;
use syn::parse::{ParseStream, Parser};
use syn::punctuated::Punctuated;
use syn::{Error, Expr, Ident, LitStr, Result, Token, token};

use crate::catalogue;
use crate::errors::Errors;

const MISSING_BRICK_NAME: &str =
    "expected a brick name: `#[brick(RmsNorm)]` or `#[brick(\"MyOp\")]`";

const BRICK_ARGS: &[&str] = &["elements", "bytes", "flops", "layer", "category"];
const TRACE_OP_ARGS: &[&str] = &["name", "device", "shapes"];

/// An argument with the key it was given under (for spans).
pub(crate) struct Arg<T> {
    pub(crate) key: Ident,
    pub(crate) value: T,
}

/// What a `#[brick]` times.
pub(crate) enum BrickName {
    /// `#[brick(RmsNorm)]`: `variant` is the `BrickId` variant `ident` names.
    Builtin { ident: Ident, variant: &'static str },
    /// `#[brick("MyFusedOp")]`.
    Custom(LitStr),
}

/// `category = Attention`: the ident as written and the variant it names.
pub(crate) struct Category {
    pub(crate) ident: Ident,
    pub(crate) variant: &'static str,
}

/// Arguments of `#[brick(...)]`.
pub(crate) struct BrickArgs {
    pub(crate) name: BrickName,
    pub(crate) elements: Option<Arg<Expr>>,
    pub(crate) bytes: Option<Arg<Expr>>,
    pub(crate) flops: Option<Arg<Expr>>,
    pub(crate) layer: Option<Arg<Expr>>,
    pub(crate) category: Option<Arg<Category>>,
}

/// Arguments of `#[trace_op(...)]`.
#[derive(Default)]
pub(crate) struct TraceOpArgs {
    pub(crate) name: Option<Arg<LitStr>>,
    pub(crate) device: Option<Arg<Expr>>,
    pub(crate) shapes: Option<Arg<Vec<Ident>>>,
}

impl BrickArgs {
    /// Parses the tokens inside `#[brick(...)]`.
    pub(crate) fn parse(args: TokenStream) -> Result<Self> {
        Self::parse_stream.parse2(args)
    }

    fn parse_stream(input: ParseStream) -> Result<Self> {
        let mut errors = Errors::default();
        let name = parse_brick_name(input, &mut errors);
        let mut elements = None;
        let mut bytes = None;
        let mut flops = None;
        let mut layer = None;
        let mut category = None;
        let expected = "an argument: `elements`, `bytes`, `flops`, `layer` or `category`";
        parse_args(input, &mut errors, expected, |key, input, errors| {
            let slot = match key.to_string().as_str() {
                "elements" => &mut elements,
                "bytes" => &mut bytes,
                "flops" => &mut flops,
                "layer" => &mut layer,
                "category" => {
                    let value = parse_category(&key, input)?;
                    store(&mut category, key, value, errors);
                    return Ok(());
                }
                _ => return Err(unknown_argument(&key, BRICK_ARGS)),
            };
            let value = parse_expr(&key, input)?;
            store(slot, key, value, errors);
            Ok(())
        });
        errors.finish(|| Self {
            name: name.expect("a missing name is an error"),
            elements,
            bytes,
            flops,
            layer,
            category,
        })
    }
}

impl TraceOpArgs {
    /// Parses the tokens inside `#[trace_op(...)]`.
    pub(crate) fn parse(args: TokenStream) -> Result<Self> {
        Self::parse_stream.parse2(args)
    }

    fn parse_stream(input: ParseStream) -> Result<Self> {
        let mut errors = Errors::default();
        let mut args = Self::default();
        let expected = "an argument: `name = \"...\"`, `device = <expr>` or `shapes(<parameters>)`";
        parse_args(input, &mut errors, expected, |key, input, errors| {
            match key.to_string().as_str() {
                "name" => {
                    let value = parse_name(&key, input)?;
                    store(&mut args.name, key, value, errors);
                }
                "device" => {
                    let value = parse_expr(&key, input)?;
                    store(&mut args.device, key, value, errors);
                }
                "shapes" => {
                    let value = parse_shapes(&key, input)?;
                    store(&mut args.shapes, key, value, errors);
                }
                _ => return Err(unknown_argument(&key, TRACE_OP_ARGS)),
            }
            Ok(())
        });
        errors.finish(|| args)
    }
}

/// The leading brick name, and the comma after it. `None` (with an error
/// gathered) when it is missing or wrong.
fn parse_brick_name(input: ParseStream, errors: &mut Errors) -> Option<BrickName> {
    if input.is_empty() {
        errors.push(Error::new(Span::call_site(), MISSING_BRICK_NAME));
        return None;
    }
    let is_key = input.peek2(Token![=]) || input.peek2(token::Paren);
    let name = if input.peek(LitStr) {
        input.parse().and_then(custom_name)
    } else if input.peek(Ident::peek_any) && !is_key {
        input.call(Ident::parse_any).and_then(builtin_name)
    } else {
        errors.push(input.error(MISSING_BRICK_NAME));
        if !input.peek(Ident::peek_any) {
            skip_argument(input);
            let _ = input.parse::<Option<Token![,]>>();
        }
        // A leading `key = value` is parsed as the first argument.
        return None;
    };
    let name = errors.keep(name);
    if !input.is_empty()
        && let Err(error) = input.parse::<Token![,]>()
    {
        errors.push(error);
        skip_argument(input);
        let _ = input.parse::<Option<Token![,]>>();
    }
    name
}

fn custom_name(lit: LitStr) -> Result<BrickName> {
    if lit.value().trim().is_empty() {
        return Err(Error::new_spanned(lit, "custom brick name cannot be empty"));
    }
    Ok(BrickName::Custom(lit))
}

fn builtin_name(ident: Ident) -> Result<BrickName> {
    let name = ident.to_string();
    match catalogue::brick(&name) {
        Some(variant) => Ok(BrickName::Builtin { ident, variant }),
        None => Err(Error::new_spanned(
            &ident,
            match catalogue::suggest_brick(&name) {
                Some(known) => format!("unknown brick `{name}`, did you mean `{known}`?"),
                None => format!(
                    "unknown brick `{name}`: name a built-in brick such as `RmsNorm`, \
                     or use a string for a custom brick: `#[brick(\"{name}\")]`"
                ),
            },
        )),
    }
}

/// Parses `key ..., key ..., ...` up to the end; `arg` parses what follows
/// each key. A failed argument is gathered and skipped up to the next comma.
fn parse_args(
    input: ParseStream,
    errors: &mut Errors,
    expected: &str,
    mut arg: impl FnMut(Ident, ParseStream, &mut Errors) -> Result<()>,
) {
    while !input.is_empty() {
        let parsed = if input.peek(Ident::peek_any) {
            let key = input.call(Ident::parse_any).expect("peeked an identifier");
            arg(key, input, errors)
        } else {
            Err(input.error(format!("expected {expected}")))
        };
        if let Err(error) = parsed {
            errors.push(error);
            skip_argument(input);
        }
        if input.is_empty() {
            break;
        }
        if !input.peek(Token![,]) {
            errors.push(input.error("expected `,`"));
            skip_argument(input);
        }
        let _ = input.parse::<Option<Token![,]>>();
    }
}

/// Stores `value` in an empty slot; a repeated key is an error at the repeat.
fn store<T>(slot: &mut Option<Arg<T>>, key: Ident, value: T, errors: &mut Errors) {
    if slot.is_some() {
        errors.push(Error::new_spanned(
            &key,
            format!("duplicate argument `{key}`"),
        ));
    } else {
        *slot = Some(Arg { key, value });
    }
}

fn unknown_argument(key: &Ident, known: &[&str]) -> Error {
    let list = known
        .iter()
        .map(|k| format!("`{k}`"))
        .collect::<Vec<_>>()
        .join(", ");
    let name = key.to_string();
    let message = match catalogue::closest(known.iter().copied(), &name) {
        Some(close) => {
            format!("unknown argument `{name}`, did you mean `{close}`? expected one of {list}")
        }
        None => format!("unknown argument `{name}`, expected one of {list}"),
    };
    Error::new_spanned(key, message)
}

/// `= <value>`: the `=` and a check that a value follows.
fn parse_eq(key: &Ident, input: ParseStream, hint: &str) -> Result<()> {
    let missing = format!("missing value for `{key}`: write `{key} = {hint}`");
    let Some(eq) = input.parse::<Option<Token![=]>>()? else {
        return Err(Error::new_spanned(key, missing));
    };
    if input.is_empty() || input.peek(Token![,]) {
        return Err(Error::new_spanned(quote::quote!(#key #eq), missing));
    }
    Ok(())
}

fn parse_expr(key: &Ident, input: ParseStream) -> Result<Expr> {
    parse_eq(key, input, "<expr>")?;
    input.parse()
}

fn parse_name(key: &Ident, input: ParseStream) -> Result<LitStr> {
    parse_eq(key, input, "\"matmul\"")?;
    if !input.peek(LitStr) {
        return Err(input.error("expected a string literal: `name = \"matmul\"`"));
    }
    let name: LitStr = input.parse()?;
    if name.value().trim().is_empty() {
        return Err(Error::new_spanned(name, "`name` cannot be empty"));
    }
    Ok(name)
}

fn parse_category(key: &Ident, input: ParseStream) -> Result<Category> {
    parse_eq(key, input, "Attention")?;
    if !input.peek(Ident::peek_any) {
        return Err(input.error("expected a category name: `category = Attention`"));
    }
    let ident = input.call(Ident::parse_any)?;
    let name = ident.to_string();
    match catalogue::category(&name) {
        Some(variant) => Ok(Category { ident, variant }),
        None => Err(Error::new_spanned(
            &ident,
            match catalogue::suggest_category(&name) {
                Some(known) => format!("unknown category `{name}`, did you mean `{known}`?"),
                None => format!(
                    "unknown category `{name}`, expected one of {}",
                    catalogue::category_names()
                        .map(|c| format!("`{c}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            },
        )),
    }
}

fn parse_shapes(key: &Ident, input: ParseStream) -> Result<Vec<Ident>> {
    if !input.peek(token::Paren) {
        return Err(Error::new_spanned(
            key,
            "expected a parameter list: `shapes(a, b)`",
        ));
    }
    let content;
    let parens = syn::parenthesized!(content in input);
    let list = Punctuated::<Ident, Token![,]>::parse_terminated_with(&content, Ident::parse_any)?;
    if list.is_empty() {
        return Err(Error::new(
            parens.span.join(),
            "`shapes(...)` needs at least one parameter",
        ));
    }
    let mut params: Vec<Ident> = Vec::with_capacity(list.len());
    for ident in list {
        if params.contains(&ident) {
            return Err(Error::new_spanned(
                &ident,
                format!("duplicate parameter `{ident}` in `shapes(...)`"),
            ));
        }
        params.push(ident);
    }
    Ok(params)
}

/// Skips to the next top-level comma (or the end) after a bad argument.
fn skip_argument(input: ParseStream) {
    let _ = input.step(|cursor| {
        let mut rest = *cursor;
        while let Some((tree, next)) = rest.token_tree() {
            if matches!(&tree, TokenTree::Punct(p) if p.as_char() == ',') {
                break;
            }
            rest = next;
        }
        Ok(((), rest))
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::{ToTokens, quote};

    fn brick(args: TokenStream) -> BrickArgs {
        match BrickArgs::parse(args) {
            Ok(args) => args,
            Err(error) => panic!("unexpected error: {error}"),
        }
    }

    /// Every message, in order (`Error` iterates over combined errors).
    fn brick_errors(args: TokenStream) -> Vec<String> {
        match BrickArgs::parse(args) {
            Ok(_) => panic!("expected an error"),
            Err(error) => error.into_iter().map(|e| e.to_string()).collect(),
        }
    }

    fn trace_op_errors(args: TokenStream) -> Vec<String> {
        match TraceOpArgs::parse(args) {
            Ok(_) => panic!("expected an error"),
            Err(error) => error.into_iter().map(|e| e.to_string()).collect(),
        }
    }

    fn text(arg: Option<&Arg<Expr>>) -> String {
        arg.expect("argument present")
            .value
            .to_token_stream()
            .to_string()
    }

    #[test]
    fn parses_builtin_names_aliases_and_amounts() {
        let args = brick(quote!(
            Rope,
            elements = x.len(),
            bytes = 4 * n,
            flops = f(a, b),
            layer = i,
        ));
        assert!(matches!(
            args.name,
            BrickName::Builtin {
                variant: "RopeEmbedding",
                ..
            }
        ));
        assert_eq!(text(args.elements.as_ref()), "x . len ()");
        assert_eq!(text(args.bytes.as_ref()), "4 * n");
        assert_eq!(text(args.flops.as_ref()), "f (a , b)");
        assert_eq!(text(args.layer.as_ref()), "i");
        assert!(args.category.is_none());
    }

    #[test]
    fn parses_custom_names_and_categories() {
        let args = brick(quote!("Fused", category = FFN));
        assert!(matches!(&args.name, BrickName::Custom(name) if name.value() == "Fused"));
        assert_eq!(args.category.map(|c| c.value.variant), Some("Ffn"));
        let args = brick(quote!("Plain"));
        assert!(args.elements.is_none() && args.category.is_none());
    }

    #[test]
    fn expressions_may_contain_commas_inside_groups_and_turbofish() {
        let args = brick(quote!(
            RmsNorm,
            elements = max::<usize>(a, b),
            flops = |x, y| x + y
        ));
        assert_eq!(text(args.elements.as_ref()), "max :: < usize > (a , b)");
        assert_eq!(text(args.flops.as_ref()), "| x , y | x + y");
    }

    #[test]
    fn missing_name() {
        let expected = "expected a brick name: `#[brick(RmsNorm)]` or `#[brick(\"MyOp\")]`";
        assert_eq!(brick_errors(quote!()), [expected]);
        assert_eq!(brick_errors(quote!(elements = 3)), [expected]);
        assert_eq!(brick_errors(quote!(42, elements = 3)), [expected]);
    }

    #[test]
    fn bad_names() {
        assert_eq!(
            brick_errors(quote!(RmsNrom)),
            ["unknown brick `RmsNrom`, did you mean `RmsNorm`?"]
        );
        assert_eq!(
            brick_errors(quote!(Convolution)),
            [
                "unknown brick `Convolution`: name a built-in brick such as `RmsNorm`, \
              or use a string for a custom brick: `#[brick(\"Convolution\")]`"
            ]
        );
        assert_eq!(
            brick_errors(quote!("  ")),
            ["custom brick name cannot be empty"]
        );
    }

    #[test]
    fn bad_arguments_are_all_reported() {
        assert_eq!(
            brick_errors(quote!(
                RmsNrom,
                elemnts = 1,
                bytes = 2,
                bytes = 3,
                foo = 4,
                category = Atention,
                flops
            )),
            [
                "unknown brick `RmsNrom`, did you mean `RmsNorm`?",
                "unknown argument `elemnts`, did you mean `elements`? expected one of \
                 `elements`, `bytes`, `flops`, `layer`, `category`",
                "duplicate argument `bytes`",
                "unknown argument `foo`, expected one of \
                 `elements`, `bytes`, `flops`, `layer`, `category`",
                "unknown category `Atention`, did you mean `Attention`?",
                "missing value for `flops`: write `flops = <expr>`",
            ]
        );
    }

    #[test]
    fn missing_values_and_bad_expressions() {
        assert_eq!(
            brick_errors(quote!(RmsNorm, elements =, bytes = 1)),
            ["missing value for `elements`: write `elements = <expr>`"]
        );
        assert_eq!(
            brick_errors(quote!(RmsNorm, elements = 1 2)),
            ["expected `,`"]
        );
        assert_eq!(
            brick_errors(quote!(RmsNorm, elements = x +, bytes = 1)),
            ["expected an expression"]
        );
        assert_eq!(
            brick_errors(quote!("X", category = Vision)),
            ["unknown category `Vision`, expected one of \
              `Norm`, `Attention`, `Ffn`, `Other`, `Sparse`, `Fft`, `Solver`"]
        );
        assert_eq!(
            brick_errors(quote!("X", category = "Norm")),
            ["expected a category name: `category = Attention`"]
        );
    }

    #[test]
    fn parses_trace_op_arguments() {
        let args = TraceOpArgs::parse(quote!()).unwrap();
        assert!(args.name.is_none() && args.device.is_none() && args.shapes.is_none());
        let args = TraceOpArgs::parse(quote!(
            name = "matmul",
            device = self.device,
            shapes(self, b),
        ))
        .unwrap();
        assert_eq!(
            args.name.map(|n| n.value.value()).as_deref(),
            Some("matmul")
        );
        assert_eq!(text(args.device.as_ref()), "self . device");
        let shapes: Vec<String> = args
            .shapes
            .unwrap()
            .value
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(shapes, ["self", "b"]);
    }

    #[test]
    fn bad_trace_op_arguments() {
        assert_eq!(
            trace_op_errors(quote!(
                nme = "x",
                name = "",
                shapes = a,
                shapes(),
                shapes(a, a),
                device
            )),
            [
                "unknown argument `nme`, did you mean `name`? expected one of `name`, `device`, `shapes`",
                "`name` cannot be empty",
                "expected a parameter list: `shapes(a, b)`",
                "`shapes(...)` needs at least one parameter",
                "duplicate parameter `a` in `shapes(...)`",
                "missing value for `device`: write `device = <expr>`",
            ]
        );
        assert_eq!(
            trace_op_errors(quote!(name = matmul)),
            ["expected a string literal: `name = \"matmul\"`"]
        );
        assert_eq!(
            trace_op_errors(quote!("matmul")),
            ["expected an argument: `name = \"...\"`, `device = <expr>` or `shapes(<parameters>)`"]
        );
        assert_eq!(
            trace_op_errors(quote!(name = "a", name = "b")),
            ["duplicate argument `name`"]
        );
    }
}
