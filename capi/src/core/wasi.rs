//! WASI as both headers link it: the settings an instance's WASI context
//! is made from ([`WasiArgs`]: `wasm_runtime_set_wasi_args` and co. on a
//! module, or an `InstantiationArgs2`), and the resolver that gives an
//! import its WASI function ([`resolve`]). The functions themselves are
//! the core's ([`cranewasm::wasi`]), for both `wasi_snapshot_preview1` and
//! `wasi_unstable` imports, as in WAMR.
//!
//! As WAMR: `dir_list` entries are preopened under their own names,
//! `map_dir_list` entries are `GUEST::HOST`; stdio handles of -1 mean the
//! process's own streams, others are duplicated. The socket address pool
//! (`ADDRESS/MASK` entries) and the name-lookup pool are where the guest's
//! sockets may go (WAMR's socket extension, [`cranewasm::wasi`]'s `sock`);
//! a malformed pool entry fails the instantiation with WAMR's message.

use std::os::fd::{FromRawFd, OwnedFd};
use std::os::unix::fs::OpenOptionsExt;

use cranewasm::wasi::{self, WasiCtx};
use cranewasm::{ExternType, Func, FuncType, ImportType, Linker, Module, Store};

use crate::core::store::StoreData;

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

/// The WASI function for `import` in `store`, defining WASI in `linker`
/// on first use over the WASI context `ctx` names (an index into the
/// store data's contexts, put there by `ctx`); `None` for an import WASI
/// does not provide with its type, and when `ctx` gives no context.
pub fn resolve(
    linker: &mut Option<Linker<StoreData>>,
    store: &mut Store<StoreData>,
    module: &Module,
    import: &ImportType,
    ctx: impl FnOnce(&mut StoreData) -> Result<Option<usize>, String>,
) -> Result<Option<Func>, String> {
    let ExternType::Func(ty) = &import.ty else { return Ok(None) };
    if !import_matches(&import.module, &import.name, ty) {
        return Ok(None);
    }
    if linker.is_none() {
        let Some(index) = ctx(store.data_mut())? else { return Ok(None) };
        let view = view(index);
        let mut l = Linker::new(store.engine());
        // Only what the module imports, unless it imports `wasi_unstable`,
        // which `define_wasi_for` does not look at.
        let defined = if module.imports().any(|i| i.module == "wasi_unstable") {
            l.define_wasi(&mut *store, view).map(|_| ())
        } else {
            l.define_wasi_for(&mut *store, module, view).map(|_| ())
        };
        defined.map_err(|e| e.to_string())?;
        *linker = Some(l);
    }
    Ok(linker.as_ref().and_then(|l| l.get(&mut *store, wasi::MODULE, &import.name)).and_then(|e| e.into_func()))
}

/// The WASI context at `index` in a store's data.
fn view(index: usize) -> impl Fn(&mut StoreData) -> &mut WasiCtx + Copy + Send + Sync + 'static {
    move |d| &mut d.wasi[index]
}

/// Whether import `(m, n)` of type `ty` is wasi-threads' `thread-spawn`.
pub fn is_thread_spawn(m: &str, n: &str, ty: &FuncType) -> bool {
    m == wasi::threads::MODULE
        && n == wasi::threads::SPAWN
        && *ty == FuncType::new([cranewasm::ValType::I32], [cranewasm::ValType::I32])
}
