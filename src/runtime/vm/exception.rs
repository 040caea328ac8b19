//! Exceptions: tags, exception objects, and the throw that finds a handler.
//!
//! A tag is a [`VMTag`] whose address is its identity: an instance's
//! defined tag is made at instantiation, a host's by `Tag::new`, and every
//! VMContext holds the addresses of its module's tags (`VMOffsets::tag`).
//! An exception is a [`VMExn`]: its tag and its payload in 16-byte slots.
//! Both belong to their store and live as long as it does (as externrefs
//! do): an `exnref` can be kept anywhere, and nothing traces them.
//!
//! Throwing costs nothing until it happens (wasmtime's design). A call
//! inside `try_table` (or a legacy `try`) is Cranelift's `try_call`, whose
//! return address the compiler records with its handler and frame size
//! (`CodeTables::handlers`). A throw with a handler in its own function is
//! a jump there. Otherwise [`throw`] follows the frame pointers up from the
//! throwing frame: at the first return address that has a handler, it sets
//! the stack and frame pointers of that frame and jumps to the handler
//! with the exception in the first payload register. The handler compares
//! tags itself, and throws again to the next one when none matches. When
//! the walk leaves wasm first, the call unwinds to its entry as a trap
//! carrying the exception ("uncaught wasm exception"); a host function
//! that returns such a trap rethrows it into its wasm caller.
//!
//! Traps are never caught: they unwind through `unwind::raise` and never
//! look at handlers.

use std::ptr;

use super::arch;
use super::code_registry;
use super::instance::VMInstance;
use super::store::StoreOpaque;
use super::unwind::{self, UnwindReason};
use crate::environ::index::TagIndex;
use crate::environ::trap::Trap;
use crate::environ::type_registry::TypeUse;
use crate::environ::types::FuncType;
use crate::environ::val_raw::ValRaw;
use crate::environ::vmctx::{header, VMContext, VMStoreContext};

/// A tag: what its exceptions carry. Its address is its identity.
pub struct VMTag {
    /// The parameters of the tag's function type are the payload.
    pub ty: FuncType,
    /// The type's canonical id, kept registered with the tag: an import
    /// matches by it, which tells apart types of equal structure in
    /// different recursion groups.
    pub type_id: TypeUse,
}

/// An exception, laid out as compiled code reads it (`vmctx::exn`).
#[repr(C)]
pub struct VMExn {
    pub tag: *const VMTag,
    pub values: *mut ValRaw,
    /// Nonzero once something besides the throw in flight may refer to
    /// it: then it lives as long as its store. Until then the catch that
    /// drops it frees it, so a program that throws in a loop stays small.
    pub exposed: u8,
    /// Its index in its store's `exns`.
    slot: usize,
    storage: Box<[ValRaw]>,
}

const _: () = assert!(std::mem::offset_of!(VMExn, tag) as i32 == crate::environ::vmctx::exn::TAG);
const _: () = assert!(std::mem::offset_of!(VMExn, values) as i32 == crate::environ::vmctx::exn::VALUES);
const _: () = assert!(std::mem::offset_of!(VMExn, exposed) as i32 == crate::environ::vmctx::exn::EXPOSED);
const _: () = assert!(std::mem::size_of::<ValRaw>() as i32 == crate::environ::vmctx::exn::SLOT);
const _: () = assert!(ValRaw::PAYLOAD as i32 == crate::environ::vmctx::exn::SCALAR);

impl VMExn {
    /// An exception of `tag` whose payload is `values`.
    pub fn new(tag: *const VMTag, values: Box<[ValRaw]>) -> Box<VMExn> {
        let mut exn = Box::new(VMExn { tag, values: ptr::null_mut(), exposed: 0, slot: 0, storage: values });
        exn.values = exn.storage.as_mut_ptr();
        exn
    }

    /// The payload.
    pub fn values(&self) -> &[ValRaw] {
        &self.storage
    }

    /// Calls `f` with each reference of the payload (GC roots).
    pub(crate) fn for_each_ref(&mut self, mut f: impl FnMut(*mut usize)) {
        // SAFETY: the tag outlives its exceptions (its store keeps both).
        let ty = unsafe { &(*self.tag).ty };
        for (v, t) in self.storage.iter_mut().zip(ty.params()) {
            if t.is_ref() {
                f(v.ref_slot());
            }
        }
    }
}

impl StoreOpaque {
    /// Keeps `exn` for the store's lifetime; its address.
    pub(crate) fn keep_exn(&mut self, mut exn: Box<VMExn>) -> *mut VMExn {
        exn.slot = self.exns.len();
        let p = &*exn as *const VMExn as *mut VMExn;
        self.exns.push(exn);
        p
    }

    /// Frees `exn`, one of this store's that nothing else refers to.
    fn release_exn(&mut self, exn: *const VMExn) {
        // SAFETY: one of this store's, so live.
        let slot = unsafe { (*exn).slot };
        if !self.exns.get(slot).is_some_and(|e| ptr::eq(&**e, exn)) {
            return;
        }
        self.exns.swap_remove(slot);
        if let Some(moved) = self.exns.get_mut(slot) {
            moved.slot = slot;
        }
    }

