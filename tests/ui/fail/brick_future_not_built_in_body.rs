use std::future::Future;

use profiler::brick;

#[brick("Ready")]
fn ready() -> impl Future<Output = u32> {
    std::future::ready(1)
}

fn main() {}
