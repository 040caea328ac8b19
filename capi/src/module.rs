//! Modules: compiled code, shared between stores and threads.
//!
//! `wasm_module_t` is a pointer typedef, so the API passes `wasm_module_t
//! *`: a pointer to a [`ModuleSlot`] whose first word is the
//! `WASMModuleCommon *` a client may read. Each slot belongs to a store
//! (freed with it) or, when made by `wasm_module_share`, to no store, so it
//! can travel to another thread and be obtained into a store there. All
//! slots of one module share the compiled code and the module's name.
//!
//! `wasm_module_new` takes binaries only (WAT text goes through
//! `cranewasm_wat2wasm`), and copies them, so the client's buffer is always
//! free to go once the call returns.

use std::ffi::{c_char, CStr, CString};
use std::ptr;
use std::sync::{Arc, Mutex};

use cranewasm::Module;

use crate::config::LoadArgs;
use crate::import_export::{ExportTypeObj, ImportTypeObj};
use crate::object::{register, release, Header, ObjKind, Object};
use crate::store::StoreObj;
use crate::vec::{wasm_byte_vec_t, wasm_exporttype_vec_t, wasm_importtype_vec_t, RawVec};
use crate::*;

/// A module as every slot of it shares it.
pub struct SharedModule {
    pub module: Module,
    /// Every name the module was given, the current one last. Earlier ones
    /// stay allocated so that pointers from `wasm_module_get_name` remain
    /// valid for the module's life.
    names: Mutex<Vec<CString>>,
}

/// What a `wasm_module_t *` points at.
#[repr(C)]
pub struct ModuleSlot {
    /// The `WASMModuleCommon *` of the slot (the shared module).
    common: *const SharedModule,
    pub header: Header,
    pub shared: Arc<SharedModule>,
}

// SAFETY: `header` is at `header_offset`, and `destroy` frees module
// slots by kind.
unsafe impl Object for ModuleSlot {
    fn header_offset() -> usize {
        std::mem::offset_of!(ModuleSlot, header)
    }
    fn header_mut(&mut self) -> &mut Header {
        &mut self.header
    }
}

/// A new slot for `shared`, registered with `store` (or with none).
///
/// # Safety
/// `store` must be NULL or live.
unsafe fn new_slot(store: *mut StoreObj, shared: Arc<SharedModule>) -> *mut wasm_module_t {
    let slot = ModuleSlot { common: Arc::as_ptr(&shared), header: Header::new(ObjKind::Module, store), shared };
    register(slot).cast()
}

/// The slot behind a module pointer.
///
/// # Safety
/// `m` must be NULL or a live module slot.
pub unsafe fn slot<'a>(m: *const wasm_module_t) -> Option<&'a ModuleSlot> {
    m.cast::<ModuleSlot>().as_ref()
}

