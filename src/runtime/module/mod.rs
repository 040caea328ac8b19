//! Modules: validated and compiled WebAssembly, ready to instantiate.
//!
//! A module is made by compiling a binary ([`compile`], the one part of the
//! runtime that calls the compiler) or by loading a compiled-code file
//! ([`serialize`]); either way it ends as code in executable pages plus the
//! module's declarations, registered where traps and backtraces find it.

#[cfg(feature = "compiler")]
mod compile;
#[cfg(not(feature = "compiler"))]
#[path = "no_compiler.rs"]
mod compile;
mod gc_types;
mod serialize;

use std::ops::Range;
use std::sync::{Arc, OnceLock};

use crate::environ::config::Profiler;
use crate::environ::error::Result;
use crate::environ::index::MemoryIndex;
use crate::environ::module_info::ModuleInfo;
use crate::environ::type_registry::TypeCollection;
use crate::environ::types::{ExportType, ImportType};
use crate::environ::vmctx::VMOffsets;
use crate::environ::{data_image as image, parse};
use crate::runtime::engine::Engine;
use crate::runtime::vm::instance::InstanceModule;
use crate::runtime::vm::mapped_file::MappedFile;
use crate::runtime::vm::memory_image::MemoryImage;
use crate::runtime::vm::module_code::{CompiledModule, ModuleCode};
use crate::runtime::vm::{code_registry, profiling};

/// A compiled module. Cheap to clone; shared by all its instances and safe
/// to send to other threads (and stores of the same engine).
#[derive(Clone)]
pub struct Module {
    inner: Arc<ModuleInner>,
}

struct ModuleInner {
    engine: Engine,
    code: Arc<ModuleCode>,
    offsets: VMOffsets,
    /// The module's binary: data segments point into it, and
    /// [`Module::serialize`] writes it.
    wasm: WasmBytes,
    /// The copy-on-write image of each defined memory's initial contents,
    /// where it has one; built by the first instantiation.
    memory_images: OnceLock<Box<[Option<MemoryImage>]>>,
}

/// Where a module's binary is kept: in the heap, or in the compiled-code
/// file it was loaded from.
pub(crate) enum WasmBytes {
    Owned(Box<[u8]>),
    Mapped(Arc<MappedFile>, Range<usize>),
}

impl std::ops::Deref for WasmBytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            WasmBytes::Owned(b) => b,
            WasmBytes::Mapped(file, range) => &file.bytes()[range.clone()],
        }
    }
}

impl Drop for ModuleInner {
    fn drop(&mut self) {
        code_registry::unregister(&self.code);
    }
}

/// Text (when the `wat` feature is on) or binary to binary.
pub(crate) fn to_binary(bytes: &[u8]) -> Result<std::borrow::Cow<'_, [u8]>> {
    #[cfg(feature = "wat")]
    if !bytes.starts_with(b"\0asm") {
        if let Ok(text) = std::str::from_utf8(bytes) {
            return wat::parse_str(text)
                .map(std::borrow::Cow::Owned)
                .map_err(|e| crate::Error::Invalid { message: e.to_string(), offset: 0 });
        }
    }
    Ok(std::borrow::Cow::Borrowed(bytes))
}

impl Module {
    /// Validates and compiles a module from its binary (or, with the `wat`
    /// feature, its text). Malformed or invalid input gives
    /// [`Error::Invalid`](crate::Error::Invalid) with wasmparser's message and the byte offset.
    pub fn new(engine: &Engine, bytes: impl AsRef<[u8]>) -> Result<Module> {
        engine.check_runs_here("compiling a module to run")?;
        let wasm = to_binary(bytes.as_ref())?.into_owned().into_boxed_slice();
        // With `Config::cache_dir`, from the cache when it holds the module.
        crate::runtime::code_cache::load_or_compile(engine, wasm, |wasm| {
            let code = compile::compile(engine, &wasm)?;
            Ok(Module::assemble(engine, WasmBytes::Owned(wasm), code))
        })
    }

