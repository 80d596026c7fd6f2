//! `--help` documents exit statuses and examples for every subcommand;
//! usage errors exit 2.

mod common;

use common::{golden, run};

const SUBCOMMANDS: [&[&str]; 16] = [
    &["scorecard"],
    &["roofline"],
    &["parity"],
    &["diff"],
    &["trace", "summary"],
    &["trace", "flamegraph"],
    &["import", "ncu"],
    &["import", "nsys"],
    &["contracts", "verify"],
    &["html"],
    &["trace", "chrome"],
    &["trace", "speedscope"],
    &["probe"],
    &["fleet"],
    &["trace", "perfetto"],
    &["trace", "ranks"],
];

#[test]
fn top_level_help_lists_exit_statuses_and_examples() {
    let out = run(&["--help"]).expect(0);
    golden("help.txt", &out.stdout);
    for needle in [
        "Exit status:",
        "0  the report",
        "1  a check failed",
        "2  usage",
        "3  ncu",
        "Examples:",
    ] {
        assert!(out.stdout.contains(needle), "{needle}");
    }
    for sub in [
        "scorecard",
        "roofline",
        "parity",
        "diff",
        "trace",
        "import",
        "contracts",
        "html",
        "probe",
        "fleet",
    ] {
        assert!(out.stdout.contains(&format!("  {sub} ")), "{sub}");
    }
}

/// The help lists the devices `--hardware` takes from the preset table
/// itself, so a row added there is offered without touching the CLI, and a
/// name it lists resolves.
#[test]
fn help_lists_every_device_of_the_preset_table() {
    let out = run(&["--help"]).expect(0);
    let listed = out
        .stdout
        .split("--hardware takes a device name (")
        .nth(1)
        .and_then(|rest| rest.split(')').next())
        .expect("the help names the devices");
    let devices: Vec<&str> = profiler_report::hardware::DEVICES
        .iter()
        .filter(|d| !d.reference)
        .map(|d| d.aliases[0])
        .collect();
    let listed: Vec<&str> = listed.split(", ").map(str::trim).collect();
    assert_eq!(listed, devices);
    for name in listed {
        assert!(profiler_report::hardware::preset(name).is_ok(), "{name}");
    }
}

#[test]
fn every_subcommand_has_examples() {
    for sub in SUBCOMMANDS {
        let mut args = sub.to_vec();
        args.push("--help");
        let out = run(&args).expect(0);
        assert!(
            out.stdout.contains("Example"),
            "{sub:?} --help has no examples:\n{}",
            out.stdout
        );
    }
}

#[test]
fn usage_errors_exit_2() {
    let out = run(&["frobnicate"]).expect(2);
    assert!(
        out.stderr.contains("unrecognized subcommand"),
        "{}",
        out.stderr
    );
    let out = run(&["diff", "only-one.json"]).expect(2);
    assert!(out.stderr.contains("NEW>"), "{}", out.stderr);
    let out = run(&["scorecard", "x.json", "--format", "yaml"]).expect(2);
    assert!(out.stderr.contains("yaml"), "{}", out.stderr);
    let out = run(&["import", "ncu"]).expect(2);
    assert!(out.stderr.contains("<FILE>"), "{}", out.stderr);
    assert!(
        run(&["--version"])
            .expect(0)
            .stdout
            .starts_with("brick-profiler ")
    );
}

/// `diff --help` names every format it writes, and `--format` offers them.
#[test]
fn diff_help_names_every_format() {
    let out = run(&["diff", "--help"]).expect(0);
    for format in ["table", "text", "markdown", "json", "bmf", "gab", "junit"] {
        assert!(out.stdout.contains(format), "{format}: {}", out.stdout);
    }
    assert!(
        out.stdout.contains("Bencher Metric Format"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("github-action-benchmark"),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("JUnit XML"), "{}", out.stdout);
}
