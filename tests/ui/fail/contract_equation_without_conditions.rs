use profiler::contract;

#[contract(roofline_model_v1::roofline_bottleneck)]
fn bandwidth_bound(bw: f64, compute: f64) -> bool {
    bw < compute
}

fn main() {}
