use profiler::contract;

#[contract(gpu_decode_profilng_v1::wall_coverage)]
fn total_ns(profile: &profiler::Profile) -> u64 {
    profile.total_ns()
}

fn main() {}
