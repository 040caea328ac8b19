//! Functions: host functions made from C callbacks, and calls.
//!
//! Calls are the hot path, so signatures without references take a fast
//! route that neither allocates nor locks: `wasm_val_t` has the layout of
//! the core's `ValRaw`, so the client's arrays go to `Func::call_raw` after
//! a check of the kind bytes, and a C callback sees `wasm_val_vec_t` views
//! built in place over the core's value slots. Signatures with `externref`
//! or `funcref` need conversions (host pointers and function objects) and
//! go through the core's typed `Val` API instead.

use std::ffi::c_void;
use std::mem::MaybeUninit;
use std::ptr;
use std::rc::Rc;
use std::time::Instant;

use cranewasm::{AsContextMut, Caller, Func, FuncType, Trap, Val, ValRaw};

use crate::extern_::{copy, new_extern, obj, same, Item};
use crate::instance::Profile;
use crate::object::{release, Finalizer, ObjKind};
use crate::store::{self, StoreData, StoreObj};
use crate::trap::{self as traps, UNLINKED};
use crate::types::{func_type, ExternTypeObj};
use crate::val::{self, wasm_val_t};
use crate::vec::wasm_val_vec_t;
use crate::*;

/// A C callback without an environment.
pub type wasm_func_callback_t =
    Option<unsafe extern "C" fn(args: *const wasm_val_vec_t, results: *mut wasm_val_vec_t) -> *mut wasm_trap_t>;
/// A C callback with an environment pointer.
pub type wasm_func_callback_with_env_t = Option<
    unsafe extern "C" fn(
        env: *mut c_void,
        args: *const wasm_val_vec_t,
        results: *mut wasm_val_vec_t,
    ) -> *mut wasm_trap_t,
>;

/// Value slots kept on the stack for calls and callbacks; more spill to
/// the heap.
const INLINE_SLOTS: usize = 16;

/// What a function object knows of its function.
#[derive(Clone)]
pub struct FuncData {
    pub func: Func,
    pub ty: FuncType,
    /// No reference types in the signature: the fast path applies.
    pub raw: bool,
    /// Where to add the time of calls, when the engine profiles.
    pub profile: Option<(Rc<Profile>, usize)>,
}

fn is_raw(ty: &FuncType) -> bool {
    use cranewasm::ValType::*;
    // A v128 slot in C is a pointer to its bytes (see val.rs), not the
    // bytes themselves, so only scalars can go straight through.
    ty.params().iter().chain(ty.results()).all(|t| matches!(t, I32 | I64 | F32 | F64))
}

/// Registers a new function object for `func` in `store`.
///
/// # Safety
/// `store` must be live and own `func`.
pub unsafe fn new_func_obj(
    store: *mut StoreObj,
    func: Func,
    ty: FuncType,
    profile: Option<(Rc<Profile>, usize)>,
) -> *mut crate::extern_::ExternObj {
    new_extern(store, ObjKind::Func, Item::Func(FuncData { func, ty, raw: is_raw(&ty), profile }))
}

/// The client's environment; its finalizer runs when the core function is
/// dropped, which is when the store is deleted, once.
struct Env {
    env: *mut c_void,
    finalizer: Finalizer,
}

impl Drop for Env {
    fn drop(&mut self) {
        if let Some(f) = self.finalizer {
            // SAFETY: the client gave this finalizer for this environment.
            unsafe { f(self.env) }
        }
    }
}

enum Callback {
    Plain(unsafe extern "C" fn(*const wasm_val_vec_t, *mut wasm_val_vec_t) -> *mut wasm_trap_t),
    WithEnv(unsafe extern "C" fn(*mut c_void, *const wasm_val_vec_t, *mut wasm_val_vec_t) -> *mut wasm_trap_t),
}

/// A C callback as a core host function.
struct HostCallback {
    callback: Callback,
    env: Env,
    ty: FuncType,
}

// SAFETY: the callback and environment are the client's; the C API's
// threading rules (one thread per store at a time) are the client's to
// keep, and the core only calls a host function on its store's thread.
unsafe impl Send for HostCallback {}
unsafe impl Sync for HostCallback {}

/// A view of `n` values at `data`, `used` of them in use.
fn view(data: *mut wasm_val_t, n: usize, used: usize) -> wasm_val_vec_t {
    let size_of_elem = if n == 0 { 0 } else { std::mem::size_of::<wasm_val_t>() };
    let data = if n == 0 { ptr::null_mut() } else { data };
    wasm_val_vec_t { size: n, data, num_elems: used, size_of_elem, lock: ptr::null_mut() }
}

