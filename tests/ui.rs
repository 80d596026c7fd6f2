//! Compile-time behaviour of `#[brick]` and `#[trace_op]` (trybuild).
//!
//! `ui/pass`: every supported function shape compiles warning-free and
//! records. `ui/fail`: one misuse per file; its `.stderr` is the exact
//! diagnostic. The `.stderr` files are pinned to the toolchain CI uses
//! (Rust 1.95); regenerate with `TRYBUILD=overwrite cargo test --test ui`
//! and review the diff.
#![cfg(not(feature = "off"))]

#[test]
fn ui() {
    let cases = trybuild::TestCases::new();
    cases.pass("tests/ui/pass/*.rs");
    cases.compile_fail("tests/ui/fail/*.rs");
}
