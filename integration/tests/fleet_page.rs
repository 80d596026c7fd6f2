//! The fleet page in a real browser, headless Chromium: the main job's
//! 4-rank run with a slow rank and the gradient all-reduce, and a generated run of 1,024 ranks x 200
//! steps. Each page loads with no console error, every chart has its data
//! points, the heat map is at least 600 px wide at a 1400 px window and its
//! tooltip names rank, step and time; the 1,024-rank page stays under
//! 2 MB. Screenshots at 1400 px and the time to open each page go to
//! `CARGO_TARGET_TMPDIR/fleet-page/` (the README's picture is one of them).
//!
//! Chromium is the Debian package `chromium` (`.ci/run` installs it); the
//! test fails, naming it, when it is missing.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use profiler::profile::PhaseStats;
use profiler::{BrickCategory, BrickStats, Profile};
use profiler_integration::{program, run_ranks_with, wait_for};
use profiler_report::fleet::{FleetReport, FleetSettings};
use profiler_report::html::FleetPage;

const EXE: &str = env!("CARGO_BIN_EXE_train_tiny");

/// Longest a Chromium run may take before the test calls it hung.
const BROWSER_LIMIT: Duration = Duration::from_secs(120);

/// Runs headless Chromium on `args` (a fresh profile folder each time),
/// killed when it outlives [`BROWSER_LIMIT`]; its stdout.
fn chromium(args: &[String]) -> String {
    let exe = program("chromium", "apt-get install -y chromium")
        .unwrap_or_else(|missing| panic!("the fleet page test needs Chromium: {missing}"));
    let profile = tempfile::tempdir().expect("temp dir");
    let out = tempfile::NamedTempFile::new().expect("temp file");
    let mut child = Command::new(exe)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--hide-scrollbars",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args(args)
        .stdout(out.reopen().expect("reopen"))
        .stderr(Stdio::null())
        .spawn()
        .expect("Chromium starts");
    let done = wait_for(BROWSER_LIMIT, || child.try_wait().ok().flatten());
    if done.is_none() {
        let _ = child.kill();
        let _ = child.wait();
        panic!("Chromium did not finish within {BROWSER_LIMIT:?}: {args:?}");
    }
    std::fs::read_to_string(out.path()).expect("Chromium's output")
}

/// Checks the page once it has loaded and writes what it found into the
/// DOM as JSON (`#check-result`), for `--dump-dom` to carry out.
const CHECK_SCRIPT: &str = r#"<script>
window.__errors = [];
window.addEventListener("error", function (e) { window.__errors.push(String(e.message)); });
(function () {
  var original = console.error;
  console.error = function () {
    window.__errors.push(Array.prototype.join.call(arguments, " "));
    original.apply(console, arguments);
  };
})();
window.addEventListener("load", function () {
  var n = function (s) { return document.querySelectorAll(s).length; };
  var svg = document.querySelector("svg.fleet-heat");
  var data = JSON.parse(document.getElementById("fleet-heat-data").textContent);
  var cells = 0, first = null;
  data.rows.forEach(function (row, r) {
    row[2].forEach(function (v, c) {
      if (v !== null) { cells++; if (first === null) first = [r, c]; }
    });
  });
  var tip = "";
  if (svg && first) {
    var pt = svg.createSVGPoint();
    pt.x = data.x0 + (first[1] + 0.5) * data.cw;
    pt.y = data.y0 + (first[0] + 0.5) * data.ch;
    var p = pt.matrixTransform(svg.getScreenCTM());
    svg.dispatchEvent(new MouseEvent("mousemove", { clientX: p.x, clientY: p.y, bubbles: true }));
    var shown = document.querySelector(".heat-tip");
    tip = shown ? shown.textContent : "";
  }
  // The cells show their colour: no stroke from the page's rules covers them.
  var path = document.querySelector("svg.fleet-heat path.cells"), style = path ? getComputedStyle(path) : null;
  var cell_paint = style ? style.stroke + " / " + style.fill : "";
  var nav = performance.getEntriesByType("navigation")[0];
  var result = {
    errors: window.__errors,
    bars: n("svg.fleet-bars rect.seg"),
    waits: n("svg.fleet-bars rect.seg.comm-wait"),
    transfers: n("svg.fleet-bars rect.seg.comm-transfer"),
    boxes: n("svg.fleet-spread rect.box"),
    outliers: n("svg.fleet-spread circle.outlier"),
    heat_paths: n("svg.fleet-heat path.cells"),
    heat_cells: cells,
    strips: n("svg.fleet-strip rect.bin"),
    rank_rows: n("table.fleet-ranks tbody tr"),
    heat_width: svg ? svg.getBoundingClientRect().width : 0,
    tip: tip,
    cell_paint: cell_paint,
    open_ms: nav ? nav.domContentLoadedEventEnd : performance.now()
  };
  var pre = document.createElement("pre");
  pre.id = "check-result";
  pre.textContent = JSON.stringify(result);
  document.body.appendChild(pre);
});
</script>"#;

