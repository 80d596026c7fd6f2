//! The endpoint over HTTP: `/metrics` answers OpenMetrics with a snapshot
//! taken at scrape time; other paths answer 404.

use std::time::Duration;

use profiler_metrics::Endpoint;

fn agent() -> ureq::Agent {
    let config = ureq::config::Config::builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(10)))
        .build();
    ureq::Agent::new_with_config(config)
}

#[test]
fn metrics_are_served_as_openmetrics_with_what_was_recorded() {
    profiler_core::enable();
    profiler_core::compat::record_elapsed("EndpointProbe", Duration::from_millis(3), 1);
    let endpoint = Endpoint::serve("127.0.0.1:0").expect("loopback can listen");
    let response = agent()
        .get(&endpoint.url())
        .call()
        .expect("the endpoint answers");
    assert_eq!(response.status().as_u16(), 200);
    let content_type = response
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    assert!(
        content_type.starts_with("application/openmetrics-text"),
        "{content_type}"
    );
    let body = response.into_body().read_to_string().expect("a text body");
    assert!(body.ends_with("# EOF\n"), "{body}");
    let line = body
        .lines()
        .find(|l| {
            l.starts_with("profiler_brick_calls_total") && l.contains(r#"brick="EndpointProbe""#)
        })
        .unwrap_or_else(|| panic!("no EndpointProbe series:\n{body}"));
    assert!(line.ends_with(" 1"), "{line}");
    profiler_core::disable();
}

#[test]
fn other_paths_are_not_found_and_stop_ends_serving() {
    let endpoint = Endpoint::serve("127.0.0.1:0").expect("loopback can listen");
    let url = format!("http://{}/nothing", endpoint.addr());
    let response = agent().get(&url).call().expect("the endpoint answers");
    assert_eq!(response.status().as_u16(), 404);
    let metrics = endpoint.url();
    endpoint.stop();
    assert!(
        agent().get(&metrics).call().is_err(),
        "still serving after stop"
    );
}
