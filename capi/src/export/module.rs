//! Modules of `wasm_export.h`: loading (`wasm_runtime_load`, `_load_ex`,
//! `_load_from_sections`), unloading, names, custom sections, package
//! queries, and the module registry of multi-module
//! (`wasm_runtime_register_module`, `_find_module_registered`,
//! `_set_module_reader`).
//!
//! A `wasm_module_t` is the handle of an [`RtModule`] cell (see
//! [`crate::core::module`], which loads modules and keeps the registry);
//! one that belongs to a wasm-c-api module is refused by
//! `wasm_runtime_unload`.
//!
//! A buffer may also hold a compiled file (`iwasm compile`,
//! `Module::serialize`): it loads without compiling, as WAMR loads an AOT
//! file, and its package type is AOT. Its machine code runs as it is, so
//! load only files you made or trust, as with WAMR's AOT files.
//!
//! The binary is copied, so the client's buffer may go as soon as a load
//! returns (`wasm_runtime_is_underlying_binary_freeable` is always true).

use std::ffi::c_char;
use std::ptr;

use cranewasm::Module;

use crate::core::module::{find_registered, is_built_in_module, load, module, package_type, registry};
use crate::core::options::LoadArgs;
use crate::core::runtime::warn;
use crate::export::types::*;
use crate::export::{cstr, set_error_buf};
use crate::object;
use crate::*;

/// `wasm_runtime_load` with load arguments: the name is `args.name`; the
/// binary is always copied, so `wasm_binary_freeable` and
/// `clone_wasm_binary` change nothing, and with `no_resolve` there is
/// nothing to defer (natives are resolved at instantiation). NULL with
/// WAMR's message in `error_buf` for NULL arguments, a short, malformed or
/// invalid binary, or an AOT file.
///
/// # Safety
/// `buf` must be NULL or readable for `size` bytes; `args` NULL or a
/// `LoadArgs` (its name NULL or NUL-terminated); `error_buf` NULL or
/// writable for `error_buf_size` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_load_ex(
    buf: *mut u8,
    size: u32,
    args: *const LoadArgs,
    error_buf: *mut c_char,
    error_buf_size: u32,
) -> wasm_module_t {
    // SAFETY: NULL or a LoadArgs (caller).
    let Some(args) = (unsafe { args.as_ref() }) else {
        // SAFETY: as the caller promises.
        unsafe { set_error_buf(error_buf, error_buf_size, "WASM module load failed: null load arguments") };
        return ptr::null_mut();
    };
    let bytes = if buf.is_null() {
        &[][..]
    } else {
        // SAFETY: readable for `size` bytes (caller).
        unsafe { std::slice::from_raw_parts(buf, size as usize) }
    };
    // SAFETY: NULL or NUL-terminated (caller).
    let name = unsafe { cstr(args.name) }.unwrap_or("");
    match load(bytes, name) {
        Ok(h) => h,
        Err(e) => {
            // SAFETY: as the caller promises.
            unsafe { set_error_buf(error_buf, error_buf_size, &e) };
            ptr::null_mut()
        }
    }
}

/// Loads a module from a binary (see [`wasm_runtime_load_ex`]).
///
/// # Safety
/// As for [`wasm_runtime_load_ex`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_load(
    buf: *mut u8,
    size: u32,
    error_buf: *mut c_char,
    error_buf_size: u32,
) -> wasm_module_t {
    let args = LoadArgs {
        name: c"".as_ptr().cast_mut(),
        clone_wasm_binary: false,
        wasm_binary_freeable: false,
        no_resolve: false,
    };
    // SAFETY: as the caller promises.
    unsafe { wasm_runtime_load_ex(buf, size, &args, error_buf, error_buf_size) }
}

/// Loads a module from its sections, each a `wasm_section_t` with the
/// section id and body: the sections are framed into a binary (magic,
/// version, id, size, body) and loaded as one. AOT section lists are
/// refused, as the AOT format is.
///
/// # Safety
/// `section_list` must be NULL or a list of valid sections (each body
/// readable for its size); `error_buf` as for [`wasm_runtime_load_ex`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_load_from_sections(
    section_list: wasm_section_list_t,
    is_aot: bool,
    error_buf: *mut c_char,
    error_buf_size: u32,
) -> wasm_module_t {
    let fail = |msg: &str| {
        // SAFETY: as the caller promises.
        unsafe { set_error_buf(error_buf, error_buf_size, msg) };
        ptr::null_mut()
    };
    if is_aot {
        return fail("WASM module load failed: AOT section lists are not supported by cranewasm");
    }
    let mut bytes = b"\0asm\x01\0\0\0".to_vec();
    let mut s = section_list;
    let mut count = 0usize;
    while !s.is_null() {
        // SAFETY: a valid section (caller).
        let sec = unsafe { &*s };
        let Ok(id) = u8::try_from(sec.section_type) else {
            return fail("WASM module load failed: invalid section id");
        };
        bytes.push(id);
        leb128(&mut bytes, sec.section_body_size);
        if sec.section_body_size > 0 {
            if sec.section_body.is_null() {
                return fail("WASM module load failed: section body is NULL");
            }
            // SAFETY: readable for its size (caller).
            bytes.extend_from_slice(unsafe {
                std::slice::from_raw_parts(sec.section_body, sec.section_body_size as usize)
            });
        }
        s = sec.next;
        count += 1;
        if count > 64 {
            return fail("WASM module load failed: too many sections (a cycle in the list?)");
        }
    }
    match load(&bytes, "") {
        Ok(h) => h,
        Err(e) => fail(&e),
    }
}

