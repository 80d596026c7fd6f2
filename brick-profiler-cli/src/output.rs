//! Where reports go: the output format flag, and writing text to stdout or
//! atomically to a file.

use std::io::Write as _;
use std::path::Path;

use clap::ValueEnum;

use crate::error::CliError;

/// Output format of text reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub(crate) enum Format {
    /// Aligned text for a terminal.
    #[default]
    #[value(alias = "text")]
    Table,
    /// GitHub-flavoured Markdown (CI job summaries, PR comments).
    Markdown,
    /// Pretty JSON for scripts.
    Json,
    /// Bencher Metric Format JSON (`diff` only).
    Bmf,
    /// github-action-benchmark `customSmallerIsBetter` JSON (`diff` only).
    Gab,
    /// JUnit XML, one test case per measure (`diff` only).
    Junit,
}

impl Format {
    /// The name `--format` takes.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Self::Table => "table",
            Self::Markdown => "markdown",
            Self::Json => "json",
            Self::Bmf => "bmf",
            Self::Gab => "gab",
            Self::Junit => "junit",
        }
    }
}

/// Writes `text` to `path` atomically, or to stdout without one (or with
/// `-` or `/dev/stdout`), ending it with a newline there.
pub(crate) fn emit(text: &str, path: Option<&Path>) -> Result<(), CliError> {
    match path.filter(|p| !is_stdout(p)) {
        Some(path) => write_file(path, text.as_bytes()),
        None if text.ends_with('\n') => write_stdout(text.as_bytes()),
        None => write_stdout(format!("{text}\n").as_bytes()),
    }
}

/// Writes `bytes` to `path` atomically (temporary file, then rename); a
/// device or FIFO is written in place, and `-` or `/dev/stdout` is stdout.
/// A path that is also an input of the command is refused (see
/// [`not_an_input`]).
pub(crate) fn write_file(path: &Path, bytes: &[u8]) -> Result<(), CliError> {
    if is_stdout(path) {
        return write_stdout(bytes);
    }
    not_an_input(path)?;
    profiler_core::fs::write_atomic(path, bytes)
        .map_err(|e| CliError::Output(format!("cannot write `{}`: {e}", path.display())))
}

/// Refuses an output `path` that is the same file (same device and inode,
/// through any link or spelling) as a file another argument of this command
/// names: `html x.json -o x.json` would replace the run it reads. An output
/// that does not exist yet is no input.
pub(crate) fn not_an_input(path: &Path) -> Result<(), CliError> {
    let args: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    if let Some(input) = same_file_among(path, &args) {
        return Err(CliError::Input(format!(
            "`{}` is an input of this command (as `{}`) and cannot also be its output: \
             writing it would replace what was read; write to another file",
            path.display(),
            input.display()
        )));
    }
    Ok(())
}

/// Whether `a` and `b` name the same file, existing (same device and inode)
/// or not yet (the same name in the same folder, however spelled).
pub(crate) fn same_path(a: &Path, b: &Path) -> bool {
    if let (Some(x), Some(y)) = (FileId::of(a), FileId::of(b)) {
        return x == y;
    }
    let resolve = |p: &Path| {
        let parent = match p.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        Some(std::fs::canonicalize(parent).ok()?.join(p.file_name()?))
    };
    match (resolve(a), resolve(b)) {
        (Some(x), Some(y)) => x == y,
        _ => a == b,
    }
}

/// The argument of `args`, other than the one that names `output` itself,
/// that is the same file as `output`: an argument, the value of
/// `--flag=VALUE`, or the `FILE` of `FILE#N`.
fn same_file_among(output: &Path, args: &[std::ffi::OsString]) -> Option<std::path::PathBuf> {
    let target = FileId::of(output)?;
    let mut named_as_output = false;
    for arg in args {
        let arg = Path::new(arg);
        let text = arg.to_string_lossy();
        let mut candidates = vec![arg.to_path_buf()];
        if let Some((_, value)) = text.strip_prefix("--").and_then(|t| t.split_once('=')) {
            candidates.push(value.into());
        }
        if let Some((file, n)) = text.rsplit_once('#')
            && n.parse::<usize>().is_ok()
        {
            candidates.push(file.into());
        }
        for c in candidates {
            if FileId::of(&c).as_ref() != Some(&target) {
                continue;
            }
            // The output's own argument, once; any other naming is an input.
            if c == output && !named_as_output {
                named_as_output = true;
            } else {
                return Some(c);
            }
        }
    }
    None
}

