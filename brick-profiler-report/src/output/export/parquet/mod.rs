//! A profile's aggregates as Parquet (feature `parquet`): `bricks`,
//! `steps`, `layers` and `counters` tables, one file each, every row
//! carrying the run id, rank, world size and host.

mod table;
mod tables;

use std::path::{Path, PathBuf};

use profiler_core::Profile;

use crate::output::error::ExportError;

/// The files [`write_parquet`] writes, in order.
pub const PARQUET_FILES: [&str; 4] = [
    "bricks.parquet",
    "steps.parquet",
    "layers.parquet",
    "counters.parquet",
];

/// Writes `bricks.parquet` (one row per brick), `steps.parquet` (one per
/// recorded step), `layers.parquet` (one per layer and direction) and
/// `counters.parquet` (one per counter sample) into `dir`, each atomically,
/// and returns their paths. Every row starts with `run_id`, `rank`,
/// `world_size` and `host`; times are integer ns.
///
/// # Errors
/// [`ExportError::Parquet`] or [`ExportError::Write`] naming the file.
pub fn write_parquet(
    profile: &Profile,
    dir: impl AsRef<Path>,
) -> Result<Vec<PathBuf>, ExportError> {
    let dir = dir.as_ref();
    let tables = [
        tables::bricks(profile),
        tables::steps(profile),
        tables::layers(profile),
        tables::counters(profile),
    ];
    let mut written = Vec::new();
    for (name, table) in PARQUET_FILES.iter().zip(tables) {
        let path = dir.join(name);
        let message = name.trim_end_matches(".parquet");
        let bytes = table.encode(message).map_err(|e| ExportError::Parquet {
            path: path.clone(),
            message: e.to_string(),
        })?;
        profiler_core::fs::write_atomic(&path, &bytes).map_err(|source| ExportError::Write {
            path: path.clone(),
            source,
        })?;
        written.push(path);
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use parquet::file::reader::{FileReader, SerializedFileReader};
    use parquet::record::RowAccessor;
    use profiler_core::{BrickCategory, BrickStats, Profile};

    #[test]
    fn bricks_and_steps_read_back_with_the_rank_on_every_row() {
        let mut p = Profile::empty();
        p.run.rank = Some(3);
        p.run.world_size = Some(8);
        p.run.run_id = "job-9".into();
        p.run.host = "node1".into();
        let mut b = BrickStats::new("MatMul", BrickCategory::Ffn);
        b.total_ns = 3_000;
        b.count = 3;
        p.bricks.push(b);
        p.steps.samples_ns = vec![1_000, 2_000];
        p.steps.samples_index = vec![5, 6];
        let dir = tempfile::tempdir().unwrap();
        let files = super::write_parquet(&p, dir.path()).unwrap();
        assert_eq!(files.len(), 4);
        let open = |name: &str| {
            SerializedFileReader::new(std::fs::File::open(dir.path().join(name)).unwrap()).unwrap()
        };
        let bricks = open("bricks.parquet");
        let rows: Vec<_> = bricks
            .get_row_iter(None)
            .unwrap()
            .map(Result::unwrap)
            .collect();
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].get_string(0).unwrap(), "job-9");
        assert_eq!(rows[0].get_int(1).unwrap(), 3);
        assert_eq!(rows[0].get_string(4).unwrap(), "MatMul");
        // 3 µs over 2 steps.
        assert_eq!(rows[0].get_double(11).unwrap(), 1_500.0);
        let steps = open("steps.parquet");
        let rows: Vec<_> = steps
            .get_row_iter(None)
            .unwrap()
            .map(Result::unwrap)
            .collect();
        let got: Vec<(i64, i64)> = rows
            .iter()
            .map(|r| (r.get_long(4).unwrap(), r.get_long(5).unwrap()))
            .collect();
        assert_eq!(got, [(5, 1_000), (6, 2_000)]);
        assert_eq!(
            open("counters.parquet")
                .metadata()
                .file_metadata()
                .num_rows(),
            0
        );
    }
}
