//! What an instance has: its functions (`wasm_runtime_lookup_function`,
//! `wasm_func_get_*`, `wasm_table_get_func_inst`), memories
//! (`wasm_runtime_lookup_memory`, `_get_memory`, `_get_default_memory`,
//! `wasm_memory_*`, `wasm_runtime_enlarge_memory`), exported globals and
//! tables.
//!
//! Function and memory handles are made on first request, one per
//! function or memory, and freed with the instance: calls with them after
//! `wasm_runtime_deinstantiate` are refused. A `wasm_table_inst_t`'s
//! `elems` names the table (an address of the instance's own), so
//! `wasm_table_get_func_inst` checks it before use.

use crate::core::kinds::valkind;
use std::ffi::{c_char, c_void};
use std::ptr;

use cranewasm::{Func, FuncType, Memory, Mutability, Table, Val, ValType};

use crate::core::val::wasm_valkind_t;
use crate::export::cstr;
use crate::export::instance::{ModuleInst, inst};
use crate::export::reflect::table_max;
use crate::export::types::*;
use crate::handle::Kind;
use crate::object::{Handle, Object, Own, get};

/// A function of an instance.
pub struct FuncInstObj {
    /// The instance (a handle).
    pub inst: usize,
    pub func: Func,
    pub ty: FuncType,
}

/// The C handle type behind `wasm_function_inst_t` (a `void *`).
pub struct FunctionInst {
    _private: [u8; 0],
}

// SAFETY: FuncInst cells hold `FuncInstObj`s, named by `FunctionInst`.
unsafe impl Object for FuncInstObj {
    fn kind(&self) -> Kind {
        Kind::FuncInst
    }
}

// SAFETY: FuncInst cells hold `FuncInstObj`s.
unsafe impl Handle for FunctionInst {
    type Obj = FuncInstObj;
    const KINDS: u32 = Kind::FuncInst.bit();
    const NAME: &'static str = "wasm_function_inst_t";
}

/// A memory of an instance.
pub struct MemoryInstObj {
    pub inst: usize,
    pub memory: Memory,
}

// SAFETY: MemoryInst cells hold `MemoryInstObj`s, named by
// `WASMMemoryInstance`.
unsafe impl Object for MemoryInstObj {
    fn kind(&self) -> Kind {
        Kind::MemoryInst
    }
}

// SAFETY: MemoryInst cells hold `MemoryInstObj`s.
unsafe impl Handle for WASMMemoryInstance {
    type Obj = MemoryInstObj;
    const KINDS: u32 = Kind::MemoryInst.bit();
    const NAME: &'static str = "wasm_memory_inst_t";
}

/// The handles made for an instance.
#[derive(Default)]
pub struct Handles {
    funcs: Vec<(Func, Own<FunctionInst>)>,
    memories: Vec<(Memory, Own<WASMMemoryInstance>)>,
    /// The tables handed out in `wasm_table_inst_t`s; their addresses are
    /// the `elems` values, so each is boxed to stay put.
    #[allow(clippy::vec_box, reason = "the boxes' addresses are handed out and must not move")]
    tables: Vec<Box<Table>>,
    /// The `gc_export.h` objects made through its exec envs; no collector
    /// frees them yet (issue 40 stage 2), so they live as long as it.
    pub gc_objects: Vec<Own<crate::export::gc::object::WASMObject>>,
}

/// The function behind a `wasm_function_inst_t`, if it is a live one.
///
/// # Safety
/// As for [`crate::object::get`].
pub unsafe fn func_inst<'a>(f: wasm_function_inst_t) -> Option<&'a FuncInstObj> {
    // SAFETY: as the caller promises.
    unsafe { get::<FunctionInst>(f as *const FunctionInst) }
}

impl ModuleInst {
    pub(crate) fn handles(&self) -> std::sync::MutexGuard<'_, Handles> {
        self.handles.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The handle of function `func` of this instance (handle `me`), made
    /// on first request.
    pub fn func_handle(&self, me: usize, func: Func, ty: FuncType) -> wasm_function_inst_t {
        let mut h = self.handles();
        if let Some((_, own)) = h.funcs.iter().find(|(f, _)| *f == func) {
            return own.as_ptr().cast();
        }
        match Own::<FunctionInst>::new(FuncInstObj { inst: me, func, ty }) {
            Some(own) => {
                let p = own.as_ptr().cast();
                h.funcs.push((func, own));
                p
            }
            None => ptr::null_mut(),
        }
    }

    /// The handle of memory `memory` of this instance (handle `me`).
    pub fn memory_handle(&self, me: usize, memory: Memory) -> wasm_memory_inst_t {
        let mut h = self.handles();
        if let Some((_, own)) = h.memories.iter().find(|(m, _)| *m == memory) {
            return own.as_ptr();
        }
        match Own::<WASMMemoryInstance>::new(MemoryInstObj { inst: me, memory }) {
            Some(own) => {
                let p = own.as_ptr();
                h.memories.push((memory, own));
                p
            }
            None => ptr::null_mut(),
        }
    }