/// What makes two paths the same file: device and inode on Unix, the
/// canonical path elsewhere.
#[derive(Debug, Clone, PartialEq, Eq)]
enum FileId {
    #[cfg(unix)]
    Inode(u64, u64),
    #[cfg(not(unix))]
    Canonical(std::path::PathBuf),
}

impl FileId {
    /// The file at `path` (following links), if it exists and is a file.
    fn of(path: &Path) -> Option<Self> {
        let meta = std::fs::metadata(path)
            .ok()
            .filter(std::fs::Metadata::is_file)?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt as _;
            Some(Self::Inode(meta.dev(), meta.ino()))
        }
        #[cfg(not(unix))]
        {
            let _ = meta;
            std::fs::canonicalize(path).ok().map(Self::Canonical)
        }
    }
}

/// Whether `-o` names standard output. `/dev/stdout` is taken literally too:
/// opened by path it is a link to a pipe or a file that the shell owns, and
/// writing through our own handle is what the user meant.
/// Writes what `write` produces to `path` atomically (streamed through a
/// buffer, never one string in memory), or to stdout without one. Binary
/// output (`binary`) is refused on a terminal.
pub(crate) fn emit_streamed(
    path: Option<&Path>,
    binary: bool,
    write: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> Result<(), CliError> {
    use std::io::IsTerminal as _;
    if let Some(path) = path.filter(|p| !is_stdout(p)) {
        not_an_input(path)?;
        return profiler_core::fs::write_atomic_streamed(path, write)
            .map_err(|e| CliError::Output(format!("cannot write `{}`: {e}", path.display())));
    }
    let stdout = std::io::stdout();
    if binary && stdout.is_terminal() {
        return Err(CliError::Output(
            "refusing to write a binary trace to a terminal: pass -o FILE or redirect stdout"
                .to_owned(),
        ));
    }
    let mut out = std::io::BufWriter::new(stdout.lock());
    match write(&mut out).and_then(|()| out.flush()) {
        // A closed pipe (`| head`) is the reader's choice, not a failure.
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(CliError::Output(format!("cannot write to stdout: {e}")))
        }
        _ => Ok(()),
    }
}

pub(crate) fn is_stdout(path: &Path) -> bool {
    path == Path::new("-") || path == Path::new("/dev/stdout")
}

fn write_stdout(bytes: &[u8]) -> Result<(), CliError> {
    let mut out = std::io::stdout().lock();
    match out.write_all(bytes).and_then(|()| out.flush()) {
        // A closed pipe (`| head`) is the reader's choice, not a failure.
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(CliError::Output(format!("cannot write to stdout: {e}")))
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::same_file_among;
    use std::ffi::OsString;

    fn args(a: &[&str]) -> Vec<OsString> {
        a.iter().map(OsString::from).collect()
    }

    #[test]
    fn an_output_named_by_another_argument_is_found_however_spelled() {
        let dir = tempfile::tempdir().unwrap();
        let run = dir.path().join("run.json");
        let other = dir.path().join("report.html");
        std::fs::write(&run, "{}").unwrap();
        std::fs::write(&other, "old").unwrap();
        let (r, o) = (run.to_str().unwrap(), other.to_str().unwrap());
        // Overwriting an earlier output is fine.
        assert_eq!(same_file_among(&other, &args(&["html", r, "-o", o])), None);
        // The input, spelled the same, through `./`, as `--x=FILE`, as `FILE#N`.
        assert!(same_file_among(&run, &args(&["html", r, "-o", r])).is_some());
        let dotted = format!("{}/./run.json", dir.path().display());
        assert!(same_file_among(&run, &args(&["html", &dotted, "-o", r])).is_some());
        let flag = format!("--baseline={r}");
        assert!(same_file_among(&run, &args(&["scorecard", &flag, "-o", r])).is_some());
        let hashed = format!("{r}#2");
        assert!(same_file_among(&run, &args(&["diff", &hashed, o, "-o", r])).is_some());
        // An output that does not exist yet is no input.
        let new = dir.path().join("new.json");
        assert_eq!(
            same_file_among(&new, &args(&["html", r, "-o", "new.json"])),
            None
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_link_to_an_input_is_the_input() {
        let dir = tempfile::tempdir().unwrap();
        let run = dir.path().join("run.json");
        std::fs::write(&run, "{}").unwrap();
        let link = dir.path().join("link.json");
        std::os::unix::fs::symlink(&run, &link).unwrap();
        let (r, l) = (run.to_str().unwrap(), link.to_str().unwrap());
        assert!(same_file_among(&link, &args(&["html", r, "-o", l])).is_some());
    }
}