/// What the browser found on a page.
#[derive(Debug)]
struct Found(serde_json::Value);

impl Found {
    fn count(&self, key: &str) -> u64 {
        self.0[key].as_u64().unwrap_or(0)
    }
}

/// Loads `page` (written in `dir`) in Chromium with the checks, at a
/// 1400 px wide window, and takes a 1400 px screenshot to `shot`.
fn load(dir: &Path, page: &str, shot: &Path, height: u32) -> Found {
    let checked = page.replacen("<head>", &format!("<head>\n{CHECK_SCRIPT}"), 1);
    let path = dir.join("fleet-checked.html");
    std::fs::write(&path, checked).expect("page written");
    let url = format!("file://{}", path.display());
    let dom = chromium(&["--window-size=1400,1000".into(), "--dump-dom".into(), url]);
    let start = dom
        .find("<pre id=\"check-result\">")
        .unwrap_or_else(|| panic!("the checks did not run: {}", &dom[..dom.len().min(2_000)]))
        + "<pre id=\"check-result\">".len();
    let end = start + dom[start..].find("</pre>").expect("end of the result");
    // The result is JSON inside HTML text: only `&`, `<` and `>` are escaped.
    let text = dom[start..end]
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&");
    let found = Found(serde_json::from_str(&text).expect("the checks' JSON"));
    let clean = dir.join("fleet.html");
    std::fs::write(&clean, page).expect("page written");
    chromium(&[
        format!("--window-size=1400,{height}"),
        format!("--screenshot={}", shot.display()),
        format!("file://{}", clean.display()),
    ]);
    assert!(
        shot.metadata().is_ok_and(|m| m.len() > 10_000),
        "no screenshot at {}",
        shot.display()
    );
    found
}

/// The folder screenshots are kept in.
fn shots() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("fleet-page");
    std::fs::create_dir_all(&dir).expect("screenshot folder");
    dir
}

/// Every chart drawn with data, no error, a wide heat map with a tooltip.
fn assert_charts(found: &Found, ranks: u64) {
    let f = &found.0;
    assert_eq!(f["errors"], serde_json::json!([]), "console errors: {f}");
    assert!(found.count("bars") >= ranks.min(48), "bars: {f}");
    assert!(found.count("boxes") >= ranks.min(128), "boxes: {f}");
    assert!(found.count("heat_paths") >= 1, "heat map: {f}");
    assert!(
        found.count("heat_cells") >= ranks.min(128),
        "heat cells: {f}"
    );
    assert!(found.count("strips") >= 1, "brick strips: {f}");
    assert_eq!(found.count("rank_rows"), ranks, "rank rows: {f}");
    let width = f["heat_width"].as_f64().unwrap_or(0.0);
    assert!(width >= 600.0, "heat map {width} px wide: {f}");
    let paint = f["cell_paint"].as_str().unwrap_or("");
    assert!(
        paint.starts_with("none / rgb(") && !paint.contains("rgba(0, 0, 0, 0)"),
        "heat cells painted {paint:?}"
    );
    let tip = f["tip"].as_str().unwrap_or("");
    assert!(
        tip.starts_with("rank") && tip.contains("step") && tip.ends_with(" ms"),
        "tooltip {tip:?}"
    );
}

