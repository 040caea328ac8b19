//! WASI through `wasm_export.h`: `wasm_runtime_set_wasi_args` and co. on a
//! module (or an `InstantiationArgs2`), a WASI context per instance of a
//! module that imports WASI, `wasm_runtime_is_wasi_mode`,
//! `_lookup_wasi_start_function` and `_get_wasi_exit_code`. The
//! functions themselves are the core's ([`cranewasm::wasi`]), for both
//! `wasi_snapshot_preview1` and `wasi_unstable` imports, as in WAMR.
//!
//! As WAMR: `dir_list` entries are preopened under their own names,
//! `map_dir_list` entries are `GUEST::HOST`; stdio handles of -1 mean the
//! process's own streams, others are duplicated. The socket address pool
//! (`ADDRESS/MASK` entries) and the name-lookup pool are where the guest's
//! sockets may go (WAMR's socket extension, [`cranewasm::wasi`]'s `sock`);
//! a malformed pool entry fails the instantiation with WAMR's message.

use std::ffi::c_char;
use std::os::fd::{FromRawFd, OwnedFd};
use std::os::unix::fs::OpenOptionsExt;
use std::sync::atomic::Ordering;

use cranewasm::wasi::{self, WasiCtx};
use cranewasm::{Func, FuncType, Linker, Module, Store};

use crate::export::instance::{InstData, inst};
use crate::export::module::module;
use crate::export::types::*;
use crate::wasm_module_t;

/// The WASI settings of a module or of instantiation arguments.
#[derive(Clone)]
pub struct WasiArgs {
    pub dirs: Vec<String>,
    pub map_dirs: Vec<String>,
    /// `GUEST::HOST` mappings opened read-only
    /// (`crate::ext::wasi_readonly`).
    pub readonly_map_dirs: Vec<String>,
    pub env: Vec<String>,
    pub argv: Vec<String>,
    /// Host fds for stdin, stdout and stderr; -1 for the process's own.
    pub stdio: [i64; 3],
    pub addr_pool: Vec<String>,
    pub ns_lookup_pool: Vec<String>,
}

impl Default for WasiArgs {
    fn default() -> WasiArgs {
        WasiArgs {
            dirs: Vec::new(),
            map_dirs: Vec::new(),
            readonly_map_dirs: Vec::new(),
            env: Vec::new(),
            argv: Vec::new(),
            stdio: [-1; 3],
            addr_pool: Vec::new(),
            ns_lookup_pool: Vec::new(),
        }
    }
}

impl WasiArgs {
    /// The WASI context of an instance; WAMR's message when a directory
    /// cannot be opened or a mapping is malformed.
    pub fn build(&self) -> Result<WasiCtx, String> {
        let mut b = WasiCtx::builder();
        b.inherit_stdio().args(&self.argv);
        for e in &self.env {
            let (k, v) = e.split_once('=').unwrap_or((e, ""));
            b.env(k, v);
        }
        for (i, fd) in self.stdio.iter().enumerate() {
            if *fd >= 0 {
                // SAFETY: duplicating any fd number is harmless; a bad one
                // fails here.
                let dup = unsafe { libc::dup(*fd as i32) };
                if dup < 0 {
                    return Err(format!("invalid stdio handle {fd}"));
                }
                // SAFETY: a new fd of our own.
                b.stdio_file(i, std::fs::File::from(unsafe { OwnedFd::from_raw_fd(dup) }));
            }
        }
        for d in &self.dirs {
            opens_as_dir(d).map_err(|e| format!("error while pre-opening directory {d}: {e}\n"))?;
            b.preopened_dir(d, d.as_str());
        }
        let maps = self.map_dirs.iter().map(|m| (m, false));
        for (m, readonly) in maps.chain(self.readonly_map_dirs.iter().map(|m| (m, true))) {
            let Some((guest, host)) = m.split_once("::") else {
                return Err("error while pre-opening mapped directory: invalid map\n".into());
            };
            opens_as_dir(host).map_err(|e| format!("error while pre-opening mapped directory {host}: {e}\n"))?;
            if readonly {
                b.preopened_dir_readonly(host, guest);
            } else {
                b.preopened_dir(host, guest);
            }
        }
        for a in &self.addr_pool {
            // WAMR's message for an entry it refuses.
            a.parse::<wasi::AddrPoolEntry>().map_err(|e| e.to_string())?;
            b.allow_addr(a);
        }
        for name in &self.ns_lookup_pool {
            b.allow_resolve(name);
        }
        b.build().map_err(|e| format!("Init wasi environment failed: {e}"))
    }
}

/// Whether `path` opens as a directory, as WAMR's preopen does; its WASI
/// errno if not (WAMR prints that number).
fn opens_as_dir(path: &str) -> Result<(), u16> {
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_DIRECTORY)
        .open(path)
        .map_err(|e| wasi::Errno::from(e) as u16)?;
    drop(file);
    Ok(())
}

