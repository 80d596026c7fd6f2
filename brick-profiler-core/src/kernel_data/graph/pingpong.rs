//! Ping-pong transfers: the same bytes moving host to device, back, and to
//! the device again, which usually means a tensor that should have stayed
//! resident.
//!
//! Definition. Only host-device transfer nodes (H2D, D2H) take part, in
//! recording (node id) order; the k-th of them has transfer index k. A
//! transfer's host side is its source for H2D and its destination for D2H;
//! the device side is the other end. Transfers with the same host side,
//! device side and byte count form a lane. Within a lane, a run is a chain
//! of transfers in which each goes the opposite way to the previous one and
//! its transfer index is at most `window` after the previous one's. Runs
//! are maximal: a same-direction repeat or a larger gap ends a run, and the
//! transfer that broke it starts the next. A run of at least
//! `min_transfers` transfers is a ping-pong.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::node::{NodeId, NodeKind, TransferDirection};
use super::store::ExecutionGraph;

/// Parameters of [`ExecutionGraph::ping_pongs`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PingPongConfig {
    /// Largest transfer-index gap between consecutive transfers of a run
    /// (1: no other host-device transfer in between). Default 8.
    pub window: usize,
    /// Fewest transfers in a reported run; values below 2 act as 2.
    /// Default 3 (there, back, there again).
    pub min_transfers: usize,
}

impl Default for PingPongConfig {
    fn default() -> Self {
        Self {
            window: 8,
            min_transfers: 3,
        }
    }
}

/// A run of transfers bouncing the same bytes between a host and a device.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PingPong {
    /// Host side.
    pub host: String,
    /// Device side.
    pub device: String,
    /// Bytes per transfer.
    pub bytes: u64,
    /// Direction of the first transfer.
    pub first_direction: TransferDirection,
    /// The transfer nodes, in order.
    pub transfers: Vec<NodeId>,
}

impl PingPong {
    /// Bytes moved after the first transfer, `bytes x (transfers - 1)`: at
    /// most what keeping the data resident would save.
    #[must_use]
    pub fn redundant_bytes(&self) -> u64 {
        let repeats = self.transfers.len().saturating_sub(1) as u64;
        self.bytes.saturating_mul(repeats)
    }
}

/// A run being built: its transfers, last direction and last transfer index.
struct Run {
    transfers: Vec<NodeId>,
    first: TransferDirection,
    last: TransferDirection,
    last_index: usize,
}

