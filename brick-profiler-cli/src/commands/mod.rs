//! One module per subcommand; each has its clap `Args` and a `run` that
//! returns the exit status.

mod common;
pub(crate) mod contracts;
pub(crate) mod diff;
pub(crate) mod fleet;
pub(crate) mod html;
pub(crate) mod import;
pub(crate) mod parity;
pub(crate) mod probe;
pub(crate) mod roofline;
pub(crate) mod scorecard;
pub(crate) mod trace;
