use profiler::brick;

trait Kernel {
    #[brick(RmsNorm)]
    fn run(&self, x: &mut [f32]);
}

struct Norm;

impl Kernel for Norm {
    fn run(&self, _x: &mut [f32]) {}
}

fn main() {
    Norm.run(&mut []);
}
