//! Modules in compiled-code files: [`Module::serialize`] writes one and
//! [`Module::deserialize`] / [`Module::deserialize_file`] load one without
//! compiling (the file format and its checks are `crate::cache`).

use std::fs::File;
use std::path::Path;
use std::sync::Arc;

use super::{compile, Module, WasmBytes};
use crate::cache;
use crate::environ::compiled::CodeTables;
use crate::environ::error::{Error, Result};
use crate::environ::frozen_tables;
use crate::environ::index::TypeIndex;
use crate::environ::module_info::ModuleInfo;
use crate::runtime::engine::Engine;
use crate::runtime::vm::code_memory::CodeMemory;
use crate::runtime::vm::link::patch_image;
use crate::runtime::vm::mapped_file::MappedFile;
use crate::runtime::vm::module_code::CompiledModule;

impl Engine {
    /// Compiles `bytes` (a binary, or text with the `wat` feature) to
    /// what [`Module::serialize`] makes, for [`Module::deserialize`] to
    /// load later (wasmtime's `precompile_module`).
    ///
    /// An engine for another target ([`Config::target`](crate::Config::target))
    /// compiles the file without making a module of it here, so its code
    /// never runs on this host.
    pub fn precompile_module(&self, bytes: &[u8]) -> Result<Vec<u8>> {
        if self.runs_here() {
            return Module::new(self, bytes)?.serialize();
        }
        let wasm = super::to_binary(bytes)?;
        let (info, image) = compile::compile_eagerly(self, &wasm)?;
        let exits = compile::exit_trampolines(self, &info)?;
        let frozen = frozen_tables::to_records(&info);
        Ok(cache::serialize(&self.fingerprint(), &image.tables, &exits, &frozen, &wasm, &image.image))
    }
}

impl Module {
    /// The module's compiled code and metadata, as a file that
    /// [`Module::deserialize`] or [`Module::deserialize_file`] loads
    /// without compiling, in an engine with the same settings on a
    /// compatible host (the file records the runtime version, target, CPU
    /// features and code-generation settings, and a checksum).
    ///
    /// Never fails here; the `Result` is wasmtime's signature.
    pub fn serialize(&self) -> Result<Vec<u8>> {
        Ok(serialize(self))
    }

    /// Loads a module from [`Module::serialize`]'s output, without
    /// compiling. A file made by another runtime version or format, for
    /// another target, CPU or engine setting, or damaged or truncated, is
    /// refused with [`Error::Invalid`] saying why.
    ///
    /// # Safety
    /// This runs the machine code in `bytes`. The checks catch accidents,
    /// not forgeries: pass only bytes that [`Module::serialize`] made and
    /// nobody could change since, as with wasmtime's `Module::deserialize`.
    pub unsafe fn deserialize(engine: &Engine, bytes: &[u8]) -> Result<Module> {
        // SAFETY: the bytes come from `Module::serialize`, as the caller
        // promises.
        unsafe { deserialize(engine, bytes) }
    }

    /// As [`Module::deserialize`], from a file (`iwasm compile`'s output,
    /// say), which is mapped rather than read: code that needs no
    /// relocation is shared with the page cache and other processes.
    ///
    /// # Safety
    /// As for [`Module::deserialize`]; and the file must not be changed or
    /// truncated while the module (or an instance of it) lives.
    pub unsafe fn deserialize_file(engine: &Engine, path: impl AsRef<std::path::Path>) -> Result<Module> {
        // SAFETY: the file comes from `Module::serialize` and stays unchanged
        // while the module lives, as the caller promises.
        unsafe { deserialize_file(engine, path.as_ref()) }
    }

    /// Whether `bytes` start like [`Module::serialize`]'s output (rather
    /// than a WebAssembly binary or text), to choose between
    /// [`Module::deserialize`] and [`Module::new`].
    pub fn is_serialized(bytes: &[u8]) -> bool {
        cache::is_serialized(bytes)
    }

    /// The format version [`Module::serialize`] writes and
    /// [`Module::deserialize`] accepts (bumped whenever the layout of the
    /// file or of the code's view of the runtime changes).
    pub const SERIALIZED_FORMAT_VERSION: u32 = cache::header::FORMAT_VERSION;
}

