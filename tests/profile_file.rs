//! Reading profiles back: versions, defaults and typed errors.

use profiler::{Profile, profile::ProfileError};

#[test]
fn missing_optional_fields_take_defaults() {
    let profile = Profile::from_json(r#"{"schema_version": "1.0", "bricks": [{"name": "RmsNorm", "count": 2, "total_ns": 10, "min_ns": 4, "max_ns": 6}]}"#)
        .expect("minimal profile");
    let b = profile.brick("RmsNorm").expect("brick");
    assert_eq!((b.count, b.total_elements, b.min_cycles), (2, 0, u64::MAX));
    assert!(profile.steps.samples_ns.is_empty());
    assert_eq!(profile.counters.lost(), 0);
}

#[test]
fn a_newer_minor_version_is_read_and_unknown_fields_ignored() {
    let profile = Profile::from_json(r#"{"schema_version": "1.7", "future_field": [1, 2]}"#)
        .expect("newer minor");
    assert_eq!(profile.schema_version, "1.7");
}

#[test]
fn a_newer_major_version_is_rejected_with_a_clear_error() {
    let err = Profile::from_json(r#"{"schema_version": "2.0"}"#).unwrap_err();
    assert!(matches!(err, ProfileError::NewerSchema { ref found, .. } if found == "2.0"));
    assert!(
        err.to_string().contains("newer than the supported 1.4"),
        "{err}"
    );
}

#[test]
fn bad_or_missing_versions_are_typed_errors() {
    for (text, needle) in [
        ("{}", "no `schema_version` field"),
        (r#"{"schema_version": 1}"#, "schema_version 1;"),
        (r#"{"schema_version": "one"}"#, r#"schema_version "one""#),
        (
            r#"{"schema_version": "1.garbage"}"#,
            r#"schema_version "1.garbage""#,
        ),
        (r#"{"schema_version": "+1.0"}"#, r#"schema_version "+1.0""#),
        (r#"{"schema_version": "0.1"}"#, "MAJOR 1 or later"),
        (r#"{"schema_version": "1"}"#, r#"schema_version "1""#),
    ] {
        let err = Profile::from_json(text).unwrap_err();
        assert!(
            matches!(err, ProfileError::BadVersion { .. }),
            "{text}: {err:?}"
        );
        assert!(err.to_string().contains(needle), "{err}");
    }
}

#[test]
fn malformed_json_names_the_field_and_position() {
    let err = Profile::from_json("{\"schema_version\": \"1.0\",\n \"bricks\": [{\"name\": 5}]}")
        .unwrap_err();
    match &err {
        ProfileError::Malformed { line, message, .. } => {
            assert_eq!(*line, 2);
            assert!(message.contains("invalid type"), "{message}");
        }
        other => panic!("expected Malformed, got {other:?}"),
    }
    let err = Profile::from_json("{\"schema_version\": \"1.0\", \"bricks\": [").unwrap_err();
    assert!(matches!(err, ProfileError::Malformed { .. }));
    let err = Profile::from_json("not json").unwrap_err();
    assert!(err.to_string().contains("line 1"), "{err}");
}

#[test]
fn file_errors_name_the_path() {
    let missing = std::env::temp_dir().join("profiler-no-such-dir/profile.json");
    let err = Profile::read(&missing).unwrap_err();
    assert!(matches!(err, ProfileError::Read { .. }));
    assert!(err.to_string().contains("profiler-no-such-dir"), "{err}");
    let err = Profile::empty().write(&missing).unwrap_err();
    assert!(matches!(err, ProfileError::Write { .. }));

    let dir = std::env::temp_dir().join(format!("profiler-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let path = dir.join("broken.json");
    std::fs::write(
        &path,
        "{\"schema_version\": \"1.0\", \"steps\": {\"count\": -1}}",
    )
    .expect("write");
    let err = Profile::read(&path).unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("broken.json") && text.contains("line 1"),
        "{text}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_byte_order_mark_is_accepted() {
    let profile = Profile::from_json("\u{feff}{\"schema_version\": \"1.1\"}").expect("BOM");
    assert_eq!(profile.schema_version, "1.1");
}

#[test]
fn input_that_is_not_an_object_says_so() {
    for (text, needle) in [
        ("null", "expected a JSON object (a profile), found `null`"),
        ("  [1, 2]", "found `[1, 2]`"),
        ("", "empty file"),
    ] {
        let err = Profile::from_json(text).unwrap_err();
        let message = err.to_string();
        assert!(message.contains(needle), "{text:?}: {message}");
        assert!(!message.contains("VersionOnly") && !message.contains("Header"));
    }
}

#[test]
fn values_no_measurement_can_produce_are_refused_with_their_field() {
    let trace = |entries: &str, total: &str| {
        format!(
            r#"{{"schema_version": "1.1", "trace": {{"entries": [{entries}], "total_duration_us": {total}}}}}"#
        )
    };
    let op = |us: &str| format!(r#"{{"step": 0, "operation": "op", "duration_us": {us}}}"#);
    for (text, field) in [
        (trace(&op("-500"), "-10"), "trace.entries[0].duration_us"),
        (trace(&op("1"), "-10"), "trace.total_duration_us"),
        (
            trace(&format!("{}, {}", op("1e308"), op("1e308")), "1e308"),
            "trace.entries[1].duration_us",
        ),
        (
            r#"{"schema_version": "1.1", "run": {"l2_cache_hit_rate": 1.5}}"#.to_owned(),
            "run.l2_cache_hit_rate",
        ),
    ] {
        match Profile::from_json(&text) {
            Err(ProfileError::Invalid { source, .. }) => assert_eq!(source.field, field, "{text}"),
            other => panic!("{text}: expected Invalid, got {other:?}"),
        }
    }
}

#[test]
fn saved_sentinels_are_null_and_read_back() {
    let mut profile = Profile::empty();
    profile.steps.schedule = Some(profiler::Schedule::skip_warmup(3));
    let json = profile.to_json();
    assert!(!json.contains("18446744073709551615"), "{json}");
    assert!(json.contains("\"active\": null"), "{json}");
    let back = Profile::from_json(&json).expect("round trip");
    assert_eq!(back.steps.schedule, profile.steps.schedule);
}
