//! Controlling a store's calls: fuel, epoch deadlines, resource limits,
//! and interrupt handles that stop a running call from another thread
//! (what wasmtime's API offers; WAMR's wasm-c-api has none of it).
//!
//! The setters change what wasm sees, so they claim the store as
//! `wasm_global_set` does (see capi/README.md, "Threads"): on a store
//! another thread is running they fail and change nothing. An interrupt
//! handle is made for use on another thread; it is not an object of the
//! store (deleting the store leaves it harmless) and is deleted with
//! [`cranewasm_interrupt_handle_delete`].

use std::sync::Mutex;

use cranewasm::{InterruptHandle, StoreLimits};

use crate::c_api::store::{self, StoreObj, wasm_store_t};

/// The live store behind `s`, with the claim of the calling thread, or
/// false (with a log line for a busy store).
///
/// # Safety
/// `s` may be NULL or any pointer; no other thread may delete the store
/// meanwhile.
unsafe fn with_store(s: *mut wasm_store_t, what: &str, f: impl FnOnce(&mut StoreObj) -> bool) -> bool {
    // SAFETY: as the caller promises.
    let Some(obj) = (unsafe { store::from_c(s) }) else { return false };
    // SAFETY: live (above); only this call uses it meanwhile (the claim).
    unsafe { store::claimed(obj, what, || f(&mut *obj)) }.unwrap_or(false)
}

/// cranewasm extension: gives the store `fuel` units, replacing what was
/// left (one unit per operator, see `cranewasm_engine_options_t`). False,
/// with the reason as the last error, unless the store's engine consumes
/// fuel.
///
/// # Safety
/// `s` may be NULL or any pointer: anything but a live store counts as
/// NULL. No other thread may delete the store meanwhile.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cranewasm_store_set_fuel(s: *mut wasm_store_t, fuel: u64) -> bool {
    // SAFETY: as the caller promises.
    unsafe {
        with_store(s, "cranewasm_store_set_fuel", |o| match o.store.set_fuel(fuel) {
            Ok(()) => true,
            Err(e) => {
                crate::log(format_args!("cranewasm_store_set_fuel: {e}"));
                false
            }
        })
    }
}

/// cranewasm extension: writes the fuel left to `*fuel`. False (leaving
/// `*fuel` alone), with the reason as the last error, unless the store's
/// engine consumes fuel.
///
/// # Safety
/// As for [`cranewasm_store_set_fuel`]; `fuel` NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cranewasm_store_get_fuel(s: *mut wasm_store_t, fuel: *mut u64) -> bool {
    // SAFETY: as the caller promises.
    let Some(obj) = (unsafe { store::from_c(s) }) else { return false };
    // SAFETY: live; reading the counter needs no claim.
    match unsafe { &mut *obj }.store.get_fuel() {
        Ok(left) => {
            if !fuel.is_null() {
                // SAFETY: writable (caller).
                unsafe { fuel.write(left) };
            }
            true
        }
        Err(e) => {
            crate::log(format_args!("cranewasm_store_get_fuel: {e}"));
            false
        }
    }
}

/// cranewasm extension: calls in the store trap with
/// `CRANEWASM_TRAP_EPOCH_DEADLINE` once its engine's epoch is `ticks`
/// beyond the current one (`cranewasm_engine_increment_epoch`).
/// Ignored (true) unless the engine has epoch interruption; false for
/// anything but a live store.
///
/// # Safety
/// As for [`cranewasm_store_set_fuel`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cranewasm_store_set_epoch_deadline(s: *mut wasm_store_t, ticks: u64) -> bool {
    // SAFETY: as the caller promises.
    unsafe {
        with_store(s, "cranewasm_store_set_epoch_deadline", |o| {
            o.store.set_epoch_deadline(ticks);
            true
        })
    }
}

/// `cranewasm_store_limits_t`: caps on what a store may use; a negative
/// field means no cap.
#[repr(C)]
#[derive(Copy, Clone, Debug)]
pub struct cranewasm_store_limits_t {
    /// The most bytes one memory may have.
    pub memory_size: i64,
    /// The most elements one table may have.
    pub table_elements: i64,
    /// The most instances the store may hold.
    pub instances: i64,
    /// The most memories the store may hold.
    pub memories: i64,
    /// The most tables the store may hold.
    pub tables: i64,
}

