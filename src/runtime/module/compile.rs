//! Compiling a module's binary: the one place the runtime calls the
//! compiler. Eager compilation maps the linked image into executable
//! pages; lazy compilation lays out stubs and hands the compiler to the
//! runtime's lazy machinery (`vm::lazy`), which calls it per function.

use super::{to_binary, Module};
use crate::compile::func_env::ModuleEnv;
use crate::compile::lazy::LazyFunctions;
use crate::compile::{self, compile_module};
use crate::environ::compiled::{CompiledImage, FunctionCode};
use crate::environ::error::{Error, Result};
use crate::environ::index::DefinedFuncIndex;
use crate::environ::module_info::ModuleInfo;
use crate::environ::parse::{self, FunctionBodyData};
use crate::environ::type_registry::TypeCollection;
use crate::environ::vmctx::VMOffsets;
use crate::runtime::engine::Engine;
use crate::runtime::vm::code_memory::CodeMemory;
use crate::runtime::vm::lazy::{LazyCompiler, LazyLayout};
use crate::runtime::vm::link::patch_image;
use crate::runtime::vm::module_code::{CompiledModule, ModuleCode};

/// Parses, validates and compiles `wasm`, eagerly or lazily as the
/// engine's configuration says: the module's declarations, the offset of
/// each function body, and its code.
pub(super) fn compile(engine: &Engine, wasm: &[u8]) -> Result<ModuleCode> {
    let parsed = parse::parse(wasm, engine.config().wasm_features())?;
    let mut info = parsed.info;
    let body_offsets = parsed.bodies.iter().map(|b| b.body.range().start as u32).collect();
    let types = TypeCollection::for_module(engine.type_registry(), &mut info);
    let compiled = if engine.config().lazy_compilation {
        match compile_lazily(engine, &info, wasm, parsed.bodies)? {
            Some(compiled) => compiled,
            // No lazy region on this host (or nothing to compile):
            // compile it all, validated again on the way.
            None => load_image(compile_eagerly(engine, wasm)?.1)?,
        }
    } else {
        let offsets = VMOffsets::new(&info);
        let env = ModuleEnv::new(engine.config(), engine.isa(), &info, &offsets);
        load_image(compile_module(engine.isa(), &env, parsed.bodies, engine.config().parallel_compilation)?)?
    };
    Ok(ModuleCode { info, compiled, body_offsets, types })
}

/// Parses and compiles every function of `wasm`, whatever the engine's
/// [`lazy_compilation`](crate::Config::lazy_compilation) says.
pub(super) fn compile_eagerly(engine: &Engine, wasm: &[u8]) -> Result<(ModuleInfo, CompiledImage)> {
    let parsed = parse::parse(wasm, engine.config().wasm_features())?;
    let offsets = VMOffsets::new(&parsed.info);
    let env = ModuleEnv::new(engine.config(), engine.isa(), &parsed.info, &offsets);
    let image = compile_module(engine.isa(), &env, parsed.bodies, engine.config().parallel_compilation)?;
    Ok((parsed.info, image))
}

/// The wasm→host trampoline of each function type of `info`, by type
/// index, for its compiled-code file (`cache::exits`).
pub(super) fn exit_trampolines(engine: &Engine, info: &ModuleInfo) -> Result<Vec<(u32, Vec<u8>)>> {
    let funcs = info.types.iter().filter_map(|(t, ty)| Some((t, ty.as_func()?)));
    funcs.map(|(t, ty)| Ok((t.as_u32(), compile::exit_trampoline(engine.isa(), ty)?))).collect()
}

/// A linked image in executable pages, with this process's addresses
/// written into it.
fn load_image(compiled: CompiledImage) -> Result<CompiledModule> {
    let CompiledImage { image, tables } = compiled;
    let code = CodeMemory::with_patch(&image, |image| patch_image(image, &tables.relocs))?;
    Ok(CompiledModule { code, tables, lazy: None })
}

impl LazyCompiler for LazyFunctions {
    fn compile(&self, d: DefinedFuncIndex, info: &ModuleInfo) -> Result<FunctionCode> {
        LazyFunctions::compile(self, d, info)
    }

    fn compile_baseline(&self, d: DefinedFuncIndex, info: &ModuleInfo) -> Result<FunctionCode> {
        LazyFunctions::compile_baseline(self, d, info)
    }
}

