//! Modules: compiled code, shared between stores and threads.
//!
//! `wasm_module_t` is a pointer typedef, so the API passes `wasm_module_t
//! *`: the handle of a [`ModuleSlot`], whose first word is the
//! `WASMModuleCommon *` a client may read. Each slot belongs to a store
//! (freed with it) or, when made by `wasm_module_share`, to no store, so it
//! can travel to another thread and be obtained into a store there. All
//! slots of one module share the compiled code and the module's name.
//!
//! `wasm_module_new` takes binaries only (WAT text goes through
//! `cranewasm_wat2wasm`), and copies them, so the client's buffer is always
//! free to go once the call returns.

use std::ffi::{CStr, CString, c_char, c_void};
use std::ptr;
use std::sync::{Arc, Mutex};

use cranewasm::Module;

use crate::WASMModuleCommon;
use crate::c_api::config::LoadArgs;
use crate::c_api::import_export::{ExportTypeObj, ImportTypeObj};
use crate::c_api::store::StoreObj;
use crate::c_api::vec::{RawVec, wasm_byte_vec_t, wasm_exporttype_vec_t, wasm_importtype_vec_t};
use crate::handle::Kind;
use crate::object::{self, Handle, Header, Object, get};
use crate::*;

/// A module as every slot of it shares it.
pub struct SharedModule {
    pub module: Module,
    /// The module as `wasm_export.h` sees it (a handle, 0 if none): what
    /// `*module` points at, so that `wasm_runtime_*` functions work on a
    /// wasm-c-api module. Owned here, deleted with the shared module.
    rt: usize,
    /// Every name the module was given, the current one last. Earlier ones
    /// stay allocated so that pointers from `wasm_module_get_name` remain
    /// valid for the module's life.
    names: Mutex<Vec<CString>>,
}

/// What a `wasm_module_t *` points at. The handle's public word (see
/// [`crate::handle`]) is the slot's `WASMModuleCommon *`: the module's
/// handle of `wasm_export.h`, as in WAMR.
#[repr(C)]
pub struct ModuleSlot {
    header: Header,
    shared: Arc<SharedModule>,
}

// SAFETY: module cells hold `ModuleSlot`s, named by `wasm_module_t` only.
unsafe impl Object for ModuleSlot {
    fn kind(&self) -> Kind {
        Kind::Module
    }
    fn header(&mut self) -> Option<&mut Header> {
        Some(&mut self.header)
    }
    fn public(&self) -> *const c_void {
        self.shared.rt as *const c_void
    }
}

// SAFETY: module cells hold `ModuleSlot`s.
unsafe impl Handle for wasm_module_t {
    type Obj = ModuleSlot;
    const KINDS: u32 = Kind::Module.bit();
    const NAME: &'static str = "wasm_module_t";
}

impl ModuleSlot {
    /// The compiled module.
    pub fn module(&self) -> &Module {
        &self.shared.module
    }

    /// The module's `wasm_export.h` side (its WASI settings, among others).
    fn rt(&self) -> Option<&crate::core::module::RtModule> {
        // SAFETY: the handle is deleted only with the shared module, which
        // `self` keeps alive.
        unsafe { crate::core::module::module(self.shared.rt as *const WASMModuleCommon) }
    }

    /// The WASI settings instances of the module get
    /// (`wasm_runtime_set_wasi_args` on `*module`).
    pub fn wasi_args(&self) -> Option<&std::sync::Mutex<crate::core::wasi::WasiArgs>> {
        self.rt().map(|r| &r.wasi)
    }
}

impl Drop for SharedModule {
    fn drop(&mut self) {
        // SAFETY: the shared module owns this handle; nothing else deletes
        // it (`wasm_runtime_unload` refuses it).
        unsafe { object::delete::<WASMModuleCommon>(self.rt as *mut WASMModuleCommon) }
    }
}

impl SharedModule {
    fn new(module: Module, names: Vec<CString>) -> SharedModule {
        let name = names.last().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let rt = crate::core::module::for_capi(&module, &name).map_or(0, |o| o.into_raw() as usize);
        SharedModule { module, rt, names: Mutex::new(names) }
    }
}

/// A new slot for `shared`, registered with `store` (or with none).
///
/// # Safety
/// `store` must be NULL or live.
unsafe fn new_slot(store: *mut StoreObj, shared: Arc<SharedModule>) -> *mut wasm_module_t {
    object::new(ModuleSlot { header: Header::new(store), shared })
}

