use profiler::contract;

#[contract(roofline_model_v1::model_bytes, input = (params, bits), input = (bits, params))]
fn model_bytes(params: f64, bits: f64) -> f64 {
    params * bits / 8.0
}

fn main() {}
