//! App memory: addresses in an instance's memory 0 as natives and
//! embedders see them (`wasm_runtime_validate_app_addr` and co.,
//! `_addr_app_to_native`, `_addr_native_to_app`, the address ranges), and
//! allocation in it (`wasm_runtime_module_malloc`, `_module_free`,
//! `_module_dup_data`).
//!
//! Allocation uses the instance's app heap when it has one
//! ([`crate::export::heap`]), else the module's own exported `malloc` and
//! `free`, called on the exec env of the call in progress (or the
//! instance's singleton), as WAMR does. A validation that fails sets
//! WAMR's "out of bounds memory access" exception. The checks stay on
//! whatever `wasm_runtime_set_bounds_checks` says (see
//! [`crate::export::instance`]).

use std::ffi::{c_char, c_void};
use std::ptr;

use cranewasm::Val;

use crate::core::runtime::warn;
use crate::export::instance::{ModuleInst, inst};
use crate::export::types::*;

const OOB: &str = "out of bounds memory access";

impl ModuleInst {
    /// The base and byte length of memory 0 (`None` without one).
    pub fn memory_range(&self) -> Option<(*mut u8, u64)> {
        let i = self.instance()?;
        let locked = self.lock();
        let store = locked.store();
        let m = i.memory(&*store, 0)?;
        Some((m.data_ptr(&*store), m.data_size(&*store) as u64))
    }

    /// Whether `[off, off + size)` lies in memory 0 (setting the exception
    /// if not).
    pub fn validate_app(&self, off: u64, size: u64) -> bool {
        let ok = self.memory_range().is_some_and(|(_, len)| off.checked_add(size).is_some_and(|end| end <= len));
        if !ok {
            self.set_exception(Some(OOB));
        }
        ok
    }

    /// Whether a NUL-terminated string starts at `off` in memory 0.
    pub fn validate_app_str(&self, off: u64) -> bool {
        let ok = self.memory_range().is_some_and(|(base, len)| {
            // SAFETY: `[base, base + len)` is memory 0's accessible range.
            off < len
                && unsafe { std::slice::from_raw_parts(base.add(off as usize), (len - off) as usize) }.contains(&0)
        });
        if !ok {
            self.set_exception(Some(OOB));
        }
        ok
    }

    /// Whether native `[p, p + size)` lies in memory 0.
    pub fn validate_native(&self, p: *const u8, size: u64) -> bool {
        let ok = self.memory_range().is_some_and(|(base, len)| {
            let (p, base) = (p as u64, base as u64);
            p >= base && p.checked_add(size).is_some_and(|end| end <= base + len)
        });
        if !ok {
            self.set_exception(Some(OOB));
        }
        ok
    }

    /// The native address of app address `off` (NULL past the memory).
    pub fn app_to_native(&self, off: u64) -> *mut u8 {
        match self.memory_range() {
            // SAFETY: within the memory's accessible range.
            Some((base, len)) if off < len => unsafe { base.add(off as usize) },
            _ => ptr::null_mut(),
        }
    }

    /// The app address of native `p` (0 outside the memory).
    pub fn native_to_app(&self, p: *const u8) -> u64 {
        match self.memory_range() {
            Some((base, len)) if (p as u64) >= base as u64 && (p as u64) < base as u64 + len => p as u64 - base as u64,
            _ => 0,
        }
    }

    /// Allocates `size` bytes in memory 0: the app address, or 0 (with a
    /// warning, or an exception when there is no memory).
    pub fn malloc(&self, size: u64) -> u64 {
        if self.memory_range().is_none() {
            self.set_exception(Some("uninitialized memory"));
            return 0;
        }
        let from_heap = {
            let mut heap = self.heap.lock().unwrap_or_else(|e| e.into_inner());
            heap.as_mut().map(|h| if size > u64::from(u32::MAX) { None } else { h.alloc(size) })
        };
        let addr = match from_heap {
            Some(a) => a,
            None => match self.allocator.get().copied().flatten() {
                Some((malloc, _)) if size <= u64::from(u32::MAX) => {
                    let ty = cranewasm::FuncType::new([cranewasm::ValType::I32], [cranewasm::ValType::I32]);
                    let env = self.exec_env_for_internal_call();
                    crate::export::call::call_vals(self, env, malloc, &ty, &[Val::I32(size as u32 as i32)])
                        .and_then(|r| r.first().and_then(Val::i32))
                        .map(|a| a as u32 as u64)
                        .filter(|a| *a != 0)
                }
                _ => None,
            },
        };
        match addr {
            Some(a) => a,
            None => {
                warn(format_args!("warning: allocate {size} bytes memory failed"));
                0
            }
        }
    }

