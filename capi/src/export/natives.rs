//! Native functions: `wasm_runtime_register_natives` and `_raw`, WAMR's
//! signature strings, and the host functions instances import them as.
//!
//! The registrations and the lookup an import goes through are the
//! core's ([`crate::core::natives`]): by module and field name, the most
//! recent registration first, then the builtin libc; a signature string
//! (`"(i*~$)I"`) that does not fit the import's type leaves it unlinked
//! with WAMR's warning.
//!
//! A native is a plain C function `ret f(wasm_exec_env_t, args...)`.
//! Its host function converts what the signature asks for — `*` (a
//! pointer, with its length from the next argument after `~`, else 1) and
//! `$` (a NUL-terminated string) are checked against the calling
//! instance's memory and turned into native pointers, `r` into the host
//! pointer of an externref — then calls it through a
//! [`NativeCall`](cranewasm::NativeCall), a trampoline compiled once per C
//! signature. A native reports failure by setting the instance's
//! exception, which then makes the whole call trap. A raw native gets
//! `void f(wasm_exec_env_t, uint64_t *args)`, one 64-bit cell per
//! argument, and leaves its result in `args[0]`.

use std::ffi::{CStr, c_char, c_void};

use cranewasm::{AsContextMut, Caller, Func, FuncType, NativeCall, Store, TrapError, ValRaw, ValType};

use crate::core::natives::{self, Native};
use crate::export::instance::{InstData, InstOf};
use crate::export::types::NativeSymbol;

/// Registers the `n` natives at `symbols` under `module_name`.
///
/// # Safety
/// `module_name` NULL or NUL-terminated; `symbols` NULL or `n` readable
/// `NativeSymbol`s whose strings are NULL or NUL-terminated.
pub unsafe fn register(module_name: *const c_char, symbols: *mut NativeSymbol, n: u32, raw: bool) -> bool {
    // SAFETY: as the caller promises.
    let Some(module) = (unsafe { crate::export::cstr(module_name) }) else { return false };
    if symbols.is_null() && n > 0 {
        return false;
    }
    let mut list = Vec::with_capacity(n as usize);
    for i in 0..n as usize {
        // SAFETY: `n` readable symbols (caller).
        let s = unsafe { &*symbols.add(i) };
        // SAFETY: NULL or NUL-terminated (caller).
        let Some(name) = (unsafe { crate::export::cstr(s.symbol) }) else { return false };
        let signature = (!s.signature.is_null())
            // SAFETY: NUL-terminated (caller).
            .then(|| unsafe { CStr::from_ptr(s.signature) }.to_owned())
            .filter(|s| !s.is_empty());
        list.push(Native {
            module: module.to_string(),
            name: name.to_string(),
            func: s.func_ptr as usize,
            signature,
            attachment: s.attachment as usize,
            raw,
        });
    }
    natives::add(module, symbols as usize, list);
    true
}

/// Registers natives. WAMR sorts the client's array in place; the array is
/// copied here instead, so it may even be read-only. False for NULL names.
///
/// # Safety
/// `module_name` NULL or NUL-terminated; `native_symbols` NULL or
/// `n_native_symbols` readable `NativeSymbol`s (strings NULL or
/// NUL-terminated); each function must be callable as its signature says
/// for as long as instances use it.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_register_natives(
    module_name: *const c_char,
    native_symbols: *mut NativeSymbol,
    n_native_symbols: u32,
) -> bool {
    // SAFETY: as the caller promises.
    unsafe { register(module_name, native_symbols, n_native_symbols, false) }
}

/// Registers natives with the raw calling convention
/// (`void f(wasm_exec_env_t, uint64_t *args)`).
///
/// # Safety
/// As for [`wasm_runtime_register_natives`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_register_natives_raw(
    module_name: *const c_char,
    native_symbols: *mut NativeSymbol,
    n_native_symbols: u32,
) -> bool {
    // SAFETY: as the caller promises.
    unsafe { register(module_name, native_symbols, n_native_symbols, true) }
}

