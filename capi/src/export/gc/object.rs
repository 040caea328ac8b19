//! `wasm_obj_t`s, WAMR's GC objects as the C API sees them.
//!
//! An object pointer is a word, as the core's references are: NULL is
//! null, an odd word is an i31 (`(v << 1) | 1`, WAMR's and the core's
//! encoding alike), and anything else must be a cell of the live-object
//! table holding a [`GcObj`]: a function, externref or anyref object.
//! So a foreign or freed pointer is refused without being read. A struct
//! or array object's cell holds a pinned handle of the object in its
//! instance's store (`struct_obj`, `array_obj`): the object lives, and
//! the collector keeps the handle pointing at it wherever it moves it, as
//! long as the cell, which is freed with the instance.
//!
//! As in WAMR, an externref object wraps an internal object: an anyref
//! object holding the host pointer when made by `wasm_externref_obj_new`,
//! or whatever `wasm_internal_obj_to_externref_obj` was given (an i31,
//! an anyref object). Converting back gives that object, unchanged.

use std::ffi::c_void;
use std::sync::atomic::{AtomicU32, Ordering};

use cranewasm::{HeapType, Module};

use crate::export::exec_env::exec_env;
use crate::export::gc::types::*;
use crate::export::instance::ModuleInst;
use crate::export::types::*;
use crate::handle::Kind;
use crate::object::{Handle, Object, Own, get};
use crate::wasm_module_t;

/// What a non-i31 object is.
pub enum GcValue {
    /// A function object: function `func_idx` of instance `inst` (a
    /// handle, with its serial), typed as type `type_idx` of `module`,
    /// whose handle is `def_type` (NULL if none could be made).
    Func { inst: usize, serial: u64, module: Module, type_idx: u32, func_idx: u32, def_type: usize },
    /// An externref object wrapping an internal object (a `wasm_obj_t`).
    Externref(usize),
    /// An anyref object holding a host pointer.
    Anyref(usize),
    /// A struct object of the store of instance `inst` (a handle, with its
    /// serial): a pinned handle, valid as long as that store.
    Struct { inst: usize, serial: u64, obj: cranewasm::StructRef },
    /// An array object, as [`GcValue::Struct`].
    Array { inst: usize, serial: u64, obj: cranewasm::ArrayRef },
}

/// A function, externref or anyref object.
pub struct GcObj {
    pub value: GcValue,
    /// `wasm_runtime_pin_object` count: roots for the collector to come.
    pins: AtomicU32,
}

// SAFETY: GcObj cells hold `GcObj`s, named by the handle types below.
unsafe impl Object for GcObj {
    fn kind(&self) -> Kind {
        Kind::GcObj
    }
}

/// Opaque: what a `wasm_obj_t` points at.
pub struct WASMObject {
    _private: [u8; 0],
}
pub type wasm_obj_t = *mut WASMObject;
/// Opaque: what a `wasm_externref_obj_t` points at.
pub struct WASMExternrefObject {
    _private: [u8; 0],
}
pub type wasm_externref_obj_t = *mut WASMExternrefObject;
/// Opaque: what a `wasm_anyref_obj_t` points at.
pub struct WASMAnyrefObject {
    _private: [u8; 0],
}
pub type wasm_anyref_obj_t = *mut WASMAnyrefObject;
/// Opaque: what a `wasm_func_obj_t` points at.
pub struct WASMFuncObject {
    _private: [u8; 0],
}
pub type wasm_func_obj_t = *mut WASMFuncObject;
/// An i31 object: the tagged word itself.
pub type wasm_i31_obj_t = usize;

macro_rules! obj_handles {
    ($($c:ident),*) => {$(
        // SAFETY: GcObj cells hold `GcObj`s.
        unsafe impl Handle for $c {
            type Obj = GcObj;
            const KINDS: u32 = Kind::GcObj.bit();
            const NAME: &'static str = stringify!($c);
        }
    )*};
}
/// Opaque: what a `wasm_struct_obj_t` points at.
pub struct WASMStructObject {
    _private: [u8; 0],
}
pub type wasm_struct_obj_t = *mut WASMStructObject;
/// Opaque: what a `wasm_array_obj_t` points at.
pub struct WASMArrayObject {
    _private: [u8; 0],
}
pub type wasm_array_obj_t = *mut WASMArrayObject;

