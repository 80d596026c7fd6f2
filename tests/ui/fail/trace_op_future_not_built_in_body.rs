use std::future::Future;
use std::pin::Pin;

use profiler::trace_op;

#[trace_op]
fn stored() -> Pin<Box<dyn Future<Output = u8> + Send>> {
    let future = async { 1 };
    Box::pin(future)
}

fn main() {}
