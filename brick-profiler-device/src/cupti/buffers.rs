//! [`BufferPool`]: the activity buffers handed to CUPTI, allocated once.
//! Taking one never blocks: an empty pool refuses and counts the refusal
//! (CUPTI then drops that buffer's records and counts them too).

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use crossbeam_queue::ArrayQueue;

/// CUPTI wants buffers aligned to 8 bytes: they are made of `u64`s.
type Word = u64;

/// A fixed set of equal buffers, lent to CUPTI and given back once read.
#[derive(Debug)]
pub(crate) struct BufferPool {
    free: ArrayQueue<usize>,
    words: usize,
    refused: AtomicU64,
}

impl BufferPool {
    /// `count` buffers of `bytes` each (rounded up to 8 bytes, at least 8).
    pub(crate) fn new(count: usize, bytes: usize) -> Self {
        let words = bytes.div_ceil(size_of::<Word>()).max(1);
        let free = ArrayQueue::new(count.max(1));
        for _ in 0..count.max(1) {
            let buffer: Box<[Word]> = vec![0; words].into_boxed_slice();
            // The pool owns the allocation from here on (see `Drop`).
            let _ = free.push(Box::into_raw(buffer).cast::<Word>() as usize);
        }
        Self {
            free,
            words,
            refused: AtomicU64::new(0),
        }
    }

    /// A free buffer and its size in bytes, or `None` (counted) when every
    /// buffer is lent out. Never blocks.
    pub(crate) fn take(&self) -> Option<(*mut u8, usize)> {
        match self.free.pop() {
            Some(address) => Some((address as *mut u8, self.bytes())),
            None => {
                self.refused.fetch_add(1, Relaxed);
                None
            }
        }
    }

    /// Takes back a buffer [`BufferPool::take`] lent. A pointer the pool
    /// did not lend is ignored (and stays the caller's).
    pub(crate) fn give_back(&self, buffer: *mut u8) {
        if !buffer.is_null() && buffer.align_offset(align_of::<Word>()) == 0 {
            let _ = self.free.push(buffer as usize);
        }
    }

    /// Bytes per buffer.
    pub(crate) fn bytes(&self) -> usize {
        self.words * size_of::<Word>()
    }

    /// Requests refused because every buffer was lent out.
    pub(crate) fn refused(&self) -> u64 {
        self.refused.load(Relaxed)
    }

    /// Buffers in the pool now.
    pub(crate) fn available(&self) -> usize {
        self.free.len()
    }
}

impl Drop for BufferPool {
    fn drop(&mut self) {
        // Buffers still lent out are left alone (CUPTI may write them); the
        // capture's pool lives for the whole process, so only tests drop one.
        while let Some(address) = self.free.pop() {
            let slice = std::ptr::slice_from_raw_parts_mut(address as *mut Word, self.words);
            // SAFETY: every address in `free` came from `Box::into_raw` of a
            // `[Word]` of `self.words` words in `new` (or was lent and given
            // back), and is popped once, so it is freed once.
            drop(unsafe { Box::from_raw(slice) });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_pool_refuses_at_once_and_counts() {
        let pool = BufferPool::new(2, 100);
        assert_eq!(pool.bytes(), 104, "rounded up to whole words");
        let a = pool.take().expect("first");
        let b = pool.take().expect("second");
        assert_ne!(a.0, b.0);
        assert_eq!(a.0.align_offset(8), 0, "aligned for CUPTI");
        assert!(pool.take().is_none());
        assert!(pool.take().is_none());
        assert_eq!(pool.refused(), 2);
        pool.give_back(a.0);
        assert_eq!(pool.take().map(|t| t.0), Some(a.0), "reused");
        pool.give_back(a.0);
        pool.give_back(b.0);
        assert_eq!(pool.available(), 2);
    }

    #[test]
    fn a_null_buffer_is_not_taken_back() {
        let pool = BufferPool::new(1, 8);
        pool.give_back(std::ptr::null_mut());
        assert_eq!(pool.available(), 1);
    }
}