/// Validates every body of a module and lays out its stubs and entry
/// trampolines; compiles no function. `Ok(None)` when this host cannot
/// map code lazily (the caller compiles eagerly).
fn compile_lazily(
    engine: &Engine,
    info: &ModuleInfo,
    wasm: &[u8],
    bodies: Vec<FunctionBodyData<'_>>,
) -> Result<Option<CompiledModule>> {
    let Some(mut functions) = LazyFunctions::new(engine.shared_isa(), engine.config(), info, wasm, bodies)? else {
        return Ok(None);
    };
    let tier = &engine.config().tier;
    let tiered = tier.on && crate::runtime::vm::tier::SUPPORTED;
    if tiered {
        let baseline = engine.config().baseline();
        functions = functions.with_baseline(crate::runtime::codegen::host_isa(&baseline)?, baseline);
    }
    let Some(mut layout) = LazyLayout::new(info.num_defined_funcs(), functions.body_bytes()) else { return Ok(None) };
    let offsets = VMOffsets::new(info);
    let env = ModuleEnv::new(engine.config(), engine.isa(), info, &offsets);
    let mut relocs = Vec::new();
    let stubs: Vec<u32> =
        (0..info.num_defined_funcs()).map(|i| layout.stub(DefinedFuncIndex::from_u32(i as u32))).collect();
    let entry = compile::entry_trampolines(engine.isa(), &env, &mut layout.image, &mut relocs, &|d| {
        stubs[d.as_u32() as usize]
    })?;
    let (code, tables, mut lazy) = layout.finish(entry, &relocs, Box::new(functions), engine.config().profiler)?;
    if tiered {
        lazy = lazy.tiered(tier.threshold);
    }
    Ok(Some(CompiledModule { code, tables, lazy: Some(Box::new(lazy)) }))
}

impl Module {
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

    /// The code of every function `bytes` defines, as text: the optimised
    /// Cranelift IR and the machine code, for the golden-code tests
    /// (`tests/disas`). The code is generated with `engine`'s settings for
    /// a fixed CPU of the engine target's architecture, whatever the model,
    /// so the text is the same on every machine of it: x86-64-v3 (AVX,
    /// AVX2, BMI2, LZCNT, FMA), or baseline ARMv8.0-A (no LSE atomics, as a
    /// Cortex-A72); signature ids (numbers that encode the signature, the
    /// same in every process and on every target) are written
    /// `sigid(type N)` to be readable. Not for embedders.
    #[doc(hidden)]
    pub fn code_text(engine: &Engine, bytes: impl AsRef<[u8]>) -> Result<String> {
        use cranelift_codegen::settings::Configurable;
        // Cranelift's x86-64-v3 preset leaves plain AVX out, which every
        // v3 CPU has and cranelift-native turns on. The engine's target
        // (the host's, unless it cross-compiles) chooses the architecture.
        let aarch64 = matches!(engine.isa().triple().architecture, target_lexicon::Architecture::Aarch64(_));
        let (arch, flags): (&str, &[&str]) =
            if aarch64 { ("aarch64", &[]) } else { ("x86_64", &["x86-64-v3", "has_avx"]) };
        let unsupported = |e: &dyn std::fmt::Display| Error::Unsupported(format!("{arch} code generator: {e}"));
        let mut builder = cranelift_codegen::isa::lookup_by_name(arch).map_err(|e| unsupported(&e))?;
        for flag in flags {
            builder.enable(flag).map_err(|e| unsupported(&e))?;
        }
        let isa = builder.finish(engine.isa().flags().clone()).map_err(|e| unsupported(&e))?;
        let wasm = to_binary(bytes.as_ref())?;
        let parsed = parse::parse(&wasm, engine.config().wasm_features())?;
        let offsets = VMOffsets::new(&parsed.info);
        let env = ModuleEnv::new(engine.config(), &*isa, &parsed.info, &offsets);
        let mut out = String::new();
        for f in compile::function_texts(&*isa, &env, parsed.bodies)? {
            let name = parsed.info.func_names.get(&f.index).map_or(String::new(), |n| format!(" ${n}"));
            out += &format!(";; function {}{name}\n\n{}\n;; machine code\n{}\n", f.index.as_u32(), f.clif, f.asm);
        }
        // Longest first, so no id is replaced inside a longer one.
        let mut ids: Vec<(String, String)> = parsed
            .info
            .types
            .keys()
            .filter_map(|t| Some(sig_id_spellings(parsed.info.small_sig_id(t)?, t.as_u32())))
            .flatten()
            .collect();
        ids.sort_by_key(|(text, _)| std::cmp::Reverse(text.len()));
        for (text, name) in ids {
            out = out.replace(&text, &name);
        }
        Ok(out)
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