/// The compiled-code file of `module`.
///
/// A lazily compiled module is compiled in full first: a file of stubs
/// and some functions would need the lazy machinery again on load, for
/// nothing. Should that compilation fail (a function the code generator
/// cannot handle, which lazily would trap when called), the result is
/// empty, which [`Module::deserialize`] refuses. So is that of a
/// runtime-only build (without the `compiler` feature), which can neither
/// compile the trampolines a file carries nor name the code generator's
/// settings a file records.
fn serialize(module: &Module) -> Vec<u8> {
    let fingerprint = module.engine().fingerprint();
    let compiled = &module.code().compiled;
    let Ok(exits) = compile::exit_trampolines(module.engine(), module.info()) else { return Vec::new() };
    let frozen = frozen_tables::to_records(module.info());
    match compiled.lazy {
        None => cache::serialize(&fingerprint, &compiled.tables, &exits, &frozen, module.wasm(), compiled.code.bytes()),
        Some(_) => match compile::compile_eagerly(module.engine(), module.wasm()) {
            Ok((_, image)) => {
                cache::serialize(&fingerprint, &image.tables, &exits, &frozen, module.wasm(), &image.image)
            }
            Err(_) => Vec::new(),
        },
    }
}

/// The module of a checked file's `parts` (in `file`), its code made by
/// `map_code` from the code's range in the file and a patch to apply.
fn load(
    engine: &Engine,
    file: &[u8],
    parts: cache::Parts,
    wasm: WasmBytes,
    map_code: impl FnOnce(std::ops::Range<usize>, &dyn Fn(&mut [u8]) -> Result<()>) -> Result<CodeMemory>,
) -> Result<Module> {
    engine.check_runs_here("loading compiled code")?;
    let cache::Parts { tables, code, exits, frozen, .. } = parts;
    Module::from_compiled(engine, wasm, &frozen, |info| {
        add_exit_trampolines(engine, info, &exits, file)?;
        if tables.funcs.len() != info.num_defined_funcs() {
            let (n, m) = (tables.funcs.len(), info.num_defined_funcs());
            return Err(Error::Invalid {
                message: format!("compiled module refused: its code has {n} functions, its module {m}"),
                offset: 0,
            });
        }
        let relocs = &tables.relocs;
        let code = map_code(code, &|image: &mut [u8]| patch_image(image, relocs))?;
        Ok(CompiledModule { code, tables: CodeTables { ..tables }, lazy: None })
    })
}

/// A module from the bytes of a compiled-code file, its code copied into
/// fresh pages.
///
/// # Safety
/// The bytes must come from [`serialize`] (see the cache's documentation).
unsafe fn deserialize(engine: &Engine, bytes: &[u8]) -> Result<Module> {
    let parts = cache::check(bytes, &engine.fingerprint())?;
    let wasm = WasmBytes::Owned(bytes[parts.wasm.clone()].into());
    load(engine, bytes, parts, wasm, |code, patch| CodeMemory::with_patch(&bytes[code], patch))
}

/// A module from a compiled-code file, mapped rather than read: the code
/// pages that need no relocation, and the module's binary, stay shared
/// with the page cache.
///
/// # Safety
/// As for [`deserialize`]; and the file must not change while the module
/// lives.
unsafe fn deserialize_file(engine: &Engine, path: &Path) -> Result<Module> {
    let open_error = |e: std::io::Error| Error::Resource(format!("cannot read {}: {e}", path.display()));
    let file = File::open(path).map_err(open_error)?;
    let map = Arc::new(MappedFile::new(&file).map_err(open_error)?);
    let parts = cache::check(map.bytes(), &engine.fingerprint())?;
    let wasm = WasmBytes::Mapped(map.clone(), parts.wasm.clone());
    load(engine, map.bytes(), parts, wasm, |code, patch| {
        if code.start.is_multiple_of(region::page::size()) {
            CodeMemory::map_file(&file, code.start as u64, code.len(), patch)
        } else {
            CodeMemory::with_patch(&map.bytes()[code], patch)
        }
    })
}

/// Gives the engine the file's wasm→host trampolines for the signatures it
/// has none for (a runtime-only build cannot compile them), after checking
/// that each names a function type of the module.
fn add_exit_trampolines(engine: &Engine, info: &ModuleInfo, exits: &cache::Exits, file: &[u8]) -> Result<()> {
    if exits.entries.is_empty() {
        return Ok(());
    }
    let mut at = Vec::with_capacity(exits.entries.len());
    for &(ty, offset) in &exits.entries {
        let func = info.types.get(TypeIndex::from_u32(ty)).and_then(|t| t.as_func());
        let func = func.ok_or_else(|| Error::Invalid {
            message: format!(
                "compiled module refused: a wasm-to-host trampoline is for type {ty}, not a function type"
            ),
            offset: 0,
        })?;
        at.push((func.clone(), offset));
    }
    engine.add_exit_trampolines(&Arc::new(CodeMemory::new(&file[exits.code.clone()])?), at);
    Ok(())
}