impl HostCallback {
    unsafe fn invoke(&self, params: &wasm_val_vec_t, results: &mut wasm_val_vec_t) -> Result<(), Trap> {
        let trap = match self.callback {
            Callback::Plain(f) => f(params, results),
            Callback::WithEnv(f) => f(self.env.env, params, results),
        };
        if trap.is_null() {
            Ok(())
        } else {
            Err(traps::take_host_trap(trap))
        }
    }

    /// The fast path: parameters are viewed in place; results go to a
    /// zeroed buffer on the stack and are copied into the slots afterwards.
    unsafe fn call_raw(&self, slots: &mut [ValRaw]) -> Result<(), Trap> {
        let m = self.ty.results().len();
        if m > INLINE_SLOTS {
            return self.call_raw_spilled(slots);
        }
        // Only the `m` result slots are zeroed, and one result (the common
        // case) with a store rather than a memset call.
        let mut inline = [const { MaybeUninit::<wasm_val_t>::uninit() }; INLINE_SLOTS];
        if m == 1 {
            inline[0].write(wasm_val_t::ZERO);
        } else {
            for slot in &mut inline[..m] {
                slot.write(wasm_val_t::ZERO);
            }
        }
        // SAFETY: the first `m` slots were just initialised.
        self.call_raw_into(slots, std::slice::from_raw_parts_mut(inline.as_mut_ptr().cast(), m))
    }

    /// The fast path for more results than fit on the stack.
    #[cold]
    unsafe fn call_raw_spilled(&self, slots: &mut [ValRaw]) -> Result<(), Trap> {
        let mut buf = vec![wasm_val_t::ZERO; self.ty.results().len()];
        self.call_raw_into(slots, &mut buf)
    }

    /// Calls the callback with the parameters in `slots` and zeroed result
    /// slots `buf`, then copies the results into `slots`.
    #[inline(always)]
    unsafe fn call_raw_into(&self, slots: &mut [ValRaw], buf: &mut [wasm_val_t]) -> Result<(), Trap> {
        let (n, m) = (self.ty.params().len(), buf.len());
        let params = view(slots.as_mut_ptr().cast(), n, n);
        let mut results = view(buf.as_mut_ptr(), m, 0);
        self.invoke(&params, &mut results)?;
        // The results are whatever the callback left in `data`, whatever
        // `num_elems` says.
        let out = if results.data.is_null() { buf.as_ptr() } else { results.data };
        // SAFETY: `out` holds `m` results (the callback's or ours) and
        // `slots` has room for them; the two are distinct arrays.
        copy_payloads(slots.as_mut_ptr().cast(), out, self.ty.results());
        Ok(())
    }

    /// The reference path, over typed values.
    unsafe fn call_vals(
        &self,
        mut caller: Caller<'_, StoreData>,
        params: &[Val],
        results: &mut [Val],
    ) -> Result<(), Trap> {
        let store = caller.data().obj;
        let mut args: Vec<wasm_val_t> = params.iter().map(|v| val::from_core(store, &mut caller, *v)).collect();
        let mut outs = vec![wasm_val_t::ZERO; results.len()];
        let params_view = view(args.as_mut_ptr(), args.len(), args.len());
        let mut results_view = view(outs.as_mut_ptr(), outs.len(), 0);
        let outcome = self.invoke(&params_view, &mut results_view).and_then(|()| {
            let out = if results_view.data.is_null() { outs.as_ptr() } else { results_view.data.cast_const() };
            for (i, (r, ty)) in results.iter_mut().zip(self.ty.results()).enumerate() {
                *r = val::to_core(store, &mut caller, &*out.add(i), *ty).map_err(Trap::new)?;
            }
            Ok(())
        });
        // The function objects made for the parameters are ours, unless the
        // callback passed one on as a result.
        let returned: Vec<*mut wasm_ref_t> = outs.iter().map(|v| v.ref_ptr()).collect();
        for (a, ty) in args.iter().zip(self.ty.params()) {
            if *ty == cranewasm::ValType::FuncRef && !returned.contains(&a.ref_ptr()) {
                release(a.ref_ptr().cast());
            } else if *ty == cranewasm::ValType::V128 {
                // Read already, if the callback returned it.
                libc::free(a.ref_ptr().cast());
            }
        }
        outcome
    }
}

unsafe fn new_host_func(
    store: *mut wasm_store_t,
    ty: *const wasm_functype_t,
    callback: Callback,
    env: Env,
) -> *mut wasm_func_t {
    let (Some(s), Some(ft)) = (store::from_c(store), func_type(ty)) else {
        // Not created, so the environment stays the client's.
        std::mem::forget(env);
        return ptr::null_mut();
    };
    let s: *mut StoreObj = s;
    let host = HostCallback { callback, env, ty: ft };
    let core = store::core(s);
    let func = if is_raw(&ft) {
        Func::new_raw(core.as_context_mut(), ft, move |_, slots| host.call_raw(slots))
    } else {
        Ok(Func::new(core, ft, move |caller, params, results| host.call_vals(caller, params, results)))
    };
    match func {
        Ok(f) => new_func_obj(s, f, ft, None).cast(),
        Err(e) => {
            log(format_args!("wasm_func_new: {e}"));
            ptr::null_mut()
        }
    }
}

