//! Running Nsight Compute (`ncu`) and Nsight Systems (`nsys`) on a command
//! or on a binary report (`.ncu-rep`, `.nsys-rep`), when they are on `PATH`
//! (never at a guessed install path), capturing the output the importers
//! read. A run that cannot read the GPU counters
//! reports `ERR_NVGPUCTRPERM` with how to allow it.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::model::nsight::ImportError;

/// Metrics requested from `ncu`: the standard set, DRAM bytes, the FP
/// instruction counters FLOPs are counted from, and the device name.
pub const NCU_METRICS: [&str; 22] = [
    "gpu__time_duration.sum",
    "sm__throughput.avg.pct_of_peak_sustained_elapsed",
    "dram__throughput.avg.pct_of_peak_sustained_elapsed",
    "sm__warps_active.avg.pct_of_peak_sustained_elapsed",
    "smsp__thread_inst_executed_per_inst_executed.pct",
    "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed",
    "launch__registers_per_thread",
    "launch__shared_mem_per_block_driver",
    "lts__t_sector_hit_rate.pct",
    "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct",
    "l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_ld.ratio",
    "dram__bytes.sum",
    "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum",
    "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum",
    "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum",
    "smsp__sass_thread_inst_executed_op_hfma_pred_on.sum",
    "smsp__sass_thread_inst_executed_op_hadd_pred_on.sum",
    "smsp__sass_thread_inst_executed_op_hmul_pred_on.sum",
    "smsp__sass_thread_inst_executed_op_dfma_pred_on.sum",
    "smsp__sass_thread_inst_executed_op_dadd_pred_on.sum",
    "smsp__sass_thread_inst_executed_op_dmul_pred_on.sum",
    "device__attribute_display_name",
];

/// The tool that exports a binary Nsight report, told by its extension:
/// `ncu` for `.ncu-rep`, `nsys` for `.nsys-rep`, `.qdrep` and `.sqlite`.
#[must_use]
pub fn binary_report_tool(path: &Path) -> Option<&'static str> {
    match path.extension().and_then(|e| e.to_str()) {
        Some("ncu-rep") => Some("ncu"),
        Some("nsys-rep" | "qdrep" | "sqlite") => Some("nsys"),
        _ => None,
    }
}

/// An Nsight tool found on `PATH`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NsightTool {
    /// `ncu` or `nsys`.
    pub name: &'static str,
    /// The executable found.
    pub program: PathBuf,
}

impl NsightTool {
    /// Looks `name` up in `path` (the value of `PATH`; pass
    /// `std::env::var_os("PATH")`).
    ///
    /// # Errors
    /// [`ImportError::ToolNotFound`] with where to get it.
    pub fn find(name: &'static str, path: Option<&OsStr>) -> Result<Self, ImportError> {
        let hint = match name {
            "ncu" => {
                "install Nsight Compute (it ships with the CUDA toolkit) and put its directory on \
                 PATH, or import a saved export: `ncu --csv ... > run.csv`"
            }
            _ => {
                "install Nsight Systems (it ships with the CUDA toolkit) and put its directory on \
                 PATH, or import a saved summary: `nsys stats --report cuda_gpu_kern_sum --format csv`"
            }
        };
        let found = path
            .into_iter()
            .flat_map(std::env::split_paths)
            .flat_map(|dir| {
                [OsString::from(name), OsString::from(format!("{name}.exe"))]
                    .into_iter()
                    .map(move |file| dir.join(file))
            })
            .find(|candidate| is_executable(candidate));
        found
            .map(|program| Self { name, program })
            .ok_or_else(|| ImportError::ToolNotFound {
                tool: name.to_owned(),
                hint,
            })
    }

    fn run(&self, args: &[OsString]) -> Result<String, ImportError> {
        let output = Command::new(&self.program)
            .args(args)
            .output()
            .map_err(|source| ImportError::Spawn {
                program: self.program.clone(),
                source,
            })?;
        self.check(&output)
    }