/// Undoes the registration of `native_symbols` under `module_name`;
/// false if there is none. Instances made meanwhile keep their natives.
///
/// # Safety
/// `module_name` must be NULL or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_unregister_natives(
    module_name: *const c_char,
    native_symbols: *mut NativeSymbol,
) -> bool {
    // SAFETY: as the caller promises.
    let Some(module) = (unsafe { crate::export::cstr(module_name) }) else { return false };
    natives::remove(module, native_symbols as usize)
}

/// Whether an import `(module_name, func_name)` would be linked to a
/// registered native (or the builtin libc), whatever its type.
///
/// # Safety
/// Both must be NULL or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_is_import_func_linked(
    module_name: *const c_char,
    func_name: *const c_char,
) -> bool {
    // SAFETY: as the caller promises.
    let (Some(m), Some(f)) = (unsafe { crate::export::cstr(module_name) }, unsafe { crate::export::cstr(func_name) })
    else {
        return false;
    };
    natives::find(m, f).is_some() || crate::export::wasi::provides(m, f)
}

/// Whether an import `(module_name, global_name)` would be linked to a
/// global the runtime provides: WAMR's builtin libc provides
/// `global.NaN` and `global.Infinity`, and so does this one.
///
/// # Safety
/// As for [`wasm_runtime_is_import_func_linked`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_is_import_global_linked(
    module_name: *const c_char,
    global_name: *const c_char,
) -> bool {
    // SAFETY: as the caller promises.
    let (Some(m), Some(g)) = (unsafe { crate::export::cstr(module_name) }, unsafe { crate::export::cstr(global_name) })
    else {
        return false;
    };
    crate::libc_builtin::global(m, g).is_some()
}

/// How one argument reaches the native.
#[derive(Copy, Clone, PartialEq, Eq)]
enum Arg {
    /// As it is.
    Plain,
    /// An app pointer checked for `len` bytes (the value of argument
    /// `len_from`, or 1) and made native.
    Ptr { len_from: Option<usize> },
    /// An app string checked for its NUL and made native.
    Str,
    /// An externref, passed as its host pointer.
    Extern,
}

/// The conversions a signature asks for, per parameter.
fn plan(ty: &FuncType, sig: Option<&CStr>) -> Vec<Arg> {
    let params = ty.params();
    let mut args: Vec<Arg> =
        params.iter().map(|t| if *t == ValType::EXTERNREF { Arg::Extern } else { Arg::Plain }).collect();
    let Some(sig) = sig else { return args };
    // After the signature check, character i+1 belongs to parameter i.
    let sig = sig.to_bytes();
    for (i, a) in args.iter_mut().enumerate() {
        match sig.get(i + 1) {
            Some(b'*') => {
                let len_from = (sig.get(i + 2) == Some(&b'~')).then_some(i + 1);
                *a = Arg::Ptr { len_from };
            }
            Some(b'$') => *a = Arg::Str,
            _ => {}
        }
    }
    args
}

/// The C type a wasm type reaches a native as.
fn c_type(t: ValType) -> ValType {
    match t {
        ValType::EXTERNREF | ValType::FUNCREF => ValType::I64,
        t => t,
    }
}