    /// The instance's memory 0, if it has one.
    pub fn default_memory(&self) -> Option<Memory> {
        let i = self.instance()?;
        let locked = self.lock();
        i.memory(&*locked.store(), 0)
    }
}

/// The exported function `name` of the instance; NULL if there is none
/// (or for NULL arguments).
///
/// # Safety
/// `module_inst` NULL or any pointer; `name` NULL or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_lookup_function(
    module_inst: wasm_module_inst_t,
    name: *const c_char,
) -> wasm_function_inst_t {
    // SAFETY: as the caller promises.
    let (Some(i), Some(name)) = (unsafe { inst(module_inst) }, unsafe { cstr(name) }) else { return ptr::null_mut() };
    let Some(instance) = i.instance() else { return ptr::null_mut() };
    let (func, ty) = {
        let locked = i.lock();
        let store = locked.store();
        let Some(f) = instance.get_func(&*store, name) else { return ptr::null_mut() };
        (f, f.ty(&*store))
    };
    i.func_handle(module_inst as usize, func, ty)
}

/// The function's type, if `f` is a live function handle.
///
/// # Safety
/// As for [`func_inst`].
unsafe fn ty_of(f: wasm_function_inst_t) -> Option<FuncType> {
    // SAFETY: as the caller promises.
    unsafe { func_inst(f) }.map(|f| f.ty.clone())
}

/// Number of parameters (0 for a bad handle). The instance argument is
/// not needed: a function handle knows its instance.
///
/// # Safety
/// `func_inst` may be NULL or any pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_func_get_param_count(
    func_inst: wasm_function_inst_t,
    module_inst: wasm_module_inst_t,
) -> u32 {
    let _ = module_inst;
    // SAFETY: as the caller promises.
    unsafe { ty_of(func_inst) }.map_or(0, |t| t.params().len() as u32)
}

/// Number of results (0 for a bad handle).
///
/// # Safety
/// As for [`wasm_func_get_param_count`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_func_get_result_count(
    func_inst: wasm_function_inst_t,
    module_inst: wasm_module_inst_t,
) -> u32 {
    let _ = module_inst;
    // SAFETY: as the caller promises.
    unsafe { ty_of(func_inst) }.map_or(0, |t| t.results().len() as u32)
}

/// Writes the kinds of `types` to `out` (nothing if it is NULL).
///
/// # Safety
/// `out` NULL or writable for `types.len()` bytes.
unsafe fn write_kinds(types: &[ValType], out: *mut wasm_valkind_t) {
    if out.is_null() {
        return;
    }
    for (i, t) in types.iter().enumerate() {
        // SAFETY: room for every kind (caller).
        unsafe { out.add(i).write(valkind(*t)) };
    }
}

/// Writes the parameter kinds to `param_types` (room for the count).
///
/// # Safety
/// As for [`wasm_func_get_param_count`]; `param_types` NULL or writable for
/// the parameter count.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_func_get_param_types(
    func_inst: wasm_function_inst_t,
    module_inst: wasm_module_inst_t,
    param_types: *mut wasm_valkind_t,
) {
    let _ = module_inst;
    // SAFETY: as the caller promises.
    if let Some(t) = unsafe { ty_of(func_inst) } {
        // SAFETY: as the caller promises.
        unsafe { write_kinds(t.params(), param_types) }
    }
}

/// Writes the result kinds to `result_types` (room for the count).
///
/// # Safety
/// As for [`wasm_func_get_param_types`], with the result count.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_func_get_result_types(
    func_inst: wasm_function_inst_t,
    module_inst: wasm_module_inst_t,
    result_types: *mut wasm_valkind_t,
) {
    let _ = module_inst;
    // SAFETY: as the caller promises.
    if let Some(t) = unsafe { ty_of(func_inst) } {
        // SAFETY: as the caller promises.
        unsafe { write_kinds(t.results(), result_types) }
    }
}

/// The exported memory `name`; NULL if there is none.
///
/// # Safety
/// As for [`wasm_runtime_lookup_function`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_lookup_memory(
    module_inst: wasm_module_inst_t,
    name: *const c_char,
) -> wasm_memory_inst_t {
    // SAFETY: as the caller promises.
    let (Some(i), Some(name)) = (unsafe { inst(module_inst) }, unsafe { cstr(name) }) else { return ptr::null_mut() };
    let Some(instance) = i.instance() else { return ptr::null_mut() };
    let m = {
        let locked = i.lock();
        instance.get_memory(&*locked.store(), name)
    };
    m.map_or(ptr::null_mut(), |m| i.memory_handle(module_inst as usize, m))
}

