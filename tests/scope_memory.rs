//! Memory of layer scopes and phases with the tracking allocator installed:
//! what runs with no brick open is charged to the enclosing layer and phase
//! (self), their totals include the bricks inside, and only what had no
//! brick, layer or phase goes to "outside". Exact bytes, across threads and
//! scopes that close out of order. This binary installs the global allocator.

mod common;

use std::hint::black_box;

use profiler::alloc::{MemoryKind, MemoryProfile, ScopeMemory, Tracking};
use profiler::{Direction, brick, in_layer, in_phase, layer, phase};

#[global_allocator]
static ALLOC: Tracking<std::alloc::System> = Tracking::new(std::alloc::System);

fn memory() -> MemoryProfile {
    profiler::snapshot()
        .memory
        .expect("the tracking allocator charged memory")
}

/// Host memory of layer `index` in `direction`, from `memory`.
fn layer_host(memory: &MemoryProfile, index: u32, direction: Direction) -> ScopeMemory {
    memory
        .layer(index, direction, MemoryKind::Host)
        .unwrap_or_else(|| panic!("no host memory for layer {index} {direction:?}"))
        .memory
        .clone()
}

/// Host memory of phase `name`, from `memory`.
fn phase_host(memory: &MemoryProfile, name: &str) -> ScopeMemory {
    memory
        .phase(name, MemoryKind::Host)
        .unwrap_or_else(|| panic!("no host memory for phase {name}"))
        .memory
        .clone()
}

#[brick("ScopedAlloc")]
fn scoped_alloc(bytes: usize) {
    black_box(Vec::<u8>::with_capacity(bytes));
}

#[brick("ScopedOuter")]
fn scoped_outer() -> Vec<u8> {
    drop(black_box(Vec::<u8>::with_capacity(1000)));
    in_layer(7, Direction::Forward, || {
        black_box(Vec::<u8>::with_capacity(10))
    })
}

/// Runs every scope and brick once (names interned, slabs and stacks
/// grown), then starts from a clean profiler.
fn warm_up() {
    in_phase("warm", || {
        in_layer(0, Direction::Forward, || scoped_alloc(8))
    });
    drop(scoped_outer());
    profiler::reset();
}

#[test]
fn a_layer_is_charged_what_it_allocated_outside_bricks() {
    let _lock = common::exclusive();
    warm_up();
    let kept = {
        let _layer = layer(2, Direction::Forward);
        let kept = black_box(Vec::<u8>::with_capacity(1000));
        drop(black_box(Vec::<u8>::with_capacity(200)));
        kept
    };
    drop(kept);
    let m = memory();
    let l = layer_host(&m, 2, Direction::Forward);
    assert_eq!((l.calls, l.allocated_bytes, l.allocations), (1, 1200, 2));
    assert_eq!(l.freed_bytes, 200);
    assert_eq!(l.peak_bytes, 1200, "both buffers were live at once");
    assert_eq!(l.retained_bytes, 1000, "the kept buffer outlived the scope");
    assert_eq!(
        (
            l.self_allocated_bytes,
            l.self_allocations,
            l.self_freed_bytes
        ),
        (1200, 2, 200),
        "no brick ran: all of it is the layer's own"
    );
    assert_eq!(
        (m.outside_host.allocated_bytes, m.outside_host.freed_bytes),
        (0, 1000),
        "only the free after the scope closed is outside"
    );
}

#[test]
fn a_phase_outside_layers_is_charged_and_includes_the_layers_inside() {
    let _lock = common::exclusive();
    warm_up();
    let kept = {
        let _fwd = phase("mem-forward");
        let kept = black_box(Vec::<u8>::with_capacity(300));
        in_layer(0, Direction::Forward, || {
            drop(black_box(Vec::<u8>::with_capacity(500)));
        });
        kept
    };
    let m = memory();
    let p = phase_host(&m, "mem-forward");
    assert_eq!((p.calls, p.allocated_bytes, p.allocations), (1, 800, 2));
    assert_eq!((p.freed_bytes, p.retained_bytes), (500, 300));
    assert_eq!(p.peak_bytes, 800, "its own buffer plus the layer's");
    assert_eq!(p.self_allocated_bytes, 800, "no brick ran inside the phase");
    let l = layer_host(&m, 0, Direction::Forward);
    assert_eq!(
        (l.allocated_bytes, l.freed_bytes, l.peak_bytes),
        (500, 500, 500)
    );
    assert_eq!(m.outside_host.allocated_bytes, 0);
    assert!(m.phase("mem-forward", MemoryKind::Device).is_none());
    drop(kept);
}

