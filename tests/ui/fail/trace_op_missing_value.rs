use profiler::trace_op;

#[trace_op(device)]
fn matmul() {}

fn main() {
    matmul();
}
