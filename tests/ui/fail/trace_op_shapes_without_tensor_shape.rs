use profiler::trace_op;

struct Matrix {
    rows: usize,
}

#[trace_op(shapes(m))]
fn rows(m: &Matrix) -> usize {
    m.rows
}

fn main() {
    rows(&Matrix { rows: 2 });
}
