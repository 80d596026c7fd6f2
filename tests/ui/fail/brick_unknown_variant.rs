use profiler::brick;

#[brick(RmsNrom)]
fn norm() {}

fn main() {
    norm();
}