obj_handles!(WASMObject, WASMExternrefObject, WASMAnyrefObject, WASMFuncObject, WASMStructObject, WASMArrayObject);

/// The live instance of handle `inst` and serial `serial`: `None` once it
/// was destroyed (its handle perhaps reused).
pub fn owner(inst: usize, serial: u64) -> Option<&'static ModuleInst> {
    // SAFETY: a handle, checked; the client keeps the instances whose
    // objects it uses alive meanwhile.
    let i = unsafe { crate::object::get_stored::<WASMModuleInstanceCommon>(inst) }?;
    (i.serial == serial).then_some(i)
}

/// `f` of a struct or array object cell's live instance, store and
/// handle; `None` for another cell or a destroyed instance.
pub fn with_object<R>(
    v: &GcValue,
    f: impl FnOnce(&ModuleInst, &cranewasm::Store<crate::export::instance::InstData>, cranewasm::ObjectRef) -> R,
) -> Option<R> {
    let (inst, serial, o) = match v {
        GcValue::Struct { inst, serial, obj } => (*inst, *serial, obj.as_object()),
        GcValue::Array { inst, serial, obj } => (*inst, *serial, obj.as_object()),
        _ => return None,
    };
    let inst = owner(inst, serial)?;
    let locked = inst.lock();
    Some(f(inst, locked.store(), o))
}

/// Whether a struct or array object cell is of type `index` of `module`
/// (or a subtype); false for another cell or bad arguments.
fn object_is(v: &GcValue, module: &Module, index: u32) -> bool {
    with_object(v, |_, store, o| o.is_instance_of(store, module, index).unwrap_or(false)).unwrap_or(false)
}

/// What an object word is.
pub enum Obj<'a> {
    I31(u32),
    Cell(&'a GcObj),
}

/// The object at word `p`, of any object pointer type: `None` for NULL
/// and for anything but an i31 or a live object cell.
///
/// # Safety
/// The object's instance must not be destroyed meanwhile.
pub unsafe fn obj<'a, P>(p: *const P) -> Option<Obj<'a>> {
    let w = p as usize;
    if w & 1 == 1 {
        return Some(Obj::I31((w >> 1) as u32));
    }
    // SAFETY: as the caller promises.
    unsafe { get::<WASMObject>(p.cast::<WASMObject>()) }.map(Obj::Cell)
}

/// The value of the object cell at `p`, if it is one.
///
/// # Safety
/// As for [`obj`].
pub unsafe fn cell<'a, P>(p: *const P) -> Option<&'a GcValue> {
    // SAFETY: as the caller promises.
    match unsafe { obj(p) } {
        Some(Obj::Cell(c)) => Some(&c.value),
        _ => None,
    }
}

/// Makes an object owned by the instance of exec env `env` (freed with
/// it); NULL for a bad exec env or a full table.
pub fn new_obj(env: wasm_exec_env_t, value: GcValue) -> wasm_obj_t {
    let Some(inst) = exec_env(env as usize).and_then(|e| e.instance()) else { return std::ptr::null_mut() };
    add_to(inst, value)
}

/// Makes an object owned by `inst`.
pub fn add_to(inst: &ModuleInst, value: GcValue) -> wasm_obj_t {
    match Own::<WASMObject>::new(GcObj { value, pins: AtomicU32::new(0) }) {
        Some(own) => {
            let p = own.as_ptr();
            inst.handles().gc_objects.push(own);
            p
        }
        None => std::ptr::null_mut(),
    }
}

/// The i31 object of the low 31 bits of `i31_value` (as `ref.i31`).
#[unsafe(no_mangle)]
pub extern "C" fn wasm_i31_obj_new(i31_value: u32) -> wasm_i31_obj_t {
    ((i31_value as usize) << 1 & 0xFFFF_FFFF) | 1
}

