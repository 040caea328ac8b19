//! Modules: validated and compiled WebAssembly, ready to instantiate.

pub mod frozen_tables;
pub mod image;
pub mod info;
pub mod parse;

use std::sync::{Arc, OnceLock};

use std::ops::Range;

use crate::cache::MappedFile;
use crate::compile::func_env::ModuleEnv;
use crate::compile::{compile_module, CompiledModule};
use crate::config::Profiler;
use crate::engine::Engine;
use crate::error::{Error, Result};
use crate::index::MemoryIndex;
use crate::runtime::vm::memory_image::MemoryImage;
use crate::runtime::vm::{code_registry, profiling};
use crate::types::{ExportType, ImportType};
use crate::vmctx::VMOffsets;
use info::ModuleInfo;

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

/// What compiled code and its metadata the runtime looks up by address.
pub struct ModuleCode {
    pub info: ModuleInfo,
    pub compiled: CompiledModule,
    /// Byte offset of each defined function's body in the binary.
    pub body_offsets: Vec<u32>,
}

impl Drop for ModuleInner {
    fn drop(&mut self) {
        code_registry::unregister(&self.code);
    }
}

/// Text (when the `wat` feature is on) or binary to binary.
fn to_binary(bytes: &[u8]) -> Result<std::borrow::Cow<'_, [u8]>> {
    #[cfg(feature = "wat")]
    if !bytes.starts_with(b"\0asm") {
        if let Ok(text) = std::str::from_utf8(bytes) {
            return wat::parse_str(text)
                .map(std::borrow::Cow::Owned)
                .map_err(|e| Error::Invalid { message: e.to_string(), offset: 0 });
        }
    }
    Ok(std::borrow::Cow::Borrowed(bytes))
}

impl Module {
    /// Validates and compiles a module from its binary (or, with the `wat`
    /// feature, its text). Malformed or invalid input gives
    /// [`Error::Invalid`] with wasmparser's message and the byte offset.
    pub fn new(engine: &Engine, bytes: impl AsRef<[u8]>) -> Result<Module> {
        let wasm = to_binary(bytes.as_ref())?.into_owned().into_boxed_slice();
        let parsed = parse::parse(&wasm, engine.config().wasm_features())?;
        let info = parsed.info;
        let body_offsets = parsed.bodies.iter().map(|b| b.body.range().start as u32).collect();
        let offsets = VMOffsets::new(&info);
        let env = ModuleEnv::new(engine, &info, &offsets);
        let compiled = if engine.config().lazy_compilation {
            match crate::compile::lazy::compile_module_lazy(engine, &env, &wasm, parsed.bodies)? {
                Some(compiled) => compiled,
                // No lazy region on this host (or nothing to compile):
                // compile it all, validated again on the way.
                None => Module::compile_eagerly(engine, &wasm)?.1,
            }
        } else {
            compile_module(engine.isa(), &env, parsed.bodies, engine.config().parallel_compilation)?
        };
        Ok(Module::assemble(engine, WasmBytes::Owned(wasm), info, body_offsets, compiled))
    }

    /// Parses and compiles every function of `wasm`, whatever the engine's
    /// [`lazy_compilation`](crate::Config::lazy_compilation) says.
    pub(crate) fn compile_eagerly(engine: &Engine, wasm: &[u8]) -> Result<(ModuleInfo, CompiledModule)> {
        let parsed = parse::parse(wasm, engine.config().wasm_features())?;
        let offsets = VMOffsets::new(&parsed.info);
        let env = ModuleEnv::new(engine, &parsed.info, &offsets);
        let compiled = compile_module(engine.isa(), &env, parsed.bodies, engine.config().parallel_compilation)?;
        Ok((parsed.info, compiled))
    }

    /// A module whose code was compiled earlier: parses (and validates)
    /// the binary again for its declarations, then `code` makes the
    /// compiled code for them.
    pub(crate) fn from_compiled(
        engine: &Engine,
        wasm: WasmBytes,
        code: impl FnOnce(&ModuleInfo) -> Result<CompiledModule>,
    ) -> Result<Module> {
        let parsed = parse::parse(&wasm, engine.config().wasm_features())?;
        let info = parsed.info;
        let body_offsets = parsed.bodies.iter().map(|b| b.body.range().start as u32).collect();
        let compiled = code(&info)?;
        Ok(Module::assemble(engine, wasm, info, body_offsets, compiled))
    }

