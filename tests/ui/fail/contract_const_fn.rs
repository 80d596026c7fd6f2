use profiler::contract;

#[contract(roofline_model_v1::model_bytes, input = (params, bits))]
const fn model_bytes(params: u64, bits: u64) -> u64 {
    params * bits / 8
}

fn main() {}