/// The value of an i31 object, sign-extended from 31 bits or not (as
/// `i31.get_s`/`_u`); 0 for a word that is not an i31 (WAMR asserts).
#[unsafe(no_mangle)]
pub extern "C" fn wasm_i31_obj_get_value(i31_obj: wasm_i31_obj_t, sign_extend: bool) -> u32 {
    if i31_obj & 1 == 0 {
        return 0;
    }
    let v = (i31_obj >> 1) as u32 & 0x7FFF_FFFF;
    if sign_extend { ((v << 1) as i32 >> 1) as u32 } else { v }
}

/// An externref object for `host_obj`: an anyref object holding it,
/// wrapped; owned by the exec env's instance. NULL for a bad exec env.
///
/// # Safety
/// `exec_env` NULL or any pointer; `host_obj` is only stored.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_externref_obj_new(
    exec_env: wasm_exec_env_t,
    host_obj: *const c_void,
) -> wasm_externref_obj_t {
    let inner = new_obj(exec_env, GcValue::Anyref(host_obj as usize));
    if inner.is_null() {
        return std::ptr::null_mut();
    }
    new_obj(exec_env, GcValue::Externref(inner as usize)).cast()
}

/// An anyref object holding `host_obj`, owned by the exec env's instance;
/// NULL for a bad exec env.
///
/// # Safety
/// As for [`wasm_externref_obj_new`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_anyref_obj_new(exec_env: wasm_exec_env_t, host_obj: *const c_void) -> wasm_anyref_obj_t {
    new_obj(exec_env, GcValue::Anyref(host_obj as usize)).cast()
}

/// The host pointer of an externref object: its anyref object's, or (as
/// in WAMR) the wrapped internal object itself; NULL for anything but an
/// externref object.
///
/// # Safety
/// `externref_obj` NULL or any pointer; its instance must stay.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_externref_obj_get_value(externref_obj: wasm_externref_obj_t) -> *const c_void {
    // SAFETY: as the caller promises.
    match unsafe { cell(externref_obj) } {
        // SAFETY: as the caller promises (the inner object has the same
        // instance).
        Some(GcValue::Externref(inner)) => match unsafe { cell(*inner as *const WASMObject) } {
            Some(GcValue::Anyref(host)) => *host as *const c_void,
            _ => *inner as *const c_void,
        },
        _ => std::ptr::null(),
    }
}

/// The host pointer of an anyref object; NULL for anything else.
///
/// # Safety
/// As for [`wasm_externref_obj_get_value`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_anyref_obj_get_value(anyref_obj: wasm_anyref_obj_t) -> *const c_void {
    // SAFETY: as the caller promises.
    match unsafe { cell(anyref_obj) } {
        Some(GcValue::Anyref(host)) => *host as *const c_void,
        _ => std::ptr::null(),
    }
}

/// The internal object an externref object wraps (`any.convert_extern`);
/// NULL for anything but an externref object.
///
/// # Safety
/// As for [`wasm_externref_obj_get_value`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_externref_obj_to_internal_obj(externref_obj: wasm_externref_obj_t) -> wasm_obj_t {
    // SAFETY: as the caller promises.
    match unsafe { cell(externref_obj) } {
        Some(GcValue::Externref(inner)) => *inner as wasm_obj_t,
        _ => std::ptr::null_mut(),
    }
}

/// An externref object wrapping `internal_obj` (`extern.convert_any`),
/// owned by the exec env's instance. NULL for a bad exec env, and for an
/// object outside the `any` hierarchy (NULL, a function or externref
/// object, a foreign pointer).
///
/// # Safety
/// Both NULL or any pointers; the object's instance must stay.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_internal_obj_to_externref_obj(
    exec_env: wasm_exec_env_t,
    internal_obj: wasm_obj_t,
) -> wasm_externref_obj_t {
    // SAFETY: as the caller promises.
    match unsafe { obj(internal_obj) } {
        Some(Obj::I31(_))
        | Some(Obj::Cell(GcObj {
            value: GcValue::Anyref(_) | GcValue::Struct { .. } | GcValue::Array { .. }, ..
        })) => new_obj(exec_env, GcValue::Externref(internal_obj as usize)).cast(),
        _ => std::ptr::null_mut(),
    }
}

