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

use profiler_core::hardware::{
    Figure, Hardware, MAX_BANDWIDTH_GB_S, MAX_BYTES_PER_TOKEN, MAX_CACHE_BYTES, MAX_TFLOPS,
    MemoryLevel, Precision, Source, UnitError, ceiling_problem, shown,
};

use super::error::HardwareError;
use super::presets::DeviceSpec;

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

/// The hardware a user names, as `--hardware` takes it: a TOML or JSON
/// hardware file when `value` names a file or ends in `.toml`/`.json` (see
/// [`from_file`]), else a device of the preset table.
///
/// # Errors
/// As [`from_file`] for a file;
/// [`HardwareError::UnknownDevice`] naming the value, listing the devices
/// and saying a file is accepted too, for a name.
pub fn resolve(value: &str) -> Result<Hardware, HardwareError> {
    let path = Path::new(value);
    let looks_like_file = matches!(
        path.extension().and_then(|e| e.to_str()),
        Some("toml" | "json")
    );
    if path.is_file() || looks_like_file {
        return from_file(path);
    }
    DeviceSpec::lookup(value)
        .map(DeviceSpec::hardware)
        .ok_or_else(|| HardwareError::UnknownDevice {
            name: value.to_owned(),
            origin: "the preset table".to_owned(),
            known: format!(
                "{} (or a .toml/.json hardware file)",
                DeviceSpec::every_name()
            ),
        })
}

/// Reads a hardware file: TOML when it ends in `.toml`, else JSON.
///
/// # Errors
/// [`HardwareError::ReadFile`], [`HardwareError::MalformedFile`] (with the
/// line), [`HardwareError::InvalidField`] naming the line and field,
/// [`HardwareError::UnknownDevice`], [`HardwareError::NoCeiling`].
pub fn from_file(path: impl AsRef<Path>) -> Result<Hardware, HardwareError> {
    let path = path.as_ref();
    let text =
        crate::base::user_file::read_to_string(path).map_err(|source| HardwareError::ReadFile {
            path: path.to_path_buf(),
            source,
        })?;
    from_text(&text, FileFormat::of_path(path), path)
}

/// Reads the text of a hardware file; `path` names it in errors and in each
/// figure's [`Source::File`].
///
/// # Errors
/// As [`from_file`], less the reading.
pub fn from_text(text: &str, format: FileFormat, path: &Path) -> Result<Hardware, HardwareError> {
    let file = parse_syntax(text, format, path)?;
    let reader = Reader {
        text,
        path,
        source: Source::File {
            path: path.to_path_buf(),
            estimate: file.estimate,
        },
    };
    let mut hw = match &file.device {
        Some(name) => DeviceSpec::lookup(name)
            .map(DeviceSpec::hardware)
            .ok_or_else(|| {
                let known = format!("known: {}", DeviceSpec::known_names());
                reader.bad(
                    "device",
                    name.clone(),
                    &format!("is not a known device; {known}"),
                )
            })?,
        None => Hardware::new("custom"),
    };
    if let Some(name) = &file.name {
        hw.name.clone_from(name);
    }
    reader.bandwidths(&file, &mut hw)?;
    reader.peaks(file.peak_tflops, &mut hw)?;
    for (level, bytes) in file.cache_bytes {
        let field = format!("cache_bytes.{level}");
        let l = reader.unit::<MemoryLevel>(&field, &level)?;
        hw.set_cache_bytes(l, reader.figure(&field, bytes, MAX_CACHE_BYTES)?)?;
    }
    if hw.is_empty() {
        return Err(HardwareError::NoCeiling {
            path: path.to_path_buf(),
        });
    }
    if let Some(b) = file.bytes_per_token {
        hw.set_bytes_per_token(reader.figure("bytes_per_token", b, MAX_BYTES_PER_TOKEN)?)?;
    }
    Ok(hw)
}

/// The file's keys, or where its syntax fails.
fn parse_syntax(
    text: &str,
    format: FileFormat,
    path: &Path,
) -> Result<HardwareFile, HardwareError> {
    let malformed = |line: Option<usize>, message: String| HardwareError::MalformedFile {
        path: path.to_path_buf(),
        line,
        message,
    };
    match format {
        FileFormat::Toml => toml::from_str(text).map_err(|e| {
            let line = e.span().map(|s| line_at(text, s.start));
            malformed(line, e.message().to_owned())
        }),
        FileFormat::Json => serde_json::from_str(text)
            .map_err(|e| malformed(Some(e.line()), crate::base::json::message(&e))),
    }
}

/// What the checks of one file's fields share: its text (for lines), its
/// path and the source its figures carry.
struct Reader<'a> {
    text: &'a str,
    path: &'a Path,
    source: Source,
}

