//! Binary files named for what they are: a file that is neither text nor
//! gzip is told by its magic bytes (or, for the Nsight reports, by its
//! extension), so the refusal says what the file is and what to do instead.

use std::path::Path;

/// A binary file we do not read: what it is, and what to give instead.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Binary {
    /// What the file is, in words (`a zip archive`).
    pub(crate) what: &'static str,
    /// What to do with it.
    pub(crate) advice: &'static str,
}

/// Files told by their first bytes: (magic, what, advice).
const MAGIC: &[(&[u8], &str, &str)] = &[
    (
        b"SQLite format 3\0",
        "an SQLite database (as `nsys export --type sqlite` writes)",
        "export the report with `nsys export --type json`, or give the output of \
         `nsys stats --report cuda_gpu_kern_sum` on it",
    ),
    (
        b"PK\x03\x04",
        "a zip archive",
        "unpack it and give the file inside",
    ),
    (
        &[0x28, 0xb5, 0x2f, 0xfd],
        "zstd-compressed",
        "decompress it first (`zstd -d`); only gzip is read as it is",
    ),
    (
        &[0xfd, b'7', b'z', b'X', b'Z', 0x00],
        "xz-compressed",
        "decompress it first (`xz -d`); only gzip is read as it is",
    ),
    (
        b"\x89PNG\r\n\x1a\n",
        "a PNG image",
        "give the profile or trace the picture was made from",
    ),
    (
        b"\x7fELF",
        "an executable (ELF)",
        "run it with profiling on and give the profile or trace it writes",
    ),
    (
        b"%PDF-",
        "a PDF document",
        "give the profile or trace the document was made from",
    ),
];

/// Nsight reports, told by their extension: (extension, what, advice).
const REPORTS: &[(&str, &str, &str)] = &[
    (
        "nsys-rep",
        "an Nsight Systems report",
        "export it with `nsys stats --report cuda_gpu_kern_sum --format csv FILE` \
         (or `nsys export --type json FILE`) and give that output",
    ),
    (
        "qdrep",
        "an Nsight Systems report",
        "export it with `nsys stats --report cuda_gpu_kern_sum --format csv FILE` \
         (or `nsys export --type json FILE`) and give that output",
    ),
    (
        "ncu-rep",
        "an Nsight Compute report",
        "export it with `ncu --import FILE --csv --page details` and give that CSV",
    ),
];

/// Extensions of protobuf traces (Perfetto's among them).
const PROTOBUF: &[&str] = &["pb", "pftrace", "perfetto-trace", "perfetto", "protobuf"];

/// Neither text nor gzip, nor anything named above.
const UNKNOWN: Binary = Binary {
    what: "binary, neither text nor gzip",
    advice: "export it to CSV or JSON first",
};

const PERFETTO: Binary = Binary {
    what: "protobuf (a Perfetto trace?)",
    advice: "give the Kineto JSON trace instead (`prof.export_chrome_trace(\"trace.json\")`), \
             or convert it to JSON with Perfetto's `traceconv json`",
};

/// What a file starting with `head` is, when it starts with the magic bytes
/// of a format we do not read; `None` when nothing tells.
#[must_use]
pub(crate) fn by_magic(head: &[u8]) -> Option<Binary> {
    MAGIC
        .iter()
        .find(|(magic, ..)| head.starts_with(magic))
        .map(|&(_, what, advice)| Binary { what, advice })
        .or_else(|| {
            is_bzip2(head).then_some(Binary {
                what: "bzip2-compressed",
                advice: "decompress it first (`bzip2 -d`); only gzip is read as it is",
            })
        })
}

/// What a binary file (its bytes are not text) starting with `head` at
/// `path` is: by magic bytes, then by extension, then a protobuf guess,
/// else "binary, neither text nor gzip".
#[must_use]
pub(crate) fn name(head: &[u8], path: Option<&Path>) -> Binary {
    if let Some(b) = by_magic(head) {
        return b;
    }
    let ext = path
        .and_then(|p| p.extension())
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    if let Some(ext) = ext.as_deref() {
        if let Some(&(_, what, advice)) = REPORTS.iter().find(|(e, ..)| *e == ext) {
            return Binary { what, advice };
        }
        if PROTOBUF.contains(&ext) {
            return PERFETTO;
        }
    }
    // A Perfetto trace is a repeated `TracePacket` (field 1, bytes): tag
    // 0x0a, then a length.
    if head.first() == Some(&0x0a) && head.get(1).is_some_and(|&b| b != b'\n') {
        return PERFETTO;
    }
    UNKNOWN
}

/// bzip2: `BZh`, a block size digit, then a block's or the end's magic (so
/// a text starting with "BZh" is not taken for one).
fn is_bzip2(head: &[u8]) -> bool {
    head.len() >= 10
        && head.starts_with(b"BZh")
        && (b'1'..=b'9').contains(&head[3])
        && matches!(
            &head[4..10],
            [0x31, 0x41, 0x59, 0x26, 0x53, 0x59] | [0x17, 0x72, 0x45, 0x38, 0x50, 0x90]
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binaries_are_named_by_magic_then_extension() {
        let named = |head: &[u8], path: &str| name(head, Some(Path::new(path))).what;
        assert!(named(b"SQLite format 3\0\x10\x00", "r.sqlite").contains("SQLite"));
        assert_eq!(named(b"PK\x03\x04\x14\0", "t.zip"), "a zip archive");
        assert_eq!(
            named(&[0x28, 0xb5, 0x2f, 0xfd, 0], "t.zst"),
            "zstd-compressed"
        );
        assert_eq!(named(b"BZh91AY&SY\0", "t.bz2"), "bzip2-compressed");
        assert_eq!(by_magic(b"BZh is how the log starts"), None);
        assert_eq!(named(b"\xfd7zXZ\0\0", "t.xz"), "xz-compressed");
        assert_eq!(named(b"\x89PNG\r\n\x1a\n\0", "a.png"), "a PNG image");
        assert_eq!(named(b"\x7fELF\x02\x01", "train"), "an executable (ELF)");
        assert_eq!(
            named(&[0, 1, 2], "run.nsys-rep"),
            "an Nsight Systems report"
        );
        assert_eq!(named(&[0, 1, 2], "RUN.NCU-REP"), "an Nsight Compute report");
        assert_eq!(named(&[0, 1, 2], "t.pftrace"), PERFETTO.what);
        assert_eq!(named(&[0x0a, 0x8f, 0x01, 0x12], "trace"), PERFETTO.what);
        assert_eq!(named(&[0xff, 0xfe, 0], "x.bin"), UNKNOWN.what);
        assert!(name(&[0], None).advice.contains("CSV or JSON"));
        assert!(named(&[0], "r.ncu-rep").contains("Compute"));
        assert!(
            name(&[0], Some(Path::new("r.ncu-rep")))
                .advice
                .contains("--csv")
        );
    }
}