/// Pins (`add` 1) or unpins (-1) object `obj` for exec env `env`: true
/// for an i31 (nothing to keep) and a live object (an unpin only if it
/// is pinned); false for a bad exec env or object.
///
/// # Safety
/// As for [`obj`].
unsafe fn pin(env: wasm_exec_env_t, o: wasm_obj_t, add: bool) -> bool {
    if exec_env(env as usize).and_then(|e| e.instance()).is_none() {
        return false;
    }
    // SAFETY: as the caller promises.
    match unsafe { obj(o) } {
        Some(Obj::I31(_)) => true,
        Some(Obj::Cell(c)) if add => c.pins.fetch_add(1, Ordering::Relaxed) < u32::MAX,
        Some(Obj::Cell(c)) => c.pins.try_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1)).is_ok(),
        None => false,
    }
}

/// Pins an object: a root for the collector (which comes with the GC heap;
/// until then objects live as long as their instance). False for a bad
/// exec env or object.
///
/// # Safety
/// Both NULL or any pointers; the object's instance must stay.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_pin_object(exec_env: wasm_exec_env_t, obj: wasm_obj_t) -> bool {
    // SAFETY: as the caller promises.
    unsafe { pin(exec_env, obj, true) }
}

/// Unpins an object pinned before; false for a bad exec env or object,
/// or one that is not pinned.
///
/// # Safety
/// As for [`wasm_runtime_pin_object`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_unpin_object(exec_env: wasm_exec_env_t, obj: wasm_obj_t) -> bool {
    // SAFETY: as the caller promises.
    unsafe { pin(exec_env, obj, false) }
}

/// Whether an object word is of abstract heap type `h` (WAMR's
/// `wasm_obj_is_type_of`): `any` takes the internal objects (i31, anyref,
/// struct and array objects), the bottom types nothing.
fn is_of(o: &Obj, h: HeapType) -> bool {
    let (i31, value) = match o {
        Obj::I31(_) => (true, None),
        Obj::Cell(c) => (false, Some(&c.value)),
    };
    match h {
        HeapType::Func => matches!(value, Some(GcValue::Func { .. })),
        HeapType::Extern => matches!(value, Some(GcValue::Externref(_))),
        HeapType::Any => {
            i31 || matches!(value, Some(GcValue::Anyref(_) | GcValue::Struct { .. } | GcValue::Array { .. }))
        }
        HeapType::Eq => i31 || matches!(value, Some(GcValue::Struct { .. } | GcValue::Array { .. })),
        HeapType::I31 => i31,
        HeapType::Struct => matches!(value, Some(GcValue::Struct { .. })),
        HeapType::Array => matches!(value, Some(GcValue::Array { .. })),
        _ => false,
    }
}

macro_rules! obj_predicates {
    ($($name:ident => $heap:expr, $what:literal;)*) => {$(
        #[doc = concat!("Whether `obj` is ", $what, " (false for NULL and foreign pointers).")]
        ///
        /// # Safety
        /// `obj` NULL or any pointer; its instance must stay.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $name(obj: wasm_obj_t) -> bool {
            // SAFETY: as the caller promises.
            unsafe { self::obj(obj) }.is_some_and(|o| is_of(&o, $heap))
        }
    )*};
}
obj_predicates! {
    wasm_obj_is_func_obj => HeapType::Func, "a function object";
    wasm_obj_is_externref_obj => HeapType::Extern, "an externref object";
    wasm_obj_is_i31_obj => HeapType::I31, "an i31 object";
    wasm_obj_is_eq_obj => HeapType::Eq, "an eq object (an i31, struct or array object)";
    wasm_obj_is_struct_obj => HeapType::Struct, "a struct object";
    wasm_obj_is_array_obj => HeapType::Array, "an array object";
}

