//! Nsight imports rendered: every launch of an ncu import with its
//! sections (terminal, Markdown, JSON), and the kernel summary of an nsys
//! import as a table.

mod full_profiles;
mod nsys;

pub use full_profiles::{full_profiles_json, full_profiles_markdown, full_profiles_text};