    /// Reads the file at `path` and compiles it as [`Module::new`] does
    /// (wasmtime's name). A file `iwasm compile` or [`Module::serialize`]
    /// wrote is loaded with [`Module::deserialize_file`] instead.
    pub fn from_file(engine: &Engine, path: impl AsRef<std::path::Path>) -> Result<Module> {
        let path = path.as_ref();
        let bytes =
            std::fs::read(path).map_err(|e| crate::Error::Resource(format!("cannot read {}: {e}", path.display())))?;
        Module::new(engine, bytes)
    }

    /// A module whose code was compiled earlier: parses (and validates)
    /// the binary again for its declarations, with the frozen tables its
    /// code assumed (`frozen`), then `code` makes the compiled code for
    /// them.
    pub(crate) fn from_compiled(
        engine: &Engine,
        wasm: WasmBytes,
        frozen: &[crate::environ::frozen_tables::FrozenRecord],
        code: impl FnOnce(&ModuleInfo) -> Result<CompiledModule>,
    ) -> Result<Module> {
        let parsed = parse::parse_with(&wasm, engine.config().wasm_features(), Some(frozen))?;
        let mut info = parsed.info;
        let body_offsets = parsed.bodies.iter().map(|b| b.body.range().start as u32).collect();
        let types = TypeCollection::for_module(engine.type_registry(), &mut info);
        let compiled = code(&info)?;
        Ok(Module::assemble(engine, wasm, ModuleCode { info, compiled, body_offsets, types }))
    }

    fn assemble(engine: &Engine, wasm: WasmBytes, code: ModuleCode) -> Module {
        let offsets = VMOffsets::new(&code.info);
        let code = Arc::new(code);
        code_registry::register(code.clone());
        let profiler = engine.config().profiler;
        if profiler != Profiler::None {
            profiling::register(profiler, code.compiled.code.bytes(), &profiling::module_symbols(&code));
        }
        Module {
            inner: Arc::new(ModuleInner {
                engine: engine.clone(),
                code,
                offsets,
                wasm,
                memory_images: OnceLock::new(),
            }),
        }
    }

