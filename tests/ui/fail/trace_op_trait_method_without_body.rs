use profiler::trace_op;

trait Layer {
    #[trace_op(name = "forward")]
    fn forward(&self) -> Vec<f32>;
}

struct Identity;

impl Layer for Identity {
    fn forward(&self) -> Vec<f32> {
        Vec::new()
    }
}

fn main() {
    Identity.forward();
}