/// The slot behind a module pointer.
///
/// # Safety
/// As for [`object::get`]; `m` may be NULL or any pointer.
pub unsafe fn slot<'a>(m: *const wasm_module_t) -> Option<&'a ModuleSlot> {
    // SAFETY: as the caller promises.
    unsafe { get::<wasm_module_t>(m) }
}

/// The bytes of a binary vector (`num_elems` when set, else `size`).
///
/// # Safety
/// `binary` must be NULL or a valid vector, unchanged while the bytes are
/// used.
unsafe fn bytes<'a>(binary: Option<&wasm_byte_vec_t>) -> &'a [u8] {
    match binary {
        Some(b) => {
            // SAFETY: as the caller promises.
            let s = unsafe { b.raw().as_slice() };
            // SAFETY: `c_char` and `u8` have one size and alignment.
            unsafe { std::slice::from_raw_parts(s.as_ptr().cast(), s.len()) }
        }
        None => &[],
    }
}

/// Checks the framing WAMR checks before loading: a non-empty binary with
/// the wasm magic number.
fn check_binary(bytes: &[u8]) -> Result<(), &'static str> {
    match bytes {
        [] => Err("empty module binary"),
        b if !b.starts_with(b"\0asm") => Err("magic header not detected"),
        _ => Ok(()),
    }
}

/// Compiles `bytes` into a new slot of `store`.
///
/// # Safety
/// `store` must be live.
unsafe fn compile(store: *mut StoreObj, bytes: &[u8], what: &str, name: Option<&CStr>) -> *mut wasm_module_t {
    if let Err(e) = check_binary(bytes) {
        log(format_args!("{what}: {e}"));
        return ptr::null_mut();
    }
    // SAFETY: as the caller promises.
    let engine = unsafe { crate::c_api::store::core(store) }.engine().clone();
    match Module::new(&engine, bytes) {
        Ok(module) => {
            let names = name.map(CStr::to_owned).into_iter().collect();
            // SAFETY: as the caller promises.
            unsafe { new_slot(store, Arc::new(SharedModule::new(module, names))) }
        }
        Err(e) => {
            log(format_args!("{what}: {e}"));
            ptr::null_mut()
        }
    }
}

/// Validates and compiles a binary. NULL, with the reason on stderr, for a
/// malformed or invalid module.
///
/// # Safety
/// As for [`wasm_module_new_ex`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_module_new(
    store: Option<&mut wasm_store_t>,
    binary: Option<&wasm_byte_vec_t>,
) -> *mut wasm_module_t {
    // SAFETY: as the caller promises.
    unsafe { new_module(store, binary, None) }
}

/// [`wasm_module_new`] with WAMR's load arguments: `name` becomes the
/// module's name. The binary is always copied, so `clone_wasm_binary` and
/// `wasm_binary_freeable` make no difference; `no_resolve` has nothing to
/// defer (imports are resolved at instantiation).
///
/// # Safety
/// `store` may be NULL or any pointer: anything but a live store counts as
/// NULL. `binary` must be NULL or a valid vector, `args` NULL or valid
/// arguments (`name` NULL or NUL-terminated). The store must not be used by
/// another thread meanwhile.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_module_new_ex(
    store: Option<&mut wasm_store_t>,
    binary: Option<&mut wasm_byte_vec_t>,
    args: Option<&mut LoadArgs>,
) -> *mut wasm_module_t {
    // SAFETY: a NUL-terminated name (caller).
    let name = args.and_then(|a| (!a.name.is_null()).then(|| unsafe { CStr::from_ptr(a.name) }));
    // SAFETY: as the caller promises.
    unsafe { new_module(store, binary.map(|b| &*b), name) }
}

/// [`wasm_module_new_ex`] with the arguments read.
///
/// # Safety
/// As for [`wasm_module_new_ex`].
unsafe fn new_module(
    store: Option<&mut wasm_store_t>,
    binary: Option<&wasm_byte_vec_t>,
    name: Option<&CStr>,
) -> *mut wasm_module_t {
    // SAFETY: the client keeps the threading rule of the store.
    let (Some(store), Some(_)) = (unsafe { crate::c_api::store::from_c(store) }, binary) else {
        return ptr::null_mut();
    };
    // SAFETY: the store is live; the binary valid (caller).
    unsafe { compile(store, bytes(binary), "wasm_module_new", name) }
}