    /// Keeps `tag` for the store's lifetime; its address.
    pub(crate) fn keep_tag(&mut self, tag: Box<VMTag>) -> *mut VMTag {
        let p = &*tag as *const VMTag as *mut VMTag;
        self.tags.push(tag);
        p
    }
}

/// Builtin `exn_new`: a new exception of the calling instance's tag `tag`,
/// its payload zeroed.
///
/// # Safety
/// `vmctx` must be the VMContext of a live instance, passed by its code,
/// with a validated tag index.
pub(super) unsafe extern "C" fn exn_new(vmctx: *mut VMContext, tag: u32) -> usize {
    // SAFETY: a live instance's VMContext and a validated tag index
    // (caller): the slot holds a live tag of its store.
    unsafe {
        let instance = VMInstance::from_vmctx(vmctx);
        let tag = instance.tag(TagIndex::from_u32(tag));
        let n = (*tag).ty.params().len();
        let store = (*(*vmctx.cast::<u8>().add(header::STORE as usize).cast::<*const VMStoreContext>())).store;
        let store = &mut *store.cast::<StoreOpaque>();
        store.keep_exn(VMExn::new(tag, vec![ValRaw::default(); n].into())) as usize
    }
}

/// Builtin `exn_release`: a catch dropped `exn`; frees it unless exposed.
///
/// # Safety
/// `vmctx` must be the VMContext of a live instance, passed by its code,
/// with a live exception of its store.
pub(super) unsafe extern "C" fn exn_release(vmctx: *mut VMContext, exn: usize) {
    // SAFETY: as the caller promises.
    unsafe {
        let exn = exn as *const VMExn;
        if (*exn).exposed != 0 {
            return;
        }
        let store = (*(*vmctx.cast::<u8>().add(header::STORE as usize).cast::<*const VMStoreContext>())).store;
        (*store.cast::<StoreOpaque>()).release_exn(exn);
    }
}

/// Builtin `throw` (entered through [`arch::throw_entry`], which adds
/// `ra`, the return address of the builtin's call): throws `exn` from the
/// wasm frame whose frame pointer is `fp`.
///
/// A throw compiled where its function has no handler is a plain call,
/// and its handler is up the stack. But inlining puts callee bodies at
/// call sites inside `try_table`: there the inlined throw is a `try_call`
/// of this builtin whose handler is in frame `fp` itself, found from
/// `ra` before the walk up.
///
/// # Safety
/// Called by compiled code only, with a live exception of its store and
/// its own frame pointer; nothing between here and the handler owns a
/// value with a destructor.
pub(super) unsafe extern "C" fn throw_at(_vmctx: *mut VMContext, exn: usize, fp: usize, ra: usize) {
    // SAFETY: as the caller promises: `ra` is a call site in the compiled
    // code of frame `fp`, so its handler belongs to that frame.
    unsafe {
        if let Some(Some((pc, frame_offset))) = handler_for(ra) {
            arch::resume_at_handler(pc, fp - frame_offset as usize, fp, exn);
        }
        throw_from(exn, fp)
    }
}

/// Throws `exn` from the frame `fp` (a wasm frame, or the exit
/// trampoline's frame of a host function): to the first handler up the
/// chain of wasm frames, else out of the call as a trap carrying it.
///
/// # Safety
/// `fp` must be a frame of compiled code running on this thread under
/// `catch_traps`; the frames jumped over own nothing with a destructor.
pub(crate) unsafe fn throw_from(exn: usize, mut fp: usize) -> ! {
    // SAFETY: `fp` starts a chain of compiled frames of this thread's
    // activation (caller); each frame is read only after its return address
    // was found in compiled code, and the walk stops at the activation's
    // top.
    unsafe {
        let Some(state) = unwind::current() else { std::process::abort() };
        let mut lowest = fp;
        while fp != 0 && fp.is_multiple_of(8) && fp >= lowest && fp < state.stack_top {
            let ra = *((fp + arch::RETURN_ADDRESS_OFFSET) as *const usize);
            let Some(found) = handler_for(ra) else { break };
            let caller_fp = *(fp as *const usize);
            if let Some((pc, frame_offset)) = found {
                arch::resume_at_handler(pc, caller_fp - frame_offset as usize, caller_fp, exn);
            }
            lowest = fp;
            fp = caller_fp;
        }
        // The host gets it now.
        (*(exn as *mut VMExn)).exposed = 1;
        unwind::raise(UnwindReason::Host(Trap::uncaught_exception(exn)))
    }
}

/// For a return address: `None` when it is not in compiled code; else the
/// handler's address and the frame's size below its frame pointer, if the
/// call there has a handler. (Its own function so that the module's
/// reference is dropped before the jump.)
fn handler_for(ra: usize) -> Option<Option<(usize, u32)>> {
    let code = code_registry::lookup(ra)?;
    let base = code.compiled.code.range().start;
    Some(code.compiled.handler_at((ra - base) as u32).map(|(h, frame)| (base + h as usize, frame)))
}
