//! Grammar of `#[brick(...)]`: the leading brick name (built-in or custom)
//! and the `elements`, `bytes`, `flops`, `layer`, `category` and `level`
//! arguments.

use proc_macro2::{Span, TokenStream};
use syn::ext::IdentExt;
use syn::parse::{ParseStream, Parser};
use syn::{Error, Expr, Ident, LitStr, Path, Result, Token, token};

use super::grammar::{
    Arg, parse_args, parse_crate, parse_eq, parse_expr, skip_argument, store, unknown_argument,
};
use super::level::{Level, parse_level};
use crate::catalogue;
use crate::errors::Errors;

const MISSING_BRICK_NAME: &str =
    "expected a brick name: `#[brick(RmsNorm)]` or `#[brick(\"MyOp\")]`";

const BRICK_ARGS: &[&str] = &[
    "elements", "bytes", "flops", "layer", "category", "level", "crate",
];

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
    /// `level = L2`: the memory level the brick's roof is pinned to.
    pub(crate) level: Option<Arg<Level>>,
    /// `crate = path`: the facade's path when the dependency is renamed.
    pub(crate) krate: Option<Arg<Path>>,
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
        let mut level = None;
        let mut krate = None;
        let expected =
            "an argument: `elements`, `bytes`, `flops`, `layer`, `category`, `level` or `crate`";
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
                "level" => {
                    let value = parse_level(&key, input)?;
                    store(&mut level, key, value, errors);
                    return Ok(());
                }
                "crate" => {
                    let value = parse_crate(&key, input)?;
                    store(&mut krate, key, value, errors);
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
            level,
            krate,
        })
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attr::test_util::{path_text, text};
    use quote::quote;

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
                 `elements`, `bytes`, `flops`, `layer`, `category`, `level`, `crate`",
                "duplicate argument `bytes`",
                "unknown argument `foo`, expected one of \
                 `elements`, `bytes`, `flops`, `layer`, `category`, `level`, `crate`",
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
    fn level_is_kept_once() {
        let variant = |args: TokenStream| brick(args).level.map(|l| l.value.variant);
        assert_eq!(variant(quote!(RmsNorm, level = L2)), Some("L2"));
        assert_eq!(variant(quote!("X", level = "l1", bytes = 4)), Some("L1"));
        assert_eq!(variant(quote!(RmsNorm)), None);
        assert_eq!(
            brick_errors(quote!(RmsNorm, level = L1, level = L4, level = L2)),
            [
                "unknown memory level `L4`, expected one of `L1`, `L2`, `L3`, `DRAM`",
                "duplicate argument `level`"
            ]
        );
    }

    #[test]
    fn crate_takes_a_bare_path() {
        let args = brick(quote!(RmsNorm, crate = prof));
        assert_eq!(path_text(args.krate.as_ref()), "prof");
        let args = brick(quote!("X", crate = ::vendored::profiler, elements = 1));
        assert_eq!(path_text(args.krate.as_ref()), ":: vendored :: profiler");
        assert_eq!(
            brick_errors(quote!(RmsNorm, crate = "prof")),
            ["`crate` takes a path, not a string: write `crate = prof`"]
        );
        assert_eq!(
            brick_errors(quote!(RmsNorm, crate = "not a path")),
            ["`crate` takes a path, not a string: write `crate = profiler`"]
        );
        assert_eq!(
            brick_errors(quote!(RmsNorm, crate = 3)),
            ["expected a path to the `profiler` crate: `crate = profiler`"]
        );
        assert_eq!(
            brick_errors(quote!(RmsNorm, crate = prof<T>)),
            ["expected a path to the `profiler` crate: `crate = profiler`"]
        );
        assert_eq!(
            brick_errors(quote!(RmsNorm, crate = a, crate = b)),
            ["duplicate argument `crate`"]
        );
        assert_eq!(
            brick_errors(quote!(RmsNorm, crate)),
            ["missing value for `crate`: write `crate = profiler`"]
        );
    }
}
