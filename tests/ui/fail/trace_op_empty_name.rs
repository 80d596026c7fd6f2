use profiler::trace_op;

#[trace_op(name = "")]
fn matmul() {}

fn main() {
    matmul();
}