/// Reads `n` C strings (NULL ones skipped; none for a NULL array).
///
/// # Safety
/// `list` NULL or `n` readable pointers, each NULL or NUL-terminated.
pub unsafe fn strings(list: *const *const c_char, n: u32) -> Vec<String> {
    if list.is_null() {
        return Vec::new();
    }
    (0..n as usize)
        // SAFETY: `n` readable pointers (caller).
        .filter_map(|i| unsafe { crate::export::cstr(*list.add(i)) })
        .map(String::from)
        .collect()
}

/// Whether `m` is a module name WASI functions are imported from.
pub fn is_wasi_module(m: &str) -> bool {
    m == wasi::MODULE || m == "wasi_unstable"
}

/// Whether WASI provides `(m, n)`.
pub fn provides(m: &str, n: &str) -> bool {
    is_wasi_module(m) && wasi::function_type(n).is_some()
}

/// Whether WASI provides `(m, n)` with type `ty`.
pub fn import_matches(m: &str, n: &str, ty: &FuncType) -> bool {
    is_wasi_module(m) && wasi::function_type(n).as_ref() == Some(ty)
}

/// The WASI function for import `(m, n)` of type `ty` in an instance's
/// store, defining WASI in `linker` on first use.
pub fn func(
    linker: &mut Option<Linker>,
    store: &mut Store<InstData>,
    module: &Module,
    m: &str,
    n: &str,
    ty: &FuncType,
) -> Option<Func> {
    if !import_matches(m, n, ty) || store.data().wasi.is_none() {
        return None;
    }
    if linker.is_none() {
        let mut l = Linker::new();
        // Only what the module imports, unless it imports `wasi_unstable`,
        // which `define_wasi_for` does not look at.
        let defined = if module.imports().any(|i| i.module == "wasi_unstable") {
            l.define_wasi(&mut *store, wasi_view).map(|_| ())
        } else {
            l.define_wasi_for(&mut *store, module, wasi_view).map(|_| ())
        };
        defined.ok()?;
        *linker = Some(l);
    }
    linker.as_ref()?.get(wasi::MODULE, n)?.into_func()
}

/// The WASI context in an instance's store data.
fn wasi_view(d: &mut InstData) -> &mut WasiCtx {
    d.wasi.as_mut().expect("WASI is defined only in stores with a context")
}

/// WASI for the wasm-c-api's `wasm_instance_new`, as WAMR links it: the
/// WASI function for an import the client did not give (or gave a
/// `wasm_extern_new_empty` placeholder for). On first use, a WASI context
/// is made from the module's settings (`wasm_runtime_set_wasi_args` on
/// `*module`), kept in the store's data, and WASI defined in `linker` over
/// it; an error when that context cannot be made.
pub fn link_for_capi(
    linker: &mut Option<Linker>,
    store: &mut Store<crate::c_api::store::StoreData>,
    module: &Module,
    rt: Option<&crate::export::module::RtModule>,
    import: &cranewasm::ImportType,
) -> Result<Option<Func>, String> {
    let cranewasm::ExternType::Func(ty) = &import.ty else { return Ok(None) };
    if !import_matches(&import.module, &import.name, ty) {
        return Ok(None);
    }
    if linker.is_none() {
        let args = rt.map(|r| r.wasi.lock().unwrap_or_else(|e| e.into_inner()).clone()).unwrap_or_default();
        let ctx = args.build()?;
        let index = store.data().wasi.len();
        store.data_mut().wasi.push(ctx);
        let view = capi_view(index);
        let mut l = Linker::new();
        let defined = if module.imports().any(|i| i.module == "wasi_unstable") {
            l.define_wasi(&mut *store, view).map(|_| ())
        } else {
            l.define_wasi_for(&mut *store, module, view).map(|_| ())
        };
        defined.map_err(|e| e.to_string())?;
        *linker = Some(l);
    }
    Ok(linker.as_ref().and_then(|l| l.get(wasi::MODULE, &import.name)).and_then(|e| e.into_func()))
}

/// The WASI context at `index` in a wasm-c-api store's data.
fn capi_view(
    index: usize,
) -> impl Fn(&mut crate::c_api::store::StoreData) -> &mut WasiCtx + Copy + Send + Sync + 'static {
    move |d| &mut d.wasi[index]
}

/// Runs `f` on a live module's WASI settings.
///
/// # Safety
/// `module` may be NULL or any pointer.
pub(crate) unsafe fn with(module: wasm_module_t, f: impl FnOnce(&mut WasiArgs)) {
    // SAFETY: as the caller promises.
    if let Some(m) = unsafe { self::module(module) } {
        f(&mut m.wasi.lock().unwrap_or_else(|e| e.into_inner()));
    }
}

