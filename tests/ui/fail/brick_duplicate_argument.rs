use profiler::brick;

#[brick(RmsNorm, elements = x.len(), bytes = 4, elements = 2)]
fn norm(x: &[f32]) -> usize {
    x.len()
}

fn main() {
    norm(&[]);
}
