//! The runtime's modules, which both headers share: a `wasm_module_t` of
//! `wasm_export.h` is the handle of an [`RtModule`] cell, and a module
//! the wasm-c-api made (`wasm_module_new`) has one too, as the first word
//! of its `wasm_module_t *` slot, so `*module` works with
//! `wasm_runtime_*` functions as in WAMR; that one belongs to the
//! wasm-c-api module ([`for_capi`]).
//!
//! Loading compiles a binary, or loads the machine code of a compiled
//! file (`iwasm compile`, `Module::serialize`) as WAMR loads an AOT file.
//! Imports from modules other than the built-in ones (`env`, WASI) are
//! resolved at load time as WAMR's multi-module does: a registered module
//! of that name ([`Registry`]), else one the client's module reader
//! supplies, which is then registered under that name and owned by the
//! runtime. The C functions are `wasm_export.h`'s, in
//! `export/module.rs`.

use std::collections::HashMap;
use std::ffi::{CString, c_char};
use std::ptr;
use std::sync::{Mutex, MutexGuard};

use cranewasm::{ExternType, Module};

use crate::WASMModuleCommon;
use crate::core::reflect::{ExportEntry, ImportEntry, exports_of, imports_of};
use crate::core::runtime::{self, warn};
use crate::core::types::*;
use crate::core::wasi::{self, WasiArgs};
use crate::core::{natives, pool};
use crate::handle::Kind;
use crate::object::{self, Handle, Object, Own, get};

/// The module names WAMR resolves itself, never from another module.
pub fn is_built_in_module(name: &str) -> bool {
    matches!(name, "env" | "wasi_unstable" | "wasi_snapshot_preview1" | "")
}

/// What a `wasm_module_t` of `wasm_export.h` points at.
pub struct RtModule {
    pub module: Module,
    /// Every name given (`LoadArgs::name`, `wasm_runtime_set_module_name`),
    /// the current one last; earlier ones stay so that pointers from
    /// `wasm_runtime_get_module_name` remain valid.
    pub(crate) names: Mutex<Vec<CString>>,
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
    pub(crate) package_type: package_type_t,
    /// Its share of the memory pool (`Alloc_With_Pool`), released with it.
    _pool: pool::Charge,
    /// The handles of its defined types (`gc_export.h`), made on first
    /// request by the export layer and freed with the module.
    pub gc_types: std::sync::OnceLock<Box<dyn std::any::Any>>,
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
            gc_types: std::sync::OnceLock::new(),
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
pub(crate) struct Registry {
    /// Modules by name, in registration order.
    pub(crate) named: Vec<(String, usize)>,
    /// Modules the runtime loaded through the reader (and owns).
    pub(crate) owned: Vec<Own<WASMModuleCommon>>,
    pub(crate) reader: module_reader,
    pub(crate) destroyer: module_destroyer,
    /// Names being loaded, to refuse circular dependencies.
    pub(crate) loading: Vec<String>,
}

// SAFETY: the handles are addresses of cells, usable from any thread under
// the registry's lock; the reader and destroyer are the client's.
unsafe impl Send for Registry {}

static REGISTRY: Mutex<Registry> =
    Mutex::new(Registry { named: Vec::new(), owned: Vec::new(), reader: None, destroyer: None, loading: Vec::new() });

pub(crate) fn registry() -> MutexGuard<'static, Registry> {
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
pub fn find_registered(name: &str) -> Option<usize> {
    registry().named.iter().find(|(n, _)| n == name).map(|(_, m)| *m)
}

/// Compiles a binary into a module, or loads the machine code of a file
/// `iwasm compile` (`Module::serialize`) wrote, as WAMR loads an AOT file;
/// the error message is WAMR's load error text.
fn compile(bytes: &[u8]) -> Result<Module, String> {
    if bytes.len() < 4 {
        return Err("WASM module load failed: unexpected end".into());
    }
    let engine = || runtime::engine().map_err(|e| format!("WASM module load failed: {e}"));
    match package_type(bytes) {
        // Bytecode loaded under `Mode_Interp` counts operators; compiled
        // files, like WAMR's AOT files, run as compiled.
        WASM_MODULE_BYTECODE => {
            Module::new(&runtime::module_engine().map_err(|e| format!("WASM module load failed: {e}"))?, bytes)
                .map_err(|e| format!("WASM module load failed: {e}"))
        }
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
pub fn load(bytes: &[u8], name: &str) -> Result<*mut WASMModuleCommon, String> {
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
                natives::resolve(&module, &name, ty).is_some() || wasi::is_thread_spawn(&module, &name, ty)
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

/// The package type of a buffer from its magic number: bytecode
/// (`\0asm`); AOT for WAMR's AOT files (`\0aot`) and for cranewasm's
/// compiled files (`Module::serialize`, `iwasm compile`), which hold
/// machine code as AOT files do and load where WAMR's AOT files load; or
/// unknown.
pub fn package_type(b: &[u8]) -> package_type_t {
    match b {
        [0, b'a', b's', b'm', ..] => WASM_MODULE_BYTECODE,
        [0, b'a', b'o', b't', ..] => WASM_MODULE_AOT,
        _ if Module::is_serialized(b) => WASM_MODULE_AOT,
        _ => PACKAGE_TYPE_UNKNOWN,
    }
}
