use profiler::brick;

#[brick("Tile", bytes = 4096, level = L4)]
fn tile() {}

fn main() {
    tile();
}