/// Appends `v` as unsigned LEB128.
fn leb128(out: &mut Vec<u8>, mut v: u32) {
    loop {
        let byte = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

/// Nothing to do: natives and registered modules are resolved at
/// instantiation, so a module loaded with `no_resolve` is as ready as any.
/// True for a live module (false otherwise).
///
/// # Safety
/// `module` may be NULL or any pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_resolve_symbols(module: wasm_module_t) -> bool {
    // SAFETY: as the caller promises.
    unsafe { self::module(module) }.is_some()
}

/// Unloads a module; its instances keep its code. A module of the
/// wasm-c-api (`*module` of a `wasm_module_new` result) is refused: it is
/// freed with its `wasm_module_delete`.
///
/// # Safety
/// `module` may be NULL or any pointer (anything but a live module is
/// ignored); no other thread may use it meanwhile.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_unload(module: wasm_module_t) {
    // SAFETY: as the caller promises.
    let Some(m) = (unsafe { self::module(module) }) else { return };
    if m.capi_owned {
        warn(format_args!("wasm_runtime_unload: the module belongs to the wasm-c-api; use wasm_module_delete"));
        return;
    }
    let h = module as usize;
    let own = {
        let mut r = registry();
        r.named.retain(|(_, m)| *m != h);
        let i = r.owned.iter().position(|o| o.as_ptr() as usize == h);
        i.map(|i| r.owned.remove(i))
    };
    match own {
        Some(own) => drop(own),
        // SAFETY: the client keeps the threading rule above.
        None => unsafe { object::delete::<WASMModuleCommon>(module) },
    }
}

/// Registers `module` under `module_name` for other modules to import
/// from. WAMR's rules and messages: a name is required, built-in names
/// are refused, and a module registered under one name cannot take
/// another (registering it again under the same name is fine).
///
/// # Safety
/// `module_name` NULL or NUL-terminated; `module` NULL or any pointer;
/// `error_buf` as for [`wasm_runtime_load_ex`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_register_module(
    module_name: *const c_char,
    module: wasm_module_t,
    error_buf: *mut c_char,
    error_buf_size: u32,
) -> bool {
    let fail = |msg: &str| {
        // SAFETY: as the caller promises.
        unsafe { set_error_buf(error_buf, error_buf_size, msg) };
        false
    };
    if error_buf.is_null() || error_buf_size == 0 {
        warn(format_args!("error buffer is required"));
        return false;
    }
    // SAFETY: as the caller promises.
    let (Some(name), Some(_)) = (unsafe { cstr(module_name) }, unsafe { self::module(module) }) else {
        return fail("Register module failed: module_name and module are required");
    };
    if is_built_in_module(name) {
        return fail("Register module failed: can not register as a built-in module");
    }
    let h = module as usize;
    let mut r = registry();
    if let Some((existing, _)) = r.named.iter().find(|(_, m)| *m == h) {
        if existing == name {
            return true;
        }
        drop(r);
        return fail("Register module failed: failed to rename the module");
    }
    r.named.push((name.to_string(), h));
    true
}

/// The module registered under `module_name`, or NULL.
///
/// # Safety
/// `module_name` must be NULL or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_find_module_registered(module_name: *const c_char) -> wasm_module_t {
    // SAFETY: as the caller promises.
    let Some(name) = (unsafe { cstr(module_name) }) else { return ptr::null_mut() };
    find_registered(name).map_or(ptr::null_mut(), |h| h as wasm_module_t)
}

/// Sets the functions that read (and release) the files of modules that
/// loaded modules import from.
///
/// # Safety
/// Each function must be NULL or callable as its type says, from any
/// thread that loads modules.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_set_module_reader(reader: module_reader, destroyer: module_destroyer) {
    let mut r = registry();
    r.reader = reader;
    r.destroyer = destroyer;
}

/// Names the module (for `wasm_runtime_get_module_name`). False for NULL
/// arguments.
///
/// # Safety
/// `module` NULL or any pointer; `name` NULL or NUL-terminated;
/// `error_buf` as for [`wasm_runtime_load_ex`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_set_module_name(
    module: wasm_module_t,
    name: *const c_char,
    error_buf: *mut c_char,
    error_buf_size: u32,
) -> bool {
    // SAFETY: as the caller promises.
    let (Some(m), false) = (unsafe { self::module(module) }, name.is_null()) else { return false };
    // SAFETY: NUL-terminated (caller).
    let name = unsafe { std::ffi::CStr::from_ptr(name) }.to_owned();
    let _ = (error_buf, error_buf_size);
    m.names.lock().unwrap_or_else(|e| e.into_inner()).push(name);
    true
}

