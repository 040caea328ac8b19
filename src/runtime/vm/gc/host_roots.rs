//! The host's handles of heap objects (issue 40, stage 2b): a per-store
//! list of root slots, each holding one object's reference word, which
//! the collector reads as roots and rewrites when it moves the objects.
//! An [`ObjectRef`](crate::ObjectRef) names a slot (its index and the
//! generation it was made in), never the object itself, so a handle
//! survives collections.
//!
//! Slots are freed last in, first out, as wasmtime's `Rooted` are: a host
//! function's handles (its arguments, what it made) are freed when it
//! returns, and a [`RootScope`](crate::RootScope) frees those made within
//! it. What the host makes outside any scope lives as long as the store.
//! Each truncation moves the generation on, so a handle whose slot was
//! freed (and perhaps reused) is refused rather than read.
//!
//! Pinned roots (`ObjectRef::pin`) are the exception: each is freed on
//! its own (`unpin`), for holders whose lifetime no scope follows, such
//! as the C API's object cells. Their indices have [`PINNED`] set, and a
//! freed one's generation moves on so that a stale handle is refused.
//!
//! Interior mutability: values are read out of wasm into handles through
//! shared store references (`Val::from_raw`), and a store is never `Sync`.

use std::cell::{Cell, RefCell};

/// One root: an object's reference word and the generation it was made in.
#[derive(Copy, Clone)]
struct Slot {
    word: u32,
    generation: u32,
}

/// A store's root slots (see the module docs).
#[derive(Default)]
pub(crate) struct HostRoots {
    slots: RefCell<Vec<Slot>>,
    generation: Cell<u32>,
    /// Pinned roots; a free one holds word 0 (no object's word).
    pinned: RefCell<Vec<Slot>>,
    /// Indices of the free pinned roots, for reuse.
    free_pinned: RefCell<Vec<u32>>,
}

/// Set in the index of a pinned root.
pub(crate) const PINNED: u32 = 1 << 31;

impl HostRoots {
    /// A new root holding `word`: its index and generation.
    pub(crate) fn push(&self, word: u32) -> (u32, u32) {
        let mut slots = self.slots.borrow_mut();
        let generation = self.generation.get();
        slots.push(Slot { word, generation });
        ((slots.len() - 1) as u32, generation)
    }

    /// The word of root `index` made in `generation`, unless it was freed.
    pub(crate) fn get(&self, index: u32, generation: u32) -> Option<u32> {
        if index & PINNED != 0 {
            let pinned = self.pinned.borrow();
            let s = pinned.get((index & !PINNED) as usize)?;
            return (s.generation == generation && s.word != 0).then_some(s.word);
        }
        let slots = self.slots.borrow();
        slots.get(index as usize).filter(|s| s.generation == generation).map(|s| s.word)
    }

    /// Where the roots made from now on start (for [`truncate`](Self::truncate)).
    pub(crate) fn mark(&self) -> usize {
        self.slots.borrow().len()
    }

    /// Frees the roots made since `mark`.
    pub(crate) fn truncate(&self, mark: usize) {
        let mut slots = self.slots.borrow_mut();
        if slots.len() > mark {
            slots.truncate(mark);
            self.generation.set(self.generation.get().wrapping_add(1));
        }
    }

    /// A new pinned root holding `word` (not 0): its index (with
    /// [`PINNED`]) and generation.
    pub(crate) fn pin(&self, word: u32) -> (u32, u32) {
        let mut pinned = self.pinned.borrow_mut();
        let index = match self.free_pinned.borrow_mut().pop() {
            Some(i) => i,
            None => {
                pinned.push(Slot { word: 0, generation: 0 });
                (pinned.len() - 1) as u32
            }
        };
        let slot = &mut pinned[index as usize];
        slot.word = word;
        (index | PINNED, slot.generation)
    }

    /// Frees pinned root `index` of `generation`; false if it is not one
    /// or was freed already.
    pub(crate) fn unpin(&self, index: u32, generation: u32) -> bool {
        if index & PINNED == 0 || self.get(index, generation).is_none() {
            return false;
        }
        let i = index & !PINNED;
        let mut pinned = self.pinned.borrow_mut();
        let slot = &mut pinned[i as usize];
        slot.word = 0;
        slot.generation = slot.generation.wrapping_add(1);
        self.free_pinned.borrow_mut().push(i);
        true
    }

    /// Calls `f` on each root's word, which it may rewrite.
    pub(crate) fn for_each_mut(&self, mut f: impl FnMut(&mut u32)) {
        for s in self.slots.borrow_mut().iter_mut() {
            f(&mut s.word);
        }
        // A free pinned root holds no object.
        for s in self.pinned.borrow_mut().iter_mut().filter(|s| s.word != 0) {
            f(&mut s.word);
        }
    }
}
