//! Nodes of the execution graph: what ran (bricks, kernels, transfers, async
//! tasks) and the structure around it (functions, layers, steps).

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::catalogue::BrickId;

/// Index of a node in its `ExecutionGraph`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct NodeId(u32);

impl NodeId {
    /// The node at `index` (valid only for a graph with more nodes than that).
    #[must_use]
    pub const fn new(index: u32) -> Self {
        Self(index)
    }

    /// Position in the graph's node list.
    #[must_use]
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Display for NodeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "n{}", self.0)
    }
}

/// Which way a transfer moves data.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TransferDirection {
    /// Host to device.
    H2D,
    /// Device to host.
    D2H,
    /// Device to device.
    D2D,
}

impl TransferDirection {
    /// `"H2D"`, `"D2H"` or `"D2D"`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::H2D => "H2D",
            Self::D2H => "D2H",
            Self::D2D => "D2D",
        }
    }
}

impl fmt::Display for TransferDirection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A GPU kernel launch.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KernelNode {
    /// Kernel name.
    pub name: String,
    /// FNV-1a hash of the kernel's PTX source (0 when unknown; see `PtxRegistry`).
    #[serde(default)]
    pub ptx_hash: u64,
    /// Grid dimensions (blocks).
    #[serde(default = "unit_dims")]
    pub grid: [u32; 3],
    /// Block dimensions (threads).
    #[serde(default = "unit_dims")]
    pub block: [u32; 3],
    /// Dynamic shared memory per block, bytes.
    #[serde(default)]
    pub shared_mem: u32,
    /// Device time, ns, once known.
    #[serde(default)]
    pub timing_ns: Option<u64>,
    /// Flops per byte, when known.
    #[serde(default)]
    pub arithmetic_intensity: Option<f64>,
    /// Achieved TFLOP/s, when known.
    #[serde(default)]
    pub achieved_tflops: Option<f64>,
}

/// Dimensions of a launch that did not say: 1x1x1, as for [`KernelNode::new`].
fn unit_dims() -> [u32; 3] {
    [1, 1, 1]
}

/// A finite value, or `None`.
fn finite(v: f64) -> Option<f64> {
    v.is_finite().then_some(v)
}

impl KernelNode {
    /// A launch of `name` with 1x1x1 grid and block and nothing else known.
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            ptx_hash: 0,
            grid: [1, 1, 1],
            block: [1, 1, 1],
            shared_mem: 0,
            timing_ns: None,
            arithmetic_intensity: None,
            achieved_tflops: None,
        }
    }

    /// Sets the grid dimensions.
    #[must_use]
    pub fn grid(mut self, x: u32, y: u32, z: u32) -> Self {
        self.grid = [x, y, z];
        self
    }

    /// Sets the block dimensions.
    #[must_use]
    pub fn block(mut self, x: u32, y: u32, z: u32) -> Self {
        self.block = [x, y, z];
        self
    }

    /// Sets the dynamic shared memory per block, bytes.
    #[must_use]
    pub fn shared_mem(mut self, bytes: u32) -> Self {
        self.shared_mem = bytes;
        self
    }

    /// Sets the PTX source hash.
    #[must_use]
    pub fn ptx_hash(mut self, hash: u64) -> Self {
        self.ptx_hash = hash;
        self
    }

    /// Sets the device time.
    #[must_use]
    pub fn timing_ns(mut self, ns: u64) -> Self {
        self.timing_ns = Some(ns);
        self
    }

    /// Sets the arithmetic intensity (ignored unless finite).
    #[must_use]
    pub fn arithmetic_intensity(mut self, flops_per_byte: f64) -> Self {
        self.arithmetic_intensity = finite(flops_per_byte);
        self
    }

    /// Sets the achieved TFLOP/s (ignored unless finite).
    #[must_use]
    pub fn achieved_tflops(mut self, tflops: f64) -> Self {
        self.achieved_tflops = finite(tflops);
        self
    }
}

/// A data transfer between a host and a device or two devices.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TransferNode {
    /// Source (e.g. `"host"`, `"cuda:0"`, or a buffer name).
    pub src: String,
    /// Destination.
    pub dst: String,
    /// Bytes moved.
    pub bytes: u64,
    /// Direction.
    pub direction: TransferDirection,
    /// Transfer time, ns, once known.
    #[serde(default)]
    pub timing_ns: Option<u64>,
}

