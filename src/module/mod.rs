//! Modules: validated and compiled WebAssembly, ready to instantiate.

pub mod image;
pub mod info;
pub mod parse;

use std::sync::{Arc, OnceLock};

use crate::compile::func_env::ModuleEnv;
use crate::compile::{compile_module, CompiledModule};
use crate::engine::Engine;
use crate::error::{Error, Result};
use crate::index::MemoryIndex;
use crate::runtime::vm::code_registry;
use crate::runtime::vm::memory_image::MemoryImage;
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
    /// The module's binary: data segments point into it, and it is what
    /// [`Module::serialize`] writes.
    wasm: Box<[u8]>,
    /// The copy-on-write image of each defined memory's initial contents,
    /// where it has one; built by the first instantiation.
    memory_images: OnceLock<Box<[Option<MemoryImage>]>>,
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

/// Header of [`Module::serialize`]'s output.
const SERIALIZED_MAGIC: &[u8; 12] = b"cranewasm\0v1";

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
        let offsets = VMOffsets::new(&info);
        let body_offsets = parsed.bodies.iter().map(|b| b.body.range().start as u32).collect();
        let env = ModuleEnv {
            info: &info,
            offsets: &offsets,
            bounds_checks: engine.config().bounds_checks,
            host_call_conv: engine.isa().default_call_conv(),
            frontend_config: engine.isa().frontend_config(),
        };
        let compiled = compile_module(engine.isa(), &env, parsed.bodies, engine.config().parallel_compilation)?;
        let code = Arc::new(ModuleCode { info, compiled, body_offsets });
        code_registry::register(code.clone());
        let memory_images = OnceLock::new();
        Ok(Module { inner: Arc::new(ModuleInner { engine: engine.clone(), code, offsets, wasm, memory_images }) })
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

    /// A portable serialized form of the module, for [`Module::deserialize`].
    pub fn serialize(&self) -> Vec<u8> {
        let mut out = SERIALIZED_MAGIC.to_vec();
        out.extend_from_slice(&self.inner.wasm);
        out
    }

    /// Restores a module written by [`Module::serialize`]. The code is
    /// compiled again for this engine, so the form is portable across
    /// hosts and runtime versions with the same format.
    pub fn deserialize(engine: &Engine, bytes: &[u8]) -> Result<Module> {
        match bytes.strip_prefix(SERIALIZED_MAGIC.as_slice()) {
            Some(wasm) if wasm.starts_with(b"\0asm") => Module::new(engine, wasm),
            _ => Err(Error::Invalid { message: "not a serialized cranewasm module".into(), offset: 0 }),
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
                    let layout = image::layout(info, MemoryIndex::from_u32(m as u32), page)?;
                    // Without an image (no memfd here, out of descriptors)
                    // instantiation copies the segments, as it always can.
                    MemoryImage::new(&layout, &self.inner.wasm).ok()
                })
                .collect()
        })
    }
}

impl std::fmt::Debug for Module {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Module").field("name", &self.name()).finish_non_exhaustive()
    }
}
