use profiler::contract;

#[contract(wall_coverage)]
fn total_ns(profile: &profiler::Profile) -> u64 {
    profile.total_ns()
}

fn main() {}
