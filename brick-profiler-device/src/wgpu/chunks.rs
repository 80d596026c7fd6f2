//! Query sets and their read-back buffers, in chunks of pairs: a chunk
//! hands out pairs, then is resolved and copied in one submission, mapped
//! asynchronously, read and reused. Nothing here waits on the queue.

use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering::Acquire, Ordering::Release};

use wgpu::{
    Buffer, BufferDescriptor, BufferUsages, CommandBuffer, CommandEncoderDescriptor, Device,
    MapMode, QuerySet, QuerySetDescriptor, QueryType, Queue, SubmissionIndex,
};

use super::ledger::Time;

/// Pairs per chunk: a query set holds at most 4096 queries.
pub(crate) const PAIRS_PER_CHUNK: u32 = wgpu::QUERY_SET_MAX_QUERIES / 2;

const MAP_PENDING: u8 = 0;
const MAP_DONE: u8 = 1;
const MAP_FAILED: u8 = 2;

struct Chunk {
    set: QuerySet,
    resolve: Buffer,
    readback: Buffer,
    /// Sequence number of the chunk's first pair.
    base: u64,
    /// Pairs handed out.
    used: u32,
    mapped: Arc<AtomicU8>,
}

impl Chunk {
    /// Bytes of the resolved pairs handed out.
    fn bytes(&self) -> u64 {
        u64::from(self.used) * 2 * u64::from(wgpu::QUERY_SIZE)
    }

    fn new(device: &Device) -> Self {
        let bytes = u64::from(PAIRS_PER_CHUNK) * 2 * u64::from(wgpu::QUERY_SIZE);
        let buffer = |label, usage| {
            device.create_buffer(&BufferDescriptor {
                label: Some(label),
                size: bytes,
                usage,
                mapped_at_creation: false,
            })
        };
        Self {
            set: device.create_query_set(&QuerySetDescriptor {
                label: Some("brick timestamps"),
                ty: QueryType::Timestamp,
                count: PAIRS_PER_CHUNK * 2,
            }),
            resolve: buffer(
                "brick timestamps (resolved)",
                BufferUsages::QUERY_RESOLVE | BufferUsages::COPY_SRC,
            ),
            readback: buffer(
                "brick timestamps (read back)",
                BufferUsages::MAP_READ | BufferUsages::COPY_DST,
            ),
            base: 0,
            used: 0,
            mapped: Arc::new(AtomicU8::new(MAP_PENDING)),
        }
    }
}

/// One pair handed out: the query set and the index of its first query.
#[derive(Debug, Clone)]
pub(crate) struct Pair {
    pub(crate) set: QuerySet,
    pub(crate) index: u32,
}

/// Chunks taken out for read-back and the commands that read them back.
pub(crate) struct Sealed {
    chunks: Vec<Chunk>,
    commands: CommandBuffer,
}

/// Chunks whose read-back is submitted, to hand back to [`Chunks::accept`].
pub(crate) struct Submitted(Vec<(Chunk, SubmissionIndex)>);

impl Sealed {
    /// Submits the read-back and asks for the buffers to be mapped. Runs
    /// without the timer's lock: wgpu may call other callbacks meanwhile.
    pub(crate) fn submit(self, queue: &Queue) -> Submitted {
        let index = queue.submit([self.commands]);
        let chunks = self
            .chunks
            .into_iter()
            .map(|c| {
                let flag = Arc::clone(&c.mapped);
                c.readback
                    .map_async(MapMode::Read, 0..c.bytes(), move |result| {
                        flag.store(if result.is_ok() { MAP_DONE } else { MAP_FAILED }, Release);
                    });
                (c, index.clone())
            })
            .collect();
        Submitted(chunks)
    }
}

/// The chunks of one timer: those handing out pairs (the last one open),
/// those waiting for their read-back, and those free for reuse.
pub(crate) struct Chunks {
    filling: Vec<Chunk>,
    submitted: VecDeque<(Chunk, SubmissionIndex)>,
    free: Vec<Chunk>,
    created: usize,
    max_chunks: usize,
}

impl Chunks {
    /// At most `max_chunks` chunks (at least one) are ever created.
    pub(crate) fn new(max_chunks: usize) -> Self {
        Self {
            filling: Vec::new(),
            submitted: VecDeque::new(),
            free: Vec::new(),
            created: 0,
            max_chunks: max_chunks.max(1),
        }
    }

    /// Chunks created so far.
    pub(crate) fn created(&self) -> usize {
        self.created
    }

