use profiler::trace_op;

#[trace_op(name = matmul)]
fn matmul() {}

fn main() {
    matmul();
}