/// Memory `index` of the instance (imported ones first), exported or not.
///
/// # Safety
/// `module_inst` may be NULL or any pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_get_memory(module_inst: wasm_module_inst_t, index: u32) -> wasm_memory_inst_t {
    // SAFETY: as the caller promises.
    let Some(i) = (unsafe { inst(module_inst) }) else { return ptr::null_mut() };
    let Some(instance) = i.instance() else { return ptr::null_mut() };
    let m = {
        let locked = i.lock();
        instance.memory(&*locked.store(), index)
    };
    m.map_or(ptr::null_mut(), |m| i.memory_handle(module_inst as usize, m))
}

/// Memory 0 of the instance; NULL if it has none.
///
/// # Safety
/// `module_inst` may be NULL or any pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_get_default_memory(module_inst: wasm_module_inst_t) -> wasm_memory_inst_t {
    // SAFETY: as the caller promises.
    unsafe { wasm_runtime_get_memory(module_inst, 0) }
}

/// Runs `f` on a live memory handle's instance and memory.
///
/// # Safety
/// `memory_inst` may be NULL or any pointer.
unsafe fn with_memory<R>(memory_inst: wasm_memory_inst_t, none: R, f: impl FnOnce(&ModuleInst, Memory) -> R) -> R {
    // SAFETY: as the caller promises.
    let Some(m) = (unsafe { get::<WASMMemoryInstance>(memory_inst) }) else { return none };
    // SAFETY: the memory handle's instance outlives it (it frees it).
    match unsafe { inst(m.inst as wasm_module_inst_t) } {
        Some(i) => f(i, m.memory),
        None => none,
    }
}

/// The memory's current size in pages (0 for a bad handle).
///
/// # Safety
/// `memory_inst` may be NULL or any pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_memory_get_cur_page_count(memory_inst: wasm_memory_inst_t) -> u64 {
    // SAFETY: as the caller promises.
    unsafe { with_memory(memory_inst, 0, |i, m| u64::from(m.size(&*i.lock().store()))) }
}

/// The most pages the memory can grow to, as WAMR's `max_page_count` is
/// (65535 when it has no maximum: see the README's memory limit; 0 for a
/// bad handle).
///
/// # Safety
/// `memory_inst` may be NULL or any pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_memory_get_max_page_count(memory_inst: wasm_memory_inst_t) -> u64 {
    // SAFETY: as the caller promises.
    unsafe { with_memory(memory_inst, 0, |i, m| u64::from(m.max_size(&*i.lock().store()))) }
}

/// Bytes per page: 65536 (0 for a bad handle).
///
/// # Safety
/// `memory_inst` may be NULL or any pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_memory_get_bytes_per_page(memory_inst: wasm_memory_inst_t) -> u64 {
    // SAFETY: as the caller promises.
    unsafe { with_memory(memory_inst, 0, |_, _| 65536) }
}

/// Whether the memory is shared: no, until shared memories land.
///
/// # Safety
/// `memory_inst` may be NULL or any pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_memory_get_shared(memory_inst: wasm_memory_inst_t) -> bool {
    // SAFETY: as the caller promises.
    unsafe { with_memory(memory_inst, false, |_, _| false) }
}

/// The memory's base address (stable as it grows; NULL for a bad handle).
///
/// # Safety
/// `memory_inst` may be NULL or any pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_memory_get_base_address(memory_inst: wasm_memory_inst_t) -> *mut c_void {
    // SAFETY: as the caller promises.
    unsafe { with_memory(memory_inst, ptr::null_mut(), |i, m| m.data_ptr(&*i.lock().store()).cast()) }
}

/// Grows the memory by `inc_page_count` pages; false past its maximum (the
/// enlarge-error callback, if set, is told why).
///
/// # Safety
/// `memory_inst` may be NULL or any pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_memory_enlarge(memory_inst: wasm_memory_inst_t, inc_page_count: u64) -> bool {
    // SAFETY: as the caller promises.
    unsafe { with_memory(memory_inst, false, |i, m| enlarge(i, m, 0, inc_page_count)) }
}

/// Grows `m`, memory `index` of `inst`. The store reports a failed growth
/// to the enlarge-error callback; a count no memory could grow by is
/// reported here.
fn enlarge(inst: &ModuleInst, m: Memory, index: u32, inc: u64) -> bool {
    let locked = inst.lock();
    let store = locked.store();
    let Ok(n) = u32::try_from(inc) else {
        let size = m.data_size(&*store) as u64;
        drop(locked);
        let reason = crate::export::exec_control::MAX_SIZE_REACHED;
        crate::export::exec_control::report_enlarge_failure(inst, inc, size, index, reason);
        return false;
    };
    m.grow(&mut *store, n.into()).is_ok()
}

