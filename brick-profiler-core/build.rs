//! Generates the contract macros of the shipped YAML contracts into
//! `$OUT_DIR/contracts.rs` (included by `src/contract.rs`). The YAML is
//! embedded in `brick-profiler-contracts`, so editing a contract rebuilds that
//! crate and re-runs this script.

fn main() {
    profiler_contracts::codegen::generate_shipped();
}
