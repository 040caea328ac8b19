//! A module's defined types (`wasm_defined_type_t`) and reflection on
//! them and on reference types (`wasm_ref_type_*`).
//!
//! Each type of a module's type section gets one handle, made on the
//! first request and freed with the module, so the pointers a client is
//! given stay valid for the module's life, as WAMR's `WASMType *` do. A
//! function type's handle is also a `wasm_func_type_t`: `wasm_export.h`'s
//! `wasm_func_type_get_param_count` and co. read it
//! (`export/reflect.rs`). Bad handles and indices give WAMR's zero
//! answers (0, NULL, false, an all-zero `wasm_ref_type_t`) where WAMR
//! would assert.

use cranewasm::{CompositeType, FieldType, FuncType, Module, SubType};

use crate::core::module::{RtModule, module};
use crate::export::gc::types::*;
use crate::export::types::*;
use crate::handle::Kind;
use crate::object::{Handle, Object, Own, get};
use crate::wasm_module_t;

/// Type `index` of `module`'s type section.
pub struct DefinedTypeObj {
    pub module: Module,
    pub index: u32,
    /// As declared, concrete types by their index in `module`.
    pub sub: SubType,
}

// SAFETY: DefinedType cells hold `DefinedTypeObj`s, named by the three
// handle types below only.
unsafe impl Object for DefinedTypeObj {
    fn kind(&self) -> Kind {
        Kind::DefinedType
    }
}

/// Opaque: what a `wasm_defined_type_t` points at.
pub struct WASMType {
    _private: [u8; 0],
}
pub type wasm_defined_type_t = *mut WASMType;
/// Opaque: what a `wasm_struct_type_t` points at (a defined type).
pub struct WASMStructType {
    _private: [u8; 0],
}
pub type wasm_struct_type_t = *mut WASMStructType;
/// Opaque: what a `wasm_array_type_t` points at (a defined type).
pub struct WASMArrayType {
    _private: [u8; 0],
}
pub type wasm_array_type_t = *mut WASMArrayType;

macro_rules! defined_handles {
    ($($c:ident),*) => {$(
        // SAFETY: DefinedType cells hold `DefinedTypeObj`s.
        unsafe impl Handle for $c {
            type Obj = DefinedTypeObj;
            const KINDS: u32 = Kind::DefinedType.bit();
            const NAME: &'static str = stringify!($c);
        }
    )*};
}
defined_handles!(WASMType, WASMStructType, WASMArrayType);

/// The handles of a module's defined types, by index (`None`: the table
/// was full, never in practice).
type Handles = Vec<Option<Own<WASMType>>>;

/// The defined type behind any of the type handles (a `wasm_func_type_t`
/// too), if it is a live one.
///
/// # Safety
/// As for [`crate::object::get`]; its module must not be unloaded
/// meanwhile.
pub unsafe fn defined<'a, P>(p: *const P) -> Option<&'a DefinedTypeObj> {
    // SAFETY: as the caller promises.
    unsafe { get::<WASMType>(p.cast::<WASMType>()) }
}

/// The function type behind a defined-type handle, for `wasm_export.h`'s
/// queries on `wasm_func_type_t`.
///
/// # Safety
/// As for [`defined`].
pub unsafe fn func_type_of<'a, P>(p: *const P) -> Option<&'a FuncType> {
    // SAFETY: as the caller promises.
    match unsafe { defined(p) }.map(|d| &d.sub.composite) {
        Some(CompositeType::Func(f)) => Some(f),
        _ => None,
    }
}

/// The handle of `m`'s type `index`, made with the others on first use;
/// NULL past the end.
pub fn handle_of(m: &RtModule, index: u32) -> wasm_defined_type_t {
    let all = m.gc_types.get_or_init(|| {
        let handles: Handles = (0..m.module.defined_type_count())
            .map(|index| {
                let sub = m.module.defined_type(index)?;
                Own::new(DefinedTypeObj { module: m.module.clone(), index, sub })
            })
            .collect();
        Box::new(handles)
    });
    let handle = all.downcast_ref::<Handles>().and_then(|h| h.get(index as usize)).and_then(Option::as_ref);
    handle.map_or(std::ptr::null_mut(), Own::as_ptr)
}

/// Number of types `module` defines (0 for a bad handle).
///
/// # Safety
/// `module` NULL or any pointer; a live module must stay loaded meanwhile.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_get_defined_type_count(module: wasm_module_t) -> u32 {
    // SAFETY: as the caller promises.
    unsafe { self::module(module) }.map_or(0, |m| m.module.defined_type_count())
}

/// Type `index` of `module`; NULL for a bad handle or an index past its
/// types (WAMR asserts).
///
/// # Safety
/// As for [`wasm_get_defined_type_count`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_get_defined_type(module: wasm_module_t, index: u32) -> wasm_defined_type_t {
    // SAFETY: as the caller promises.
    unsafe { self::module(module) }.map_or(std::ptr::null_mut(), |m| handle_of(m, index))
}

