//! Which values the GC must find on the stack (issue 40): every value
//! whose type can hold a GC heap object is declared to Cranelift's
//! frontend as needing a stack map, so that across each call it lives in
//! a stack slot that a user stack map names, and is reloaded after it. A
//! moving collector rewrites those slots (`runtime::vm::gc::roots`).
//!
//! Not every reference needs one. An i31 is a value, not an object;
//! `none`, `noextern`, `nofunc` and `noexn` hold only null; a function
//! reference or an exception is a host pointer that the collector never
//! moves. `externref` does: `extern.convert_any` makes heap objects
//! external, and such a value may reach a function of any module.
//!
//! The types come from the validator, which has checked the operator
//! already and holds the operand stack's types: after each operator, its
//! results are the top of both stacks.

use cranelift_frontend::Variable;
use wasmparser::{
    AbstractHeapType as A, CompositeInnerType, FuncValidator, HeapType, UnpackedIndex, ValType, ValidatorResources,
    WasmModuleResources,
};

use super::Translator;

/// Whether a value of type `ty` may be a GC heap object.
pub(super) fn needs_stack_map(resources: &ValidatorResources, ty: ValType) -> bool {
    let ValType::Ref(r) = ty else { return false };
    match r.heap_type() {
        HeapType::Abstract { ty, .. } => matches!(ty, A::Any | A::Eq | A::Struct | A::Array | A::Extern),
        HeapType::Concrete(index) | HeapType::Exact(index) => {
            let sub = match index {
                UnpackedIndex::Module(i) => resources.sub_type_at(i),
                UnpackedIndex::Id(id) => Some(resources.sub_type_at_id(id)),
                UnpackedIndex::RecGroup(_) => None,
            };
            // A function type's references are host pointers; an index the
            // validator could not resolve is kept, to be safe.
            sub.is_none_or(|s| !matches!(s.composite_type.inner, CompositeInnerType::Func(_)))
        }
    }
}

impl Translator<'_, '_> {
    /// Declares local `var` of type `ty` as a root when it may hold a heap
    /// object. Before any use of the variable, as the frontend requires.
    pub(super) fn declare_local_root(&mut self, resources: &ValidatorResources, var: Variable, ty: ValType) {
        if self.gc_roots && needs_stack_map(resources, ty) {
            self.b.declare_var_needs_stack_map(var);
        }
    }

    /// Declares the top `results` operands, just pushed by an operator, as
    /// roots where their types (the validator's, after the operator) may
    /// hold heap objects.
    pub(super) fn declare_result_roots(&mut self, validator: &FuncValidator<ValidatorResources>, results: u32) {
        let results = (results as usize).min(self.stack.len());
        for depth in 0..results {
            let Some(Some(ty)) = validator.get_operand_type(depth) else { continue };
            if needs_stack_map(validator.resources(), ty) {
                let value = self.stack[self.stack.len() - 1 - depth];
                self.b.declare_value_needs_stack_map(value);
            }
        }
    }
}
