//! The C types of `gc_export.h` that its functions take and give, laid
//! out as WAMR's, and the conversion between the core's value types and
//! `wasm_ref_type_t`.
//!
//! WAMR's enums (`wasm_value_type_enum`, `wasm_heap_type_enum`), the
//! `WASMValue` union and the struct and array object types are written
//! out in `capi/cbindgen-gc.toml`: no function here takes them yet.

use cranewasm::{HeapType, RefType, StorageType, ValType};

/// `wasm_value_type_t`: a value type's binary code (`VALUE_TYPE_I32` 0x7F ...).
pub type wasm_value_type_t = u8;
/// `wasm_heap_type_t`: an abstract heap type's code minus 0x80
/// (`HEAP_TYPE_FUNC` -0x10 ...), or a concrete type's index.
pub type wasm_heap_type_t = i32;

/// A reference (or value) type: WAMR's `wasm_ref_type_t`, laid out as its
/// `WasmRefType`.
#[repr(C)]
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct wasm_ref_type_t {
    pub value_type: wasm_value_type_t,
    pub nullable: bool,
    pub heap_type: i32,
}

/// What WAMR's queries give for a bad handle or index: all zero.
pub(crate) const NO_TYPE: wasm_ref_type_t = wasm_ref_type_t { value_type: 0, nullable: false, heap_type: 0 };

pub(crate) const VALUE_TYPE_I8: u8 = 0x78;
pub(crate) const VALUE_TYPE_I16: u8 = 0x77;
/// `(ref null ht)` and `(ref ht)` spelled with a heap type.
pub(crate) const VALUE_TYPE_HT_NULLABLE_REF: u8 = 0x63;
pub(crate) const VALUE_TYPE_HT_NON_NULLABLE_REF: u8 = 0x64;

/// The binary code of an abstract heap type (its one-byte shorthand as a
/// nullable reference type); `None` for a concrete type.
fn heap_code(h: HeapType) -> Option<u8> {
    Some(match h {
        HeapType::NoExn => 0x74,
        HeapType::NoFunc => 0x73,
        HeapType::NoExtern => 0x72,
        HeapType::None => 0x71,
        HeapType::Func => 0x70,
        HeapType::Extern => 0x6F,
        HeapType::Any => 0x6E,
        HeapType::Eq => 0x6D,
        HeapType::I31 => 0x6C,
        HeapType::Struct => 0x6B,
        HeapType::Array => 0x6A,
        HeapType::Exn => 0x69,
        HeapType::Concrete(_) => return None,
    })
}

/// The abstract heap type of binary code `c` (see [`heap_code`]).
fn heap_of_code(c: u8) -> Option<HeapType> {
    Some(match c {
        0x74 => HeapType::NoExn,
        0x73 => HeapType::NoFunc,
        0x72 => HeapType::NoExtern,
        0x71 => HeapType::None,
        0x70 => HeapType::Func,
        0x6F => HeapType::Extern,
        0x6E => HeapType::Any,
        0x6D => HeapType::Eq,
        0x6C => HeapType::I31,
        0x6B => HeapType::Struct,
        0x6A => HeapType::Array,
        0x69 => HeapType::Exn,
        _ => return None,
    })
}

/// The heap type a `wasm_heap_type_t` names: a concrete type for an index
/// (0 or more), else an abstract one by its code.
pub(crate) fn heap_of(h: i32) -> Option<HeapType> {
    match u32::try_from(h) {
        Ok(i) => Some(HeapType::concrete(i)),
        Err(_) => u8::try_from(h + 0x80).ok().and_then(heap_of_code),
    }
}

/// A reference type as `wasm_ref_type_t`, in WAMR's normal form: a
/// nullable abstract type is its one-byte shorthand (`VALUE_TYPE_FUNCREF`
/// ...) with `nullable` false and `heap_type` 0, as WAMR's reflection
/// gives it and its `wasm_ref_type_set_heap_type` makes it; anything else
/// is `(ref null? ht)` with the heap type.
pub(crate) fn from_ref(r: RefType) -> wasm_ref_type_t {
    let h = r.heap_type();
    match (r.is_nullable(), h.concrete_index(), heap_code(h)) {
        (true, None, Some(code)) => wasm_ref_type_t { value_type: code, ..NO_TYPE },
        (nullable, index, code) => wasm_ref_type_t {
            value_type: if nullable { VALUE_TYPE_HT_NULLABLE_REF } else { VALUE_TYPE_HT_NON_NULLABLE_REF },
            nullable,
            heap_type: index.map_or_else(|| i32::from(code.unwrap_or(0)) - 0x80, |i| i as i32),
        },
    }
}

/// A value type as `wasm_ref_type_t`; numbers and vectors by their code.
pub(crate) fn from_val(v: ValType) -> wasm_ref_type_t {
    let code = match v {
        ValType::I32 => 0x7F,
        ValType::I64 => 0x7E,
        ValType::F32 => 0x7D,
        ValType::F64 => 0x7C,
        ValType::V128 => 0x7B,
        ValType::Ref(r) => return from_ref(r),
    };
    wasm_ref_type_t { value_type: code, ..NO_TYPE }
}

/// A field's storage type as `wasm_ref_type_t` (`VALUE_TYPE_I8`/`_I16`
/// for packed fields).
pub(crate) fn from_storage(s: StorageType) -> wasm_ref_type_t {
    match s {
        StorageType::I8 => wasm_ref_type_t { value_type: VALUE_TYPE_I8, ..NO_TYPE },
        StorageType::I16 => wasm_ref_type_t { value_type: VALUE_TYPE_I16, ..NO_TYPE },
        StorageType::Val(v) => from_val(v),
    }
}

/// The reference type a `wasm_ref_type_t` stands for: the byte decides
/// (a shorthand, or `(ref null? ht)` with `heap_type`); `None` for a
/// number type or a code WAMR does not have.
pub(crate) fn to_ref(t: &wasm_ref_type_t) -> Option<RefType> {
    match t.value_type {
        VALUE_TYPE_HT_NULLABLE_REF => Some(RefType::new(true, heap_of(t.heap_type)?)),
        VALUE_TYPE_HT_NON_NULLABLE_REF => Some(RefType::new(false, heap_of(t.heap_type)?)),
        c => Some(RefType::new(true, heap_of_code(c)?)),
    }
}