macro_rules! kind_predicates {
    ($($name:ident => $pat:pat, $what:literal;)*) => {$(
        #[doc = concat!("Whether `def_type` is ", $what, " (false for a bad handle).")]
        ///
        /// # Safety
        /// `def_type` NULL or any pointer; its module must stay loaded.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $name(def_type: wasm_defined_type_t) -> bool {
            // SAFETY: as the caller promises.
            matches!(unsafe { defined(def_type) }.map(|d| &d.sub.composite), Some($pat))
        }
    )*};
}
kind_predicates! {
    wasm_defined_type_is_func_type => CompositeType::Func(_), "a function type";
    wasm_defined_type_is_struct_type => CompositeType::Struct(_), "a struct type";
    wasm_defined_type_is_array_type => CompositeType::Array(_), "an array type";
}

/// The type of parameter `param_idx` of `func_type`; all zero for a bad
/// handle or index (WAMR asserts).
///
/// # Safety
/// As for [`wasm_defined_type_is_func_type`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_func_type_get_param_type(func_type: wasm_func_type_t, param_idx: u32) -> wasm_ref_type_t {
    // SAFETY: as the caller promises.
    let f = unsafe { func_type_of(func_type) };
    f.and_then(|f| f.params().get(param_idx as usize)).map_or(NO_TYPE, |v| from_val(*v))
}

/// The type of result `result_idx` of `func_type`; all zero for a bad
/// handle or index.
///
/// # Safety
/// As for [`wasm_defined_type_is_func_type`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_func_type_get_result_type(
    func_type: wasm_func_type_t,
    result_idx: u32,
) -> wasm_ref_type_t {
    // SAFETY: as the caller promises.
    let f = unsafe { func_type_of(func_type) };
    f.and_then(|f| f.results().get(result_idx as usize)).map_or(NO_TYPE, |v| from_val(*v))
}

/// The fields of a struct type handle.
///
/// # Safety
/// As for [`defined`].
unsafe fn fields<'a>(p: wasm_struct_type_t) -> Option<&'a [FieldType]> {
    // SAFETY: as the caller promises.
    match unsafe { defined(p) }.map(|d| &d.sub.composite) {
        Some(CompositeType::Struct(f)) => Some(f),
        _ => None,
    }
}

/// Writes a field's mutability to `p_is_mutable` (if not NULL) and gives
/// its type; all zero (and nothing written) for no field.
///
/// # Safety
/// `p_is_mutable` NULL or writable.
unsafe fn field_type(f: Option<&FieldType>, p_is_mutable: *mut bool) -> wasm_ref_type_t {
    let Some(f) = f else { return NO_TYPE };
    if !p_is_mutable.is_null() {
        // SAFETY: writable (caller).
        unsafe { p_is_mutable.write(f.mutable) };
    }
    from_storage(f.storage)
}

/// Number of fields of `struct_type` (0 for a bad handle).
///
/// # Safety
/// As for [`wasm_defined_type_is_func_type`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_struct_type_get_field_count(struct_type: wasm_struct_type_t) -> u32 {
    // SAFETY: as the caller promises.
    unsafe { fields(struct_type) }.map_or(0, |f| f.len() as u32)
}

/// The type of field `field_idx` (packed fields as `VALUE_TYPE_I8`/`_I16`),
/// its mutability in `*p_is_mutable` if that is not NULL; all zero for a
/// bad handle or index.
///
/// # Safety
/// As for [`wasm_defined_type_is_func_type`]; `p_is_mutable` NULL or
/// writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_struct_type_get_field_type(
    struct_type: wasm_struct_type_t,
    field_idx: u32,
    p_is_mutable: *mut bool,
) -> wasm_ref_type_t {
    // SAFETY: as the caller promises.
    let f = unsafe { fields(struct_type) }.and_then(|f| f.get(field_idx as usize));
    // SAFETY: as the caller promises.
    unsafe { field_type(f, p_is_mutable) }
}

/// The element type of `array_type`, its mutability in `*p_is_mutable`
/// if that is not NULL; all zero for a bad handle.
///
/// # Safety
/// As for [`wasm_struct_type_get_field_type`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_array_type_get_elem_type(
    array_type: wasm_array_type_t,
    p_is_mutable: *mut bool,
) -> wasm_ref_type_t {
    // SAFETY: as the caller promises.
    let f = match unsafe { defined(array_type) }.map(|d| &d.sub.composite) {
        Some(CompositeType::Array(f)) => Some(f),
        _ => None,
    };
    // SAFETY: as the caller promises.
    unsafe { field_type(f, p_is_mutable) }
}

/// Two live defined types and a live module, or `None`.
///
/// # Safety
/// As for [`defined`] and [`module`].
unsafe fn two<'a>(
    a: wasm_defined_type_t,
    b: wasm_defined_type_t,
    m: wasm_module_t,
) -> Option<(&'a DefinedTypeObj, &'a DefinedTypeObj)> {
    // SAFETY: as the caller promises.
    unsafe {
        module(m)?;
        Some((defined(a)?, defined(b)?))
    }
}

