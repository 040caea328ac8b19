//! Typed function references without GC, from a generator that has them
//! only with GC: wasm-smith's modules with GC on (and its struct, array
//! and i31 instructions off) are rewritten so that only what the function
//! references proposal has remains, and kept if they then validate
//! without GC (see `generate::module_with`).
//!
//! The rewrite: every type is final, with no supertype, in a group of its
//! own (indices stay the same); struct and array types become `(func)`;
//! abstract GC heap types become `func` (the bottom types their tops).
//! Whatever relied on what was dropped (subtyping, a recursive group's
//! forward reference, a GC constant expression) no longer validates, and
//! the seed's next module is tried.

use wasm_encoder::reencode::{utils, Error, Reencode};

struct WithoutGc;

impl Reencode for WithoutGc {
    type Error = std::convert::Infallible;

    fn parse_type_section(
        &mut self,
        types: &mut wasm_encoder::TypeSection,
        section: wasmparser::TypeSectionReader<'_>,
    ) -> Result<(), Error<Self::Error>> {
        for group in section {
            for ty in group?.into_types() {
                let mut sub = self.sub_type(ty)?;
                sub.is_final = true;
                sub.supertype_idxs.clear();
                types.ty().subtype(&sub);
            }
        }
        Ok(())
    }

    fn composite_type(
        &mut self,
        ty: wasmparser::CompositeType,
    ) -> Result<wasm_encoder::CompositeType, Error<Self::Error>> {
        if let wasmparser::CompositeInnerType::Func(_) = ty.inner {
            return utils::composite_type(self, ty);
        }
        let inner = wasm_encoder::CompositeInnerType::Func(wasm_encoder::FuncType::new([], []));
        Ok(wasm_encoder::CompositeType { inner, shared: false, describes: None, descriptor: None })
    }

    fn abstract_heap_type(
        &mut self,
        ty: wasmparser::AbstractHeapType,
    ) -> Result<wasm_encoder::AbstractHeapType, Error<Self::Error>> {
        use wasm_encoder::AbstractHeapType as To;
        use wasmparser::AbstractHeapType as From;
        Ok(match ty {
            From::Extern | From::NoExtern => To::Extern,
            From::Exn | From::NoExn => To::Exn,
            _ => To::Func,
        })
    }
}

/// `wasm` rewritten as above, if it then validates with every standard
/// feature but GC.
pub fn rewrite(wasm: &[u8]) -> Option<Vec<u8>> {
    let mut module = wasm_encoder::Module::new();
    WithoutGc.parse_core_module(&mut module, wasmparser::Parser::new(0), wasm).ok()?;
    let out = module.finish();
    let features = wasmparser::WasmFeatures::default() - wasmparser::WasmFeatures::GC;
    wasmparser::Validator::new_with_features(features).validate_all(&out).ok()?;
    Some(out)
}
