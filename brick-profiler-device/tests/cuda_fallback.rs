//! The CUDA timer on whatever this machine has: without a driver it falls
//! back to host timing and says so in the profile notes; with one, events
//! on the default stream resolve once the stream is synchronised.
#![cfg(feature = "cuda")]

use std::time::Duration;

use profiler_core::sync::DeviceTimer;
use profiler_device::cuda::{CudaTimer, default_stream};

#[test]
fn the_timer_never_panics_for_a_missing_driver_and_says_what_it_measures() {
    let timer = CudaTimer::on_device(0);
    let start = timer.record_event();
    std::thread::sleep(Duration::from_millis(2));
    let end = timer.record_event();
    match timer.fallback() {
        Some(why) => {
            let notes = timer.notes();
            assert_eq!(notes.len(), 1, "{notes:?}");
            assert!(notes[0].contains("fell back to host timing"), "{notes:?}");
            assert!(notes[0].contains(&why.to_string()), "{notes:?}");
            let ns = timer.elapsed_ns(start, end).expect("host events resolve");
            assert!(ns >= 2_000_000, "host time spans the sleep: {ns}");
            assert_eq!(timer.stats(), None);
        }
        None => {
            default_stream(0)
                .expect("the driver the timer found")
                .synchronize()
                .expect("the stream synchronises");
            assert!(timer.elapsed_ns(start, end).is_some(), "events resolve");
            timer.release(start);
            timer.release(end);
            let stats = timer.stats().expect("a pool");
            assert_eq!((stats.recorded, stats.in_flight), (2, 0));
        }
    }
}