    fn assemble(
        engine: &Engine,
        wasm: WasmBytes,
        info: ModuleInfo,
        body_offsets: Vec<u32>,
        compiled: CompiledModule,
    ) -> Module {
        let offsets = VMOffsets::new(&info);
        let code = Arc::new(ModuleCode { info, compiled, body_offsets });
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

    /// The code of every function `bytes` defines, as text: the optimised
    /// Cranelift IR and the machine code, for the golden-code tests
    /// (`tests/disas`). The code is generated with `engine`'s settings for
    /// a fixed CPU, x86-64-v3 (AVX, AVX2, BMI2, LZCNT, FMA), whatever the host,
    /// so the text is the same on every machine; signature ids, which are
    /// addresses, are written `sigid(type N)`. Not for embedders.
    #[doc(hidden)]
    pub fn code_text(engine: &Engine, bytes: impl AsRef<[u8]>) -> Result<String> {
        use cranelift_codegen::settings::Configurable;
        let unsupported = |e: &dyn std::fmt::Display| Error::Unsupported(format!("x86-64 code generator: {e}"));
        let mut builder = cranelift_codegen::isa::lookup_by_name("x86_64").map_err(|e| unsupported(&e))?;
        // Cranelift's x86-64-v3 preset leaves plain AVX out, which every
        // v3 CPU has and cranelift-native turns on.
        for flag in ["x86-64-v3", "has_avx"] {
            builder.enable(flag).map_err(|e| unsupported(&e))?;
        }
        let isa = builder.finish(engine.isa().flags().clone()).map_err(|e| unsupported(&e))?;
        let wasm = to_binary(bytes.as_ref())?;
        let parsed = parse::parse(&wasm, engine.config().wasm_features())?;
        let offsets = VMOffsets::new(&parsed.info);
        let env = ModuleEnv::for_isa(engine, &*isa, &parsed.info, &offsets);
        let mut out = String::new();
        for f in crate::compile::function_texts(&*isa, &env, parsed.bodies)? {
            let name = parsed.info.func_names.get(&f.index).map_or(String::new(), |n| format!(" ${n}"));
            out += &format!(";; function {}{name}\n\n{}\n;; machine code\n{}\n", f.index.as_u32(), f.clif, f.asm);
        }
        // Longest first, so no id is replaced inside a longer one.
        let mut ids: Vec<(String, String)> =
            parsed.info.types.iter().flat_map(|(t, ty)| sig_id_spellings(ty.sig_id(), t.as_u32())).collect();
        ids.sort_by_key(|(text, _)| std::cmp::Reverse(text.len()));
        for (text, name) in ids {
            out = out.replace(&text, &name);
        }
        Ok(out)
    }

    /// Checks that `bytes` are a valid module, without compiling it.
    pub fn validate(engine: &Engine, bytes: impl AsRef<[u8]>) -> Result<()> {
        let wasm = to_binary(bytes.as_ref())?;
        let parsed = parse::parse(&wasm, engine.config().wasm_features())?;
        let mut allocs = wasmparser::FuncValidatorAllocations::default();
        for body in parsed.bodies {
            let mut v = body.validator.into_validator(allocs);
            v.validate(&body.body)?;
            allocs = v.into_allocations();
        }
        Ok(())
    }

    /// The module's compiled code and metadata, as a file that
    /// [`Module::deserialize`] or [`Module::deserialize_file`] loads
    /// without compiling, in an engine with the same settings on a
    /// compatible host (the file records the runtime version, target, CPU
    /// features and code-generation settings, and a checksum).
    pub fn serialize(&self) -> Vec<u8> {
        crate::cache::serialize(self)
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
        crate::cache::deserialize(engine, bytes)
    }

    /// As [`Module::deserialize`], from a file (`iwasm compile`'s output,
    /// say), which is mapped rather than read: code that needs no
    /// relocation is shared with the page cache and other processes.
    ///
    /// # Safety
    /// As for [`Module::deserialize`]; and the file must not be changed or
    /// truncated while the module (or an instance of it) lives.
    pub unsafe fn deserialize_file(engine: &Engine, path: impl AsRef<std::path::Path>) -> Result<Module> {
        crate::cache::deserialize_file(engine, path.as_ref())
    }

    /// Whether `bytes` start like [`Module::serialize`]'s output (rather
    /// than a WebAssembly binary or text), to choose between
    /// [`Module::deserialize`] and [`Module::new`].
    pub fn is_serialized(bytes: &[u8]) -> bool {
        crate::cache::is_serialized(bytes)
    }

    /// The format version [`Module::serialize`] writes and
    /// [`Module::deserialize`] accepts (bumped whenever the layout of the
    /// file or of the code's view of the runtime changes).
    pub const SERIALIZED_FORMAT_VERSION: u32 = crate::cache::header::FORMAT_VERSION;

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
        let defined = info.defined_global_index(crate::index::GlobalIndex::from_u32(index))?;
        match *info.global_inits.get(defined)?.ops {
            [info::ConstOp::I32Const(v)] => Some(v),
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

/// How a signature id may be written in Cranelift's IR and disassembly
/// (decimal, hexadecimal, with Cranelift's `_` every four digits), each with
/// what `code_text` writes instead.
fn sig_id_spellings(id: usize, ty: u32) -> Vec<(String, String)> {
    let hex = format!("{id:x}");
    let grouped: Vec<String> =
        hex.as_bytes().rchunks(4).rev().map(|c| String::from_utf8_lossy(c).into_owned()).collect();
    let name = format!("sigid(type {ty})");
    vec![(format!("0x{}", grouped.join("_")), name.clone()), (format!("0x{hex}"), name.clone()), (id.to_string(), name)]
}

impl std::fmt::Debug for Module {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Module").field("name", &self.name()).finish_non_exhaustive()
    }
}