/// The host function for `native` imported with type `ty` into the store
/// of an export-API instance, over the one host-function path
/// ([`crate::core::host`]): externrefs reach the native as host pointers
/// (`(uintptr_t)-1` it returns is `ref.null`), funcrefs as NULL (they have
/// no C form), and a funcref it returns is `ref.null`.
pub fn host_func(store: &mut Store<InstData>, native: &Native, ty: FuncType) -> cranewasm::Result<Func> {
    let args = plan(&ty, native.signature.as_deref());
    let (func, attachment) = (native.func, native.attachment);
    let engine = store.engine().clone();
    let funcrefs = Funcrefs::of(&ty);
    if native.raw {
        let call = NativeCall::new(&engine, &[ValType::I64], &[])?;
        return crate::core::host::new(store.as_context_mut(), ty.clone(), usize::MAX, move |mut caller, slots| {
            funcrefs.params(slots);
            // SAFETY: the trampoline is for `void f(exec_env, uint64_t *)`,
            // the client's raw native's type.
            unsafe { call_raw_native(&mut caller, &call, func, attachment, &args, &ty, slots)? };
            funcrefs.results(slots);
            Ok(())
        });
    }
    // Pointers and strings reach the native as native (64-bit) pointers.
    let params: Vec<ValType> = ty
        .params()
        .iter()
        .zip(&args)
        .map(|(t, a)| if matches!(a, Arg::Ptr { .. } | Arg::Str) { ValType::I64 } else { c_type(*t) })
        .collect();
    let results: Vec<ValType> = ty.results().iter().map(|t| c_type(*t)).collect();
    let call = NativeCall::new(&engine, &params, &results)?;
    let plain = args.iter().all(|a| matches!(a, Arg::Plain | Arg::Extern));
    if plain && funcrefs.is_empty() {
        // The common case, kept lean: nothing to convert.
        return crate::core::host::new(store.as_context_mut(), ty, usize::MAX, move |caller, slots| {
            // SAFETY: as below.
            unsafe { invoke(&caller, &call, func, attachment, slots) };
            caller.data().inst().trap_if_exception()
        });
    }
    crate::core::host::new(store.as_context_mut(), ty, usize::MAX, move |mut caller, slots| {
        funcrefs.params(slots);
        if !plain {
            convert_args(&mut caller, &args, slots)?;
        }
        // SAFETY: the trampoline was compiled for this native's C type, and
        // `slots` holds the converted arguments with room for the results.
        unsafe { invoke(&caller, &call, func, attachment, slots) };
        funcrefs.results(slots);
        caller.data().inst().trap_if_exception()
    })
}

/// Where a native's signature has funcrefs, which have no C form.
struct Funcrefs {
    params: Vec<usize>,
    results: Vec<usize>,
}

impl Funcrefs {
    fn of(ty: &FuncType) -> Funcrefs {
        let at = |types: &[ValType]| {
            types.iter().enumerate().filter(|(_, t)| **t == ValType::FUNCREF).map(|(i, _)| i).collect()
        };
        Funcrefs { params: at(ty.params()), results: at(ty.results()) }
    }

    fn is_empty(&self) -> bool {
        self.params.is_empty() && self.results.is_empty()
    }

    /// A funcref parameter reaches the native as NULL.
    #[inline(always)]
    fn params(&self, slots: &mut [ValRaw]) {
        for &i in &self.params {
            slots[i] = ValRaw::i64(0);
        }
    }

    /// A funcref result is `ref.null`.
    #[inline(always)]
    fn results(&self, slots: &mut [ValRaw]) {
        for &i in &self.results {
            slots[i] = ValRaw::reference(ValType::FUNCREF, 0);
        }
    }
}

/// Calls the native through its trampoline, with the exec env of the call
/// in progress first and its attachment set.
///
/// # Safety
/// `call` must be compiled for the native's C type and `slots` hold its
/// arguments, with room for its results.
unsafe fn invoke(
    caller: &Caller<'_, InstData>,
    call: &NativeCall,
    func: usize,
    attachment: usize,
    slots: &mut [ValRaw],
) {
    let inst = caller.data().inst();
    let env = inst.current_exec_env();
    let obj = inst.current_exec_env_obj();
    // The attachment is set only when it changes (most natives have none),
    // and put back afterwards for a native that called this one through
    // wasm.
    let prev = obj.map(|e| e.set_attachment(attachment as *mut c_void));
    // SAFETY: as the caller promises.
    unsafe { call.call(func as *const c_void, env as *mut c_void, slots.as_mut_ptr()) };
    if let (Some(e), Some(p)) = (obj, prev) {
        e.set_attachment(p);
    }
}