impl TransferNode {
    /// A transfer of `bytes` from `src` to `dst`.
    pub fn new(
        src: impl Into<String>,
        dst: impl Into<String>,
        bytes: u64,
        direction: TransferDirection,
    ) -> Self {
        Self {
            src: src.into(),
            dst: dst.into(),
            bytes,
            direction,
            timing_ns: None,
        }
    }

    /// Sets the transfer time.
    #[must_use]
    pub fn timing_ns(mut self, ns: u64) -> Self {
        self.timing_ns = Some(ns);
        self
    }
}

/// What a node stands for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum NodeKind {
    /// A call of a built-in brick.
    Brick {
        /// The brick (`"brick"` in JSON: `id` is the node's id there).
        #[serde(rename = "brick")]
        id: BrickId,
        /// Time, ns.
        timing_ns: u64,
        /// Elements processed.
        elements: u64,
    },
    /// A call of a custom or dynamically named brick.
    CustomBrick {
        /// Brick name.
        name: String,
        /// Time, ns.
        timing_ns: u64,
        /// Elements processed.
        elements: u64,
    },
    /// A GPU kernel launch.
    Kernel(KernelNode),
    /// A data transfer.
    Transfer(TransferNode),
    /// A function (or phase) scope.
    Function {
        /// Function name.
        name: String,
        /// Source file.
        #[serde(default)]
        file: Option<String>,
        /// Source line.
        #[serde(default)]
        line: Option<u32>,
    },
    /// A model layer scope.
    Layer {
        /// Layer index.
        index: u32,
    },
    /// A training or inference step scope.
    Step {
        /// Step number.
        index: u64,
    },
    /// An async task, summarised over its polls.
    AsyncTask {
        /// Task name.
        name: String,
        /// Times it was polled.
        poll_count: u64,
        /// Times it yielded (returned `Pending`).
        yield_count: u64,
        /// Time spent inside polls, ns.
        total_poll_ns: u64,
    },
}

impl NodeKind {
    /// A function scope without source location.
    pub fn function(name: impl Into<String>) -> Self {
        Self::Function {
            name: name.into(),
            file: None,
            line: None,
        }
    }

    /// Snake-case kind name, as in the JSON `kind` field.
    #[must_use]
    pub const fn kind_name(&self) -> &'static str {
        match self {
            Self::Brick { .. } => "brick",
            Self::CustomBrick { .. } => "custom_brick",
            Self::Kernel(_) => "kernel",
            Self::Transfer(_) => "transfer",
            Self::Function { .. } => "function",
            Self::Layer { .. } => "layer",
            Self::Step { .. } => "step",
            Self::AsyncTask { .. } => "async_task",
        }
    }

    /// The node's name: brick or kernel name, `src -> dst`, `layer 3`, ...
    #[must_use]
    pub fn name(&self) -> String {
        match self {
            Self::Brick { id, .. } => id.name().to_owned(),
            Self::CustomBrick { name, .. }
            | Self::Function { name, .. }
            | Self::AsyncTask { name, .. } => name.clone(),
            Self::Kernel(k) => k.name.clone(),
            Self::Transfer(t) => format!("{} -> {}", t.src, t.dst),
            Self::Layer { index } => format!("layer {index}"),
            Self::Step { index } => format!("step {index}"),
        }
    }

    /// Time spent in the node, ns: `None` for structural nodes (function,
    /// layer, step) and for kernels and transfers not timed yet.
    #[must_use]
    pub fn timing_ns(&self) -> Option<u64> {
        match self {
            Self::Brick { timing_ns, .. } | Self::CustomBrick { timing_ns, .. } => Some(*timing_ns),
            Self::Kernel(k) => k.timing_ns,
            Self::Transfer(t) => t.timing_ns,
            Self::AsyncTask { total_poll_ns, .. } => Some(*total_poll_ns),
            Self::Function { .. } | Self::Layer { .. } | Self::Step { .. } => None,
        }
    }

    /// Whether the node is timed work (not structure) whose time is still unknown.
    #[must_use]
    pub fn is_missing_timing(&self) -> bool {
        match self {
            Self::Kernel(k) => k.timing_ns.is_none(),
            Self::Transfer(t) => t.timing_ns.is_none(),
            _ => false,
        }
    }
}

/// A node: its id (its index) and what it stands for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GraphNode {
    /// The node's id, equal to its index in the graph.
    pub id: NodeId,
    /// What it stands for.
    #[serde(flatten)]
    pub kind: NodeKind,
}
