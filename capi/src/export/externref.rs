//! Externrefs of `wasm_export.h`: host pointers passed to wasm, and
//! WAMR's index table (`wasm_externref_obj2ref`, `_ref2obj`, `_objdel`,
//! `_set_cleanup`, `_retain`).
//!
//! In wasm an externref is a core reference carrying the host pointer, so
//! the same pointer comes back out; an instance keeps one reference per
//! pointer. As in WAMR, the pointer `(uintptr_t)-1` stands for `ref.null`
//! going in, and `ref.null` comes out as NULL. The index table maps
//! pointers to 32-bit indices for embedders that store them in wasm as
//! i32s; entries belong to an instance and go when `objdel` removes them,
//! running the cleanup set for them.

use std::ffi::c_void;
use std::sync::Mutex;

use cranewasm::{AsContext, AsContextMut, Val, ValRaw, ValType};

use crate::export::instance::{InstData, ModuleInst};
use crate::export::types::*;

/// `NULL_REF`: the index of `ref.null`.
const NULL_REF: u32 = u32::MAX;

/// The host pointer an externref value stands for (NULL for `ref.null`).
pub fn host_pointer(cx: impl AsContext<Data = InstData>, v: Val) -> usize {
    match v {
        Val::ExternRef(Some(e)) => crate::core::store::host_pointer(cx, e),
        _ => 0,
    }
}

/// The externref value for host pointer `p` (`(uintptr_t)-1`: `ref.null`),
/// one reference per pointer and instance.
pub fn to_val(mut cx: impl AsContextMut<Data = InstData>, p: usize) -> Val {
    if p == usize::MAX {
        return Val::ExternRef(None);
    }
    Val::ExternRef(Some(crate::core::store::externref_for(cx.as_context_mut(), p)))
}

impl ModuleInst {
    /// [`to_val`] in this instance's store.
    pub fn externref_val(&self, p: usize) -> Val {
        let locked = self.lock();
        to_val(locked.store(), p)
    }

    /// [`host_pointer`] in this instance's store.
    pub fn host_pointer_of(&self, v: &Val) -> usize {
        let locked = self.lock();
        host_pointer(&*locked.store(), *v)
    }

    /// [`to_val`] as a raw slot of this instance's store.
    pub fn externref_raw(&self, p: usize) -> ValRaw {
        let locked = self.lock();
        let store = locked.store();
        let v = to_val(&mut *store, p);
        v.into_raw_in(&*store).unwrap_or_else(|_| ValRaw::reference(ValType::EXTERNREF, 0))
    }

    /// The host pointer of an externref slot of this instance's store (a
    /// call's result).
    pub fn host_pointer_of_raw(&self, raw: ValRaw) -> usize {
        let locked = self.lock();
        let store = locked.store();
        // SAFETY: a slot of this store, written by its compiled code.
        host_pointer(&*store, unsafe { Val::from_raw_in(&*store, raw, ValType::EXTERNREF) })
    }
}

/// One entry of the index table.
struct Entry {
    index: u32,
    obj: usize,
    inst: usize,
    cleanup: Option<unsafe extern "C" fn(*mut c_void)>,
    retained: bool,
}

struct Table {
    entries: Vec<Entry>,
    next: u32,
}

static TABLE: Mutex<Table> = Mutex::new(Table { entries: Vec::new(), next: 1 });

fn table() -> std::sync::MutexGuard<'static, Table> {
    TABLE.lock().unwrap_or_else(|e| e.into_inner())
}

/// The index for `extern_obj` of `module_inst` in `*p_externref_idx`,
/// made on first request; `(uintptr_t)-1` maps to `ref.null`'s index.
/// False for a NULL out pointer or when indices run out.
///
/// # Safety
/// `p_externref_idx` must be NULL or writable; the instance is only
/// compared, never read.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_externref_obj2ref(
    module_inst: wasm_module_inst_t,
    extern_obj: *mut c_void,
    p_externref_idx: *mut u32,
) -> bool {
    if p_externref_idx.is_null() {
        return false;
    }
    let (obj, inst) = (extern_obj as usize, module_inst as usize);
    let index = if obj == usize::MAX {
        NULL_REF
    } else {
        let mut t = table();
        match t.entries.iter().find(|e| e.obj == obj && e.inst == inst) {
            Some(e) => e.index,
            None => {
                if t.next == NULL_REF {
                    return false;
                }
                let index = t.next;
                t.next += 1;
                t.entries.push(Entry { index, obj, inst, cleanup: None, retained: false });
                index
            }
        }
    };
    // SAFETY: writable (caller).
    unsafe { p_externref_idx.write(index) };
    true
}

/// Removes the entries of `extern_obj` of `module_inst`, running their
/// cleanup; false if there were none.
///
/// # Safety
/// The cleanup set for the object must be safe to call with it.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_externref_objdel(module_inst: wasm_module_inst_t, extern_obj: *mut c_void) -> bool {
    let (obj, inst) = (extern_obj as usize, module_inst as usize);
    let removed: Vec<Entry> = {
        let mut t = table();
        let (gone, kept) = std::mem::take(&mut t.entries).into_iter().partition(|e| e.obj == obj && e.inst == inst);
        t.entries = kept;
        gone
    };
    for e in &removed {
        if let Some(f) = e.cleanup {
            // SAFETY: the client's cleanup for this object.
            unsafe { f(e.obj as *mut c_void) };
        }
    }
    !removed.is_empty()
}

/// Sets the cleanup run when `extern_obj`'s entry is removed; false if it
/// has none.
///
/// # Safety
/// `extern_obj_cleanup` must be NULL or callable with the object.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_externref_set_cleanup(
    module_inst: wasm_module_inst_t,
    extern_obj: *mut c_void,
    extern_obj_cleanup: Option<unsafe extern "C" fn(*mut c_void)>,
) -> bool {
    let (obj, inst) = (extern_obj as usize, module_inst as usize);
    let mut t = table();
    match t.entries.iter_mut().find(|e| e.obj == obj && e.inst == inst) {
        Some(e) => {
            e.cleanup = extern_obj_cleanup;
            true
        }
        None => false,
    }
}

/// The object of index `externref_idx` in `*p_extern_obj` (NULL for
/// `ref.null`'s); false for an unknown index or a NULL out pointer.
///
/// # Safety
/// `p_extern_obj` must be NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_externref_ref2obj(externref_idx: u32, p_extern_obj: *mut *mut c_void) -> bool {
    if p_extern_obj.is_null() {
        return false;
    }
    let obj = if externref_idx == NULL_REF {
        0
    } else {
        match table().entries.iter().find(|e| e.index == externref_idx) {
            Some(e) => e.obj,
            None => return false,
        }
    };
    // SAFETY: writable (caller).
    unsafe { p_extern_obj.write(obj as *mut c_void) };
    true
}

/// Marks an index as retained (WAMR's reclaim keeps such entries; entries
/// here go only when `objdel` removes them). False for an unknown one.
#[unsafe(no_mangle)]
pub extern "C" fn wasm_externref_retain(externref_idx: u32) -> bool {
    let mut t = table();
    match t.entries.iter_mut().find(|e| e.index == externref_idx && externref_idx != NULL_REF) {
        Some(e) => {
            e.retained = true;
            true
        }
        None => false,
    }
}