    /// The pair with sequence number `seq` (the ledger's next), or `None`
    /// when every chunk is in use.
    pub(crate) fn take(&mut self, device: &Device, seq: u64) -> Option<Pair> {
        if self
            .filling
            .last()
            .is_none_or(|c| c.used == PAIRS_PER_CHUNK)
        {
            let mut chunk = match self.free.pop() {
                Some(chunk) => chunk,
                None if self.created < self.max_chunks => {
                    self.created += 1;
                    Chunk::new(device)
                }
                None => return None,
            };
            chunk.base = seq;
            chunk.used = 0;
            chunk.mapped.store(MAP_PENDING, Release);
            self.filling.push(chunk);
        }
        let chunk = self.filling.last_mut()?;
        debug_assert_eq!(chunk.base + u64::from(chunk.used), seq);
        let pair = Pair {
            set: chunk.set.clone(),
            index: chunk.used * 2,
        };
        chunk.used += 1;
        Some(pair)
    }

    /// Takes every handed-out pair out for read-back, with the commands
    /// that resolve them and copy them to their read-back buffers. Submit
    /// it once the user's passes are submitted.
    pub(crate) fn seal(&mut self, device: &Device) -> Option<Sealed> {
        if self.filling.is_empty() {
            return None;
        }
        let mut encoder = device.create_command_encoder(&CommandEncoderDescriptor {
            label: Some("brick timestamps read-back"),
        });
        for c in &self.filling {
            encoder.resolve_query_set(&c.set, 0..c.used * 2, &c.resolve, 0);
            encoder.copy_buffer_to_buffer(&c.resolve, 0, &c.readback, 0, c.bytes());
        }
        Some(Sealed {
            chunks: std::mem::take(&mut self.filling),
            commands: encoder.finish(),
        })
    }

    /// Takes back chunks whose read-back was submitted.
    pub(crate) fn accept(&mut self, submitted: Submitted) {
        self.submitted.extend(submitted.0);
    }

    /// The last read-back submission still waiting.
    pub(crate) fn last_submission(&self) -> Option<SubmissionIndex> {
        self.submitted.back().map(|(_, index)| index.clone())
    }

    /// Reads every mapped chunk, oldest first, handing each pair's time
    /// and begin ticks to `f`, and frees the chunks. Stops at the first
    /// still being mapped (submissions finish in order).
    pub(crate) fn harvest(
        &mut self,
        ns_per_tick: f64,
        mut f: impl FnMut(u64, Time, Option<u64>),
    ) -> usize {
        let mut read = 0;
        while let Some((chunk, _)) = self.submitted.front() {
            let state = chunk.mapped.load(Acquire);
            if state == MAP_PENDING {
                break;
            }
            let Some((chunk, _)) = self.submitted.pop_front() else {
                break;
            };
            let view = (state == MAP_DONE)
                .then(|| chunk.readback.get_mapped_range(0..chunk.bytes()).ok())
                .flatten();
            for i in 0..u64::from(chunk.used) {
                let (time, begin) = view.as_deref().map_or((Time::Unusable, None), |data| {
                    pair_time(data, i as usize, ns_per_tick)
                });
                f(chunk.base + i, time, begin);
            }
            drop(view);
            if state == MAP_DONE {
                chunk.readback.unmap();
            }
            read += chunk.used as usize;
            self.free.push(chunk);
        }
        read
    }
}

/// The time of pair `i` in resolved query data (two little-endian `u64`
/// ticks per pair), scaled by the queue's timestamp period, with its begin
/// in raw ticks when usable.
pub(crate) fn pair_time(data: &[u8], i: usize, ns_per_tick: f64) -> (Time, Option<u64>) {
    let tick = |at: usize| {
        data.get(at..at + 8)
            .and_then(|b| b.try_into().ok())
            .map(u64::from_le_bytes)
    };
    match (tick(i * 16), tick(i * 16 + 8)) {
        (Some(begin), Some(end)) if end >= begin => (
            Time::Ns(((end - begin) as f64 * ns_per_tick).round() as u64),
            Some(begin),
        ),
        _ => (Time::Unusable, None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pair_times_are_scaled_ticks_and_a_backwards_pair_is_unusable() {
        let mut data = Vec::new();
        for tick in [100u64, 350, 900, 800] {
            data.extend_from_slice(&tick.to_le_bytes());
        }
        assert_eq!(pair_time(&data, 0, 2.0), (Time::Ns(500), Some(100)));
        assert_eq!(pair_time(&data, 1, 2.0), (Time::Unusable, None));
        assert_eq!(
            pair_time(&data, 2, 2.0),
            (Time::Unusable, None),
            "past the data"
        );
    }
}
