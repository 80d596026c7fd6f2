use profiler::brick;

#[brick("FlashAttention", category = Atention)]
fn flash() {}

fn main() {
    flash();
}
