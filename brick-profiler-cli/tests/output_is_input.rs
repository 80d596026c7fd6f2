//! No command writes over one of its own inputs: an output path that is
//! the same file as an input (spelled the same, through `./`, through a
//! link, or as the `FILE` of `FILE#N`) is refused before anything is
//! written, and the input is left as it was.

mod common;

use std::path::Path;

use common::{PROFILE, root, run_with};

/// Copies `from` (relative to the root) into `dir` as `name`.
fn copy(dir: &Path, from: &str, name: &str) -> Vec<u8> {
    let bytes = std::fs::read(root().join(from)).unwrap();
    std::fs::write(dir.join(name), &bytes).unwrap();
    bytes
}

#[track_caller]
fn refused(dir: &Path, args: &[&str], input: &str, before: &[u8]) {
    let out = run_with(dir, args, None).expect(2);
    assert!(
        out.stderr.contains("is an input of this command")
            && out.stderr.contains("cannot also be its output"),
        "{args:?}: {}",
        out.stderr
    );
    assert_eq!(
        std::fs::read(dir.join(input)).unwrap(),
        before,
        "{args:?} changed its input"
    );
}

#[test]
fn every_command_that_writes_refuses_its_own_input() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let run = copy(d, PROFILE, "run.json");
    let nsys = copy(
        d,
        "tests/fixtures/real/nsight/nsys_five_runs_a100.md",
        "five.md",
    );
    refused(d, &["html", "run.json", "-o", "run.json"], "run.json", &run);
    refused(
        d,
        &["html", "run.json", "-o", "./run.json"],
        "run.json",
        &run,
    );
    refused(
        d,
        &["scorecard", "run.json", "--output=run.json"],
        "run.json",
        &run,
    );
    refused(
        d,
        &["trace", "chrome", "run.json", "-o", "run.json"],
        "run.json",
        &run,
    );
    refused(
        d,
        &["trace", "perfetto", "run.json", "-o", "run.json"],
        "run.json",
        &run,
    );
    refused(
        d,
        &[
            "roofline",
            "run.json",
            "--hardware",
            "h100",
            "--svg",
            "run.json",
        ],
        "run.json",
        &run,
    );
    refused(
        d,
        &["diff", "five.md#4", "five.md#5", "-o", "five.md"],
        "five.md",
        &nsys,
    );
    refused(
        d,
        &["import", "nsys", "five.md#1", "--save-profile", "five.md"],
        "five.md",
        &nsys,
    );
    // An earlier output is overwritten as before.
    std::fs::write(d.join("report.html"), "old").unwrap();
    run_with(d, &["html", "run.json", "-o", "report.html"], None).expect(0);
    assert_ne!(std::fs::read(d.join("report.html")).unwrap(), b"old");
}

#[cfg(unix)]
#[test]
fn a_link_to_the_input_is_the_input() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let run = copy(d, PROFILE, "run.json");
    std::os::unix::fs::symlink(d.join("run.json"), d.join("link.json")).unwrap();
    refused(
        d,
        &["html", "run.json", "-o", "link.json"],
        "run.json",
        &run,
    );
}

/// A run directory of two ranks (copies of the main job's profile), the
/// second without its profile yet.
fn run_dir(d: &Path) -> Vec<u8> {
    for r in 0..2 {
        std::fs::create_dir_all(d.join(format!("run/rank-{r:05}"))).unwrap();
    }
    copy(d, PROFILE, "run/rank-00000/profile.json")
}

#[test]
fn fleet_refuses_an_output_over_a_rank_profile() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let rank0 = run_dir(d);
    let refused_here = |args: &[&str], rank: &str| {
        let out = run_with(d, args, None).expect(2);
        assert!(
            out.stderr
                .contains(&format!("is `{rank}` of the run directory"))
                && out.stderr.contains("cannot also be its output"),
            "{args:?}: {}",
            out.stderr
        );
        assert_eq!(
            std::fs::read(d.join("run/rank-00000/profile.json")).unwrap(),
            rank0,
            "{args:?} changed a rank's profile"
        );
        assert!(
            !d.join("run/rank-00001/profile.json").exists(),
            "{args:?} planted a rank's profile"
        );
    };
    let p0 = "rank-00000/profile.json";
    refused_here(
        &["fleet", "run", "--html", "run/rank-00000/profile.json"],
        p0,
    );
    refused_here(&["fleet", "run", "-o", "run/./rank-00000/profile.json"], p0);
    refused_here(
        &["fleet", "./run/", "--html", "run/rank-00000/profile.json"],
        p0,
    );
    // A rank without its profile: the output would be read as that rank next time.
    let p1 = "rank-00001/profile.json";
    refused_here(
        &["fleet", "run", "--html", "run/rank-00001/profile.json"],
        p1,
    );
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(d.join("run/rank-00000/profile.json"), d.join("link.html"))
            .unwrap();
        refused_here(&["fleet", "run", "--html", "link.html"], p0);
        // A rank directory that is a link to a folder elsewhere.
        std::fs::create_dir(d.join("elsewhere")).unwrap();
        copy(d, PROFILE, "elsewhere/profile.json");
        std::os::unix::fs::symlink(d.join("elsewhere"), d.join("run/rank-00002")).unwrap();
        refused_here(
            &["fleet", "run", "--html", "elsewhere/profile.json"],
            "rank-00002/profile.json",
        );
    }
    // Outputs beside the ranks are fine.
    run_with(d, &["fleet", "run", "--html", "run/fleet.html"], None).expect(0);
    run_with(d, &["fleet", "run", "-o", "run/rank-00000/fleet.txt"], None).expect(0);
    assert!(d.join("run/fleet.html").exists() && d.join("run/rank-00000/fleet.txt").exists());
}

#[test]
fn probe_save_refuses_a_path_another_argument_names() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let run = copy(d, PROFILE, "run.json");
    // A file given as an input (a hardware file) is not replaced by ceilings.
    refused(
        d,
        &[
            "--hardware",
            "run.json",
            "probe",
            "--save",
            "--path",
            "./run.json",
        ],
        "run.json",
        &run,
    );
    // The report and the ceilings cannot share a file, existing or not.
    for name in ["run.json", "new.toml"] {
        let out = run_with(
            d,
            &[
                "probe",
                "--save",
                "--path",
                name,
                "-o",
                &format!("./{name}"),
            ],
            None,
        )
        .expect(2);
        assert!(
            out.stderr
                .contains("is both where the ceilings are saved and `--output`"),
            "{}",
            out.stderr
        );
    }
    assert_eq!(std::fs::read(d.join("run.json")).unwrap(), run);
    assert!(!d.join("new.toml").exists());
}