    /// Frees an allocation of [`ModuleInst::malloc`]; others are ignored.
    pub fn free(&self, addr: u64) {
        if addr == 0 {
            return;
        }
        let freed = {
            let mut heap = self.heap.lock().unwrap_or_else(|e| e.into_inner());
            match heap.as_mut() {
                Some(h) if h.contains(addr) => Some(h.free(addr)),
                _ => None,
            }
        };
        if freed.is_some() {
            return;
        }
        if let (Some((_, free)), Some((_, len))) = (self.allocator.get().copied().flatten(), self.memory_range())
            && addr < len
        {
            let ty = cranewasm::FuncType::new([cranewasm::ValType::I32], []);
            let env = self.exec_env_for_internal_call();
            crate::export::call::call_vals(self, env, free, &ty, &[Val::I32(addr as u32 as i32)]);
        }
    }

    /// Resizes an app-heap allocation (WAMR supports realloc only there):
    /// the new address, or 0 with an exception.
    pub fn realloc(&self, addr: u64, size: u64) -> u64 {
        let base = self.memory_range().map(|(b, _)| b);
        let mut heap = self.heap.lock().unwrap_or_else(|e| e.into_inner());
        let moved = match (heap.as_mut(), base) {
            (Some(h), Some(base)) if size <= u64::from(u32::MAX) => h.realloc(addr, size, |from, to, len| {
                // SAFETY: both blocks lie in the heap, inside memory 0.
                unsafe { ptr::copy(base.add(from as usize), base.add(to as usize), len as usize) }
            }),
            _ => None,
        };
        drop(heap);
        match moved {
            Some(a) => a,
            None => {
                self.set_exception(Some("out of memory"));
                0
            }
        }
    }
}

/// Whether `[app_offset, app_offset + size)` lies in the instance's memory
/// 0; false with the exception set otherwise (or for a bad instance).
///
/// # Safety
/// `module_inst` may be NULL or any pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_validate_app_addr(
    module_inst: wasm_module_inst_t,
    app_offset: u64,
    size: u64,
) -> bool {
    // SAFETY: as the caller promises.
    unsafe { inst(module_inst) }.is_some_and(|i| i.validate_app(app_offset, size))
}

/// Whether a NUL-terminated string starts at `app_str_offset` in memory 0;
/// false with the exception set otherwise.
///
/// # Safety
/// `module_inst` may be NULL or any pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_validate_app_str_addr(
    module_inst: wasm_module_inst_t,
    app_str_offset: u64,
) -> bool {
    // SAFETY: as the caller promises.
    unsafe { inst(module_inst) }.is_some_and(|i| i.validate_app_str(app_str_offset))
}

/// Whether native `[native_ptr, native_ptr + size)` lies in memory 0;
/// false with the exception set otherwise.
///
/// # Safety
/// `module_inst` may be NULL or any pointer; `native_ptr` is only
/// compared.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_validate_native_addr(
    module_inst: wasm_module_inst_t,
    native_ptr: *mut c_void,
    size: u64,
) -> bool {
    // SAFETY: as the caller promises.
    unsafe { inst(module_inst) }.is_some_and(|i| i.validate_native(native_ptr.cast(), size))
}

/// The native address of an app address (NULL past memory 0). It stays
/// valid as the memory grows.
///
/// # Safety
/// `module_inst` may be NULL or any pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_addr_app_to_native(
    module_inst: wasm_module_inst_t,
    app_offset: u64,
) -> *mut c_void {
    // SAFETY: as the caller promises.
    unsafe { inst(module_inst) }.map_or(ptr::null_mut(), |i| i.app_to_native(app_offset).cast())
}

