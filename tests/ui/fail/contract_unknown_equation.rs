use profiler::contract;

#[contract(gpu_decode_profiling_v1::wall_coverag)]
fn total_ns(profile: &profiler::Profile) -> u64 {
    profile.total_ns()
}

fn main() {}
