//! Inputs, one layer of the library: every file format the reports read,
//! each a [`Format`] in its own file, listed once in [`registry()`]. [`open`]
//! tells a file's format from its first bytes and reads it into an [`Input`];
//! [`load`] also reads binary Nsight reports through their tool and picks
//! one of several `nsys stats` summaries (`FILE#N`); [`Run`] is what a
//! loaded file gives the reports that take a run.
//!
//! ```no_run
//! use profiler_report::input::{self, Input};
//! match input::open("run.json")? {
//!     Input::Profile(p) => println!("{} bricks", p.bricks.len()),
//!     other => println!("{}", other.what()),
//! }
//! # Ok::<(), profiler_report::input::InputError>(())
//! ```
//!
//! The formats come in three families: [`chrome`] (PyTorch and exported
//! Chrome traces), [`nsight`] (Nsight Compute and Nsight Systems exports)
//! and [`native`] (this project's own files). A new format is one file in
//! its family implementing [`Format`] (a name, a sniff of the first bytes,
//! a reader) and one line in `registry.rs`, before the step log that takes
//! any text.
//!
//! Reading is bounded: devices, FIFOs and sockets are refused, as are files
//! past [`MAX_INPUT_BYTES`] (4 GiB); a gzip file is decompressed as it is
//! read, and what it holds counts against the same limit; only the first
//! [`SNIFF_BYTES`] (64 KiB) are inspected before the format is known, and
//! no format holds a whole document as an untyped JSON tree.

mod binary;
pub mod chrome;
mod error;
mod file;
mod format;
mod load;
pub mod native;
pub mod nsight;
mod open;
mod registry;
mod run;
mod sniff;

pub use crate::base::user_file::{format_extension, open_file, open_reader, read_to_string};
#[cfg(test)]
pub(crate) use chrome::TextLimits;
pub use error::InputError;
pub use file::read_text;
pub use format::{Format, Input, Source};
pub use load::{LoadOptions, load};
pub use open::{detect, open, open_profile_summary, read_bytes};
pub use registry::registry;
pub use run::Run;
pub use sniff::{Head, JsonRoot, MAX_INPUT_BYTES, SNIFF_BYTES};
