//! Modules of `wasm_export.h`: loading (`wasm_runtime_load`, `_load_ex`,
//! `_load_from_sections`), unloading, names, custom sections, package
//! queries, and the module registry of multi-module
//! (`wasm_runtime_register_module`, `_find_module_registered`,
//! `_set_module_reader`).
//!
//! A `wasm_module_t` is the handle of an [`RtModule`] cell. A module the
//! wasm-c-api made (`wasm_module_new`) has one too, as the first word of
//! its `wasm_module_t *` slot, so `*module` works with these functions as
//! in WAMR; that one belongs to the wasm-c-api module, and
//! `wasm_runtime_unload` refuses it.
//!
//! A buffer may also hold a compiled file (`iwasm compile`,
//! `Module::serialize`): it loads without compiling, as WAMR loads an AOT
//! file, and its package type is AOT. Its machine code runs as it is, so
//! load only files you made or trust, as with WAMR's AOT files.
//!
//! The binary is copied, so the client's buffer may go as soon as a load
//! returns (`wasm_runtime_is_underlying_binary_freeable` is always true).
//! Imports from modules other than the built-in ones (`env`, WASI) are
//! resolved at load time as WAMR's multi-module does: a registered module
//! of that name, else one the module reader supplies, which is then
//! registered under that name and owned by the runtime.

use std::collections::HashMap;
use std::ffi::{CString, c_char};
use std::ptr;
use std::sync::{Mutex, MutexGuard};

use cranewasm::{ExternType, Module};

use crate::core::options::LoadArgs;
use crate::export::pool;
use crate::export::reflect::{ExportEntry, ImportEntry, exports_of, imports_of};
use crate::export::runtime::warn;
use crate::export::types::*;
use crate::export::wasi::WasiArgs;
use crate::export::{cstr, is_built_in_module, set_error_buf};
use crate::handle::Kind;
use crate::object::{self, Handle, Object, Own, get};
use crate::*;

/// What a `wasm_module_t` of `wasm_export.h` points at.
pub struct RtModule {
    pub module: Module,
    /// Every name given (`LoadArgs::name`, `wasm_runtime_set_module_name`),
    /// the current one last; earlier ones stay so that pointers from
    /// `wasm_runtime_get_module_name` remain valid.
    names: Mutex<Vec<CString>>,
    /// WASI settings for instances (`wasm_runtime_set_wasi_args` and co.).
    pub wasi: Mutex<WasiArgs>,
    /// Made for a wasm-c-api module, which owns it.
    pub capi_owned: bool,
    pub imports: Vec<ImportEntry>,
    pub exports: Vec<ExportEntry>,
    /// The modules it imports from (multi-module), by name: handles of
    /// modules in the registry.
    pub deps: HashMap<String, usize>,
    /// The buffer the module reader gave for this module, for its
    /// destroyer.
    reader_buffer: Option<(usize, u32)>,
    /// AOT when loaded from a compiled file, else bytecode.
    package_type: package_type_t,
    /// Its share of the memory pool (`Alloc_With_Pool`), released with it.
    _pool: pool::Charge,
}

// SAFETY: RtModule cells hold `RtModule`s, named by `WASMModuleCommon`.
unsafe impl Object for RtModule {
    fn kind(&self) -> Kind {
        Kind::RtModule
    }
}

// SAFETY: RtModule cells hold `RtModule`s.
unsafe impl Handle for WASMModuleCommon {
    type Obj = RtModule;
    const KINDS: u32 = Kind::RtModule.bit();
    const NAME: &'static str = "wasm_module_t";
}

impl Drop for RtModule {
    fn drop(&mut self) {
        if let Some((buf, size)) = self.reader_buffer.take() {
            let destroyer = registry().destroyer;
            match destroyer {
                // SAFETY: the buffer the reader gave, handed back once.
                Some(d) => unsafe { d(buf as *mut u8, size) },
                None => warn(format_args!("need to release the reading buffer of a sub module manually")),
            }
        }
    }
}

impl RtModule {
    fn new(module: Module, name: &str, capi_owned: bool) -> RtModule {
        RtModule {
            imports: imports_of(&module),
            exports: exports_of(&module),
            module,
            names: Mutex::new(vec![CString::new(name).unwrap_or_default()]),
            wasi: Mutex::default(),
            capi_owned,
            deps: HashMap::new(),
            reader_buffer: None,
            package_type: WASM_MODULE_BYTECODE,
            _pool: pool::Charge::default(),
        }
    }

    /// Whether module `dep` (a dependency) exports `name` with a type
    /// matching `ty`.
    pub fn dep_export(&self, dep: &str, name: &str, ty: &ExternType) -> bool {
        let Some(&h) = self.deps.get(dep) else { return false };
        // SAFETY: dependencies are registry modules, unloaded only at
        // runtime destruction.
        let Some(d) = (unsafe { get::<WASMModuleCommon>(h as *const WASMModuleCommon) }) else { return false };
        d.exports.iter().any(|e| e.name.to_str() == Ok(name) && same_kind(&e.ty, ty))
    }

