use profiler::brick;

#[brick(DownProjection, layer = layer)]
fn down(layer: i32) -> i32 {
    layer
}

fn main() {
    down(0);
}