/// Grows the instance's memory 0 (see [`wasm_memory_enlarge`]).
///
/// # Safety
/// `module_inst` may be NULL or any pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_enlarge_memory(module_inst: wasm_module_inst_t, inc_page_count: u64) -> bool {
    // SAFETY: as the caller promises.
    let Some(i) = (unsafe { inst(module_inst) }) else { return false };
    match i.default_memory() {
        Some(m) => enlarge(i, m, 0, inc_page_count),
        None => false,
    }
}

/// Fills `*global_inst` with the exported global `name`: its kind,
/// mutability and the address of its value. False if there is none.
///
/// # Safety
/// `module_inst` NULL or any pointer; `name` NULL or NUL-terminated;
/// `global_inst` NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_get_export_global_inst(
    module_inst: wasm_module_inst_t,
    name: *const c_char,
    global_inst: *mut wasm_global_inst_t,
) -> bool {
    // SAFETY: as the caller promises.
    let (Some(i), Some(name)) = (unsafe { inst(module_inst) }, unsafe { cstr(name) }) else { return false };
    let (Some(instance), false) = (i.instance(), global_inst.is_null()) else { return false };
    let locked = i.lock();
    let store = locked.store();
    let Some(g) = instance.get_global(&*store, name) else { return false };
    let ty = g.ty(&*store);
    // SAFETY: writable (caller).
    unsafe {
        global_inst.write(wasm_global_inst_t {
            kind: valkind(ty.content),
            is_mutable: ty.mutability == Mutability::Var,
            global_data: g.data_ptr(&*store).cast(),
        })
    };
    true
}

/// Fills `*table_inst` with the exported table `name`. False if there is
/// none.
///
/// # Safety
/// As for [`wasm_runtime_get_export_global_inst`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_get_export_table_inst(
    module_inst: wasm_module_inst_t,
    name: *const c_char,
    table_inst: *mut wasm_table_inst_t,
) -> bool {
    // SAFETY: as the caller promises.
    let (Some(i), Some(name)) = (unsafe { inst(module_inst) }, unsafe { cstr(name) }) else { return false };
    let (Some(instance), false) = (i.instance(), table_inst.is_null()) else { return false };
    let (t, ty, size) = {
        let locked = i.lock();
        let store = locked.store();
        let Some(t) = instance.get_table(&*store, name) else { return false };
        (t, t.declared_ty(&*store), t.size(&*store))
    };
    let elems = {
        let mut h = i.handles();
        match h.tables.iter().find(|b| ***b == t) {
            Some(b) => ptr::from_ref::<Table>(b) as *mut c_void,
            None => {
                let b = Box::new(t);
                let p = ptr::from_ref::<Table>(&b) as *mut c_void;
                h.tables.push(b);
                p
            }
        }
    };
    // SAFETY: writable (caller).
    unsafe {
        table_inst.write(wasm_table_inst_t {
            elem_kind: valkind(ty.element().into()),
            cur_size: size,
            max_size: table_max(&ty.limits()),
            elems,
        })
    };
    true
}

/// The function at `idx` of a table from [`wasm_runtime_get_export_table_inst`]
/// of this instance; NULL for a null element, an index out of range, or a
/// table that is not one of the instance's.
///
/// # Safety
/// `module_inst` NULL or any pointer; `table_inst` NULL or readable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_table_get_func_inst(
    module_inst: wasm_module_inst_t,
    table_inst: *const wasm_table_inst_t,
    idx: u32,
) -> wasm_function_inst_t {
    // SAFETY: as the caller promises.
    let (Some(i), Some(ti)) = (unsafe { inst(module_inst) }, unsafe { table_inst.as_ref() }) else {
        return ptr::null_mut();
    };
    let table = {
        let h = i.handles();
        // Only an address of ours is read as a table.
        h.tables.iter().find(|b| ptr::from_ref::<Table>(b) as *mut c_void == ti.elems).map(|b| **b)
    };
    let Some(table) = table else { return ptr::null_mut() };
    // SAFETY: as the caller promises.
    unsafe { element_func(i, module_inst as usize, table, idx) }.unwrap_or(ptr::null_mut())
}

/// The function handle for element `idx` of `table`, if it holds one.
///
/// # Safety
/// `table` must belong to `inst`'s store.
pub unsafe fn element_func(inst: &ModuleInst, me: usize, table: Table, idx: u32) -> Option<wasm_function_inst_t> {
    let (f, ty) = {
        let locked = inst.lock();
        let store = locked.store();
        let Some(Val::FuncRef(Some(f))) = table.get(&*store, idx) else { return None };
        (f, f.ty(&*store))
    };
    Some(inst.func_handle(me, f, ty))
}
