//! Writing a report or a profile to a path without ever leaving a torn file:
//! a regular file is replaced atomically (keeping its mode, writing through
//! symlinks, refusing a read-only file unless asked), while a device, FIFO
//! or socket is written in place and never replaced.

use std::io::{BufWriter, Error, ErrorKind, Write as _};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// Most symlinks followed before giving up (as the kernel's `ELOOP`).
const MAX_LINK_HOPS: usize = 40;

/// Writes `bytes` to `path` so that readers see the old contents or the new
/// ones, never a mix.
///
/// - A regular file (or a path that does not exist yet) is replaced
///   atomically: a temporary file in the same directory is written,
///   flushed to disk and renamed over the target. An existing file keeps
///   its permissions; a symlink is written through (the file it points to
///   is replaced, the link stays); a read-only file is refused with
///   [`ErrorKind::PermissionDenied`] (see [`write_atomic_with`]).
/// - A path that exists and is not a regular file (a character or block
///   device such as `/dev/null`, a FIFO, a socket, `/dev/stdout` on a
///   pipe) is opened for writing and written in place: it is neither
///   replaced nor truncated. Opening a FIFO waits for a reader, as a
///   shell redirection does.
///
/// # Errors
/// The [`std::io::Error`] of the step that failed, with its kind kept (a
/// full device gives [`ErrorKind::StorageFull`]); refusals (a directory, a
/// read-only file, a path without a file name) name the path in their
/// message. Callers add the path to OS errors (as `Profile::write` does).
/// On failure the temporary file is removed and the target is unchanged.
///
/// # Examples
/// ```
/// let dir = std::env::temp_dir().join(format!("fs-doc-{}", std::process::id()));
/// std::fs::create_dir_all(&dir)?;
/// let path = dir.join("report.md");
/// profiler_core::fs::write_atomic(&path, b"# Report\n")?;
/// assert_eq!(std::fs::read_to_string(&path)?, "# Report\n");
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_atomic_with(path, bytes, false)
}

/// [`write_atomic`], overwriting a read-only file when `overwrite_read_only`
/// (the file stays read-only afterwards).
///
/// # Errors
/// As [`write_atomic`].
pub fn write_atomic_with(
    path: &Path,
    bytes: &[u8],
    overwrite_read_only: bool,
) -> std::io::Result<()> {
    write_atomic_by(path, overwrite_read_only, |out| out.write_all(bytes))
}

/// [`write_atomic`] for output produced piece by piece: `write` writes the
/// contents into a buffered writer, so a large export never needs to be one
/// string in memory. The same guarantees hold: readers see the old file or
/// the whole new one; if `write` fails, the target is left unchanged.
///
/// # Errors
/// As [`write_atomic`], and the error `write` returns.
///
/// # Examples
/// ```
/// use std::io::Write as _;
/// let dir = std::env::temp_dir().join(format!("fs-stream-doc-{}", std::process::id()));
/// std::fs::create_dir_all(&dir)?;
/// let path = dir.join("lines.txt");
/// profiler_core::fs::write_atomic_streamed(&path, |out| {
///     (0..3).try_for_each(|i| writeln!(out, "line {i}"))
/// })?;
/// assert_eq!(std::fs::read_to_string(&path)?, "line 0\nline 1\nline 2\n");
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn write_atomic_streamed(
    path: &Path,
    write: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    write_atomic_by(path, false, write)
}

fn write_atomic_by(
    path: &Path,
    overwrite_read_only: bool,
    write: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    // The kernel follows every link here, `/proc/self/fd/*` ones included,
    // which name pipes and sockets that no path can be resolved to.
    match std::fs::metadata(path) {
        Ok(meta) if meta.is_dir() => Err(Error::new(
            ErrorKind::IsADirectory,
            format!("`{}` is a directory", path.display()),
        )),
        Ok(meta) if meta.permissions().readonly() && !overwrite_read_only => Err(read_only(path)),
        // Renaming over a device node would replace `/dev/null` with a
        // regular file; writing is what the caller asked for.
        Ok(meta) if !meta.is_file() => write_in_place(path, write),
        Ok(_) => replace(path, write, overwrite_read_only),
        Err(e) if e.kind() == ErrorKind::NotFound => replace(path, write, overwrite_read_only),
        Err(e) => Err(e),
    }
}

/// Writes into an existing device, FIFO or socket: no truncation (devices
/// ignore it, and a FIFO cannot be truncated), no rename, no sync (not
/// every device supports it).
fn write_in_place(
    path: &Path,
    write: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let file = std::fs::OpenOptions::new().write(true).open(path)?;
    let mut out = BufWriter::new(file);
    write(&mut out)?;
    out.flush()
}

fn read_only(path: &Path) -> Error {
    Error::new(
        ErrorKind::PermissionDenied,
        format!(
            "`{}` is read-only; refusing to overwrite it",
            path.display()
        ),
    )
}

