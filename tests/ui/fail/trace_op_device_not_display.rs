use profiler::trace_op;

struct Gpu(u32);

#[trace_op(device = gpu)]
fn launch(gpu: &Gpu) -> u32 {
    gpu.0
}

fn main() {
    launch(&Gpu(0));
}
