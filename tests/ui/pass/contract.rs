//! `#[contract]` on free functions, methods, early returns and slices: the
//! conditions hold for correct code, and a broken postcondition panics with
//! the contract, the equation and the condition (debug builds).
#![deny(warnings)]

use profiler::contract;

#[contract(roofline_model_v1::model_bytes, input = (params, bits))]
fn model_bytes(params: f64, bits: f64) -> f64 {
    params * bits / 8.0
}

struct Throughputs {
    ours: f64,
    baseline: f64,
}

impl Throughputs {
    #[contract(parity_profiling_v1::throughput_ratio, input = (self.baseline, self.ours))]
    fn ratio(&self) -> f64 {
        if self.ours > 0.0 {
            self.baseline / self.ours
        } else {
            0.0
        }
    }
}

/// An early `return` still reaches the postconditions.
#[contract(training_step_scorecard_v1::launch_overhead, input = (phase_ms, step_ms))]
fn launch_overhead(phase_ms: f64, step_ms: f64) -> f64 {
    if step_ms <= 0.0 {
        return 0.0;
    }
    1.0 - (phase_ms / step_ms).min(1.0)
}

/// The only parameter is `input` by default.
#[contract(training_step_scorecard_v1::grade)]
fn grade(efficiency: f64) -> char {
    match efficiency {
        e if e >= 0.6 => 'A',
        e if e >= 0.4 => 'B',
        e if e >= 0.2 => 'C',
        e if e >= 0.1 => 'D',
        _ => 'F',
    }
}

#[contract(parity_profiling_v1::parity_achieved, input = gaps)]
fn parity(gaps: &[f64]) -> bool {
    gaps.iter().all(|r| *r <= 1.10)
}

/// Forgets to clamp: its postcondition fails above 100%.
#[contract(training_step_scorecard_v1::transfer_fraction)]
fn transfer_fraction(pct_sum: f64) -> f64 {
    pct_sum / 100.0
}

/// An `async fn`: the postconditions run when the future completes.
#[contract(training_step_scorecard_v1::transfer_fraction)]
async fn transfer_fraction_async(pct_sum: f64) -> f64 {
    (pct_sum / 100.0).min(1.0)
}

fn main() {
    let mut future = std::pin::pin!(transfer_fraction_async(250.0));
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    assert_eq!(
        std::future::Future::poll(future.as_mut(), &mut cx),
        std::task::Poll::Ready(1.0)
    );

    assert_eq!(model_bytes(8e9, 4.0), 4e9);
    let t = Throughputs {
        ours: 50.0,
        baseline: 100.0,
    };
    assert_eq!(t.ratio(), 2.0);
    assert_eq!(launch_overhead(1.0, 0.0), 0.0);
    assert_eq!(launch_overhead(75.0, 100.0), 0.25);
    assert_eq!(grade(0.6), 'A');
    assert!(parity(&[1.1, 0.9]));
    assert_eq!(transfer_fraction(30.0), 0.3);

    std::panic::set_hook(Box::new(|_| {}));
    let err = std::panic::catch_unwind(|| transfer_fraction(150.0)).unwrap_err();
    let message = err.downcast_ref::<String>().unwrap();
    assert!(
        message.starts_with(
            "contract `training-step-scorecard-v1`, equation `transfer_fraction`: \
             postcondition failed: `(0.0..=1.0).contains(result)`"
        ),
        "{message}"
    );
    let err = std::panic::catch_unwind(|| grade(1.5)).unwrap_err();
    let message = err.downcast_ref::<String>().unwrap();
    assert!(message.contains("precondition failed: `(0.0..=1.0).contains(input)`"), "{message}");
}