/// The memory range `[base, base + len)` of the calling instance's memory
/// 0 (empty when it has none).
fn memory(caller: &Caller<'_, InstData>) -> (*mut u8, usize) {
    match caller.default_memory() {
        Some(m) => (m.data_ptr(caller), m.data_size(caller)),
        None => (std::ptr::null_mut(), 0),
    }
}

/// Checks and converts the pointer and string arguments in place; an
/// out-of-bounds one sets WAMR's exception and traps.
fn convert_args(caller: &mut Caller<'_, InstData>, args: &[Arg], slots: &mut [ValRaw]) -> Result<(), TrapError> {
    let (base, len) = memory(caller);
    for (i, a) in args.iter().enumerate() {
        match *a {
            Arg::Plain | Arg::Extern => {}
            Arg::Ptr { len_from } => {
                let off = slots[i].get_i32() as u32 as usize;
                let size = len_from.map_or(1, |j| slots[j].get_i32() as u32 as usize);
                if base.is_null() || off.checked_add(size).is_none_or(|end| end > len) {
                    return Err(caller.data().inst().raise("out of bounds memory access"));
                }
                slots[i] = ValRaw::i64(base as i64 + off as i64);
            }
            Arg::Str => {
                let off = slots[i].get_i32() as u32 as usize;
                // SAFETY: `[base, base + len)` is the memory's accessible
                // range, read only up to its end.
                let ok = !base.is_null()
                    && off < len
                    && unsafe { std::slice::from_raw_parts(base.add(off), len - off) }.contains(&0);
                if !ok {
                    return Err(caller.data().inst().raise("out of bounds memory access"));
                }
                slots[i] = ValRaw::i64(base as i64 + off as i64);
            }
        }
    }
    Ok(())
}

/// Calls a raw native: arguments copied into 64-bit cells (pointers and
/// strings checked and made native as for other natives), the result read
/// back from the first cell.
///
/// # Safety
/// `call` must be the `(I64) -> ()` trampoline and `func` a raw native.
unsafe fn call_raw_native(
    caller: &mut Caller<'_, InstData>,
    call: &NativeCall,
    func: usize,
    attachment: usize,
    args: &[Arg],
    ty: &FuncType,
    slots: &mut [ValRaw],
) -> Result<(), TrapError> {
    convert_args(caller, args, slots)?;
    let mut cells: Vec<u64> = ty
        .params()
        .iter()
        .zip(args)
        .zip(slots.iter())
        .map(|((t, a), s)| match (t, a) {
            (ValType::I32 | ValType::F32, Arg::Plain) => s.get_i32() as u32 as u64,
            _ => s.get_i64() as u64,
        })
        .collect();
    if cells.is_empty() {
        cells.push(0);
    }
    let mut arg = [ValRaw::i64(cells.as_mut_ptr() as i64)];
    // SAFETY: as the caller promises; `cells` outlives the call.
    unsafe { invoke(caller, call, func, attachment, &mut arg) };
    if let Some(r) = ty.results().first() {
        let c = cells[0];
        slots[0] = match r {
            ValType::I32 => ValRaw::i32(c as u32 as i32),
            ValType::F32 => ValRaw::f32(c as u32),
            ValType::F64 => ValRaw::f64(c),
            _ => ValRaw::i64(c as i64),
        };
    }
    caller.data().inst().trap_if_exception()
}

#[cfg(test)]
mod tests {
    use super::*;
    use ValType::*;
    const EXTERNREF: ValType = ValType::EXTERNREF;

    #[test]
    fn plans_follow_the_signature() {
        let ty = FuncType::new([I32, I32, I32, I32, EXTERNREF], [I32]);
        let p = plan(&ty, Some(c"(*~$ir)i"));
        assert!(p[0] == Arg::Ptr { len_from: Some(1) } && p[1] == Arg::Plain && p[2] == Arg::Str);
        assert!(p[3] == Arg::Plain && p[4] == Arg::Extern);
    }
}
