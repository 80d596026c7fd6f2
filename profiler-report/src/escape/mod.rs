//! Name sanitisers, one per output format. Brick, phase, op and device
//! names come from user code and may hold anything; every renderer passes
//! them through the sanitiser of its format and nothing else.

mod folded;
mod html;

pub(crate) use folded::frame;
pub(crate) use html::html;
