use profiler::brick;

#[brick("")]
fn kernel() {}

fn main() {
    kernel();
}