/// A host function of type `ty` that runs `callback`. NULL if any
/// argument is NULL.
#[no_mangle]
pub unsafe extern "C" fn wasm_func_new(
    store: *mut wasm_store_t,
    ty: *const wasm_functype_t,
    callback: wasm_func_callback_t,
) -> *mut wasm_func_t {
    let Some(cb) = callback else { return ptr::null_mut() };
    new_host_func(store, ty, Callback::Plain(cb), Env { env: ptr::null_mut(), finalizer: None })
}

/// A host function of type `ty` that runs `callback` with `env`. The
/// finalizer runs once, when the store is deleted (wasm may call the
/// function until then, even after the client deleted its handle).
#[no_mangle]
pub unsafe extern "C" fn wasm_func_new_with_env(
    store: *mut wasm_store_t,
    ty: *const wasm_functype_t,
    callback: wasm_func_callback_with_env_t,
    env: *mut c_void,
    // Spelled out rather than `Finalizer`, so the header shows the C type.
    finalizer: Option<unsafe extern "C" fn(*mut c_void)>,
) -> *mut wasm_func_t {
    let Some(cb) = callback else { return ptr::null_mut() };
    new_host_func(store, ty, Callback::WithEnv(cb), Env { env, finalizer })
}

/// The function's type; NULL for a placeholder.
#[no_mangle]
pub unsafe extern "C" fn wasm_func_type(f: *const wasm_func_t) -> *mut wasm_functype_t {
    match obj(f).map(|f| &f.item) {
        Some(Item::Func(d)) => ExternTypeObj::new_boxed(&cranewasm::ExternType::Func(d.ty)).cast(),
        _ => ptr::null_mut(),
    }
}

#[no_mangle]
pub unsafe extern "C" fn wasm_func_param_arity(f: *const wasm_func_t) -> usize {
    match obj(f).map(|f| &f.item) {
        Some(Item::Func(d)) => d.ty.params().len(),
        _ => 0,
    }
}

#[no_mangle]
pub unsafe extern "C" fn wasm_func_result_arity(f: *const wasm_func_t) -> usize {
    match obj(f).map(|f| &f.item) {
        Some(Item::Func(d)) => d.ty.results().len(),
        _ => 0,
    }
}

/// Calls the function. The arguments must match its parameters in number
/// and kind; `results` must have room (`size`) for its results, which are
/// written to `results->data` with `num_elems = size = result count`.
/// Returns NULL on success and an owned trap otherwise: a trap of the
/// function, or a wrong argument list. NULL `func` does nothing.
#[no_mangle]
pub unsafe extern "C" fn wasm_func_call(
    func: *const wasm_func_t,
    args: *const wasm_val_vec_t,
    results: *mut wasm_val_vec_t,
) -> *mut wasm_trap_t {
    let Some(f) = obj(func) else { return ptr::null_mut() };
    let store = f.header.store;
    let Item::Func(data) = &f.item else { return traps::new_trap(store, UNLINKED.as_bytes(), Vec::new()) };
    let ty = data.ty;
    let (np, nr) = (ty.params().len(), ty.results().len());
    let args: &[wasm_val_t] = args.as_ref().map_or(&[], |a| a.raw().as_slice());
    if args.len() != np {
        let msg = format!("wasm_func_call: expected {np} arguments, got {}", args.len());
        return traps::new_trap(store, msg.as_bytes(), Vec::new());
    }
    for (i, (a, t)) in args.iter().zip(ty.params()).enumerate() {
        if a.kind != t.kind() {
            let msg = format!("wasm_func_call: argument {i} has kind {}, expected {t}", a.kind);
            return traps::new_trap(store, msg.as_bytes(), Vec::new());
        }
    }
    let (out, out_size) = match results.as_mut() {
        _ if nr == 0 => (ptr::null_mut(), 0),
        Some(r) if r.size >= nr && !r.data.is_null() => (r.data, r.size),
        _ => {
            let msg = format!("wasm_func_call: the results vector has no room for {nr} results");
            return traps::new_trap(store, msg.as_bytes(), Vec::new());
        }
    };

    let start = data.profile.as_ref().map(|_| Instant::now());
    let outcome = if data.raw { call_raw(store, data, args, out, out_size) } else { call_vals(store, data, args, out) };
    if let (Some(start), Some((profile, i))) = (start, &data.profile) {
        profile.add(*i, start.elapsed());
    }
    match outcome {
        Ok(()) => {
            if let Some(r) = results.as_mut().filter(|_| nr > 0) {
                r.num_elems = nr;
                r.size = nr;
            }
            ptr::null_mut()
        }
        Err(trap) => trap,
    }
}

