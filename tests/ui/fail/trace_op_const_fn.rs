use profiler::trace_op;

#[trace_op]
const fn matmul() {}

fn main() {
    matmul();
}