    /// The stdout of a successful run; the permission error whatever the
    /// exit status; otherwise the failure with the end of the output.
    fn check(&self, output: &Output) -> Result<String, ImportError> {
        let stdout = String::from_utf8_lossy(&output.stdout);
        let stderr = String::from_utf8_lossy(&output.stderr);
        if stdout.contains("ERR_NVGPUCTRPERM") || stderr.contains("ERR_NVGPUCTRPERM") {
            return Err(ImportError::CountersRestricted {
                origin: format!("{} run", self.name),
            });
        }
        if !output.status.success() {
            let all = format!("{stderr}{stdout}");
            let lines: Vec<&str> = all.lines().collect();
            return Err(ImportError::ToolFailed {
                tool: self.name.to_owned(),
                status: output.status.to_string(),
                output: lines[lines.len().saturating_sub(20)..].join("\n"),
            });
        }
        Ok(stdout.into_owned())
    }

    /// `ncu --csv --metrics ... [extra] command...`: the details page of
    /// every kernel the command launches, as CSV text.
    ///
    /// # Errors
    /// [`ImportError::Spawn`], [`ImportError::CountersRestricted`] or
    /// [`ImportError::ToolFailed`].
    pub fn run_ncu(&self, extra: &[String], command: &[OsString]) -> Result<String, ImportError> {
        let mut args: Vec<OsString> = vec![
            "--csv".into(),
            "--metrics".into(),
            NCU_METRICS.join(",").into(),
        ];
        args.extend(extra.iter().map(OsString::from));
        args.extend(command.iter().cloned());
        self.run(&args)
    }

    /// `nsys profile` of the command into `dir`, then `nsys stats --report
    /// cuda_gpu_kern_sum --format csv` of the report.
    ///
    /// # Errors
    /// As [`NsightTool::run_ncu`]; [`ImportError::ToolFailed`] when no report
    /// was written.
    pub fn run_nsys(
        &self,
        extra: &[String],
        command: &[OsString],
        dir: &Path,
    ) -> Result<String, ImportError> {
        let base = dir.join("profile");
        let mut args: Vec<OsString> = vec![
            "profile".into(),
            "--trace=cuda".into(),
            "--force-overwrite=true".into(),
            "-o".into(),
            base.clone().into_os_string(),
        ];
        args.extend(extra.iter().map(OsString::from));
        args.extend(command.iter().cloned());
        self.run(&args)?;
        let report = ["nsys-rep", "qdrep"]
            .iter()
            .map(|ext| base.with_extension(ext))
            .find(|p| p.is_file())
            .ok_or_else(|| ImportError::ToolFailed {
                tool: self.name.to_owned(),
                status: "no report".to_owned(),
                output: format!("`{}.nsys-rep` was not written", base.display()),
            })?;
        self.nsys_stats(&report)
    }

    /// `ncu --import REPORT --csv`: a saved `.ncu-rep` report's details
    /// page as CSV text.
    ///
    /// # Errors
    /// As [`NsightTool::run_ncu`].
    pub fn ncu_export(&self, report: &Path) -> Result<String, ImportError> {
        self.run(&[
            "--import".into(),
            report.as_os_str().to_owned(),
            "--csv".into(),
        ])
    }

    /// `nsys stats --report cuda_gpu_kern_sum --format csv REPORT`.
    ///
    /// # Errors
    /// As [`NsightTool::run_ncu`].
    pub fn nsys_stats(&self, report: &Path) -> Result<String, ImportError> {
        self.run(&[
            "stats".into(),
            "--report".into(),
            "cuda_gpu_kern_sum".into(),
            "--format".into(),
            "csv".into(),
            report.as_os_str().to_owned(),
        ])
    }
}

#[cfg(unix)]
fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.metadata()
        .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn is_executable(path: &Path) -> bool {
    path.is_file()
}