    /// The module's imports, in order.
    pub fn imports(&self) -> impl ExactSizeIterator<Item = ImportType> + '_ {
        let info = self.info();
        info.imports.iter().map(move |i| ImportType {
            module: i.module.clone(),
            name: i.name.clone(),
            ty: info.entity_type(i.index),
        })
    }

    /// The module's exports, in order.
    pub fn exports(&self) -> impl ExactSizeIterator<Item = ExportType> + '_ {
        let info = self.info();
        info.exports.iter().map(move |(name, index)| ExportType { name: name.clone(), ty: info.entity_type(*index) })
    }

    /// The name from the module's `name` section, if any.
    pub fn name(&self) -> Option<&str> {
        self.info().name.as_deref()
    }

    /// The value global `index` (imported globals first) is initialised
    /// with, when it is a defined global whose initialiser is a single
    /// `i32.const`: how an embedder recognises a toolchain's globals
    /// (LLVM's `__stack_pointer`, `__heap_base`) as WAMR's loader does,
    /// which reads only such constants.
    pub fn global_i32_const(&self, index: u32) -> Option<i32> {
        let info = self.info();
        let defined = info.defined_global_index(crate::environ::index::GlobalIndex::from_u32(index))?;
        match *info.global_inits.get(defined)?.ops {
            [crate::environ::module_info::ConstOp::I32Const(v)] => Some(v),
            _ => None,
        }
    }

    /// The contents of the first custom section called `name` (after its
    /// name), if the module has one.
    pub fn custom_section(&self, name: &str) -> Option<&[u8]> {
        // The parser in zeroed storage, as for parsing (see `new_parser`).
        let mut parser = parse::new_parser(self.engine().config().wasm_features());
        let mut rest = &self.inner.wasm[..];
        loop {
            // The module was validated; a chunk that no longer parses means
            // there is nothing more to find.
            let wasmparser::Chunk::Parsed { consumed, payload } = parser.parse(rest, true).ok()? else { return None };
            rest = &rest[consumed..];
            match payload {
                wasmparser::Payload::CustomSection(c) if c.name() == name => return Some(c.data()),
                wasmparser::Payload::CodeSectionStart { size, .. } => {
                    parser.skip_section();
                    rest = rest.get(size as usize..)?;
                }
                wasmparser::Payload::End(_) => return None,
                _ => {}
            }
        }
    }

    /// How many of the module's functions have been compiled so far when
    /// it is compiled lazily ([`Config::lazy_compilation`](crate::Config::lazy_compilation));
    /// `None` when it was compiled in full at load. For tests and
    /// benchmarks.
    #[doc(hidden)]
    pub fn lazily_compiled_functions(&self) -> Option<usize> {
        self.inner.code.compiled.lazy.as_ref().map(|l| l.compiled_count())
    }

    /// How many of a lazily compiled module's functions have tiered up to
    /// optimised code ([`Config::tiering`](crate::Config::tiering));
    /// `None` without tiering. For tests and benchmarks.
    #[doc(hidden)]
    pub fn tiered_functions(&self) -> Option<usize> {
        self.inner.code.compiled.lazy.as_ref().and_then(|l| l.tiered_count())
    }

    /// Bytes the module holds (its binary, its code and the code's trap
    /// and location tables) and bytes each instance of it takes (its
    /// VMContext and its defined tables' initial elements): what a C
    /// client's memory pool is charged (`Alloc_With_Pool` in the C API).
    #[doc(hidden)]
    pub fn footprint(&self) -> (usize, usize) {
        let (info, compiled) = (&self.inner.code.info, &self.inner.code.compiled);
        let tables = info.tables.values().skip(info.num_imported_tables);
        let elements: usize = tables.map(|t| t.minimum() as usize * 8).sum();
        let tables_len = compiled.tables.traps.len() + compiled.tables.srclocs.len();
        let code = compiled.code_bytes() + tables_len * 8;
        (self.inner.wasm.len() + code, self.inner.offsets.size() as usize + elements)
    }

    /// The engine the module was compiled for.
    pub fn engine(&self) -> &Engine {
        &self.inner.engine
    }

    /// Whether two handles name the same compiled module.
    pub fn same(a: &Module, b: &Module) -> bool {
        Arc::ptr_eq(&a.inner, &b.inner)
    }

    pub(crate) fn info(&self) -> &ModuleInfo {
        &self.inner.code.info
    }

    pub(crate) fn code(&self) -> &Arc<ModuleCode> {
        &self.inner.code
    }

    pub(crate) fn offsets(&self) -> &VMOffsets {
        &self.inner.offsets
    }

    pub(crate) fn wasm(&self) -> &[u8] {
        &self.inner.wasm
    }

    /// The image of each defined memory's initial contents, by defined
    /// memory index (`None` where instantiation copies the segments
    /// instead); empty when [`Config::memory_images`](crate::Config::memory_images)
    /// is off. Built on first use, once per module.
    pub(crate) fn memory_images(&self) -> &[Option<MemoryImage>] {
        self.inner.memory_images.get_or_init(|| {
            if !self.engine().config().memory_images {
                return Box::default();
            }
            let (info, page) = (self.info(), region::page::size());
            (info.num_imported_memories..info.memories.len())
                .map(|m| {
                    // Threads may write a shared memory from the start;
                    // it is filled by copying, once.
                    if info.memories[MemoryIndex::from_u32(m as u32)].is_shared() {
                        return None;
                    }
                    let layout = image::layout(info, MemoryIndex::from_u32(m as u32), page)?;
                    // Without an image (no memfd here, out of descriptors)
                    // instantiation copies the segments, as it always can.
                    MemoryImage::new(&layout, &self.inner.wasm).ok()
                })
                .collect()
        })
    }
}

impl InstanceModule for Module {
    fn code(&self) -> &Arc<ModuleCode> {
        Module::code(self)
    }
    fn offsets(&self) -> &VMOffsets {
        Module::offsets(self)
    }
    fn wasm(&self) -> &[u8] {
        Module::wasm(self)
    }
    fn memory_images(&self) -> &[Option<MemoryImage>] {
        Module::memory_images(self)
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

impl std::fmt::Debug for Module {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Module").field("name", &self.name()).finish_non_exhaustive()
    }
}