/// The bytes of a binary vector (`num_elems` when set, else `size`).
unsafe fn bytes<'a>(binary: *const wasm_byte_vec_t) -> &'a [u8] {
    match binary.as_ref() {
        Some(b) => {
            let s = b.raw().as_slice();
            std::slice::from_raw_parts(s.as_ptr().cast(), s.len())
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

unsafe fn compile(store: *mut StoreObj, bytes: &[u8], what: &str, name: Option<&CStr>) -> *mut wasm_module_t {
    if let Err(e) = check_binary(bytes) {
        log(format_args!("{what}: {e}"));
        return ptr::null_mut();
    }
    let engine = crate::store::core(store).engine().clone();
    match Module::new(&engine, bytes) {
        Ok(module) => {
            let names = name.map(CStr::to_owned).into_iter().collect();
            new_slot(store, Arc::new(SharedModule { module, names: Mutex::new(names) }))
        }
        Err(e) => {
            log(format_args!("{what}: {e}"));
            ptr::null_mut()
        }
    }
}

/// Validates and compiles a binary. NULL, with the reason on stderr, for a
/// malformed or invalid module.
#[no_mangle]
pub unsafe extern "C" fn wasm_module_new(
    store: *mut wasm_store_t,
    binary: *const wasm_byte_vec_t,
) -> *mut wasm_module_t {
    wasm_module_new_ex(store, binary.cast_mut(), ptr::null_mut())
}

/// [`wasm_module_new`] with WAMR's load arguments: `name` becomes the
/// module's name. The binary is always copied, so `clone_wasm_binary` and
/// `wasm_binary_freeable` make no difference; `no_resolve` has nothing to
/// defer (imports are resolved at instantiation).
#[no_mangle]
pub unsafe extern "C" fn wasm_module_new_ex(
    store: *mut wasm_store_t,
    binary: *mut wasm_byte_vec_t,
    args: *mut LoadArgs,
) -> *mut wasm_module_t {
    let (Some(store), false) = (crate::store::from_c(store), binary.is_null()) else { return ptr::null_mut() };
    let name = args.as_ref().and_then(|a| (!a.name.is_null()).then(|| CStr::from_ptr(a.name)));
    compile(store, bytes(binary), "wasm_module_new", name)
}

/// Deletes the slot; instances of the module keep its code.
#[no_mangle]
pub unsafe extern "C" fn wasm_module_delete(module: *mut wasm_module_t) {
    if let Some(s) = slot(module) {
        release(ptr::addr_of!(s.header).cast_mut());
    }
}

/// Whether the bytes are a valid module (false for malformed or invalid
/// ones, and for a NULL store or binary).
#[no_mangle]
pub unsafe extern "C" fn wasm_module_validate(store: *mut wasm_store_t, binary: *const wasm_byte_vec_t) -> bool {
    let Some(store) = crate::store::from_c(store) else { return false };
    let bytes = bytes(binary);
    check_binary(bytes).is_ok() && Module::validate(store.store.engine(), bytes).is_ok()
}

/// Sets `*out` to the module's imports, in order.
#[no_mangle]
pub unsafe extern "C" fn wasm_module_imports(module: *const wasm_module_t, out: *mut wasm_importtype_vec_t) {
    let Some(out) = out.as_mut() else { return };
    let items = match slot(module) {
        Some(s) => RawVec::from_items(s.shared.module.imports().map(|i| ImportTypeObj::new_boxed(&i))),
        None => RawVec::EMPTY,
    };
    ptr::write(out, wasm_importtype_vec_t::from_raw(items));
}

/// Sets `*out` to the module's exports, in order.
#[no_mangle]
pub unsafe extern "C" fn wasm_module_exports(module: *const wasm_module_t, out: *mut wasm_exporttype_vec_t) {
    let Some(out) = out.as_mut() else { return };
    let items = match slot(module) {
        Some(s) => RawVec::from_items(s.shared.module.exports().map(|e| ExportTypeObj::new_boxed(&e))),
        None => RawVec::EMPTY,
    };
    ptr::write(out, wasm_exporttype_vec_t::from_raw(items));
}

/// Sets `*out` to a serialized form of the module, for
/// [`wasm_module_deserialize`].
#[no_mangle]
pub unsafe extern "C" fn wasm_module_serialize(module: *mut wasm_module_t, out: *mut wasm_byte_vec_t) {
    let Some(out) = out.as_mut() else { return };
    let bytes = match slot(module) {
        Some(s) => RawVec::from_items(s.shared.module.serialize().into_iter().map(|b| b as vec::wasm_byte_t)),
        None => RawVec::EMPTY,
    };
    ptr::write(out, wasm_byte_vec_t::from_raw(bytes));
}

/// A module from [`wasm_module_serialize`]'s output; like WAMR, a plain
/// binary is accepted too. NULL, with the reason on stderr, otherwise.
#[no_mangle]
pub unsafe extern "C" fn wasm_module_deserialize(
    store: *mut wasm_store_t,
    bytes_: *const wasm_byte_vec_t,
) -> *mut wasm_module_t {
    let Some(store) = crate::store::from_c(store) else { return ptr::null_mut() };
    let b = bytes(bytes_);
    if b.starts_with(b"\0asm") {
        return compile(store, b, "wasm_module_deserialize", None);
    }
    match Module::deserialize(store.store.engine(), b) {
        Ok(module) => new_slot(store, Arc::new(SharedModule { module, names: Mutex::default() })),
        Err(e) => {
            log(format_args!("wasm_module_deserialize: {e}"));
            ptr::null_mut()
        }
    }
}

/// A handle on the module that belongs to no store, for another thread to
/// `wasm_module_obtain`. Free it with `wasm_shared_module_delete`.
#[no_mangle]
pub unsafe extern "C" fn wasm_module_share(module: *mut wasm_module_t) -> *mut wasm_shared_module_t {
    match slot(module) {
        Some(s) => new_slot(ptr::null_mut(), s.shared.clone()),
        None => ptr::null_mut(),
    }
}

/// A module handle in `store` for a shared module (any thread).
#[no_mangle]
pub unsafe extern "C" fn wasm_module_obtain(
    store: *mut wasm_store_t,
    shared: *mut wasm_shared_module_t,
) -> *mut wasm_module_t {
    match (crate::store::from_c(store), slot(shared)) {
        (Some(store), Some(s)) => new_slot(store, s.shared.clone()),
        _ => ptr::null_mut(),
    }
}

#[no_mangle]
pub unsafe extern "C" fn wasm_shared_module_delete(shared: *mut wasm_shared_module_t) {
    wasm_module_delete(shared)
}

/// Names the module (shared by all its handles). False for NULL.
#[no_mangle]
pub unsafe extern "C" fn wasm_module_set_name(module: *mut wasm_module_t, name: *const c_char) -> bool {
    let (Some(s), false) = (slot(module), name.is_null()) else { return false };
    s.shared.names.lock().unwrap_or_else(|e| e.into_inner()).push(CStr::from_ptr(name).to_owned());
    true
}

/// The module's name: "" when it has none (or for NULL). The string lives
/// as long as the module.
#[no_mangle]
pub unsafe extern "C" fn wasm_module_get_name(module: *mut wasm_module_t) -> *const c_char {
    const NONE: &CStr = c"";
    let Some(s) = slot(module) else { return NONE.as_ptr() };
    let names = s.shared.names.lock().unwrap_or_else(|e| e.into_inner());
    names.last().map_or(NONE.as_ptr(), |n| n.as_ptr())
}

/// Whether the binary the module was loaded from may be freed: always, as
/// the module keeps its own copy (false for NULL).
#[no_mangle]
pub unsafe extern "C" fn wasm_module_is_underlying_binary_freeable(module: *const wasm_module_t) -> bool {
    slot(module).is_some()
}
