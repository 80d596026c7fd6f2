//! Name sanitisers, one per output format. Brick, phase, op, device and
//! thread names come from user code and may hold anything; every writer of
//! a format passes them through that format's sanitiser and nothing else.
//!
//! | format | sanitiser | what it guarantees |
//! |---|---|---|
//! | terminal text | [`visible`] (`brick-profiler-visible`) | one line, no escape sequences, no bidi tricks |
//! | HTML, SVG/XML | [`html()`] | `visible`, then entities: valid markup |
//! | SVG text the report writes | [`xml`] | entities, forbidden characters replaced |
//! | Markdown | [`markdown()`] | `visible`, then backslash escapes: no markup |
//! | folded stacks | [`frame`] | one frame that never reads as a count |
//! | Graphviz DOT | [`dot()`] | text stays inside its quoted string; line breaks as `\n` |
//!
//! JSON needs none: serde_json escapes every string and the names stay exact.

mod dot;
mod folded;
mod html;
mod markdown;
// The terminal escaper is a leaf crate, shared with the live metrics.
use profiler_visible as visible;

pub(crate) use dot::{dot, dot_into};
pub(crate) use folded::frame;
pub(crate) use html::{href, html, xml};
pub(crate) use markdown::markdown;
pub(crate) use visible::visible;
