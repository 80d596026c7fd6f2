use profiler::trace_op;

#[trace_op(nme = "matmul")]
fn matmul() {}

fn main() {
    matmul();
}
