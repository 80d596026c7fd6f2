//! Any text as an equation's precondition, through a contract file's
//! validation: reading never panics or overflows the stack, the text
//! reaches the validator unchanged, and a condition the validator accepts
//! parses as the Rust expression `#[contract]` will expand.

#![no_main]

#[path = "../common/mod.rs"]
mod common;

use libfuzzer_sys::fuzz_target;
use profiler_report::contracts::parse_contract;

fuzz_target!(|data: &[u8]| {
    let Some(text) = common::text(data) else {
        return;
    };
    let yaml = format!(
        "metadata:\n  version: \"0.1.0\"\n  created: \"2025-06-01\"\n  description: d\n\
         equations:\n  e:\n    formula: f\n    preconditions:\n      - {}\n",
        yaml_quoted(text)
    );
    let Ok(contract) = parse_contract("fuzz", "fuzz.yaml", &yaml) else {
        return;
    };
    let condition = &contract.equations[0].preconditions[0];
    assert_eq!(condition.text, text, "the YAML quoting changed the text");
    if let Err(e) = syn::parse_str::<syn::Expr>(&condition.text) {
        panic!("an accepted precondition is not a Rust expression: {e}");
    }
});

/// `text` as a YAML double-quoted scalar: every character that YAML would
/// fold, refuse or read as syntax is escaped.
fn yaml_quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            ' '..='~' => out.push(c),
            c if (c as u32) < 0x80
                || ('\u{80}'..='\u{a0}').contains(&c)
                || matches!(
                    c,
                    '\u{2028}' | '\u{2029}' | '\u{feff}' | '\u{fffe}' | '\u{ffff}'
                ) =>
            {
                out.push_str(&format!("\\u{:04x}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
