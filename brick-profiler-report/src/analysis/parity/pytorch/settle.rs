//! Per-step sums that fold into running totals once a step's fate is
//! known: whether work fell in it, as device work and as host work. Which
//! of the two counts is known only at the end of the trace (a trace with
//! device events is judged by them), so both are kept, with the sum over
//! everything for a trace whose steps all hold no work. A walk of many
//! steps holds the steps still open, not one sum per step.

use std::collections::HashMap;

use super::node::{DEVICE, HOST};

/// A sum that another of its kind can be added to.
pub(crate) trait Merge: Default + Clone {
    /// Adds `other` into `self`.
    fn merge(&mut self, other: Self);
}

/// Sums by step, folded as steps settle.
#[derive(Debug, Default)]
pub(crate) struct Settling<B> {
    /// Steps not settled yet.
    open: HashMap<u32, B>,
    /// Each settled step's fate: busy with device work, with host work.
    fates: Vec<Option<[bool; 2]>>,
    /// The steps busy with device work ([`DEVICE`]), with host work
    /// ([`HOST`]).
    kept: [B; 2],
    /// Everything, steps or not.
    all: B,
}

impl<B: Merge> Settling<B> {
    /// Adds to the sums of `step` (`None`: outside every step) what `add`
    /// adds to a sum.
    pub(crate) fn add(&mut self, step: Option<u32>, mut add: impl FnMut(&mut B)) {
        add(&mut self.all);
        let Some(s) = step else { return };
        match self.fates.get(s as usize).copied().flatten() {
            Some(fate) => {
                for mode in [DEVICE, HOST] {
                    if fate[mode] {
                        add(&mut self.kept[mode]);
                    }
                }
            }
            None => add(self.open.entry(s).or_default()),
        }
    }

    /// Step `step` will see no more work: its sums go to the totals of the
    /// kinds of work it holds.
    pub(crate) fn settle(&mut self, step: u32, busy: [bool; 2]) {
        let at = step as usize;
        if self.fates.len() <= at {
            self.fates.resize(at + 1, None);
        }
        self.fates[at] = Some(busy);
        let Some(sums) = self.open.remove(&step) else {
            return;
        };
        match busy {
            [true, true] => {
                self.kept[DEVICE].merge(sums.clone());
                self.kept[HOST].merge(sums);
            }
            [true, false] => self.kept[DEVICE].merge(sums),
            [false, true] => self.kept[HOST].merge(sums),
            [false, false] => {}
        }
    }

    /// The sums of the steps busy with `mode`'s work; everything when no
    /// step is.
    pub(crate) fn total(self, mode: usize, any_kept: bool) -> B {
        let [device, host] = self.kept;
        match (any_kept, mode) {
            (false, _) => self.all,
            (true, DEVICE) => device,
            (true, _) => host,
        }
    }
}
