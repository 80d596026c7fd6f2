use profiler::brick;

#[brick(RmsNorm, elemnts = x.len())]
fn norm(x: &[f32]) -> usize {
    x.len()
}

fn main() {
    norm(&[]);
}
