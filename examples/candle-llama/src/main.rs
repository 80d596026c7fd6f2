//! Runs the profiled candle llama model and lists the files it wrote.

use clap::Parser;

fn main() -> std::process::ExitCode {
    match candle_llama::run(&candle_llama::Args::parse()) {
        Ok(outcome) => {
            println!("wrote:");
            for file in &outcome.files {
                println!("  {}", file.display());
            }
            std::process::ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("candle-llama: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
