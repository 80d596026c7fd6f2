//! `brick-profiler`: the brick profiler's reports from saved files, with
//! exit statuses CI can act on (see `brick-profiler --help`).

mod cli;
mod commands;
mod context;
mod error;
mod input;
mod output;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    match cli.run() {
        Ok(status) => status.exit_code(),
        Err(e) => {
            eprintln!("brick-profiler: {e}");
            e.status().exit_code()
        }
    }
}
