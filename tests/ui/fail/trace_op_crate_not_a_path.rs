use profiler::trace_op;

#[trace_op(crate = 42)]
fn matmul() {}

fn main() {}