#[test]
fn the_four_rank_page_loads_with_every_chart_in_chromium() {
    let dir = tempfile::tempdir().expect("temp dir");
    run_ranks_with(EXE.as_ref(), dir.path(), 4, Some(2), &["--allreduce"])
        .expect("the 4-rank run succeeds");
    let report = FleetReport::from_dir(dir.path(), FleetSettings::default()).expect("fleet");
    let page = FleetPage::new(&report).render();
    let shot = shots().join("fleet-4-ranks.png");
    let found = load(dir.path(), &page, &shot, 2_400);
    assert_charts(&found, 4);
    // The all-reduce: every rank's bar has its transfer, and the three
    // ranks that wait for rank 2 their wait.
    assert_eq!(found.count("transfers"), 4, "{:?}", found.0);
    assert!(found.count("waits") >= 3, "{:?}", found.0);
    for column in [">Communication</th>", ">Waiting</th>"] {
        assert!(page.contains(column), "{column}");
    }
    // The main job's ranks each link their report, trace and profile.
    for file in ["report.html", "trace.json", "profile.json"] {
        assert!(
            page.contains(&format!("href=\"rank-00002/{file}\"")),
            "{file}"
        );
    }
    println!(
        "4 ranks: {} KB, open {:.0} ms, {}",
        page.len() / 1024,
        found.0["open_ms"].as_f64().unwrap_or(0.0),
        shot.display()
    );
}

/// Rank `rank` of a generated run: `steps` steps, three phases, eight
/// bricks; rank 700 waits outside its phases, every 50th step is slower on
/// every rank, and node 40's ranks are slower for 20 steps.
fn generated(rank: u32, ranks: u32, steps: u64) -> Profile {
    let mut p = Profile::empty();
    p.run.rank = Some(rank);
    p.run.world_size = Some(ranks);
    p.run.run_id = "generated".into();
    p.run.host = format!("node{:03}", rank / 8);
    let slow = rank == 700;
    let step_ns = |s: u64| {
        let mut ns = 100_000_000 + (s * 7_919 + u64::from(rank) * 104_729) % 9_000_000;
        if slow {
            ns = ns * 3 / 2;
        }
        // Every 50th step checkpoints everywhere; node 40's ranks share a
        // noisy neighbour for steps 120-139.
        if s % 50 == 49 {
            ns = ns * 6 / 5;
        }
        if rank / 8 == 40 && (120..140).contains(&s) {
            ns = ns * 7 / 4;
        }
        ns
    };
    p.steps.samples_ns = (0..steps).map(step_ns).collect();
    p.steps.samples_index = (0..steps).collect();
    p.steps.count = steps;
    p.steps.total_ns = p.steps.samples_ns.iter().sum();
    let total = p.steps.total_ns;
    p.phases = [("forward", 30), ("backward", 45), ("optimizer", 8)]
        .into_iter()
        .map(|(name, share)| {
            // The slow rank's extra half step is outside its phases.
            let ns = if slow {
                total * 2 / 3 * share / 100
            } else {
                total * share / 100
            };
            PhaseStats {
                name: name.into(),
                count: steps,
                total_ns: ns,
                min_ns: 0,
                max_ns: 0,
                in_steps_ns: ns,
                latency: Default::default(),
            }
        })
        .collect();
    p.bricks = (0..8u64)
        .map(|b| {
            let mut s = BrickStats::new(format!("Kernel{b}"), BrickCategory::Ffn);
            s.count = steps;
            s.total_ns = total / 20 + b * 1_000 * steps + u64::from(rank % 13) * 10_000;
            s
        })
        .collect();
    p
}

#[test]
fn a_thousand_rank_page_stays_small_and_readable_in_chromium() {
    const RANKS: u32 = 1_024;
    const STEPS: u64 = 200;
    let dir = tempfile::tempdir().expect("temp dir");
    for rank in 0..RANKS {
        let rank_dir = dir.path().join(format!("rank-{rank:05}"));
        std::fs::create_dir(&rank_dir).expect("rank dir");
        let json = generated(rank, RANKS, STEPS).to_json();
        std::fs::write(rank_dir.join("profile.json"), json).expect("profile written");
    }
    let report = FleetReport::from_dir(dir.path(), FleetSettings::default()).expect("fleet");
    assert_eq!(report.straggler_ranks(), [700], "{report}");
    let page = FleetPage::new(&report).render();
    assert!(
        page.len() < 2_000_000,
        "the 1,024 x 200 page is {} bytes, over 2 MB",
        page.len()
    );
    std::fs::write(shots().join("fleet-1024-ranks.html"), &page).expect("page kept");
    let shot = shots().join("fleet-1024-ranks.png");
    let found = load(dir.path(), &page, &shot, 3_400);
    assert_charts(&found, u64::from(RANKS));
    println!(
        "1,024 ranks x 200 steps: {} KB, open {:.0} ms, {}",
        page.len() / 1024,
        found.0["open_ms"].as_f64().unwrap_or(0.0),
        shot.display()
    );
}