/// Deletes the slot; instances of the module keep its code.
///
/// # Safety
/// `module` may be NULL or any pointer: anything but a live module is
/// ignored, so deleting twice is harmless. No other thread may use the
/// module's store meanwhile.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_module_delete(module: *mut wasm_module_t) {
    // SAFETY: the client keeps the threading rule above.
    unsafe { object::delete::<wasm_module_t>(module) }
}

/// Whether the bytes are a valid module (false for malformed or invalid
/// ones, and for a NULL store or binary).
///
/// # Safety
/// As for [`wasm_module_new_ex`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_module_validate(
    store: Option<&mut wasm_store_t>,
    binary: Option<&wasm_byte_vec_t>,
) -> bool {
    // SAFETY: the client keeps the threading rule above.
    let Some(store) = (unsafe { crate::c_api::store::from_c(store) }) else { return false };
    // SAFETY: a valid vector (caller).
    let bytes = unsafe { bytes(binary) };
    // SAFETY: the store is live.
    check_binary(bytes).is_ok() && Module::validate(unsafe { crate::c_api::store::core(store) }.engine(), bytes).is_ok()
}

/// Writes a vector of the module's items (an empty one for anything but a
/// live module) to `out`.
///
/// # Safety
/// `module` as for [`object::get`]; `out` NULL or writable.
unsafe fn write_items<T, V>(
    module: *const wasm_module_t,
    out: *mut V,
    items: impl FnOnce(&Module) -> RawVec<T>,
    wrap: fn(RawVec<T>) -> V,
) {
    if out.is_null() {
        return;
    }
    // SAFETY: as the caller promises.
    let items = unsafe { slot(module) }.map_or(RawVec::EMPTY, |s| items(s.module()));
    // SAFETY: `out` is writable (caller).
    unsafe { out.write(wrap(items)) };
}

/// Sets `*out` to the module's imports grouped by kind as WAMR lists them:
/// functions, globals, memories, tables, each group in module order.
///
/// # Safety
/// `module` may be NULL or any pointer: anything but a live module counts
/// as NULL (an empty vector). `out` must be NULL or writable. No other
/// thread may delete the module meanwhile.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_module_imports(module: *const wasm_module_t, out: *mut wasm_importtype_vec_t) {
    let items = |m: &Module| {
        RawVec::from_items(
            crate::c_api::link::grouped(m)
                .iter()
                .map(|i| ImportTypeObj::new_handle(i, m.engine()))
                .collect::<Vec<_>>()
                .into_iter(),
        )
    };
    // SAFETY: as the caller promises.
    unsafe { write_items(module, out, items, wasm_importtype_vec_t::from_raw) }
}

/// Sets `*out` to the module's exports, in order. Tags are left out, as
/// `wasm_instance_exports` leaves them out (wasm-c-api has no kind for
/// them), so that the two vectors pair up index by index.
///
/// # Safety
/// As for [`wasm_module_imports`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_module_exports(module: *const wasm_module_t, out: *mut wasm_exporttype_vec_t) {
    let items = |m: &Module| {
        let exports = m.exports().filter(|e| !matches!(e.ty, cranewasm::ExternType::Tag(_)));
        RawVec::from_items(exports.map(|e| ExportTypeObj::new_handle(&e, m.engine())).collect::<Vec<_>>().into_iter())
    };
    // SAFETY: as the caller promises.
    unsafe { write_items(module, out, items, wasm_exporttype_vec_t::from_raw) }
}

/// Sets `*out` to a serialized form of the module, for
/// [`wasm_module_deserialize`].
///
/// # Safety
/// As for [`wasm_module_imports`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_module_serialize(module: *mut wasm_module_t, out: *mut wasm_byte_vec_t) {
    let items = |m: &Module| {
        RawVec::from_items(m.serialize().unwrap_or_default().into_iter().map(|b| b as crate::c_api::vec::wasm_byte_t))
    };
    // SAFETY: as the caller promises.
    unsafe { write_items(module, out, items, wasm_byte_vec_t::from_raw) }
}