    /// The module's current name ("" if it has none).
    pub fn name(&self) -> String {
        let names = self.names.lock().unwrap_or_else(|e| e.into_inner());
        names.last().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
    }
}

fn same_kind(a: &ExternType, b: &ExternType) -> bool {
    std::mem::discriminant(a) == std::mem::discriminant(b)
}

/// The module behind a `wasm_module_t`: `None` for anything but a live one.
///
/// # Safety
/// As for [`object::get`].
pub unsafe fn module<'a>(m: *const WASMModuleCommon) -> Option<&'a RtModule> {
    // SAFETY: as the caller promises.
    unsafe { get::<WASMModuleCommon>(m) }
}

/// The module registry of multi-module.
struct Registry {
    /// Modules by name, in registration order.
    named: Vec<(String, usize)>,
    /// Modules the runtime loaded through the reader (and owns).
    owned: Vec<Own<WASMModuleCommon>>,
    reader: module_reader,
    destroyer: module_destroyer,
    /// Names being loaded, to refuse circular dependencies.
    loading: Vec<String>,
}

// SAFETY: the handles are addresses of cells, usable from any thread under
// the registry's lock; the reader and destroyer are the client's.
unsafe impl Send for Registry {}

static REGISTRY: Mutex<Registry> =
    Mutex::new(Registry { named: Vec::new(), owned: Vec::new(), reader: None, destroyer: None, loading: Vec::new() });

fn registry() -> MutexGuard<'static, Registry> {
    REGISTRY.lock().unwrap_or_else(|e| e.into_inner())
}

/// Forgets the registered names and unloads the modules the reader gave
/// (`wasm_runtime_destroy`).
pub fn clear_registry() {
    let owned = {
        let mut r = registry();
        r.named.clear();
        r.loading.clear();
        std::mem::take(&mut r.owned)
    };
    // Dropped outside the lock: a module's drop calls the destroyer.
    drop(owned);
}

/// The registered module called `name`, as a handle.
fn find_registered(name: &str) -> Option<usize> {
    registry().named.iter().find(|(n, _)| n == name).map(|(_, m)| *m)
}

/// Compiles a binary into a module, or loads the machine code of a file
/// `iwasm compile` (`Module::serialize`) wrote, as WAMR loads an AOT file;
/// the error message is WAMR's load error text.
fn compile(bytes: &[u8]) -> Result<Module, String> {
    if bytes.len() < 4 {
        return Err("WASM module load failed: unexpected end".into());
    }
    let engine = || crate::export::runtime::engine().map_err(|e| format!("WASM module load failed: {e}"));
    match package_type(bytes) {
        // Bytecode loaded under `Mode_Interp` counts operators; compiled
        // files, like WAMR's AOT files, run as compiled.
        WASM_MODULE_BYTECODE => Module::new(
            &crate::export::runtime::module_engine().map_err(|e| format!("WASM module load failed: {e}"))?,
            bytes,
        )
        .map_err(|e| format!("WASM module load failed: {e}")),
        WASM_MODULE_AOT if Module::is_serialized(bytes) => {
            // SAFETY: the buffer's machine code is run as it is: whoever
            // passes a compiled file vouches for it, as a WAMR embedder
            // does for an AOT file (which is machine code too). The
            // header, compatibility values and checksum are checked, so a
            // damaged, truncated or foreign file is refused; a forged one
            // is not (see the capi README's "Compiled files").
            unsafe { Module::deserialize(&engine()?, bytes) }.map_err(|e| format!("WASM module load failed: {e}"))
        }
        WASM_MODULE_AOT => Err("WASM module load failed: AOT modules (.aot files) are not supported by cranewasm, \
                                which compiles the .wasm module itself; load the .wasm file, or a file \
                                `iwasm compile` wrote"
            .into()),
        _ => Err("WASM module load failed: magic header not detected".into()),
    }
}

/// Loads `bytes` as a module named `name`, with its dependencies.
fn load(bytes: &[u8], name: &str) -> Result<*mut WASMModuleCommon, String> {
    let module = compile(bytes)?;
    let charge = pool::charge(module.footprint().0).ok_or("WASM module load failed: allocate memory failed")?;
    let mut m = RtModule::new(module, name, false);
    m._pool = charge;
    m.package_type = package_type(bytes);
    load_dependencies(&mut m);
    let h = object::new::<WASMModuleCommon>(m);
    if h.is_null() { Err("WASM module load failed: allocate memory failed".into()) } else { Ok(h) }
}

