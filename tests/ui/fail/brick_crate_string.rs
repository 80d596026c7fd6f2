use profiler::brick;

#[brick(RmsNorm, crate = "profiler")]
fn norm() {}

fn main() {}
