//! The collector (issue 40, stage 2b): Cheney's copying collection.
//!
//! Every root word naming an object is *forwarded*: its object is copied
//! to the other semispace (once: the old copy's header then says where
//! the new one is) and the root rewritten. Then the copies are scanned
//! in order, each reference field forwarded the same way, until the scan
//! reaches the end of what was copied. What was not reached is garbage,
//! cycles included, and the old space is released whole. The cost is
//! what survives, not what died.
//!
//! Roots: the wasm frames of the store's running calls (`roots.rs`), the
//! host's handles (`host_roots.rs`), and every reference the store keeps
//! outside the heap: globals and tables (its instances' and the host's),
//! the element segments of its instances, and exception payloads.
//!
//! A reference word names an object if its low bits are `10` (`...010`
//! a struct or array, `...110` an extern box): no host pointer (`...00`)
//! or i31 (odd) does. So a root needs no type to be forwarded, and a
//! funcref table's words pass through unchanged. A word outside the
//! space being collected (already forwarded, or corrupt) is left as it
//! is, never followed.

use std::ops::Range;
use std::time::Instant;

use super::heap::GcHeap;
use super::shapes::{Shape, Shapes};
use crate::environ::gc_layout::{HEADER, LEN};
use crate::runtime::vm::store::StoreOpaque;

/// The id word of an object already copied; its length word then holds
/// the copy's offset. No type's id word is this (nor the box's, `u32::MAX`).
const FORWARDED: u32 = u32::MAX - 1;

/// One collection's state.
struct Copier<'a> {
    heap: &'a mut GcHeap,
    shapes: &'a Shapes,
    base: *mut u8,
    /// The offsets of objects being collected.
    from: Range<u32>,
    /// Where the copies start, and where the next one goes.
    to_start: u32,
    to_top: u32,
    /// The end of what is writable where the copies go.
    to_committed: u32,
}

impl Copier<'_> {
    /// The word naming `word`'s object once it is copied (copying it now
    /// if it was not yet); any other word unchanged.
    ///
    /// # Safety
    /// Every word of the space being collected that ends in `10` must name
    /// an object of it.
    unsafe fn forward(&mut self, word: usize) -> usize {
        if word & 0b11 != 0b10 {
            return word;
        }
        let o = word as u32 & !0b111;
        if !self.from.contains(&o) {
            return word;
        }
        let tag = word & 0b111;
        // SAFETY: `o` names an object of the space being collected (caller),
        // committed; the copy goes to committed memory of the other space.
        unsafe {
            let p = self.base.add(o as usize);
            if p.cast::<u32>().read() == FORWARDED {
                return p.add(LEN as usize).cast::<u32>().read() as usize | tag;
            }
            let size = Shapes::size_at(self.shapes.of(p.cast::<u32>().read()), p);
            let n = self.to_top;
            let end = n.checked_add(size).expect("a copy fits the space it came from");
            if end > self.to_committed {
                // The other space can hold all the live objects: they fitted
                // in this one. Only a host refusing memory it reserved fails.
                self.to_committed = self.heap.commit_copy(end).expect("the host gives the GC heap memory it reserved");
            }
            std::ptr::copy_nonoverlapping(p, self.base.add(n as usize), size as usize);
            p.cast::<u32>().write(FORWARDED);
            p.add(LEN as usize).cast::<u32>().write(n);
            self.to_top = end;
            n as usize | tag
        }
    }

    /// Forwards the root word at `slot` (a global's may be unaligned).
    ///
    /// # Safety
    /// As for [`forward`](Self::forward); `slot` must be writable.
    unsafe fn root(&mut self, slot: *mut usize) {
        // SAFETY: as the caller promises.
        unsafe { slot.write_unaligned(self.forward(slot.read_unaligned())) }
    }

    /// Forwards the reference field of `width` bytes at `p`.
    ///
    /// # Safety
    /// `p` must be a reference field of a copied object.
    unsafe fn field(&mut self, p: *mut u8, width: u32) {
        // SAFETY: as the caller promises; fields are aligned to their size
        // within 8-aligned objects, but read unaligned all the same.
        unsafe {
            match width {
                4 => {
                    let w = self.forward(p.cast::<u32>().read_unaligned() as usize);
                    p.cast::<u32>().write_unaligned(w as u32);
                }
                _ => {
                    let w = self.forward(p.cast::<usize>().read_unaligned());
                    p.cast::<usize>().write_unaligned(w);
                }
            }
        }
    }

    /// Scans the copies in order, forwarding their reference fields, until
    /// no copy is left unscanned.
    ///
    /// # Safety
    /// As for [`forward`](Self::forward).
    unsafe fn scan(&mut self) {
        let mut at = self.to_start;
        while at < self.to_top {
            // SAFETY: `at` is the start of a copy (the copies lie end to end
            // from `to_start`), whose fields are as its shape says.
            unsafe {
                let p = self.base.add(at as usize);
                let shape = self.shapes.of(p.cast::<u32>().read());
                match shape {
                    Some(Shape::Struct { refs, .. }) => {
                        for (offset, width) in refs.iter() {
                            self.field(p.add(*offset as usize), *width);
                        }
                    }
                    Some(Shape::Array { elem, refs: true }) => {
                        let len = p.add(LEN as usize).cast::<u32>().read();
                        for i in 0..len as usize {
                            self.field(p.add(HEADER as usize + i * *elem as usize), *elem);
                        }
                    }
                    _ => {}
                }
                at += Shapes::size_at(shape, p);
            }
        }
    }
}

impl StoreOpaque {
    /// Collects the store's heap: copies every object reachable from the
    /// roots (module docs) and releases the rest.
    ///
    /// # Safety
    /// Every reference word of the heap must be in a root the collector
    /// knows: no builtin or host code may hold one elsewhere. With wasm
    /// running on the store, this must be called on its thread from a
    /// host call or a builtin entered through `arch`'s GC exit entry, so
    /// that `last_exit_fp` is the innermost wasm frames' exit record.
    pub(crate) unsafe fn gc_collect(&mut self) {
        if self.gc.is_empty() {
            return;
        }
        let began = Instant::now();
        let max = self.gc_max_bytes();
        let (from, to_start) = self.gc.flip(&self.vm);
        let base = self.vm.gc_base;
        let mut c = Copier {
            heap: &mut self.gc,
            shapes: &self.gc_shapes,
            base,
            from,
            to_start,
            to_top: to_start,
            to_committed: 0,
        };
        // SAFETY: every root below holds a reference word of this store, and
        // the frames walked are live (caller).
        unsafe {
            if self.active_calls > 0 {
                super::roots::for_each_wasm_root(&self.vm, |slot| c.root(slot));
            }
            self.gc_host_roots.for_each_mut(|w| *w = c.forward(*w as usize) as u32);
            for instance in self.instances.iter_mut().flatten() {
                instance.for_each_gc_root(|slot| c.root(slot));
            }
            for table in self.tables.iter_mut() {
                table.elements_mut().iter_mut().for_each(|w| c.root(w));
            }
            for g in self.gc_ref_globals.iter() {
                c.root((*g).cast());
            }
            for exn in self.exns.iter_mut() {
                exn.for_each_ref(|slot| c.root(slot));
            }
            c.scan();
        }
        let (top, copied) = (c.to_top, u64::from(c.to_top - c.to_start));
        self.gc.finish(&mut self.vm, top, max);
        let pause = began.elapsed();
        let stats = &mut self.gc.stats;
        stats.collections += 1;
        stats.copied_bytes += copied;
        stats.longest_pause = stats.longest_pause.max(pause);
        stats.total_pause += pause;
    }
}
