use profiler::brick;

#[brick(RmsNorm, crate = profiler, crate = profiler)]
fn norm() {}

fn main() {}