/// Whether `obj` is an anyref object (a host pointer made internal).
///
/// # Safety
/// `obj` NULL or any pointer; its instance must stay.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_obj_is_anyref_obj(obj: wasm_obj_t) -> bool {
    // SAFETY: as the caller promises.
    matches!(unsafe { cell(obj) }, Some(GcValue::Anyref(_)))
}

/// Whether `obj` is an internal object: an i31, anyref, struct or array
/// object (WAMR's definition: what `any` holds).
///
/// # Safety
/// As for [`wasm_obj_is_anyref_obj`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_obj_is_internal_obj(obj: wasm_obj_t) -> bool {
    // SAFETY: as the caller promises.
    unsafe { self::obj(obj) }.is_some_and(|o| is_of(&o, HeapType::Any))
}

/// Whether `obj` is a value of `*ref_type`. Abstract heap types as
/// [`is_of`]; a concrete type is an index into the types of the object's
/// own module (the header passes no module), matched by declared
/// subtyping. False for NULL or foreign arguments (WAMR asserts).
///
/// # Safety
/// `obj` NULL or any pointer; `ref_type` NULL or readable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_obj_is_instance_of_ref_type(obj: wasm_obj_t, ref_type: *const wasm_ref_type_t) -> bool {
    // SAFETY: as the caller promises.
    let (Some(o), Some(t)) = (unsafe { self::obj(obj) }, unsafe { ref_type.as_ref() }) else { return false };
    let Some(r) = to_ref(t) else { return false };
    match (r.heap_type().concrete_index(), &o) {
        (Some(i), Obj::Cell(GcObj { value: GcValue::Func { module, type_idx, .. }, .. })) => {
            module.defined_type_matches(*type_idx, module, i)
        }
        (Some(i), Obj::Cell(GcObj { value: v @ (GcValue::Struct { .. } | GcValue::Array { .. }), .. })) => {
            with_object(v, |inst, _, _| inst.module.clone()).is_some_and(|m| object_is(v, &m, i))
        }
        (Some(_), _) => false,
        (None, o) => is_of(o, r.heap_type()),
    }
}

/// Whether `obj` is a value of type `type_idx` of `module` (declared
/// subtyping, iso-recursive equality); false for bad arguments.
///
/// # Safety
/// `obj` and `module` NULL or any pointers; they must stay alive.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_obj_is_instance_of_type_idx(
    obj: wasm_obj_t,
    type_idx: u32,
    module: wasm_module_t,
) -> bool {
    // SAFETY: as the caller promises.
    let (Some(m), Some(v)) = (unsafe { crate::core::module::module(module) }, unsafe { cell(obj) }) else {
        return false;
    };
    match v {
        GcValue::Func { module: own, type_idx: t, .. } => own.defined_type_matches(*t, &m.module, type_idx),
        v => object_is(v, &m.module, type_idx),
    }
}

/// Whether `obj` is a value of `defined_type`; false for bad arguments
/// (`module` must be a live module, as WAMR reads it).
///
/// # Safety
/// As for [`wasm_obj_is_instance_of_type_idx`]; `defined_type` NULL or
/// any pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_obj_is_instance_of_defined_type(
    obj: wasm_obj_t,
    defined_type: crate::export::gc::defined::wasm_defined_type_t,
    module: wasm_module_t,
) -> bool {
    // SAFETY: as the caller promises.
    let (Some(_), Some(d), Some(v)) = (
        unsafe { crate::core::module::module(module) },
        unsafe { crate::export::gc::defined::defined(defined_type) },
        unsafe { cell(obj) },
    ) else {
        return false;
    };
    match v {
        GcValue::Func { module: own, type_idx, .. } => own.defined_type_matches(*type_idx, &d.module, d.index),
        v => object_is(v, &d.module, d.index),
    }
}
