//! `#[contract(name::equation)]`: binds a function to an equation of a YAML
//! contract (shipped, or in the crate's `contracts/` folder) and checks the
//! equation's pre- and postconditions around every call in debug builds.
//!
//! Chain: `ContractArgs::parse` (`attr.rs`) -> lookup of the contract and
//! equation (`lookup.rs`) -> `expand` (`expand.rs`). On error the item is
//! emitted unchanged with the error, so the user sees one message.

mod attr;
mod expand;
mod lookup;

use proc_macro2::TokenStream;
use quote::quote;
use syn::{Error, ItemFn};

use attr::ContractArgs;

pub(crate) fn contract(args: TokenStream, item: TokenStream) -> TokenStream {
    let result = syn::parse2::<ContractArgs>(args).and_then(|args| {
        let func = syn::parse2::<ItemFn>(item.clone())
            .map_err(|e| Error::new(e.span(), "`#[contract]` applies to a function with a body"))?;
        expand::expand(&args, &func)
    });
    match result {
        Ok(tokens) => tokens,
        Err(e) => {
            let error = e.to_compile_error();
            quote!(#error #item)
        }
    }
}
