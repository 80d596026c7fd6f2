// What a build mixing releases gets: every `#[brick]` and `#[trace_op]`
// expansion carries the macros' version into this check, and a runtime of
// another release refuses it at compile time.
const _: () = profiler::__private::require_version("0.0.1");

fn main() {}