/// A module from [`wasm_module_serialize`]'s output; like WAMR, a plain
/// binary is accepted too. NULL, with the reason on stderr, otherwise.
///
/// # Safety
/// As for [`wasm_module_new_ex`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_module_deserialize(
    store: Option<&mut wasm_store_t>,
    bytes_: Option<&wasm_byte_vec_t>,
) -> *mut wasm_module_t {
    // SAFETY: the client keeps the threading rule above.
    let Some(store) = (unsafe { crate::c_api::store::from_c(store) }) else { return ptr::null_mut() };
    // SAFETY: a valid vector (caller).
    let b = unsafe { bytes(bytes_) };
    if b.starts_with(b"\0asm") {
        // SAFETY: the store is live.
        return unsafe { compile(store, b, "wasm_module_deserialize", None) };
    }
    // SAFETY: the store is live. The bytes hold machine code that will
    // run: like WAMR's AOT files, the client passes only what
    // `wasm_module_serialize` made and nobody could change since (the
    // checksum catches accidents, not forgeries).
    match unsafe { Module::deserialize(crate::c_api::store::core(store).engine(), b) } {
        // SAFETY: the store is live.
        Ok(module) => unsafe { new_slot(store, Arc::new(SharedModule::new(module, Vec::new()))) },
        Err(e) => {
            log(format_args!("wasm_module_deserialize: {e}"));
            ptr::null_mut()
        }
    }
}

/// A handle on the module that belongs to no store, for another thread to
/// `wasm_module_obtain`. Free it with `wasm_shared_module_delete`.
///
/// # Safety
/// As for [`wasm_module_imports`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_module_share(module: *mut wasm_module_t) -> *mut wasm_shared_module_t {
    // SAFETY: as the caller promises; a slot of no store.
    unsafe { slot(module).map_or(ptr::null_mut(), |s| new_slot(ptr::null_mut(), s.shared.clone())) }
}

/// A module handle in `store` for a shared module (any thread).
///
/// # Safety
/// `store` and `shared` may be NULL or any pointers: anything but a live
/// store and module counts as NULL. The store must not be used by another
/// thread meanwhile, nor the shared module deleted.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_module_obtain(
    store: Option<&mut wasm_store_t>,
    shared: *mut wasm_shared_module_t,
) -> *mut wasm_module_t {
    // SAFETY: the client keeps the threading rule above.
    match unsafe { (crate::c_api::store::from_c(store), slot(shared)) } {
        // SAFETY: the store is live.
        (Some(store), Some(s)) => unsafe { new_slot(store, s.shared.clone()) },
        _ => ptr::null_mut(),
    }
}

/// Deletes a shared module handle.
///
/// # Safety
/// As for [`wasm_module_delete`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_shared_module_delete(shared: *mut wasm_shared_module_t) {
    // SAFETY: as the caller promises.
    unsafe { wasm_module_delete(shared) }
}

/// Names the module (shared by all its handles). False for NULL.
///
/// # Safety
/// As for [`wasm_module_imports`]; `name` must be NULL or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_module_set_name(module: *mut wasm_module_t, name: *const c_char) -> bool {
    // SAFETY: as the caller promises.
    let (Some(s), false) = (unsafe { slot(module) }, name.is_null()) else { return false };
    // SAFETY: NUL-terminated (caller).
    let name = unsafe { CStr::from_ptr(name) }.to_owned();
    s.shared.names.lock().unwrap_or_else(|e| e.into_inner()).push(name);
    true
}

/// The module's name: "" when it has none (or for NULL). The string lives
/// as long as the module.
///
/// # Safety
/// As for [`wasm_module_imports`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_module_get_name(module: *mut wasm_module_t) -> *const c_char {
    const NONE: &CStr = c"";
    // SAFETY: as the caller promises.
    let Some(s) = (unsafe { slot(module) }) else { return NONE.as_ptr() };
    let names = s.shared.names.lock().unwrap_or_else(|e| e.into_inner());
    names.last().map_or(NONE.as_ptr(), |n| n.as_ptr())
}

/// Whether the binary the module was loaded from may be freed: always, as
/// the module keeps its own copy (false for NULL).
///
/// # Safety
/// As for [`wasm_module_imports`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_module_is_underlying_binary_freeable(module: *const wasm_module_t) -> bool {
    // SAFETY: as the caller promises.
    unsafe { slot(module) }.is_some()
}
