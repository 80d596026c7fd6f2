use profiler::trace_op;

#[trace_op(shapes(a), name = "matmul", shapes(a))]
fn matmul(a: &[f32]) -> usize {
    a.len()
}

fn main() {
    matmul(&[]);
}
