use profiler::brick;

#[brick(Convolution)]
fn conv() {}

fn main() {
    conv();
}
