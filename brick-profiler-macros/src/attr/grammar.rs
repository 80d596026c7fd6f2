//! The grammar every attribute argument list shares: `key = value` pairs
//! separated by commas, errors gathered per argument, and the `crate`
//! argument.

use proc_macro2::TokenTree;
use syn::ext::IdentExt;
use syn::parse::{ParseStream, Parser};
use syn::{Error, Expr, Ident, LitStr, Path, Result, Token};

use crate::errors::Errors;

/// An argument with the key it was given under (for spans).
pub(crate) struct Arg<T> {
    pub(crate) key: Ident,
    pub(crate) value: T,
}

/// Parses `key ..., key ..., ...` up to the end; `arg` parses what follows
/// each key. A failed argument is gathered and skipped up to the next comma.
pub(super) fn parse_args(
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
pub(super) fn store<T>(slot: &mut Option<Arg<T>>, key: Ident, value: T, errors: &mut Errors) {
    if slot.is_some() {
        errors.push(Error::new_spanned(
            &key,
            format!("duplicate argument `{key}`"),
        ));
    } else {
        *slot = Some(Arg { key, value });
    }
}

pub(super) fn unknown_argument(key: &Ident, known: &[&str]) -> Error {
    let list = known
        .iter()
        .map(|k| format!("`{k}`"))
        .collect::<Vec<_>>()
        .join(", ");
    let name = key.to_string();
    let message = match profiler_suggest::suggest(&name, known.iter().copied()) {
        Some(close) => {
            format!("unknown argument `{name}`, did you mean `{close}`? expected one of {list}")
        }
        None => format!("unknown argument `{name}`, expected one of {list}"),
    };
    Error::new_spanned(key, message)
}

/// `= <value>`: the `=` and a check that a value follows.
pub(super) fn parse_eq(key: &Ident, input: ParseStream, hint: &str) -> Result<()> {
    let missing = format!("missing value for `{key}`: write `{key} = {hint}`");
    let Some(eq) = input.parse::<Option<Token![=]>>()? else {
        return Err(Error::new_spanned(key, missing));
    };
    if input.is_empty() || input.peek(Token![,]) {
        return Err(Error::new_spanned(quote::quote!(#key #eq), missing));
    }
    Ok(())
}

pub(super) fn parse_expr(key: &Ident, input: ParseStream) -> Result<Expr> {
    parse_eq(key, input, "<expr>")?;
    input.parse()
}

/// `crate = path`: where the `profiler` facade is, for a dependency renamed
/// in Cargo.toml (`prof = { package = "brick-profiler", .. }`). Written bare, as
/// `category = Ffn` is; a string (serde's `crate = "..."`) is an error that
/// shows the bare form.
pub(super) fn parse_crate(key: &Ident, input: ParseStream) -> Result<Path> {
    parse_eq(key, input, "profiler")?;
    if input.peek(LitStr) {
        let lit: LitStr = input.parse()?;
        let message = match Path::parse_mod_style.parse_str(&lit.value()) {
            Ok(_) => format!(
                "`crate` takes a path, not a string: write `crate = {}`",
                lit.value()
            ),
            Err(_) => "`crate` takes a path, not a string: write `crate = profiler`".to_owned(),
        };
        return Err(Error::new_spanned(lit, message));
    }
    let expected = "expected a path to the `profiler` crate: `crate = profiler`";
    let path = input
        .call(Path::parse_mod_style)
        .map_err(|error| Error::new(error.span(), expected))?;
    if !input.is_empty() && !input.peek(Token![,]) {
        return Err(input.error(expected));
    }
    Ok(path)
}

/// Skips to the next top-level comma (or the end) after a bad argument.
pub(super) fn skip_argument(input: ParseStream) {
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