/// The app address of a native address (0 outside memory 0).
///
/// # Safety
/// As for [`wasm_runtime_validate_native_addr`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_addr_native_to_app(
    module_inst: wasm_module_inst_t,
    native_ptr: *mut c_void,
) -> u64 {
    // SAFETY: as the caller promises.
    unsafe { inst(module_inst) }.map_or(0, |i| i.native_to_app(native_ptr.cast()))
}

/// The app address range (all of memory 0) an app address lies in.
///
/// # Safety
/// `module_inst` NULL or any pointer; the out pointers NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_get_app_addr_range(
    module_inst: wasm_module_inst_t,
    app_offset: u64,
    p_app_start_offset: *mut u64,
    p_app_end_offset: *mut u64,
) -> bool {
    // SAFETY: as the caller promises.
    let Some((_, len)) = (unsafe { inst(module_inst) }).and_then(|i| i.memory_range()) else { return false };
    if app_offset >= len {
        return false;
    }
    // SAFETY: NULL or writable (caller).
    unsafe {
        if let Some(s) = p_app_start_offset.as_mut() {
            *s = 0;
        }
        if let Some(e) = p_app_end_offset.as_mut() {
            *e = len;
        }
    }
    true
}

/// The native address range (all of memory 0) a native address lies in.
///
/// # Safety
/// As for [`wasm_runtime_get_app_addr_range`]; `native_ptr` is only
/// compared.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_get_native_addr_range(
    module_inst: wasm_module_inst_t,
    native_ptr: *mut u8,
    p_native_start_addr: *mut *mut u8,
    p_native_end_addr: *mut *mut u8,
) -> bool {
    // SAFETY: as the caller promises.
    let Some((base, len)) = (unsafe { inst(module_inst) }).and_then(|i| i.memory_range()) else { return false };
    let p = native_ptr as u64;
    if p < base as u64 || p >= base as u64 + len {
        return false;
    }
    // SAFETY: NULL or writable (caller); the end is one past the memory.
    unsafe {
        if let Some(s) = p_native_start_addr.as_mut() {
            *s = base;
        }
        if let Some(e) = p_native_end_addr.as_mut() {
            *e = base.add(len as usize);
        }
    }
    true
}

/// Allocates `size` bytes in the instance's memory 0 (see the module
/// documentation): the app address, or 0. `*p_native_addr` gets the native
/// address (NULL on failure).
///
/// # Safety
/// `module_inst` NULL or any pointer; `p_native_addr` NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_module_malloc(
    module_inst: wasm_module_inst_t,
    size: u64,
    p_native_addr: *mut *mut c_void,
) -> u64 {
    // SAFETY: as the caller promises.
    let Some(i) = (unsafe { inst(module_inst) }) else { return 0 };
    let a = i.malloc(size);
    if !p_native_addr.is_null() {
        let native = if a == 0 { ptr::null_mut() } else { i.app_to_native(a).cast() };
        // SAFETY: writable (caller).
        unsafe { p_native_addr.write(native) };
    }
    a
}

/// Frees memory from [`wasm_runtime_module_malloc`]; any other address is
/// ignored.
///
/// # Safety
/// `module_inst` may be NULL or any pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_module_free(module_inst: wasm_module_inst_t, ptr: u64) {
    // SAFETY: as the caller promises.
    if let Some(i) = unsafe { inst(module_inst) } {
        i.free(ptr);
    }
}

/// Allocates `size` bytes in memory 0 and copies `src` there: the app
/// address, or 0.
///
/// # Safety
/// `module_inst` NULL or any pointer; `src` NULL or readable for `size`
/// bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_module_dup_data(
    module_inst: wasm_module_inst_t,
    src: *const c_char,
    size: u64,
) -> u64 {
    // SAFETY: as the caller promises.
    let Some(i) = (unsafe { inst(module_inst) }) else { return 0 };
    if src.is_null() && size > 0 {
        return 0;
    }
    let a = i.malloc(size);
    if a != 0 && size > 0 {
        let dst = i.app_to_native(a);
        // SAFETY: `size` readable bytes (caller) into a fresh allocation of
        // `size` bytes in memory 0.
        unsafe { ptr::copy_nonoverlapping(src.cast::<u8>(), dst, size as usize) };
    }
    a
}
