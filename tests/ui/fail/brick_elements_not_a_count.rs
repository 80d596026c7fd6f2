use profiler::brick;

#[brick(RmsNorm, elements = "x.len()")]
fn norm(x: &[f32]) -> usize {
    x.len()
}

fn main() {
    norm(&[]);
}
