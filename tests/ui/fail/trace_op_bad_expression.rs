use profiler::trace_op;

#[trace_op(device = gpu., name = "matmul")]
fn matmul(gpu: u32) -> u32 {
    gpu
}

fn main() {
    matmul(0);
}
