use profiler::brick;

#[brick(DownProjection, layer = layer)]
fn down(layer: f32) -> f32 {
    layer
}

fn main() {
    down(0.0);
}
