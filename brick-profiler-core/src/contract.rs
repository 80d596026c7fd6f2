//! Contract macros generated at build time from the shipped YAML contracts
//! (`brick-profiler-contracts/` at the workspace root): `contract_pre_<equation>!` and
//! `contract_post_<equation>!`, checked in debug builds only.
//!
//! Used inside the crate as `crate::contract::contract_pre_sync_verification!(mode)`:
//! with an argument, the macro binds `input` (or `result`) to a reference to
//! it and asserts every condition of the equation; without one it is a
//! no-op marker. Release builds compile the checks out.

include!(concat!(env!("OUT_DIR"), "/contracts.rs"));
