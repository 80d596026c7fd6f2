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
        err.to_string().contains("newer than the supported 1.0"),
        "{err}"
    );
}

#[test]
fn bad_or_missing_versions_are_typed_errors() {
    for (text, needle) in [
        ("{}", "no `schema_version` field"),
        (r#"{"schema_version": 1}"#, "schema_version `1`"),
        (r#"{"schema_version": "one"}"#, "schema_version `one`"),
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
