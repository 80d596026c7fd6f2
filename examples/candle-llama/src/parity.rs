//! Per-op parity of the profiled run against the same model in PyTorch: the
//! trace `llama_torch.py` writes, mapped onto the bricks candle's spans
//! become by a mapping file, compared through the profiler's parity API.

use std::path::{Path, PathBuf};

use profiler::Profile;
use profiler_report::parity::{
    OpMapping, ParityComparison, ParityError, PytorchImport, compute_parity_comparison,
    import_pytorch_trace,
};

/// Name of this side in the parity reports.
pub const RUNTIME: &str = "candle";

/// The comparison and what the PyTorch import did (its unmapped ops, the
/// share of its step time the mapping covers).
#[derive(Debug, Clone)]
pub struct Parity {
    /// Our bricks against the PyTorch ops, per step.
    pub comparison: ParityComparison,
    /// The PyTorch side as imported.
    pub baseline: PytorchImport,
}

impl Parity {
    /// Compares `profile` (steps are forward passes) with the PyTorch trace
    /// at `trace`, its ops mapped onto bricks by the mapping file `mapping`.
    ///
    /// # Errors
    /// A mapping or trace that cannot be read or parsed, naming the file.
    pub fn compare(profile: &Profile, trace: &Path, mapping: &Path) -> Result<Self, ParityError> {
        let mapping = OpMapping::from_file(mapping)?;
        let baseline = import_pytorch_trace(trace, &mapping)?;
        let ours = profiler_report::run::RunSummary::from_profile(profile, RUNTIME);
        Ok(Self {
            comparison: compute_parity_comparison(&ours, &baseline.summary),
            baseline,
        })
    }

    /// Writes parity.md, parity.json and parity.svg into `out`; returns
    /// their paths in that order.
    ///
    /// # Errors
    /// A file that cannot be written, naming it.
    pub fn write(&self, out: &Path) -> Result<Vec<PathBuf>, String> {
        let c = &self.comparison;
        let files = [
            ("parity.md", c.to_markdown()),
            ("parity.json", c.to_json()),
            ("parity.svg", c.to_svg()),
        ];
        files
            .into_iter()
            .map(|(name, text)| {
                let path = out.join(name);
                profiler::fs::write_atomic(&path, text.as_bytes())
                    .map(|()| path.clone())
                    .map_err(|e| format!("cannot write `{}`: {e}", path.display()))
            })
            .collect()
    }
}
