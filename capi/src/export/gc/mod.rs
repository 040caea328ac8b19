//! WAMR's GC API, `gc_export.h` (issue 40), over the core's GC stage 1:
//! the parts that need no struct or array heap object.
//!
//! - [`types`]: the header's C types, and value and reference types as
//!   `wasm_ref_type_t`s (WAMR's codes: a value type's binary code, a heap
//!   type's code minus 0x80, a concrete type by its index in the module).
//! - [`defined`]: a module's defined types (`wasm_defined_type_t`) and
//!   reflection on them; subtyping and equality of defined and reference
//!   types, iso-recursive as the core's type registry decides them.
//! - [`object`]: `wasm_obj_t`s: i31s are the tagged word `(v << 1) | 1`
//!   (as in WAMR and in the core's reference words); function, externref
//!   and anyref objects are cells of the live-object table, so NULL and
//!   foreign pointers are refused without being read. The predicates,
//!   externref/anyref conversions, and pin/unpin.
//! - [`func_obj`]: function objects and `wasm_runtime_call_func_ref*`.
//! - [`local_ref`]: the exec env's chain of local object references.
//! - [`struct_obj`], [`array_obj`]: struct and array objects of the
//!   core's GC heap, as cells holding pinned handles; [`value`]: the
//!   `wasm_value_t` their fields are read and written as.
//! - [`call_refs`]: GC references as arguments and results of calls.
//!
//! Objects belong to the instance of the exec env that made them and are
//! freed with it. A struct or array object's cell keeps its object alive
//! (a pinned root of the store) as long as the cell, so a pin only
//! counts, and the local references are kept for the collector to trace.

pub mod array_obj;
pub mod call_refs;
pub mod defined;
pub mod func_obj;
pub mod local_ref;
pub mod object;
pub mod struct_obj;
pub mod types;
pub mod value;
