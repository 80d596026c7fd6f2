//! The generated macros and `#[contract]` check in debug builds and are
//! compiled out in release builds.

use profiler_contracts_user::{KvCache, softmax, softmax_unnormalised};

fn panic_message(f: impl FnOnce() + std::panic::UnwindSafe) -> Option<String> {
    std::panic::catch_unwind(f)
        .err()
        .map(|e| e.downcast_ref::<String>().cloned().unwrap_or_default())
}

#[test]
fn conditions_that_hold_do_not_panic() {
    let mut cache = KvCache {
        keys: Vec::new(),
        capacity: 2,
    };
    assert_eq!(cache.append(vec![1.0]), 1);
    assert_eq!(cache.append(vec![2.0]), 2);
    let p = softmax(&[1.0, 2.0, 3.0]);
    assert!((p.iter().sum::<f32>() - 1.0).abs() < 1e-6);
}

#[test]
fn the_no_op_form_checks_nothing() {
    let mut cache = KvCache {
        keys: vec![vec![0.0]],
        capacity: 1,
    };
    cache.append_unchecked(vec![1.0]);
    assert_eq!(cache.keys.len(), 2);
}

#[cfg(debug_assertions)]
#[test]
fn a_full_cache_breaks_the_generated_precondition() {
    let message = panic_message(|| {
        let mut cache = KvCache {
            keys: vec![vec![0.0]],
            capacity: 1,
        };
        cache.append(vec![1.0]);
    })
    .expect("the precondition fails");
    assert!(
        message.starts_with(
            "contract `kv-cache-v1`, equation `cache_append`: precondition failed: \
             `input.0 < input.1` ("
        ),
        "{message}"
    );
    assert!(message.ends_with("kv-cache-v1.yaml:14)"), "{message}");
}

#[cfg(debug_assertions)]
#[test]
fn an_unnormalised_softmax_breaks_the_attribute_postcondition() {
    let message = panic_message(|| {
        let _ = softmax_unnormalised(&[1.0, 2.0]);
    })
    .expect("the postcondition fails");
    assert!(
        message.contains(
            "equation `attention_probs`: postcondition failed: \
             `(result.iter().sum::<f32>() - 1.0).abs() < 1e-4`"
        ),
        "{message}"
    );
}

#[cfg(not(debug_assertions))]
#[test]
fn release_builds_compile_the_checks_out() {
    let mut cache = KvCache {
        keys: vec![vec![0.0]],
        capacity: 1,
    };
    assert_eq!(cache.append(vec![1.0]), 2);
    assert_eq!(softmax_unnormalised(&[0.0]).len(), 1);
}
