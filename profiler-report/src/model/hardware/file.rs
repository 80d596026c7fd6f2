//! The hardware file, TOML or JSON with the same keys, read into
//! [`Hardware`] with errors naming the file, line and field:
//!
//! ```toml
//! name = "lab RTX 4090"      # display name (default: the device's, else "custom")
//! device = "4090"            # optional: start from a device of the preset table
//! bytes_per_token = 158e6    # optional: bytes a token moves, for grading
//! estimate = false           # optional: mark the file's figures as estimates
//! [bandwidth_gb_s]           # GB/s per memory level: l1, l2, l3, dram, pcie
//! dram = 1008
//! [peak_tflops]              # dense TFLOP/s per precision: fp64, fp32, tf32, fp16, bf16, int8
//! fp32 = 82.6
//! bf16 = 165
//! [cache_bytes]              # optional: size of each cache level one core sees: l1, l2, l3
//! l2 = 1048576
//! ```
//!
//! The flat form of earlier versions stays valid: `peak_bw_gb_s` is the
//! DRAM bandwidth and a plain number for `peak_tflops` the dense BF16/FP16
//! peak (`{"device": "a100", "peak_bw_gb_s": 1900, "peak_tflops": 280}`).

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;

use super::error::HardwareError;
use super::model::{Hardware, MAX_BYTES_PER_TOKEN, MAX_CACHE_BYTES};
use super::presets::DeviceSpec;
use super::source::{Figure, Source};
use super::units::{
    MAX_BANDWIDTH_GB_S, MAX_TFLOPS, MemoryLevel, Precision, ceiling_problem, shown,
};

/// The syntax of a hardware file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileFormat {
    /// TOML.
    Toml,
    /// JSON.
    Json,
}

