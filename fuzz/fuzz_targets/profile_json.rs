//! Any text through `Profile::from_json`: reading never panics, and every
//! profile it accepts goes through every output, each of which reads back.

#![no_main]

#[path = "../common/mod.rs"]
mod common;

use libfuzzer_sys::fuzz_target;
use profiler_core::Profile;

fuzz_target!(|data: &[u8]| {
    let Some(text) = common::text(data) else {
        return;
    };
    if let Ok(profile) = Profile::from_json(text) {
        common::check_profile(&profile);
    }
});
