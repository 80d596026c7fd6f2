//! What the probes need to know about the machine: cache sizes from sysfs,
//! available memory, the processor's name, the calling thread's CPU time.
//! Every reader returns `None`
//! when the file is absent or unreadable, so the probes fall back to stated
//! assumptions instead of failing.

use std::collections::BTreeSet;
use std::path::Path;

/// One cache of cpu0, from `/sys/devices/system/cpu/cpu0/cache/index*`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct CacheInfo {
    /// 1, 2, 3, ...
    pub(crate) level: u32,
    /// Size of one instance, bytes.
    pub(crate) bytes: u64,
    /// Instances of this cache across all CPUs (distinct `shared_cpu_list`).
    pub(crate) instances: u64,
}

/// Parses sysfs sizes: `48K`, `2048K`, `32M`, `1G`, or plain bytes.
pub(crate) fn parse_size(text: &str) -> Option<u64> {
    let t = text.trim();
    let (digits, scale) = match t.chars().last()? {
        'K' | 'k' => (&t[..t.len() - 1], 1u64 << 10),
        'M' | 'm' => (&t[..t.len() - 1], 1 << 20),
        'G' | 'g' => (&t[..t.len() - 1], 1 << 30),
        _ => (t, 1),
    };
    digits.trim().parse::<u64>().ok()?.checked_mul(scale)
}

/// CPU time of the calling thread, ns (`CLOCK_THREAD_CPUTIME_ID`); `None`
/// where the clock is not available. On Linux with steal accounting the
/// time a hypervisor steals is left out of it, like time spent waiting for
/// a core.
pub(crate) fn thread_cpu_ns() -> Option<u64> {
    #[cfg(unix)]
    {
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `ts` is a valid, writable timespec for the call's duration,
        // and CLOCK_THREAD_CPUTIME_ID needs nothing else.
        let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &raw mut ts) };
        if rc != 0 {
            return None;
        }
        let secs = u64::try_from(ts.tv_sec).ok()?;
        let nanos = u64::try_from(ts.tv_nsec).ok()?;
        Some(secs * 1_000_000_000 + nanos)
    }
    #[cfg(not(unix))]
    {
        None
    }
}

fn read(path: &Path) -> Option<String> {
    std::fs::read_to_string(path).ok()
}

/// Data and unified caches of cpu0 under `root` (normally
/// `/sys/devices/system/cpu`), by level; instruction caches are skipped.
pub(crate) fn caches_under(root: &Path) -> Vec<CacheInfo> {
    let Ok(entries) = std::fs::read_dir(root.join("cpu0/cache")) else {
        return Vec::new();
    };
    let mut caches = Vec::new();
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(index) = name.to_str().filter(|n| n.starts_with("index")) else {
            continue;
        };
        let dir = entry.path();
        let kind = read(&dir.join("type")).unwrap_or_default();
        if kind.trim() == "Instruction" {
            continue;
        }
        let (Some(level), Some(bytes)) = (
            read(&dir.join("level")).and_then(|l| l.trim().parse().ok()),
            read(&dir.join("size")).and_then(|s| parse_size(&s)),
        ) else {
            continue;
        };
        caches.push(CacheInfo {
            level,
            bytes,
            instances: instances(root, index).max(1),
        });
    }
    caches.sort_by_key(|c| c.level);
    caches
}

/// How many distinct CPU sets share cache `index` (1 per socket for a
/// typical L3, 1 per core for L2).
fn instances(root: &Path, index: &str) -> u64 {
    let Ok(cpus) = std::fs::read_dir(root) else {
        return 1;
    };
    let sets: BTreeSet<String> = cpus
        .flatten()
        .filter(|e| {
            e.file_name().to_str().is_some_and(|n| {
                n.strip_prefix("cpu")
                    .is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
            })
        })
        .filter_map(|e| read(&e.path().join("cache").join(index).join("shared_cpu_list")))
        .map(|s| s.trim().to_owned())
        .collect();
    sets.len() as u64
}

/// Caches of this machine (empty where sysfs is not available).
pub(crate) fn caches() -> Vec<CacheInfo> {
    caches_under(Path::new("/sys/devices/system/cpu"))
}

/// `MemAvailable` from `/proc/meminfo`, bytes.
pub(crate) fn mem_available() -> Option<u64> {
    let text = read(Path::new("/proc/meminfo"))?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// The processor's name (`model name` on x86, `Model` or `Hardware` on
/// ARM); empty when unknown.
pub(crate) fn cpu_name() -> String {
    let text = read(Path::new("/proc/cpuinfo")).unwrap_or_default();
    ["model name", "Model", "Hardware"]
        .iter()
        .find_map(|key| {
            text.lines()
                .find(|l| l.split(':').next().is_some_and(|k| k.trim() == *key))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_owned())
        })
        .filter(|v| !v.is_empty())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thread_cpu_time_moves_with_work_not_with_sleep() {
        let Some(t0) = thread_cpu_ns() else { return };
        std::thread::sleep(std::time::Duration::from_millis(20));
        let slept = thread_cpu_ns().unwrap() - t0;
        let t1 = thread_cpu_ns().unwrap();
        let end = std::time::Instant::now() + std::time::Duration::from_millis(20);
        while std::time::Instant::now() < end {
            std::hint::black_box(0u64);
        }
        let worked = thread_cpu_ns().unwrap() - t1;
        assert!(slept < 10_000_000, "{slept} ns of CPU while asleep");
        assert!(worked > slept, "{worked} ns working, {slept} asleep");
    }

    #[test]
    fn sizes_parse_with_suffixes() {
        assert_eq!(parse_size("48K\n"), Some(48 << 10));
        assert_eq!(parse_size("32M"), Some(32 << 20));
        assert_eq!(parse_size("1G"), Some(1 << 30));
        assert_eq!(parse_size("4096"), Some(4096));
        assert_eq!(parse_size(""), None);
        assert_eq!(parse_size("lots"), None);
    }

    #[test]
    fn caches_read_from_a_sysfs_tree() {
        let root = tempfile::tempdir().unwrap();
        let write = |cpu: u32, index: u32, files: &[(&str, &str)]| {
            let dir = root.path().join(format!("cpu{cpu}/cache/index{index}"));
            std::fs::create_dir_all(&dir).unwrap();
            for (name, text) in files {
                std::fs::write(dir.join(name), text).unwrap();
            }
        };
        for cpu in 0..4 {
            write(
                cpu,
                0,
                &[
                    ("type", "Data"),
                    ("level", "1"),
                    ("size", "48K"),
                    ("shared_cpu_list", &cpu.to_string()),
                ],
            );
            write(
                cpu,
                1,
                &[
                    ("type", "Instruction"),
                    ("level", "1"),
                    ("size", "32K"),
                    ("shared_cpu_list", &cpu.to_string()),
                ],
            );
            // Two L3 slices of 2 CPUs each.
            let l3 = if cpu < 2 { "0-1" } else { "2-3" };
            write(
                cpu,
                3,
                &[
                    ("type", "Unified"),
                    ("level", "3"),
                    ("size", "16384K"),
                    ("shared_cpu_list", l3),
                ],
            );
        }
        std::fs::create_dir_all(root.path().join("cpufreq")).unwrap();
        let c = caches_under(root.path());
        assert_eq!(
            c,
            [
                CacheInfo {
                    level: 1,
                    bytes: 48 << 10,
                    instances: 4
                },
                CacheInfo {
                    level: 3,
                    bytes: 16 << 20,
                    instances: 2
                },
            ]
        );
        assert!(caches_under(&root.path().join("missing")).is_empty());
    }
}