impl FileFormat {
    /// TOML for a `.toml` extension (`.toml.gz` too), else JSON (the format of earlier
    /// `PROFILER_HARDWARE_FILE`s, whatever their name).
    #[must_use]
    pub fn of_path(path: &Path) -> Self {
        if crate::base::user_file::format_extension(path).as_deref() == Some("toml") {
            Self::Toml
        } else {
            Self::Json
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum Tflops {
    Dense(f64),
    ByPrecision(BTreeMap<String, f64>),
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct HardwareFile {
    name: Option<String>,
    device: Option<String>,
    bytes_per_token: Option<f64>,
    #[serde(default)]
    estimate: bool,
    #[serde(default)]
    bandwidth_gb_s: BTreeMap<String, f64>,
    peak_bw_gb_s: Option<f64>,
    peak_tflops: Option<Tflops>,
    #[serde(default)]
    cache_bytes: BTreeMap<String, f64>,
}

impl Hardware {
    /// Reads a hardware file: TOML when it ends in `.toml`, else JSON.
    ///
    /// # Errors
    /// [`HardwareError::ReadFile`], [`HardwareError::MalformedFile`] (with
    /// the line), [`HardwareError::InvalidField`] naming the line and
    /// field, [`HardwareError::UnknownDevice`], [`HardwareError::NoCeiling`].
    pub fn from_file(path: impl AsRef<Path>) -> Result<Self, HardwareError> {
        let path = path.as_ref();
        let text = crate::base::user_file::read_to_string(path).map_err(|source| {
            HardwareError::ReadFile {
                path: path.to_path_buf(),
                source,
            }
        })?;
        Self::parse(&text, FileFormat::of_path(path), path)
    }

    /// Reads the text of a hardware file; `path` names it in errors and in
    /// each figure's [`Source::File`].
    ///
    /// # Errors
    /// As [`Hardware::from_file`], less the reading.
    pub fn parse(text: &str, format: FileFormat, path: &Path) -> Result<Self, HardwareError> {
        let malformed = |line: Option<usize>, message: String| HardwareError::MalformedFile {
            path: path.to_path_buf(),
            line,
            message,
        };
        let file: HardwareFile = match format {
            FileFormat::Toml => toml::from_str(text).map_err(|e| {
                let line = e.span().map(|s| line_at(text, s.start));
                malformed(line, e.message().to_owned())
            })?,
            FileFormat::Json => serde_json::from_str(text)
                .map_err(|e| malformed(Some(e.line()), crate::base::json::message(&e)))?,
        };
        let source = Source::File {
            path: path.to_path_buf(),
            estimate: file.estimate,
        };
        let bad = |field: &str, value: String, reason: &str| HardwareError::InvalidField {
            path: path.to_path_buf(),
            line: line_of(text, field),
            field: field.to_owned(),
            value,
            reason: reason.to_owned(),
        };
        let figure = |field: &str, value: f64, max: f64| match ceiling_problem(value, max) {
            None => Ok(Figure::new(value, source.clone())),
            Some(reason) => Err(bad(field, shown(value), reason)),
        };
        let mut hw = match &file.device {
            Some(name) => {
                let device = DeviceSpec::lookup(name).ok_or_else(|| {
                    let known = format!("known: {}", DeviceSpec::known_names());
                    bad(
                        "device",
                        name.clone(),
                        &format!("is not a known device; {known}"),
                    )
                })?;
                Self::from_device(device)
            }
            None => Self::new("custom"),
        };
        if let Some(name) = file.name {
            hw.name = name;
        }
        let mut levels: Vec<(String, f64)> = file.bandwidth_gb_s.into_iter().collect();
        let mut fields: Vec<String> = levels
            .iter()
            .map(|(l, _)| format!("bandwidth_gb_s.{l}"))
            .collect();
        if let Some(bw) = file.peak_bw_gb_s {
            levels.push(("dram".to_owned(), bw));
            fields.push("peak_bw_gb_s".to_owned());
        }
        for ((level, gb_s), field) in levels.into_iter().zip(fields) {
            let l: MemoryLevel = level
                .parse()
                .map_err(|e| bad(&field, level.clone(), &unit_reason(&e)))?;
            hw.set_memory(l, figure(&field, gb_s, MAX_BANDWIDTH_GB_S)?)?;
        }
        match file.peak_tflops {
            Some(Tflops::Dense(t)) => {
                let f = figure("peak_tflops", t, MAX_TFLOPS)?;
                hw.set_compute(Precision::Bf16, f.clone())?;
                hw.set_compute(Precision::Fp16, f)?;
            }
            Some(Tflops::ByPrecision(map)) => {
                for (precision, t) in map {
                    let field = format!("peak_tflops.{precision}");
                    let p: Precision = precision
                        .parse()
                        .map_err(|e| bad(&field, precision.clone(), &unit_reason(&e)))?;
                    hw.set_compute(p, figure(&field, t, MAX_TFLOPS)?)?;
                }
            }
            None => {}
        }
        for (level, bytes) in file.cache_bytes {
            let field = format!("cache_bytes.{level}");
            let l: MemoryLevel = level
                .parse()
                .map_err(|e| bad(&field, level.clone(), &unit_reason(&e)))?;
            hw.set_cache_bytes(l, figure(&field, bytes, MAX_CACHE_BYTES)?)?;
        }
        if hw.is_empty() {
            return Err(HardwareError::NoCeiling {
                path: path.to_path_buf(),
            });
        }
        if let Some(b) = file.bytes_per_token {
            hw.set_bytes_per_token(figure("bytes_per_token", b, MAX_BYTES_PER_TOKEN)?)?;
        }
        Ok(hw)
    }
}

impl Hardware {
    /// The model as a TOML hardware file that [`Hardware::from_file`] reads
    /// back: name, bytes per token, bandwidth per level, peak per precision
    /// and cache sizes, each figure as a number (where it came from is the
    /// file itself once read back). `comment` lines open the file.
    #[must_use]
    pub fn to_toml(&self, comment: &[String]) -> String {
        let mut out = String::new();
        for line in comment {
            // One comment line each, whatever the text holds.
            out.push_str(&format!("# {}\n", line.replace(['\n', '\r'], " ")));
        }
        out.push_str(&format!("name = {}\n", toml_string(&self.name)));
        if let Some(b) = self.bytes_per_token() {
            out.push_str(&format!("bytes_per_token = {:?}\n", b.value));
        }
        let key = |name: &str| name.to_ascii_lowercase();
        out.push_str("\n[bandwidth_gb_s]\n");
        for (l, f) in self.memory_ceilings() {
            out.push_str(&format!("{} = {:?}\n", key(l.name()), f.value));
        }
        out.push_str("\n[peak_tflops]\n");
        for (p, f) in self.compute_ceilings() {
            out.push_str(&format!("{} = {:?}\n", key(p.name()), f.value));
        }
        if self.cache_sizes().next().is_some() {
            out.push_str("\n[cache_bytes]\n");
            for (l, f) in self.cache_sizes() {
                out.push_str(&format!("{} = {:?}\n", key(l.name()), f.value));
            }
        }
        out
    }
}

/// A TOML basic string: quotes, backslashes and control characters escaped.
fn toml_string(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn unit_reason(e: &super::units::UnitError) -> String {
    format!("is not a {}: expected {}", e.what, e.expected)
}

/// The 1-based line of byte `offset`.
fn line_at(text: &str, offset: usize) -> usize {
    text.get(..offset)
        .map_or(1, |t| t.matches('\n').count() + 1)
}

/// The 1-based line where the dotted `field` is set, when it can be found:
/// the line naming its last key, at or after the line naming its first.
fn line_of(text: &str, field: &str) -> Option<usize> {
    let keys: Vec<&str> = field.split('.').collect();
    let names = |line: &str, key: &str| {
        let t = line.trim_start();
        line.contains(&format!("\"{key}\""))
            || t.strip_prefix(key)
                .is_some_and(|rest| rest.trim_start().starts_with(['=', '.']))
            || t.strip_prefix('[')
                .is_some_and(|rest| rest.trim_start().starts_with(key))
    };
    let first = text.lines().position(|l| names(l, keys[0]))?;
    let last = keys[keys.len() - 1];
    text.lines()
        .enumerate()
        .skip(first)
        .find(|(_, l)| names(l, last))
        .map(|(i, _)| i + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TOML: &str = "name = \"lab\"\n[bandwidth_gb_s]\nl2 = 40\ndram = -5\n";

    #[test]
    fn field_errors_name_the_line() {
        let e = Hardware::parse(TOML, FileFormat::Toml, Path::new("gpu.toml")).unwrap_err();
        assert!(
            matches!(&e, HardwareError::InvalidField { line: Some(4), field, .. } if field == "bandwidth_gb_s.dram"),
            "{e}"
        );
        let json = "{\n  \"bandwidth_gb_s\": {\n    \"dram\": 1e308\n  }\n}";
        let e = Hardware::parse(json, FileFormat::Json, Path::new("gpu.json")).unwrap_err();
        assert!(
            e.to_string().contains(
                "`gpu.json` line 3 field `bandwidth_gb_s.dram`: `1e308` beyond any real device"
            ),
            "{e}"
        );
        let e = Hardware::parse(
            "name = \"a\"\n\nbandwith = 2\n",
            FileFormat::Toml,
            Path::new("h.toml"),
        )
        .unwrap_err();
        assert!(
            matches!(e, HardwareError::MalformedFile { line: Some(3), .. }),
            "{e}"
        );
    }

    #[test]
    fn figures_record_the_file_and_the_flat_form_is_read() {
        let hw = Hardware::parse(
            r#"{"device": "h100", "peak_bw_gb_s": 3000, "peak_tflops": 800}"#,
            FileFormat::Json,
            Path::new("old.json"),
        )
        .unwrap();
        assert_eq!(hw.name, "H100 SXM");
        let dram = hw.memory(MemoryLevel::Dram).unwrap();
        assert_eq!(dram.value, 3000.0);
        assert_eq!(
            dram.source,
            Source::File {
                path: "old.json".into(),
                estimate: false
            }
        );
        assert_eq!(hw.compute(Precision::Fp16).unwrap().value, 800.0);
        assert_eq!(hw.compute(Precision::Fp32).unwrap().source, Source::Preset);
        let e = Hardware::parse("estimate = true\n", FileFormat::Toml, Path::new("e.toml"));
        assert!(matches!(e, Err(HardwareError::NoCeiling { .. })));
        let e = Hardware::parse(
            r#"{"device": "tpu"}"#,
            FileFormat::Json,
            Path::new("d.json"),
        )
        .unwrap_err();
        assert!(e.to_string().contains("field `device`"), "{e}");
    }
}
