use profiler::brick;

#[brick(RmsNorm, elements)]
fn norm() {}

fn main() {
    norm();
}