/// cranewasm extension: puts the store's memories, tables and instances
/// under `limits` (replacing earlier ones; what exists stays as it is). A
/// growth past a cap fails (`memory.grow` returns -1, `wasm_memory_grow`
/// false); an instantiation past one fails with the reason. False for
/// NULL limits or anything but a live store.
///
/// # Safety
/// As for [`cranewasm_store_set_fuel`]; `limits` NULL or readable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cranewasm_store_set_limits(
    s: *mut wasm_store_t,
    limits: *const cranewasm_store_limits_t,
) -> bool {
    // SAFETY: NULL or readable (caller).
    let Some(l) = (unsafe { limits.as_ref() }).copied() else { return false };
    let cap = |v: i64| usize::try_from(v).ok();
    let mut b = StoreLimits::builder();
    if let Some(v) = cap(l.memory_size) {
        b = b.memory_size(v);
    }
    if let Some(v) = cap(l.table_elements) {
        b = b.table_elements(u32::try_from(v).unwrap_or(u32::MAX));
    }
    if let Some(v) = cap(l.instances) {
        b = b.instances(v);
    }
    if let Some(v) = cap(l.memories) {
        b = b.memories(v);
    }
    if let Some(v) = cap(l.tables) {
        b = b.tables(v);
    }
    let limiter = b.build();
    // SAFETY: as the caller promises.
    unsafe {
        with_store(s, "cranewasm_store_set_limits", |o| {
            o.store.set_limiter(limiter);
            true
        })
    }
}

/// `cranewasm_interrupt_handle_t`: stops a store's calls from any thread.
pub struct cranewasm_interrupt_handle_t {
    handle: InterruptHandle,
}

/// The handles made and not yet deleted, by address: a use after delete
/// or a pointer never handed out is refused, not followed.
static HANDLES: Mutex<Vec<usize>> = Mutex::new(Vec::new());

fn handles() -> std::sync::MutexGuard<'static, Vec<usize>> {
    HANDLES.lock().unwrap_or_else(|e| e.into_inner())
}

/// cranewasm extension: a handle that stops the store's calls from any
/// thread ([`cranewasm_interrupt_handle_interrupt`]); NULL for anything but
/// a live store. It stays usable (doing nothing) after the store is gone.
///
/// # Safety
/// As for [`cranewasm_store_set_fuel`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cranewasm_store_interrupt_handle(s: *mut wasm_store_t) -> *mut cranewasm_interrupt_handle_t {
    // SAFETY: as the caller promises.
    let Some(obj) = (unsafe { store::from_c(s) }) else { return std::ptr::null_mut() };
    // SAFETY: live; making the handle touches only the store's interrupt
    // state, which is made once and then shared.
    let handle = unsafe { &mut *obj }.store.interrupt_handle();
    let p = Box::into_raw(Box::new(cranewasm_interrupt_handle_t { handle }));
    handles().push(p as usize);
    p
}

/// cranewasm extension: makes the store's running call trap with
/// `CRANEWASM_TRAP_INTERRUPTED` (within microseconds in wasm code; on its
/// return to wasm from a host function), or, when none runs, its next
/// call. Returns at once; false for anything but a live handle.
///
/// # Safety
/// `h` may be NULL or any pointer; any thread may call this.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cranewasm_interrupt_handle_interrupt(h: *const cranewasm_interrupt_handle_t) -> bool {
    let list = handles();
    if !list.contains(&(h as usize)) {
        return false;
    }
    // SAFETY: listed, so live; deleted only under this lock.
    unsafe { &*h }.handle.interrupt();
    true
}

/// cranewasm extension: deletes an interrupt handle. NULL, or anything but
/// a live handle, is ignored.
///
/// # Safety
/// `h` may be NULL or any pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cranewasm_interrupt_handle_delete(h: *mut cranewasm_interrupt_handle_t) {
    let mut list = handles();
    if let Some(i) = list.iter().position(|p| *p == h as usize) {
        list.swap_remove(i);
        // SAFETY: ours, from `Box::into_raw`, and no longer listed.
        drop(unsafe { Box::from_raw(h) });
    }
}
