use profiler::brick;

#[brick(GateProjection, category = Attention)]
fn gate() {}

fn main() {
    gate();
}