/// Resolves the modules `m` imports from, as WAMR's multi-module loader
/// does: for every import from a module that is not built in (and, for a
/// function, not a registered native), a registered module of that name
/// or one the reader supplies. A module that cannot be found leaves its
/// imports unlinked (an error at instantiation for anything but a
/// function).
fn load_dependencies(m: &mut RtModule) {
    let mut wanted: Vec<String> = Vec::new();
    for i in &m.imports {
        let (module, name) = (i.module.to_string_lossy(), i.name.to_string_lossy());
        if is_built_in_module(&module) || wanted.iter().any(|w| *w == module) {
            continue;
        }
        let provided = match &i.ty {
            ExternType::Func(ty) => {
                crate::export::natives::resolve(&module, &name, ty).is_some()
                    || crate::export::thread_mgr::is_thread_spawn(&module, &name, ty)
            }
            ExternType::Global(_) => crate::libc_builtin::global(&module, &name).is_some(),
            // The runtime makes a shared memory a program imports, from
            // whatever module (a wasi-threads program's).
            ExternType::Memory(ty) => ty.is_shared(),
            _ => false,
        };
        if provided {
            continue;
        }
        wanted.push(module.into_owned());
    }
    for dep in wanted {
        match load_dependency(&dep) {
            Ok(Some(h)) => {
                m.deps.insert(dep, h);
            }
            // Without a reader there is no multi-module: the import is the
            // client's to link (or it traps when called), and no warning.
            Ok(None) => {}
            Err(e) => warn(format_args!("failed to load sub module: {e}")),
        }
    }
}

/// The registered module `name`, loading it through the reader if needed;
/// `None` when it is not registered and no reader is set.
fn load_dependency(name: &str) -> Result<Option<usize>, String> {
    if let Some(h) = find_registered(name) {
        return Ok(Some(h));
    }
    let reader = {
        let mut r = registry();
        let Some(reader) = r.reader else { return Ok(None) };
        if r.loading.iter().any(|l| l == name) {
            return Err(format!("found circular dependency on {name}"));
        }
        r.loading.push(name.to_string());
        reader
    };
    let result = read_and_load(reader, name);
    registry().loading.retain(|l| l != name);
    result.map(Some)
}

/// Reads module `name` with the client's reader and loads it.
fn read_and_load(
    reader: unsafe extern "C" fn(package_type_t, *const c_char, *mut *mut u8, *mut u32) -> bool,
    name: &str,
) -> Result<usize, String> {
    let cname = CString::new(name).map_err(|_| format!("unknown import {name}"))?;
    let (mut buf, mut size) = (ptr::null_mut::<u8>(), 0u32);
    // SAFETY: the client's reader, called as its type says.
    if !unsafe { reader(WASM_MODULE_BYTECODE, cname.as_ptr(), &mut buf, &mut size) } || buf.is_null() {
        return Err(format!("unknown import {name}"));
    }
    // SAFETY: the reader gave `size` readable bytes at `buf`.
    let bytes = unsafe { std::slice::from_raw_parts(buf, size as usize) };
    let mut m = match compile(bytes) {
        Ok(module) => {
            let mut m = RtModule::new(module, name, false);
            m.package_type = package_type(bytes);
            m
        }
        Err(e) => {
            if let Some(d) = registry().destroyer {
                // SAFETY: the reader's buffer, handed back once.
                unsafe { d(buf, size) };
            }
            return Err(e);
        }
    };
    m.reader_buffer = Some((buf as usize, size));
    load_dependencies(&mut m);
    let own = Own::<WASMModuleCommon>::new(m).ok_or_else(|| "allocate memory failed".to_string())?;
    let h = own.as_ptr() as usize;
    let mut r = registry();
    r.named.push((name.to_string(), h));
    r.owned.push(own);
    Ok(h)
}

/// A module for a wasm-c-api module (`wasm_module_new`): what its slot's
/// public word points at. Owned by the wasm-c-api module.
pub fn for_capi(module: &Module, name: &str) -> Option<Own<WASMModuleCommon>> {
    let mut m = RtModule::new(module.clone(), name, true);
    load_dependencies(&mut m);
    Own::new(m)
}

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

/// The package type of a buffer from its magic number: bytecode
/// (`\0asm`); AOT for WAMR's AOT files (`\0aot`) and for cranewasm's
/// compiled files (`Module::serialize`, `iwasm compile`), which hold
/// machine code as AOT files do and load where WAMR's AOT files load; or
/// unknown.
fn package_type(b: &[u8]) -> package_type_t {
    match b {
        [0, b'a', b's', b'm', ..] => WASM_MODULE_BYTECODE,
        [0, b'a', b'o', b't', ..] => WASM_MODULE_AOT,
        _ if Module::is_serialized(b) => WASM_MODULE_AOT,
        _ => PACKAGE_TYPE_UNKNOWN,
    }
}

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