impl ExecutionGraph {
    /// Ping-pong runs (see the module docs), ordered by their first transfer.
    #[must_use]
    pub fn ping_pongs(&self, config: PingPongConfig) -> Vec<PingPong> {
        let min = config.min_transfers.max(2);
        let mut lanes: HashMap<(&str, &str, u64), Run> = HashMap::new();
        let mut found = Vec::new();
        let mut close = |(host, device, bytes): (&str, &str, u64), run: Run| {
            if run.transfers.len() >= min {
                found.push(PingPong {
                    host: host.to_owned(),
                    device: device.to_owned(),
                    bytes,
                    first_direction: run.first,
                    transfers: run.transfers,
                });
            }
        };
        let transfers = self.nodes.iter().filter_map(|n| match &n.kind {
            NodeKind::Transfer(t) => match t.direction {
                TransferDirection::H2D => Some((n.id, t.src.as_str(), t.dst.as_str(), t)),
                TransferDirection::D2H => Some((n.id, t.dst.as_str(), t.src.as_str(), t)),
                TransferDirection::D2D => None,
            },
            _ => None,
        });
        for (index, (id, host, device, t)) in transfers.enumerate() {
            let lane = (host, device, t.bytes);
            let fresh = || Run {
                transfers: vec![id],
                first: t.direction,
                last: t.direction,
                last_index: index,
            };
            match lanes.get_mut(&lane) {
                Some(run) if run.last != t.direction && index - run.last_index <= config.window => {
                    run.transfers.push(id);
                    run.last = t.direction;
                    run.last_index = index;
                }
                Some(run) => {
                    let ended = std::mem::replace(run, fresh());
                    close(lane, ended);
                }
                None => {
                    lanes.insert(lane, fresh());
                }
            }
        }
        for (lane, run) in lanes {
            close(lane, run);
        }
        found.sort_by_key(|p| p.transfers.first().copied());
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel_data::graph::TransferNode;
    use TransferDirection::{D2D, D2H, H2D};

    /// Records `(src, dst, bytes, direction)` transfers; returns their ids.
    fn graph(transfers: &[(&str, &str, u64, TransferDirection)]) -> (ExecutionGraph, Vec<NodeId>) {
        let mut g = ExecutionGraph::new();
        let ids = transfers
            .iter()
            .map(|&(src, dst, bytes, dir)| {
                g.record_transfer(TransferNode::new(src, dst, bytes, dir))
                    .unwrap()
            })
            .collect();
        (g, ids)
    }

    #[test]
    fn there_back_and_there_again_is_a_ping_pong() {
        let (g, ids) = graph(&[
            ("host", "cuda:0", 4096, H2D),
            ("cuda:0", "host", 4096, D2H),
            ("host", "cuda:0", 4096, H2D),
            ("cuda:0", "host", 4096, D2H),
        ]);
        let found = g.ping_pongs(PingPongConfig::default());
        assert_eq!(
            found,
            [PingPong {
                host: "host".into(),
                device: "cuda:0".into(),
                bytes: 4096,
                first_direction: H2D,
                transfers: ids,
            }]
        );
        assert_eq!(found[0].redundant_bytes(), 3 * 4096);
    }

    #[test]
    fn a_single_round_trip_is_below_the_default_minimum() {
        let (g, _) = graph(&[("host", "gpu", 8, H2D), ("gpu", "host", 8, D2H)]);
        assert!(g.ping_pongs(PingPongConfig::default()).is_empty());
        let two = PingPongConfig {
            min_transfers: 2,
            ..PingPongConfig::default()
        };
        assert_eq!(g.ping_pongs(two).len(), 1);
        let one = PingPongConfig {
            min_transfers: 1,
            ..PingPongConfig::default()
        };
        let (single, _) = graph(&[("host", "gpu", 8, H2D)]);
        assert!(
            single.ping_pongs(one).is_empty(),
            "one transfer never bounces"
        );
    }

    #[test]
    fn same_direction_other_bytes_or_other_endpoints_do_not_bounce() {
        let same_direction = graph(&[("h", "d", 8, H2D), ("h", "d", 8, H2D), ("h", "d", 8, H2D)]).0;
        let other_bytes = graph(&[("h", "d", 8, H2D), ("d", "h", 16, D2H), ("h", "d", 8, H2D)]).0;
        let other_device = graph(&[
            ("h", "d0", 8, H2D),
            ("d1", "h", 8, D2H),
            ("h", "d0", 8, H2D),
        ])
        .0;
        let device_to_device = graph(&[
            ("d0", "d1", 8, D2D),
            ("d1", "d0", 8, D2D),
            ("d0", "d1", 8, D2D),
        ])
        .0;
        for g in [same_direction, other_bytes, other_device, device_to_device] {
            assert!(g.ping_pongs(PingPongConfig::default()).is_empty());
        }
    }

    #[test]
    fn transfers_further_apart_than_the_window_do_not_bounce() {
        let spread = [
            ("h", "d", 8, H2D),
            ("h", "x", 1, H2D),
            ("h", "y", 2, H2D),
            ("d", "h", 8, D2H), // 3 transfers after the first
            ("h", "d", 8, H2D), // 1 after the previous
        ];
        let (g, ids) = graph(&spread);
        let narrow = PingPongConfig {
            window: 2,
            min_transfers: 3,
        };
        assert!(g.ping_pongs(narrow).is_empty());
        let wide = PingPongConfig {
            window: 3,
            min_transfers: 3,
        };
        let found = g.ping_pongs(wide);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].transfers, [ids[0], ids[3], ids[4]]);
    }

    #[test]
    fn a_repeat_ends_one_run_and_starts_the_next() {
        let (g, ids) = graph(&[
            ("h", "d", 8, H2D),
            ("d", "h", 8, D2H),
            ("d", "h", 8, D2H), // repeat: run 1 = [0, 1], run 2 starts here
            ("h", "d", 8, H2D),
            ("d", "h", 8, D2H),
        ]);
        let found = g.ping_pongs(PingPongConfig::default());
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].transfers, ids[2..]);
        assert_eq!(found[0].first_direction, D2H);
    }
}