/// Copies the payloads of scalar values `src[i]` to `dst[i]`, each at its
/// type's width. Copying whole 16-byte slots right after the client wrote
/// a 4-byte `of.i32` stalls on store forwarding (several nanoseconds per
/// call); the trampolines read only the payloads.
///
/// # Safety
/// `src` and `dst` must hold `types.len()` values each; they may be the
/// same array but must not otherwise overlap.
unsafe fn copy_payloads(dst: *mut wasm_val_t, src: *const wasm_val_t, types: &[cranewasm::ValType]) {
    if ptr::eq(dst, src) {
        return;
    }
    for (i, ty) in types.iter().enumerate() {
        let (from, to) = (&*src.add(i), &mut *dst.add(i));
        to.kind = from.kind;
        match ty {
            cranewasm::ValType::I32 | cranewasm::ValType::F32 => to.of.i32 = from.of.i32,
            _ => to.of.i64 = from.of.i64,
        }
    }
}

/// Runs a call whose values are all numbers over one slot array: the
/// client's arguments when there are no results, the client's results
/// buffer when it can hold both, a stack buffer otherwise.
unsafe fn call_raw(
    store: *mut StoreObj,
    data: &FuncData,
    args: &[wasm_val_t],
    out: *mut wasm_val_t,
    out_size: usize,
) -> Result<(), *mut wasm_trap_t> {
    let (np, nr) = (args.len(), data.ty.results().len());
    let mut cx = store::core(store).as_context_mut();
    let opaque = cx.opaque();
    // SAFETY (each call_raw): the slots hold the arguments, whose kinds
    // were checked against the signature, and have room for
    // max(params, results) values.
    let result = if nr == 0 {
        // Nothing is written back, so the arguments are used in place.
        data.func.call_raw(opaque, args.as_ptr().cast_mut().cast())
    } else if out_size >= np.max(nr) {
        let (a, o) = (args.as_ptr() as usize, out as usize);
        let len = np * std::mem::size_of::<wasm_val_t>();
        if a == o || a + len <= o || o + len <= a {
            // The same array for both (a common client idiom), or apart.
            copy_payloads(out, args.as_ptr(), data.ty.params());
        } else {
            ptr::copy(args.as_ptr(), out, np);
        }
        data.func.call_raw(opaque, out.cast())
    } else {
        let n = np.max(nr);
        let mut inline = [ValRaw::default(); INLINE_SLOTS];
        let mut spilled = Vec::new();
        let slots = if n <= INLINE_SLOTS {
            &mut inline[..n]
        } else {
            spilled.resize(n, ValRaw::default());
            &mut spilled[..]
        };
        copy_payloads(slots.as_mut_ptr().cast(), args.as_ptr(), data.ty.params());
        let r = data.func.call_raw(opaque, slots.as_mut_ptr());
        if r.is_ok() {
            copy_payloads(out, slots.as_ptr().cast(), data.ty.results());
        }
        r
    };
    result.map_err(|t| traps::from_core(store, &t))
}

/// Runs a call with references through the core's typed API.
unsafe fn call_vals(
    store: *mut StoreObj,
    data: &FuncData,
    args: &[wasm_val_t],
    out: *mut wasm_val_t,
) -> Result<(), *mut wasm_trap_t> {
    let ty = data.ty;
    let core = store::core(store);
    let mut params = Vec::with_capacity(args.len());
    for (a, t) in args.iter().zip(ty.params()) {
        match val::to_core(store, &mut *core, a, *t) {
            Ok(v) => params.push(v),
            Err(msg) => return Err(traps::new_trap(store, format!("wasm_func_call: {msg}").as_bytes(), Vec::new())),
        }
    }
    let mut results: Vec<Val> = ty.results().iter().map(|t| Val::default_for(*t)).collect();
    if let Err(e) = data.func.call(&mut *core, &params, &mut results) {
        return Err(traps::from_error(store, &e));
    }
    for (i, r) in results.into_iter().enumerate() {
        out.add(i).write(val::from_core(store, &mut *core, r));
    }
    Ok(())
}

#[no_mangle]
pub unsafe extern "C" fn wasm_func_copy(f: *const wasm_func_t) -> *mut wasm_func_t {
    copy(f)
}

/// Deletes the handle; the function stays callable by wasm until its store
/// is deleted.
#[no_mangle]
pub unsafe extern "C" fn wasm_func_delete(f: *mut wasm_func_t) {
    release(f.cast())
}

#[no_mangle]
pub unsafe extern "C" fn wasm_func_same(a: *const wasm_func_t, b: *const wasm_func_t) -> bool {
    same(a, b)
}
