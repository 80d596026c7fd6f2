//! Chrome traces: PyTorch (Kineto) traces as `torch.profiler` exports them
//! ([`PytorchTraceFormat`]) and the traces this crate exports
//! ([`ChromeTraceFormat`]), streamed into a
//! [`ChromeTrace`](crate::model::chrome_trace::ChromeTrace) without holding the document
//! as a JSON tree. Bottom to top: interned names (`texts`), shapes
//! (`dims`), one raw event (`raw`), batches of events (`batch`), the
//! reading window (`window`), Kineto's metadata (`kineto`), the document
//! walk (`stream`), events with their nesting (`events`), then the formats.

mod batch;
mod dims;
mod events;
mod kineto;
mod pytorch;
mod raw;
mod stream;
mod texts;
mod trace;
mod window;

pub use pytorch::PytorchTraceFormat;
pub use texts::OTHER_NAMES;
#[cfg(test)]
pub(crate) use texts::TextLimits;
pub use trace::ChromeTraceFormat;
