//! `--hardware`: a device of the preset table by name (`h100`, `4090`,
//! `rtx_4060l`, ...) or a TOML/JSON hardware file. Both are read by the
//! library's hardware model (`profiler_report::hardware::Hardware`, whose
//! docs describe the file); this file only tells which was given.

use std::path::Path;

use profiler_report::hardware::{DeviceSpec, Figure, Hardware as Model, MemoryLevel, Source};
use profiler_report::roofline::KernelRoofline;

use crate::error::CliError;

/// Hardware chosen with `--hardware`.
#[derive(Debug, Clone)]
pub(crate) struct Hardware {
    /// How it was given, e.g. `--hardware h100`.
    pub(crate) origin: String,
    /// Its roofline, a view of the model.
    pub(crate) roofline: KernelRoofline,
    /// The model, when it has the DRAM bandwidth the scorecard grades with.
    pub(crate) config: Option<Model>,
}

impl Hardware {
    /// Resolves `--hardware VALUE`: a file when it names one (or ends in
    /// `.toml`/`.json`), else a device of the preset table.
    /// `bytes_per_token` (from `--bytes-per-token`) replaces the file's.
    pub(crate) fn resolve(value: &str, bytes_per_token: Option<f64>) -> Result<Self, CliError> {
        let path = Path::new(value);
        let looks_like_file = matches!(
            path.extension().and_then(|e| e.to_str()),
            Some("toml" | "json")
        );
        let mut model = if path.is_file() || looks_like_file {
            Model::from_file(path).map_err(CliError::input)?
        } else {
            Model::preset(value).map_err(|_| {
                CliError::Input(format!(
                    "--hardware: unknown device `{value}`; known: {} (or a .toml/.json hardware file)",
                    DeviceSpec::known_names()
                ))
            })?
        };
        if let Some(b) = bytes_per_token {
            model
                .set_bytes_per_token(Figure::new(b, Source::Given))
                .map_err(|e| CliError::Input(format!("--bytes-per-token: {e}")))?;
        }
        Ok(Self {
            origin: format!("--hardware {}", path.display()),
            roofline: KernelRoofline::from_hardware(&model),
            config: model.memory(MemoryLevel::Dram).is_some().then_some(model),
        })
    }
}
