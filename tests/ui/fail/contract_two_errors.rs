use profiler::contract;

// Both mistakes are reported in one compile: the misspelt argument and the
// `const fn`.
#[contract(roofline_model_v1::model_bytes, inptu = (params, bits))]
const fn model_bytes(params: u64, bits: u64) -> u64 {
    params * bits / 8
}

fn main() {}
