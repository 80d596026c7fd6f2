use profiler::contract;

#[contract]
fn model_bytes(params: f64, bits: f64) -> f64 {
    params * bits / 8.0
}

fn main() {}
