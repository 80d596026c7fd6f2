// Generates `$OUT_DIR/contracts.rs` from ./contracts; a malformed contract
// fails the build with `file:line: field: message`.
fn main() {
    profiler_contracts::codegen::generate("contracts");
}
