//! The external sort over a small record type: runs merged in order,
//! read twice, boundaries, and a cut run file.

use super::*;

/// A test record: a key, then a unique position.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Rec(u64, u32);

impl Spill for Rec {
    const SIZE: usize = 12;

    fn encode(&self, out: &mut [u8]) {
        out[..8].copy_from_slice(&self.0.to_le_bytes());
        out[8..12].copy_from_slice(&self.1.to_le_bytes());
    }

    fn decode(bytes: &[u8]) -> Self {
        let key = u64::from_le_bytes(bytes[..8].try_into().unwrap());
        let pos = u32::from_le_bytes(bytes[8..12].try_into().unwrap());
        Self(key, pos)
    }
}

/// `count` pseudo-random records (an LCG), keys with repeats.
fn records(count: u32) -> Vec<Rec> {
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    (0..count)
        .map(|pos| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            Rec((state >> 33) % 500, pos)
        })
        .collect()
}

/// All the records of `sorted`, in iteration order.
fn read(sorted: &Sorted<Rec>) -> Vec<Rec> {
    sorted.iter().unwrap().collect::<io::Result<_>>().unwrap()
}

/// Sorts `items` with `run_len`, checks the runs spilled and the order.
fn check(items: &[Rec], run_len: usize, runs: usize) -> Sorted<Rec> {
    let mut sorter = ExternalSort::new(run_len);
    for &item in items {
        sorter.push(item).unwrap();
    }
    assert_eq!(sorter.len(), items.len() as u64);
    let sorted = sorter.finish().unwrap();
    assert_eq!(sorted.runs(), runs);
    let mut expected = items.to_vec();
    expected.sort();
    assert_eq!(read(&sorted), expected);
    sorted
}

#[test]
fn spilled_runs_merge_in_order() {
    // 1000 = 142 full runs of 7, then 6 left in memory.
    let sorted = check(&records(1000), 7, 142);
    assert_eq!(sorted.len(), 1000);
    assert_eq!(format!("{sorted:?}"), "Sorted { len: 1000, runs: 142, .. }");
}

#[test]
fn iter_twice_reads_from_the_start() {
    let sorted = check(&records(300), 16, 18);
    assert_eq!(read(&sorted), read(&sorted));
}

#[test]
fn nothing_pushed_is_empty() {
    let sorted = check(&[], 7, 0);
    assert_eq!(sorted.len(), 0);
}

#[test]
fn fewer_than_run_len_stays_in_memory() {
    check(&records(5), 7, 0);
}

#[test]
fn run_len_boundaries() {
    let items = records(15);
    // A full buffer spills only when one more record arrives.
    check(&items[..7], 7, 0);
    check(&items[..14], 7, 1);
    check(&items, 7, 2);
    // A run length of 0 is taken as 1.
    check(&items[..4], 0, 3);
}

#[test]
fn short_run_is_an_error_then_none() {
    let sorted = check(&records(100), 10, 9);
    let run = &sorted.runs[0];
    let cut = Rec::SIZE * run.records - 5;
    let file = File::options().write(true).open(&run.path).unwrap();
    file.set_len(cut as u64).unwrap();
    let mut merged = sorted.iter().unwrap();
    let error = merged.find_map(Result::err).unwrap();
    assert_eq!(error.kind(), io::ErrorKind::UnexpectedEof);
    assert!(merged.next().is_none());
}