impl Reader<'_> {
    /// An invalid `field`, with its line when it can be found.
    fn bad(&self, field: &str, value: String, reason: &str) -> HardwareError {
        HardwareError::InvalidField {
            path: self.path.to_path_buf(),
            line: line_of(self.text, field),
            field: field.to_owned(),
            value,
            reason: reason.to_owned(),
        }
    }

    /// `value` of `field` as a figure of this file, when it can be a ceiling
    /// no larger than `max`.
    fn figure(&self, field: &str, value: f64, max: f64) -> Result<Figure, HardwareError> {
        match ceiling_problem(value, max) {
            None => Ok(Figure::new(value, self.source.clone())),
            Some(reason) => Err(self.bad(field, shown(value), reason)),
        }
    }

    /// The precision or memory level a key of `field` names.
    fn unit<T: std::str::FromStr<Err = UnitError>>(
        &self,
        field: &str,
        key: &str,
    ) -> Result<T, HardwareError> {
        key.parse()
            .map_err(|e| self.bad(field, key.to_owned(), &unit_reason(&e)))
    }

    /// `[bandwidth_gb_s]` per level, and the flat `peak_bw_gb_s` as DRAM.
    fn bandwidths(&self, file: &HardwareFile, hw: &mut Hardware) -> Result<(), HardwareError> {
        let levels = file
            .bandwidth_gb_s
            .iter()
            .map(|(l, v)| (l.as_str(), *v, format!("bandwidth_gb_s.{l}")))
            .chain(
                file.peak_bw_gb_s
                    .map(|bw| ("dram", bw, "peak_bw_gb_s".to_owned())),
            );
        for (level, gb_s, field) in levels {
            let l = self.unit::<MemoryLevel>(&field, level)?;
            hw.set_memory(l, self.figure(&field, gb_s, MAX_BANDWIDTH_GB_S)?)?;
        }
        Ok(())
    }

    /// `peak_tflops`: one dense BF16/FP16 peak, or a peak per precision.
    fn peaks(&self, peaks: Option<Tflops>, hw: &mut Hardware) -> Result<(), HardwareError> {
        match peaks {
            Some(Tflops::Dense(t)) => {
                let f = self.figure("peak_tflops", t, MAX_TFLOPS)?;
                hw.set_compute(Precision::Bf16, f.clone())?;
                Ok(hw.set_compute(Precision::Fp16, f)?)
            }
            Some(Tflops::ByPrecision(map)) => {
                for (precision, t) in map {
                    let field = format!("peak_tflops.{precision}");
                    let p = self.unit::<Precision>(&field, &precision)?;
                    hw.set_compute(p, self.figure(&field, t, MAX_TFLOPS)?)?;
                }
                Ok(())
            }
            None => Ok(()),
        }
    }
}

/// The model as a TOML hardware file that [`from_file`] reads back: name,
/// bytes per token, bandwidth per level, peak per precision and cache sizes,
/// each figure as a number (where it came from is the file itself once read
/// back). `comment` lines open the file.
#[must_use]
pub fn to_toml(hw: &Hardware, comment: &[String]) -> String {
    let mut out = String::new();
    for line in comment {
        // One comment line each, whatever the text holds.
        out.push_str(&format!("# {}\n", line.replace(['\n', '\r'], " ")));
    }
    out.push_str(&format!("name = {}\n", toml_string(&hw.name)));
    if let Some(b) = hw.bytes_per_token() {
        out.push_str(&format!("bytes_per_token = {:?}\n", b.value));
    }
    let key = |name: &str| name.to_ascii_lowercase();
    out.push_str("\n[bandwidth_gb_s]\n");
    for (l, f) in hw.memory_ceilings() {
        out.push_str(&format!("{} = {:?}\n", key(l.name()), f.value));
    }
    out.push_str("\n[peak_tflops]\n");
    for (p, f) in hw.compute_ceilings() {
        out.push_str(&format!("{} = {:?}\n", key(p.name()), f.value));
    }
    if hw.cache_sizes().next().is_some() {
        out.push_str("\n[cache_bytes]\n");
        for (l, f) in hw.cache_sizes() {
            out.push_str(&format!("{} = {:?}\n", key(l.name()), f.value));
        }
    }
    out
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

fn unit_reason(e: &UnitError) -> String {
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
        let e = from_text(TOML, FileFormat::Toml, Path::new("gpu.toml")).unwrap_err();
        assert!(
            matches!(&e, HardwareError::InvalidField { line: Some(4), field, .. } if field == "bandwidth_gb_s.dram"),
            "{e}"
        );
        let json = "{\n  \"bandwidth_gb_s\": {\n    \"dram\": 1e308\n  }\n}";
        let e = from_text(json, FileFormat::Json, Path::new("gpu.json")).unwrap_err();
        assert!(
            e.to_string().contains(
                "`gpu.json` line 3 field `bandwidth_gb_s.dram`: `1e308` beyond any real device"
            ),
            "{e}"
        );
        let e = from_text(
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
        let hw = from_text(
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
        let e = from_text("estimate = true\n", FileFormat::Toml, Path::new("e.toml"));
        assert!(matches!(e, Err(HardwareError::NoCeiling { .. })));
        let e = from_text(
            r#"{"device": "tpu"}"#,
            FileFormat::Json,
            Path::new("d.json"),
        )
        .unwrap_err();
        assert!(e.to_string().contains("field `device`"), "{e}");
    }

    #[test]
    fn resolve_takes_a_name_or_a_file() {
        assert_eq!(
            resolve("h100").unwrap(),
            super::super::presets::preset("h100").unwrap()
        );
        let e = resolve("tpu-v9").unwrap_err();
        assert!(e.to_string().contains("`tpu-v9`"), "{e}");
        assert!(e.to_string().contains(".toml/.json hardware file"), "{e}");
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("lab");
        std::fs::write(&path, r#"{"peak_bw_gb_s": 42}"#).unwrap();
        let hw = resolve(path.to_str().unwrap()).unwrap();
        assert_eq!(hw.memory(MemoryLevel::Dram).unwrap().value, 42.0);
        let e = resolve("missing.toml").unwrap_err();
        assert!(matches!(e, HardwareError::ReadFile { .. }), "{e}");
    }
}
