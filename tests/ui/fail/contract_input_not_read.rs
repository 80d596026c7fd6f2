use profiler::contract;

#[contract(training_step_scorecard_v1::transfer_fraction, input = pct_sum)]
fn transfer_fraction(pct_sum: f64) -> f64 {
    (pct_sum / 100.0).min(1.0)
}

fn main() {}
