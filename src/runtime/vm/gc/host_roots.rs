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
}

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

    /// Calls `f` on each root's word, which it may rewrite.
    pub(crate) fn for_each_mut(&self, mut f: impl FnMut(&mut u32)) {
        for s in self.slots.borrow_mut().iter_mut() {
            f(&mut s.word);
        }
    }
}
