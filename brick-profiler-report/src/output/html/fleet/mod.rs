//! [`FleetPage`]: a [`FleetReport`](crate::analysis::fleet::FleetReport)
//! as one self-contained HTML page in the run report's look (its
//! stylesheet, chart writer and glossary): the run and the rule at the top,
//! then where each rank's step went, the spread of step times, the rank x
//! step heat map, bricks across ranks and every rank with links to its
//! files. Offline: no network, no CDN.

mod bars;
mod heat;
mod page;
mod spread;
mod tables;
#[cfg(test)]
mod tests;

pub use page::FleetPage;
