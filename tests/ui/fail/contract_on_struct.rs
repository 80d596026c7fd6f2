use profiler::contract;

#[contract(roofline_model_v1::model_bytes)]
struct ModelBytes(f64);

fn main() {}
