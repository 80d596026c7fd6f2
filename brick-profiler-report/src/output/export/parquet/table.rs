//! A table of plain columns (strings, 32- and 64-bit integers, doubles, all
//! required) encoded as one uncompressed Parquet file with one row group:
//! what DuckDB, pandas and Spark read without any codec.

use std::sync::Arc;

use parquet::data_type::{ByteArray, ByteArrayType, DoubleType, Int32Type, Int64Type};
use parquet::errors::ParquetError;
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::parser::parse_message_type;

/// One column's values.
pub(super) enum Values {
    Str(Vec<ByteArray>),
    I32(Vec<i32>),
    I64(Vec<i64>),
    F64(Vec<f64>),
}

impl Values {
    fn physical(&self) -> &'static str {
        match self {
            Self::Str(_) => "BYTE_ARRAY",
            Self::I32(_) => "INT32",
            Self::I64(_) => "INT64",
            Self::F64(_) => "DOUBLE",
        }
    }

    fn len(&self) -> usize {
        match self {
            Self::Str(v) => v.len(),
            Self::I32(v) => v.len(),
            Self::I64(v) => v.len(),
            Self::F64(v) => v.len(),
        }
    }
}

/// Named columns of equal length.
#[derive(Default)]
pub(super) struct Table {
    columns: Vec<(&'static str, Values)>,
}

/// A count or duration as Parquet's signed INT64 (saturating: no profile
/// holds 2^63 ns).
pub(super) fn i64_of(v: u64) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}

/// Text as a Parquet string.
pub(super) fn text(s: &str) -> ByteArray {
    ByteArray::from(s.as_bytes().to_vec())
}

impl Table {
    /// Adds a column (every column must have the same length).
    pub(super) fn column(mut self, name: &'static str, values: Values) -> Self {
        self.columns.push((name, values));
        self
    }

    /// The schema in Parquet's message syntax; strings are UTF8.
    fn schema(&self, name: &str) -> String {
        let mut out = format!("message {name} {{\n");
        for (column, values) in &self.columns {
            let logical = if matches!(values, Values::Str(_)) {
                " (UTF8)"
            } else {
                ""
            };
            out.push_str(&format!(
                "  REQUIRED {} {column}{logical};\n",
                values.physical()
            ));
        }
        out.push('}');
        out
    }

    /// The Parquet file's bytes.
    pub(super) fn encode(&self, name: &str) -> Result<Vec<u8>, ParquetError> {
        let rows = self.columns.first().map_or(0, |(_, v)| v.len());
        if let Some((column, _)) = self.columns.iter().find(|(_, v)| v.len() != rows) {
            return Err(ParquetError::General(format!(
                "column `{column}` is not {rows} rows long"
            )));
        }
        let schema = Arc::new(parse_message_type(&self.schema(name))?);
        let props = Arc::new(WriterProperties::builder().build());
        let mut writer = SerializedFileWriter::new(Vec::new(), schema, props)?;
        let mut group = writer.next_row_group()?;
        let mut columns = self.columns.iter();
        while let Some(mut column) = group.next_column()? {
            let Some((_, values)) = columns.next() else {
                break;
            };
            match values {
                Values::Str(v) => column.typed::<ByteArrayType>().write_batch(v, None, None)?,
                Values::I32(v) => column.typed::<Int32Type>().write_batch(v, None, None)?,
                Values::I64(v) => column.typed::<Int64Type>().write_batch(v, None, None)?,
                Values::F64(v) => column.typed::<DoubleType>().write_batch(v, None, None)?,
            };
            column.close()?;
        }
        group.close()?;
        writer.into_inner()
    }
}
