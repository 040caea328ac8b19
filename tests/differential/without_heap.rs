//! GC modules without struct and array operators, which cranewasm refuses
//! until it has a GC heap (issue 40): every such operator of a generated
//! module's code becomes `unreachable`, and the rest stays, so casts, i31,
//! `ref.eq` and type equality get compared whatever the heap's state.
//!
//! `unreachable` has every stack type ([t1*] -> [t2*]), so the code stays
//! valid; a constant expression with such an operator does not, and the
//! seed's next module is tried (see `generate::module_with`). A call that
//! reaches a replaced operator traps where it would have made or read an
//! object.

use wasm_encoder::reencode::{utils, Error, Reencode};

struct WithoutHeap;

impl Reencode for WithoutHeap {
    type Error = std::convert::Infallible;

    fn instruction<'a>(
        &mut self,
        op: wasmparser::Operator<'a>,
    ) -> Result<wasm_encoder::Instruction<'a>, Error<Self::Error>> {
        if is_heap_op(&op) {
            return Ok(wasm_encoder::Instruction::Unreachable);
        }
        utils::instruction(self, op)
    }
}

/// Whether `op` is a struct or array operator.
pub fn is_heap_op(op: &wasmparser::Operator) -> bool {
    let name = format!("{op:?}");
    name.starts_with("Struct") || name.starts_with("Array")
}

/// `wasm` rewritten as above, if it then validates.
pub fn rewrite(wasm: &[u8]) -> Option<Vec<u8>> {
    let mut module = wasm_encoder::Module::new();
    WithoutHeap.parse_core_module(&mut module, wasmparser::Parser::new(0), wasm).ok()?;
    let out = module.finish();
    wasmparser::Validator::new_with_features(wasmparser::WasmFeatures::all()).validate_all(&out).ok()?;
    Some(out)
}