/// Sets the WASI settings instances of `module` get: preopened
/// directories, environment, arguments and stdio fds (-1 for the
/// process's own).
///
/// # Safety
/// `module` may be NULL or any pointer; each list NULL or holding its
/// count of strings (NULL or NUL-terminated), copied here.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_set_wasi_args_ex(
    module: wasm_module_t,
    dir_list: *const *const c_char,
    dir_count: u32,
    map_dir_list: *const *const c_char,
    map_dir_count: u32,
    env: *const *const c_char,
    env_count: u32,
    argv: *mut *mut c_char,
    argc: i32,
    stdinfd: i64,
    stdoutfd: i64,
    stderrfd: i64,
) {
    // SAFETY: as the caller promises.
    let (dirs, map_dirs, env, argv) = unsafe {
        (
            strings(dir_list, dir_count),
            strings(map_dir_list, map_dir_count),
            strings(env, env_count),
            strings(argv.cast(), argc.max(0) as u32),
        )
    };
    // SAFETY: as the caller promises.
    unsafe {
        with(module, |w| {
            w.dirs = dirs;
            w.map_dirs = map_dirs;
            w.env = env;
            w.argv = argv;
            w.stdio = [stdinfd, stdoutfd, stderrfd];
        })
    }
}

/// [`wasm_runtime_set_wasi_args_ex`] with the process's stdio.
///
/// # Safety
/// As for [`wasm_runtime_set_wasi_args_ex`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_set_wasi_args(
    module: wasm_module_t,
    dir_list: *const *const c_char,
    dir_count: u32,
    map_dir_list: *const *const c_char,
    map_dir_count: u32,
    env: *const *const c_char,
    env_count: u32,
    argv: *mut *mut c_char,
    argc: i32,
) {
    // SAFETY: as the caller promises.
    unsafe {
        wasm_runtime_set_wasi_args_ex(
            module,
            dir_list,
            dir_count,
            map_dir_list,
            map_dir_count,
            env,
            env_count,
            argv,
            argc,
            -1,
            -1,
            -1,
        )
    }
}

/// Sets the socket address pool: `ADDRESS/MASK` entries, the addresses the
/// guest's sockets may bind, connect and send to.
///
/// # Safety
/// As for [`wasm_runtime_set_wasi_args_ex`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_set_wasi_addr_pool(
    module: wasm_module_t,
    addr_pool: *const *const c_char,
    addr_pool_size: u32,
) {
    // SAFETY: as the caller promises.
    let v = unsafe { strings(addr_pool, addr_pool_size) };
    // SAFETY: as the caller promises.
    unsafe { with(module, |w| w.addr_pool = v) }
}

/// Sets the name lookup pool: the names the guest may look up (`*SUFFIX`
/// for any name ending in SUFFIX).
///
/// # Safety
/// As for [`wasm_runtime_set_wasi_args_ex`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_set_wasi_ns_lookup_pool(
    module: wasm_module_t,
    ns_lookup_pool: *const *const c_char,
    ns_lookup_pool_size: u32,
) {
    // SAFETY: as the caller promises.
    let v = unsafe { strings(ns_lookup_pool, ns_lookup_pool_size) };
    // SAFETY: as the caller promises.
    unsafe { with(module, |w| w.ns_lookup_pool = v) }
}

/// Whether the instance's module imports WASI.
///
/// # Safety
/// `module_inst` may be NULL or any pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_is_wasi_mode(module_inst: wasm_module_inst_t) -> bool {
    // SAFETY: as the caller promises.
    unsafe { inst(module_inst) }.is_some_and(|i| i.is_wasi)
}

/// The instance's `_start` if it exports one of type `() -> ()` (NULL
/// otherwise).
///
/// # Safety
/// `module_inst` may be NULL or any pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_lookup_wasi_start_function(
    module_inst: wasm_module_inst_t,
) -> wasm_function_inst_t {
    // SAFETY: as the caller promises.
    let f = unsafe { crate::export::lookup::wasm_runtime_lookup_function(module_inst, c"_start".as_ptr()) };
    // SAFETY: `f` is NULL or a function handle just made.
    let ok = unsafe { crate::export::lookup::func_inst(f) }
        .is_some_and(|fi| fi.ty.params().is_empty() && fi.ty.results().is_empty());
    if !f.is_null() && !ok {
        crate::export::runtime::log(1, format_args!("Lookup wasi _start function failed: invalid function type."));
        return std::ptr::null_mut();
    }
    f
}

/// The status the WASI program gave `proc_exit` (0 if it did not, and for
/// anything but a live instance).
///
/// # Safety
/// `module_inst` may be NULL or any pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_get_wasi_exit_code(module_inst: wasm_module_inst_t) -> u32 {
    // SAFETY: as the caller promises.
    unsafe { inst(module_inst) }.map_or(0, |i| i.wasi_exit_code.load(Ordering::Relaxed))
}