/// Replaces the regular file `path` names (after following symlinks), or
/// creates it.
fn replace(
    path: &Path,
    write: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
    overwrite_read_only: bool,
) -> std::io::Result<()> {
    let target = resolve_links(path)?;
    let existing = match std::fs::metadata(&target) {
        Ok(meta) => Some(meta),
        Err(e) if e.kind() == ErrorKind::NotFound => None,
        Err(e) => return Err(e),
    };
    if let Some(meta) = &existing {
        // Checked again on the resolved target: the path may have changed
        // since it was first looked at.
        if meta.is_dir() {
            return Err(Error::new(
                ErrorKind::IsADirectory,
                format!("`{}` is a directory", target.display()),
            ));
        }
        if meta.permissions().readonly() && !overwrite_read_only {
            return Err(read_only(&target));
        }
        if !meta.is_file() {
            return write_in_place(&target, write);
        }
    }
    // Unique per call, so concurrent writers in one process never share a
    // temporary file; `create_new` refuses to reuse a stale one.
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let dir = target
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let file_name = target.file_name().ok_or_else(|| {
        Error::new(
            ErrorKind::InvalidInput,
            format!("`{}` has no file name", path.display()),
        )
    })?;
    let tmp = dir.join(format!(
        ".{}.{}.{}.tmp",
        file_name.to_string_lossy(),
        std::process::id(),
        NEXT.fetch_add(1, Relaxed)
    ));
    let result = (|| {
        let file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)?;
        let mut out = BufWriter::new(file);
        write(&mut out)?;
        let file = out
            .into_inner()
            .map_err(std::io::IntoInnerError::into_error)?;
        file.sync_all()?;
        if let Some(meta) = &existing {
            // Set after writing: a read-only mode would refuse the write.
            file.set_permissions(meta.permissions())?;
        }
        drop(file);
        std::fs::rename(&tmp, &target)?;
        // Make the rename itself durable where directories can be synced.
        if let Ok(dir) = std::fs::File::open(dir) {
            let _ = dir.sync_all();
        }
        Ok(())
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// The file `path` finally names after following symlinks (which may not
/// exist yet). Relative link targets resolve against the link's directory.
fn resolve_links(path: &Path) -> std::io::Result<PathBuf> {
    let mut current = path.to_path_buf();
    for _ in 0..MAX_LINK_HOPS {
        match std::fs::symlink_metadata(&current) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let link = std::fs::read_link(&current)?;
                current = match current.parent() {
                    Some(parent) if link.is_relative() => parent.join(link),
                    _ => link,
                };
            }
            Ok(_) => return Ok(current),
            Err(e) if e.kind() == ErrorKind::NotFound => return Ok(current),
            Err(e) => return Err(e),
        }
    }
    Err(Error::new(
        ErrorKind::InvalidInput,
        format!("`{}`: too many levels of symbolic links", path.display()),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "profiler-fs-{name}-{}-{:?}",
            std::process::id(),
            std::thread::current().id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("scratch dir");
        dir
    }

    #[test]
    fn concurrent_atomic_writes_never_tear() {
        let dir = scratch("tear");
        let path = dir.join("out.bin");
        let writers: Vec<_> = [b'a', b'b']
            .into_iter()
            .map(|byte| {
                let path = path.clone();
                std::thread::spawn(move || {
                    for _ in 0..25 {
                        write_atomic(&path, &vec![byte; 1 << 20]).expect("write");
                    }
                })
            })
            .collect();
        for w in writers {
            w.join().expect("writer");
        }
        let bytes = std::fs::read(&path).expect("read");
        assert_eq!(bytes.len(), 1 << 20);
        assert!(
            bytes.iter().all(|&b| b == bytes[0]),
            "one writer's file, whole"
        );
        let leftovers = std::fs::read_dir(&dir).expect("dir").count();
        assert_eq!(leftovers, 1, "no temporary files left");
        std::fs::remove_dir_all(&dir).ok();
    }

    #[cfg(unix)]
    #[test]
    fn the_mode_of_an_existing_file_is_kept() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = scratch("mode");
        let path = dir.join("secret.json");
        std::fs::write(&path, "old").expect("write");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).expect("chmod");
        write_atomic(&path, b"new").expect("replace");
        let mode = std::fs::metadata(&path).expect("meta").permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        assert_eq!(std::fs::read_to_string(&path).expect("read"), "new");
        std::fs::remove_dir_all(&dir).ok();
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_are_written_through() {
        let dir = scratch("link");
        std::fs::create_dir(dir.join("real")).expect("dir");
        let target = dir.join("real/baseline.json");
        std::fs::write(&target, "old").expect("write");
        let link = dir.join("baseline.json");
        std::os::unix::fs::symlink("real/baseline.json", &link).expect("symlink");
        write_atomic(&link, b"new").expect("write through");
        assert!(
            std::fs::symlink_metadata(&link)
                .expect("meta")
                .file_type()
                .is_symlink(),
            "the link is still a link"
        );
        assert_eq!(std::fs::read_to_string(&target).expect("read"), "new");
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn read_only_files_are_refused_unless_asked() {
        let dir = scratch("ro");
        let path = dir.join("frozen.json");
        std::fs::write(&path, "old").expect("write");
        let mut perms = std::fs::metadata(&path).expect("meta").permissions();
        perms.set_readonly(true);
        std::fs::set_permissions(&path, perms).expect("chmod");
        let err = write_atomic(&path, b"new").expect_err("read-only");
        assert_eq!(err.kind(), ErrorKind::PermissionDenied);
        assert!(err.to_string().contains("frozen.json"), "{err}");
        assert_eq!(std::fs::read_to_string(&path).expect("read"), "old");
        write_atomic_with(&path, b"new", true).expect("forced");
        assert_eq!(std::fs::read_to_string(&path).expect("read"), "new");
        assert!(
            std::fs::metadata(&path)
                .expect("meta")
                .permissions()
                .readonly()
        );
        std::fs::remove_dir_all(&dir).ok();
    }
}
