use profiler::brick;

#[brick(elements = n)]
fn kernel(n: usize) -> usize {
    n
}

fn main() {
    kernel(1);
}