/// Whether the two types are the same type (iso-recursive: the same
/// place in equal recursion groups, in any modules of one engine); false
/// for a bad handle.
///
/// # Safety
/// Handles NULL or any pointers; their modules must stay loaded.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_defined_type_equal(
    def_type1: wasm_defined_type_t,
    def_type2: wasm_defined_type_t,
    module: wasm_module_t,
) -> bool {
    // SAFETY: as the caller promises.
    unsafe { two(def_type1, def_type2, module) }
        .is_some_and(|(a, b)| a.module.defined_type_equals(a.index, &b.module, b.index))
}

/// Whether `def_type1` is `def_type2` or a declared subtype of it (through
/// any chain of supertypes); false for a bad handle.
///
/// # Safety
/// As for [`wasm_defined_type_equal`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_defined_type_is_subtype_of(
    def_type1: wasm_defined_type_t,
    def_type2: wasm_defined_type_t,
    module: wasm_module_t,
) -> bool {
    // SAFETY: as the caller promises.
    unsafe { two(def_type1, def_type2, module) }
        .is_some_and(|(a, b)| a.module.defined_type_matches(a.index, &b.module, b.index))
}

/// Sets `*ref_type` to `(ref null? type_idx)`; nothing for NULL.
///
/// # Safety
/// `ref_type` NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_ref_type_set_type_idx(ref_type: *mut wasm_ref_type_t, nullable: bool, type_idx: i32) {
    // SAFETY: NULL or writable (caller).
    let Some(out) = (unsafe { ref_type.as_mut() }) else { return };
    let value_type = if nullable { VALUE_TYPE_HT_NULLABLE_REF } else { VALUE_TYPE_HT_NON_NULLABLE_REF };
    *out = wasm_ref_type_t { value_type, nullable, heap_type: type_idx };
}

/// Sets `*ref_type` to `(ref null? heap_type)` in WAMR's normal form (a
/// nullable abstract type as its one-byte shorthand, `nullable` false and
/// `heap_type` 0). An unknown heap type code is kept as given
/// (comparisons then refuse it, as WAMR's do); nothing for NULL.
///
/// # Safety
/// `ref_type` NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_ref_type_set_heap_type(ref_type: *mut wasm_ref_type_t, nullable: bool, heap_type: i32) {
    // SAFETY: NULL or writable (caller).
    let Some(out) = (unsafe { ref_type.as_mut() }) else { return };
    *out = match heap_of(heap_type) {
        Some(h) => from_ref(cranewasm::RefType::new(nullable, h)),
        None => {
            let value_type = if nullable { VALUE_TYPE_HT_NULLABLE_REF } else { VALUE_TYPE_HT_NON_NULLABLE_REF };
            wasm_ref_type_t { value_type, nullable, heap_type }
        }
    };
}

/// Whether a value of type `a` may be used where `b` is expected.
/// Concrete types are indices into `m`'s types: without a module, only
/// abstract types compare. Number types match only themselves.
fn matches(m: Option<&RtModule>, a: &wasm_ref_type_t, b: &wasm_ref_type_t) -> bool {
    match (to_ref(a), to_ref(b)) {
        (Some(x), Some(y)) => match m {
            Some(m) => m.module.ref_type_matches(x, y),
            None => {
                x.heap_type().concrete_index().is_none()
                    && y.heap_type().concrete_index().is_none()
                    && x.matches_abstract(&y)
            }
        },
        (None, None) => {
            a.value_type == b.value_type && matches!(a.value_type, 0x7B..=0x7F | VALUE_TYPE_I16 | VALUE_TYPE_I8)
        }
        _ => false,
    }
}

/// `matches` over the C arguments, in both directions if `both`; false
/// for NULL types.
///
/// # Safety
/// The types NULL or readable; `module` NULL or any pointer.
unsafe fn compare(a: *const wasm_ref_type_t, b: *const wasm_ref_type_t, module: wasm_module_t, both: bool) -> bool {
    // SAFETY: as the caller promises.
    let (m, a, b) = unsafe { (self::module(module), a.as_ref(), b.as_ref()) };
    let (Some(a), Some(b)) = (a, b) else { return false };
    matches(m, a, b) && (!both || matches(m, b, a))
}

/// Whether the two types are equal (each a subtype of the other), concrete
/// types being indices into `module`'s types; false for NULL types.
///
/// # Safety
/// The types NULL or readable; `module` NULL or any pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_ref_type_equal(
    ref_type1: *const wasm_ref_type_t,
    ref_type2: *const wasm_ref_type_t,
    module: wasm_module_t,
) -> bool {
    // SAFETY: as the caller promises.
    unsafe { compare(ref_type1, ref_type2, module, true) }
}

/// Whether `ref_type1` is a subtype of `ref_type2`, concrete types being
/// indices into `module`'s types; false for NULL types.
///
/// # Safety
/// As for [`wasm_ref_type_equal`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_ref_type_is_subtype_of(
    ref_type1: *const wasm_ref_type_t,
    ref_type2: *const wasm_ref_type_t,
    module: wasm_module_t,
) -> bool {
    // SAFETY: as the caller promises.
    unsafe { compare(ref_type1, ref_type2, module, false) }
}
