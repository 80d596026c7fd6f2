use profiler::brick;

#[brick(RmsNorm)]
struct RmsNorm {
    eps: f32,
}

fn main() {
    let _ = RmsNorm { eps: 1e-6 }.eps;
}
