//! Writes the fuzz corpus seeds from the files the main job writes.
//!
//! ```text
//! cargo run --release --example train_tiny -- --steps 3 --out /tmp/run   # in the repository root
//! cargo run --manifest-path fuzz/Cargo.toml --example seeds -- /tmp/run fuzz/seeds
//! ```
//!
//! `fuzz/seed.sh` runs both. Each target gets the job's own files where it
//! reads them as they are (profile.json, scorecard.json) and files derived
//! from the profile where it reads another format (the bare execution
//! trace, a parity profile, a step-profiler log line). The contract targets
//! get every `test` expression and every pre- and postcondition of the
//! shipped contracts.

use std::path::{Path, PathBuf};

use profiler_contracts::ContractSet;
use profiler_core::Profile;
use profiler_report::run::RunSummary;
use profiler_report::scorecard::StepProfilerInput;
use profiler_report::trace;

fn main() {
    if let Err(e) = run() {
        eprintln!("seeds: {e}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [job, corpus] = args.as_slice() else {
        return Err("usage: seeds <main-job output dir> <corpus dir>".into());
    };
    let (job, corpus) = (Path::new(job), PathBuf::from(corpus));
    let read = |name: &str| {
        let path = job.join(name);
        std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))
    };
    let profile_text = read("profile.json")?;
    let profile = Profile::from_json(&profile_text).map_err(|e| e.to_string())?;
    let scorecard_text = read("scorecard.json")?;

    let trace = trace::trace_of(&profile);
    let trace_json = serde_json::to_string_pretty(&*trace).map_err(|e| e.to_string())?;
    let parity_json = RunSummary::from_profile(&profile, "train_tiny").to_parity_json();
    let mut line = serde_json::to_value(StepProfilerInput::from_profile(&profile))
        .map_err(|e| e.to_string())?;
    line["_profiler"] = "step_profiler_v2".into();
    let log = format!("2026-11-23T10:00:00Z INFO train: step 3 done\n{line}\n");

    let seeds: [(&str, &str, &str); 7] = [
        ("profile_json", "train_tiny.profile.json", &profile_text),
        ("profile_json", "empty.profile.json", &Profile::empty().to_json()),
        ("execution_trace", "train_tiny.profile.json", &profile_text),
        ("execution_trace", "train_tiny.trace.json", &trace_json),
        ("scorecard_inputs", "train_tiny.scorecard.json", &scorecard_text),
        ("scorecard_inputs", "train_tiny.log", &log),
        ("parity_json", "train_tiny.parity.json", &parity_json),
    ];
    for (target, name, text) in seeds {
        write(&corpus, target, name, text)?;
    }
    for contract in ContractSet::shipped().iter() {
        let name = &contract.name;
        for test in &contract.falsification_tests {
            let file = format!("{name}.{}.txt", test.id);
            write(&corpus, "contract_rules", &file, &test.test)?;
        }
        for eq in &contract.equations {
            for (kind, list) in [("pre", &eq.preconditions), ("post", &eq.postconditions)] {
                for (i, condition) in list.iter().enumerate() {
                    let file = format!("{name}.{}.{kind}{i}.txt", eq.name);
                    write(&corpus, "preconditions", &file, &condition.text)?;
                }
            }
        }
    }
    Ok(())
}

fn write(corpus: &Path, target: &str, name: &str, text: &str) -> Result<(), String> {
    let dir = corpus.join(target);
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let path = dir.join(name);
    std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
    println!("{}", path.display());
    Ok(())
}