#[test]
fn a_brick_inside_a_layer_keeps_its_memory_and_the_layer_total_includes_it() {
    let _lock = common::exclusive();
    warm_up();
    in_layer(1, Direction::Backward, || {
        let own = black_box(Vec::<u8>::with_capacity(100));
        scoped_alloc(400);
        drop(own);
    });
    let m = memory();
    let b = m
        .brick("ScopedAlloc", MemoryKind::Host)
        .expect("brick charged");
    assert_eq!((b.calls, b.allocated_bytes, b.freed_bytes), (1, 400, 400));
    let l = layer_host(&m, 1, Direction::Backward);
    assert_eq!(
        (l.allocated_bytes, l.allocations, l.freed_bytes),
        (500, 2, 500)
    );
    assert_eq!(
        l.peak_bytes, 500,
        "its buffer and the brick's were live at once"
    );
    assert_eq!(l.retained_bytes, 0);
    assert_eq!(
        (
            l.self_allocated_bytes,
            l.self_allocations,
            l.self_freed_bytes
        ),
        (100, 1, 100),
        "self leaves the brick out"
    );
    assert!(m.layer(1, Direction::Forward, MemoryKind::Host).is_none());
}

#[test]
fn a_scope_inside_a_brick_counts_its_peak_from_its_own_entry() {
    let _lock = common::exclusive();
    warm_up();
    drop(scoped_outer());
    let m = memory();
    let l = layer_host(&m, 7, Direction::Forward);
    assert_eq!(
        (l.allocated_bytes, l.peak_bytes, l.retained_bytes),
        (10, 10, 10)
    );
    assert_eq!(
        l.self_allocated_bytes, 0,
        "a brick was open: nothing is the layer's own"
    );
    let b = m
        .brick("ScopedOuter", MemoryKind::Host)
        .expect("brick charged");
    assert_eq!(
        b.allocated_bytes, 1010,
        "the brick is charged everything it ran"
    );
    assert_eq!(b.peak_bytes, 1000, "the brick's peak came before the layer");
}

#[test]
fn a_layer_that_frees_what_another_allocated_is_charged_the_free() {
    let _lock = common::exclusive();
    warm_up();
    let buffer = in_layer(0, Direction::Forward, || {
        black_box(Vec::<u8>::with_capacity(700))
    });
    in_layer(1, Direction::Forward, || drop(black_box(buffer)));
    let m = memory();
    let (a, f) = (
        layer_host(&m, 0, Direction::Forward),
        layer_host(&m, 1, Direction::Forward),
    );
    assert_eq!(
        (a.allocated_bytes, a.freed_bytes, a.retained_bytes),
        (700, 0, 700)
    );
    assert_eq!((f.allocated_bytes, f.allocations), (0, 0));
    assert_eq!((f.freed_bytes, f.retained_bytes), (700, -700));
    assert_eq!(f.self_freed_bytes, 700);
    assert_eq!(f.peak_bytes, 0, "freeing never raises live bytes");
}

#[test]
fn layer_guards_dropped_out_of_order_each_keep_their_own_window() {
    let _lock = common::exclusive();
    warm_up();
    let first = layer(0, Direction::Forward);
    let a = black_box(Vec::<u8>::with_capacity(100));
    // The next scope opens before the first closes, as when a guard is
    // reassigned in a loop.
    let second = layer(1, Direction::Forward);
    let b = black_box(Vec::<u8>::with_capacity(40));
    drop(first);
    drop(a);
    drop(second);
    let m = memory();
    let (one, two) = (
        layer_host(&m, 0, Direction::Forward),
        layer_host(&m, 1, Direction::Forward),
    );
    assert_eq!((one.allocated_bytes, one.freed_bytes), (140, 0));
    assert_eq!(one.peak_bytes, 140);
    assert_eq!((two.allocated_bytes, two.freed_bytes), (40, 100));
    assert_eq!(
        two.peak_bytes, 40,
        "counted from its own entry, not the first layer's"
    );
    assert_eq!(two.retained_bytes, -60);
    drop(b);
}

#[test]
fn threads_add_to_the_same_layer_and_phase() {
    let _lock = common::exclusive();
    warm_up();
    let threads: Vec<_> = (1..=2)
        .map(|t| {
            std::thread::spawn(move || {
                in_phase("mem-threads", || {
                    in_layer(5, Direction::Forward, || {
                        drop(black_box(Vec::<u8>::with_capacity(256 * t)));
                    });
                });
            })
        })
        .collect();
    for t in threads {
        t.join().expect("thread ran");
    }
    let m = memory();
    let l = layer_host(&m, 5, Direction::Forward);
    assert_eq!((l.calls, l.allocated_bytes, l.freed_bytes), (2, 768, 768));
    assert_eq!(l.peak_bytes, 512, "the highest entry's peak");
    let p = phase_host(&m, "mem-threads");
    assert_eq!(
        (p.calls, p.allocated_bytes, p.self_allocated_bytes),
        (2, 768, 768)
    );
}

#[test]
fn saved_profiles_keep_scope_memory() {
    let _lock = common::exclusive();
    warm_up();
    in_phase("mem-saved", || scoped_alloc(64));
    let profile = profiler::snapshot();
    let json = serde_json::to_string(&profile).expect("serialise");
    let back: profiler::Profile = serde_json::from_str(&json).expect("read back");
    assert_eq!(back.memory, profile.memory);
    let memory = back.memory.expect("memory kept");
    let p = phase_host(&memory, "mem-saved");
    assert_eq!((p.allocated_bytes, p.self_allocated_bytes), (64, 0));
}