/// The module's most recent name, "" if it has none (or for NULL); valid
/// while the module lives.
///
/// # Safety
/// `module` may be NULL or any pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_get_module_name(module: wasm_module_t) -> *const c_char {
    // SAFETY: as the caller promises.
    let Some(m) = (unsafe { self::module(module) }) else { return c"".as_ptr() };
    let names = m.names.lock().unwrap_or_else(|e| e.into_inner());
    names.last().map_or(c"".as_ptr(), |n| n.as_ptr())
}

/// Whether the buffer the module was loaded from may be freed: always (the
/// binary is copied); false for anything but a live module.
///
/// # Safety
/// `module` may be NULL or any pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_is_underlying_binary_freeable(module: wasm_module_t) -> bool {
    // SAFETY: as the caller promises.
    unsafe { self::module(module) }.is_some()
}

/// The contents of the module's first custom section called `name` (after
/// the name), with its length in `*len`; NULL if there is none. Valid
/// while the module lives.
///
/// # Safety
/// `module` NULL or any pointer; `name` NULL or NUL-terminated; `len` NULL
/// or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_get_custom_section(
    module_comm: wasm_module_t,
    name: *const c_char,
    len: *mut u32,
) -> *const u8 {
    // SAFETY: as the caller promises.
    let (Some(m), Some(name)) = (unsafe { self::module(module_comm) }, unsafe { cstr(name) }) else {
        return ptr::null();
    };
    match m.module.custom_section(name) {
        Some(data) => {
            if !len.is_null() {
                // SAFETY: writable (caller).
                unsafe { len.write(data.len() as u32) };
            }
            data.as_ptr()
        }
        None => ptr::null(),
    }
}

/// The format version of the compiled files this runtime writes and loads
/// (`Module::serialize`'s, bytes 8..12 of the file): what the package
/// version answers for them.
const COMPILED_FILE_VERSION: u32 = Module::SERIALIZED_FORMAT_VERSION;

/// The buffer at `buf`, NULL counting as empty.
///
/// # Safety
/// `buf` NULL or readable for `size` bytes.
unsafe fn slice<'a>(buf: *const u8, size: u32) -> &'a [u8] {
    if buf.is_null() {
        return &[];
    }
    // SAFETY: as the caller promises.
    unsafe { std::slice::from_raw_parts(buf, size as usize) }
}

/// The package type of a buffer.
///
/// # Safety
/// `buf` NULL or readable for `size` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn get_package_type(buf: *const u8, size: u32) -> package_type_t {
    // SAFETY: as the caller promises.
    package_type(unsafe { slice(buf, size) })
}

/// The package type of a buffer (as [`get_package_type`]).
///
/// # Safety
/// As for [`get_package_type`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_get_file_package_type(buf: *const u8, size: u32) -> package_type_t {
    // SAFETY: as the caller promises.
    unsafe { get_package_type(buf, size) }
}

/// The package type of a module: AOT for one loaded from a compiled file,
/// else bytecode (unknown for anything but a live module).
///
/// # Safety
/// `module` may be NULL or any pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_get_module_package_type(module: wasm_module_t) -> package_type_t {
    // SAFETY: as the caller promises.
    unsafe { self::module(module) }.map_or(PACKAGE_TYPE_UNKNOWN, |m| m.package_type)
}

/// The version field of a buffer: bytes 4..8, little-endian, as WAMR
/// reads it, except for a compiled file, whose version is at 8..12 (after
/// its 8-byte magic); 0 when it is shorter.
///
/// # Safety
/// As for [`get_package_type`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_get_file_package_version(buf: *const u8, size: u32) -> u32 {
    // SAFETY: as the caller promises.
    let b = unsafe { slice(buf, size) };
    let at = if Module::is_serialized(b) { 8 } else { 4 };
    match b.get(at..at + 4) {
        Some(v) => u32::from_le_bytes([v[0], v[1], v[2], v[3]]),
        None => 0,
    }
}

/// The format version of a module's package: 1 for bytecode, the
/// compiled-file version for one loaded from a compiled file (0 for
/// anything but a live module).
///
/// # Safety
/// `module` may be NULL or any pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_get_module_package_version(module: wasm_module_t) -> u32 {
    // SAFETY: as the caller promises.
    unsafe { self::module(module) }.map_or(0, |m| wasm_runtime_get_current_package_version(m.package_type))
}

/// The version of each package type this runtime loads: 1 for bytecode,
/// and for AOT the version of the compiled files it writes and loads (WAMR
/// AOT files are not loaded); 0 for an unknown type.
#[unsafe(no_mangle)]
pub extern "C" fn wasm_runtime_get_current_package_version(package_type: package_type_t) -> u32 {
    match package_type {
        WASM_MODULE_BYTECODE => 1,
        WASM_MODULE_AOT => COMPILED_FILE_VERSION,
        _ => 0,
    }
}
