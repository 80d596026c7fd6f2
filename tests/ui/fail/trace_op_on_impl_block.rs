use profiler::trace_op;

struct Linear;

#[trace_op]
impl Linear {
    fn forward(&self) {}
}

fn main() {
    Linear.forward();
}
