//! Functions: host functions made from C callbacks, and calls.
//!
//! Calls are the hot path, so signatures without references take a fast
//! route that neither allocates nor locks: `wasm_val_t` has the layout of
//! the core's `ValRaw`, so the client's arrays go to `Func::call_raw` after
//! a check of the kind bytes, and a C callback sees `wasm_val_vec_t` views
//! built in place over the core's value slots. Signatures with `externref`
//! or `funcref` need conversions (host pointers and function objects) and
//! go through the core's typed `Val` API instead.

use crate::core::kinds::{self, valkind};
use std::ffi::c_void;
use std::mem::MaybeUninit;
use std::ptr;
use std::rc::Rc;
use std::sync::Arc;
use std::time::Instant;

use cranewasm::{AsContextMut, Caller, Func, FuncType, TrapError, Val, ValRaw};

use crate::c_api::extern_::{ExternObj, Item, Unbound};
use crate::c_api::instance::Profile;
use crate::c_api::store::{self, StoreData, StoreObj};
use crate::c_api::trap::{self as traps, UNLINKED};
use crate::c_api::types::func_type;
use crate::c_api::val::{self, wasm_val_t};
use crate::c_api::vec::wasm_val_vec_t;
use crate::ext::exceptions;
use crate::handle::Kind;
use crate::object::{self, Finalizer, c_object, get};
use crate::*;

c_object! {
    /// A function; also a `wasm_extern_t`.
    wasm_func_t: ExternObj [Func];
    delete: wasm_func_delete;
    copy: wasm_func_copy;
    same: wasm_func_same;
    host_info: wasm_func_get_host_info, wasm_func_set_host_info, wasm_func_set_host_info_with_finalizer;
    as_ref: wasm_func_as_ref, wasm_func_as_ref_const, wasm_ref_as_func, wasm_ref_as_func_const;
    upcast wasm_extern_t: wasm_func_as_extern, wasm_func_as_extern_const, wasm_extern_as_func, wasm_extern_as_func_const;
}

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

use crate::core::call::{self as core, INLINE_SLOTS};

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

impl FuncData {
    pub fn new(func: Func, ty: FuncType, profile: Option<(Rc<Profile>, usize)>) -> FuncData {
        FuncData { func, raw: is_raw(&ty), ty, profile }
    }
}

/// Whether calls of this type take the fast path. A v128 slot in C is a
/// pointer to its bytes (see val.rs), not the bytes themselves, so only
/// scalars can go straight through.
fn is_raw(ty: &FuncType) -> bool {
    crate::core::call::is_scalar(ty)
}

/// Registers a new function object for `func` in `store`.
///
/// # Safety
/// `store` must be live and own `func`.
pub unsafe fn new_func(store: *mut StoreObj, func: Func, ty: FuncType) -> *mut wasm_func_t {
    // SAFETY: as the caller promises.
    object::new(unsafe { ExternObj::new(store, Kind::Func, Item::Func(FuncData::new(func, ty, None)), None) })
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

/// A C callback as a core host function: shared by the core functions made
/// from it (one per store that links a function made without a store) and
/// the object, so that the env finalizer runs once, with the last.
pub struct HostCallback {
    callback: Callback,
    env: Env,
    pub ty: FuncType,
}

// SAFETY: the callback and environment are the client's; the C API's
// threading rules (one thread per store at a time) are the client's to
// keep, and the core only calls a host function on its store's thread.
unsafe impl Send for HostCallback {}
// SAFETY: as for `Send`.
unsafe impl Sync for HostCallback {}

/// A view of `n` values at `data`, `used` of them in use.
fn view(data: *mut wasm_val_t, n: usize, used: usize) -> wasm_val_vec_t {
    let size_of_elem = if n == 0 { 0 } else { std::mem::size_of::<wasm_val_t>() };
    let data = if n == 0 { ptr::null_mut() } else { data };
    wasm_val_vec_t { size: n, data, num_elems: used, size_of_elem, lock: ptr::null_mut() }
}

impl HostCallback {
    /// Runs the callback.
    ///
    /// # Safety
    /// `params` and `results` must be views the callback may read and
    /// write, on the thread of the function's store.
    unsafe fn invoke(&self, params: &wasm_val_vec_t, results: &mut wasm_val_vec_t) -> Result<(), TrapError> {
        // SAFETY: the client's callback, called as its type says.
        let trap = unsafe {
            match self.callback {
                Callback::Plain(f) => f(params, results),
                Callback::WithEnv(f) => f(self.env.env, params, results),
            }
        };
        if trap.is_null() {
            Ok(())
        } else {
            // SAFETY: a trap object returned to us is ours to take.
            Err(unsafe { traps::take_host_trap(trap) }.unwrap_or_else(|| TrapError::new(traps::NOT_A_TRAP)))
        }
    }

    /// The fast path: parameters are viewed in place; results go to a
    /// zeroed buffer on the stack and are copied into the slots afterwards.
    ///
    /// # Safety
    /// `slots` must hold the parameters, with room for the results.
    unsafe fn call_raw(&self, slots: &mut [ValRaw]) -> Result<(), TrapError> {
        let m = self.ty.results().len();
        if m > INLINE_SLOTS {
            // SAFETY: as the caller promises.
            return unsafe { self.call_raw_spilled(slots) };
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
        // SAFETY: the first `m` slots were just initialised; `slots` as the
        // caller promises.
        unsafe { self.call_raw_into(slots, std::slice::from_raw_parts_mut(inline.as_mut_ptr().cast(), m)) }
    }

    /// The fast path for more results than fit on the stack.
    ///
    /// # Safety
    /// As for [`HostCallback::call_raw`].
    #[cold]
    unsafe fn call_raw_spilled(&self, slots: &mut [ValRaw]) -> Result<(), TrapError> {
        let mut buf = vec![wasm_val_t::ZERO; self.ty.results().len()];
        // SAFETY: as the caller promises.
        unsafe { self.call_raw_into(slots, &mut buf) }
    }

    /// Calls the callback with the parameters in `slots` and zeroed result
    /// slots `buf`, then copies the results into `slots`.
    ///
    /// # Safety
    /// As for [`HostCallback::call_raw`]; `buf` holds one slot per result.
    #[inline(always)]
    unsafe fn call_raw_into(&self, slots: &mut [ValRaw], buf: &mut [wasm_val_t]) -> Result<(), TrapError> {
        let (n, m) = (self.ty.params().len(), buf.len());
        let params = view(slots.as_mut_ptr().cast(), n, n);
        let mut results = view(buf.as_mut_ptr(), m, 0);
        // SAFETY: views of `slots` and `buf`, alive for the call.
        unsafe { self.invoke(&params, &mut results)? };
        // The results are whatever the callback left in `data`, whatever
        // `num_elems` says.
        let out = if results.data.is_null() { buf.as_ptr() } else { results.data };
        // SAFETY: `out` holds `m` results (the callback's or ours) and
        // `slots` has room for them; the two are distinct arrays.
        unsafe { copy_payloads(slots.as_mut_ptr().cast(), out, self.ty.results()) };
        Ok(())
    }

    /// The path for references and v128s: the slots, externrefs already
    /// host pointers (see [`crate::core::host`]), are converted to
    /// `wasm_val_t`s (a funcref to a new function object, a v128 to 16
    /// bytes from `malloc`) and the results back.
    ///
    /// # Safety
    /// Called by the core on the thread of the function's store, with the
    /// parameters in `slots` and room for the results.
    unsafe fn call_slots(&self, caller: &mut Caller<'_, StoreData>, slots: &mut [ValRaw]) -> Result<(), TrapError> {
        let store = store::obj_of(caller.data());
        let mut args: Vec<wasm_val_t> = slots
            .iter()
            .zip(self.ty.params())
            // SAFETY: `store` is the live C store of the core store
            // `caller` is a context of; the slots are the call's.
            .map(|(s, t)| unsafe { val::from_slot(store, &mut *caller, *s, *t) })
            .collect();
        let mut outs = vec![wasm_val_t::ZERO; self.ty.results().len()];
        let params_view = view(args.as_mut_ptr(), args.len(), args.len());
        let mut results_view = view(outs.as_mut_ptr(), outs.len(), 0);
        // SAFETY: views of `args` and `outs`, alive for the call.
        let outcome = unsafe { self.invoke(&params_view, &mut results_view) }.and_then(|()| {
            let out = if results_view.data.is_null() { outs.as_ptr() } else { results_view.data.cast_const() };
            for (i, ty) in self.ty.results().iter().enumerate() {
                // SAFETY: `out` holds one value per result; `caller` is a
                // context of a live store.
                slots[i] = unsafe { val::to_slot(&mut *caller, &*out.add(i), *ty) }.map_err(TrapError::new)?;
            }
            Ok(())
        });
        // The function and GC reference objects made for the parameters
        // are ours, unless the callback passed one on as a result (an
        // externref's pointer is the client's own).
        let returned: Vec<*mut wasm_ref_t> = outs.iter().map(|v| v.ref_ptr()).collect();
        for (a, ty) in args.iter().zip(self.ty.params()) {
            let made_here =
                matches!(ty, cranewasm::ValType::Ref(r) if r.heap_type().top() != cranewasm::HeapType::Extern);
            if made_here && !returned.contains(&a.ref_ptr()) {
                // SAFETY: our own object, used by nothing else now.
                unsafe { object::delete::<wasm_ref_t>(a.ref_ptr()) };
            } else if *ty == cranewasm::ValType::V128 {
                // SAFETY: the 16 bytes `from_slot` allocated (already read,
                // if the callback returned them).
                unsafe { libc::free(a.ref_ptr().cast()) };
            }
        }
        outcome
    }
}

/// Makes a host function from a C callback: in `store`, or, as WAMR does
/// for a NULL store, an object of no store that becomes a function of each
/// store whose instance links it.
///
/// # Safety
/// As for [`wasm_func_new_with_env`].
unsafe fn new_host_func(
    store: Option<&mut wasm_store_t>,
    ty: Option<&wasm_functype_t>,
    callback: Callback,
    env: Env,
) -> *mut wasm_func_t {
    // SAFETY: the client keeps the threading rule of the store.
    let (s, ft) = unsafe { (store::from_c(store), func_type(ty)) };
    let Some(ft) = ft else {
        // Not created, so the environment stays the client's.
        std::mem::forget(env);
        return ptr::null_mut();
    };
    let host = Arc::new(HostCallback { callback, env, ty: ft.clone() });
    let Some(s) = s else {
        // SAFETY: an object of no store.
        return object::new(unsafe { ExternObj::unbound(ptr::null_mut(), Kind::Func, Unbound::Func(host)) });
    };
    // SAFETY: the store is live and not otherwise borrowed here.
    match unsafe { realize(s, &host) } {
        // SAFETY: the store is live and owns the new function.
        Ok(f) => unsafe { new_func(s, f, ft) },
        Err(e) => {
            log(format_args!("wasm_func_new: {e}"));
            ptr::null_mut()
        }
    }
}

/// A core function of `store` that runs `host`.
///
/// # Safety
/// `store` must be live and not otherwise borrowed.
pub unsafe fn realize(store: *mut StoreObj, host: &Arc<HostCallback>) -> cranewasm::Result<Func> {
    let (ty, host) = (host.ty.clone(), host.clone());
    // SAFETY: as the caller promises.
    let core = unsafe { store::core(store) };
    // A NULL host pointer in an externref result is `ref.null`.
    if is_raw(&ty) {
        crate::core::host::new(core.as_context_mut(), ty, 0, move |caller, slots| {
            // SAFETY: the core calls this on the store's thread, with the
            // parameters in `slots` and room for the results.
            unsafe { host.call_raw(slots) }.map_err(|t| exceptions::in_store(&caller, t))
        })
    } else {
        crate::core::host::new(core.as_context_mut(), ty, 0, move |mut caller, slots| {
            // SAFETY: as above.
            unsafe { host.call_slots(&mut caller, slots) }.map_err(|t| exceptions::in_store(&caller, t))
        })
    }
}

/// A host function of type `ty` that runs `callback`; of no store for a
/// NULL store (see [`wasm_func_new_with_env`]). NULL if the type or the
/// callback is NULL.
///
/// # Safety
/// As for [`wasm_func_new_with_env`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_func_new(
    store: Option<&mut wasm_store_t>,
    ty: Option<&wasm_functype_t>,
    callback: wasm_func_callback_t,
) -> *mut wasm_func_t {
    let Some(cb) = callback else { return ptr::null_mut() };
    // SAFETY: as the caller promises.
    unsafe { new_host_func(store, ty, Callback::Plain(cb), Env { env: ptr::null_mut(), finalizer: None }) }
}

/// A host function of type `ty` that runs `callback` with `env`. The
/// finalizer runs once, when the store is deleted (wasm may call the
/// function until then, even after the client deleted its handle). With a
/// NULL store, as in WAMR, the function belongs to no store: it links
/// into instances of any store, and the finalizer runs once the object
/// and every store that linked it are deleted.
///
/// # Safety
/// `store` and `ty` may be NULL or any pointers: anything but a live store
/// (for which the function belongs to no store) and function type counts
/// as NULL. `callback` must be safe to call with
/// `env` and the parameter and result vectors of the type, on the store's
/// thread, as long as the store lives; `finalizer`, if given, with `env`.
/// The store must not be used by another thread meanwhile.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_func_new_with_env(
    store: Option<&mut wasm_store_t>,
    ty: Option<&wasm_functype_t>,
    callback: wasm_func_callback_with_env_t,
    env: *mut c_void,
    // Spelled out rather than `Finalizer`, so the header shows the C type.
    finalizer: Option<unsafe extern "C" fn(*mut c_void)>,
) -> *mut wasm_func_t {
    let Some(cb) = callback else { return ptr::null_mut() };
    // SAFETY: as the caller promises.
    unsafe { new_host_func(store, ty, Callback::WithEnv(cb), Env { env, finalizer }) }
}

/// The type of a live function handle (`None` for a placeholder).
///
/// # Safety
/// As for [`object::get`].
unsafe fn ty_of(f: Option<&wasm_func_t>) -> Option<FuncType> {
    // SAFETY: as the caller promises.
    match unsafe { get::<wasm_func_t>(f) }.map(|f| &f.item) {
        Some(Item::Func(d)) => Some(d.ty.clone()),
        Some(Item::Unbound(u)) => match &**u {
            Unbound::Func(host) => Some(host.ty.clone()),
            _ => None,
        },
        _ => None,
    }
}

/// The function's type; NULL for a placeholder.
///
/// # Safety
/// `f` may be NULL or any pointer: anything but a live function counts as
/// NULL. No other thread may delete it meanwhile.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_func_type(f: Option<&wasm_func_t>) -> *mut wasm_functype_t {
    // SAFETY: the client keeps the threading rule above.
    unsafe { get::<wasm_func_t>(f) }.map_or(ptr::null_mut(), |o| o.type_handle().cast())
}

/// The number of parameters (0 for NULL or a placeholder).
///
/// # Safety
/// As for [`wasm_func_type`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_func_param_arity(f: Option<&wasm_func_t>) -> usize {
    // SAFETY: the client keeps the threading rule of `wasm_func_type`.
    unsafe { ty_of(f) }.map_or(0, |ty| ty.params().len())
}

/// The number of results (0 for NULL or a placeholder).
///
/// # Safety
/// As for [`wasm_func_type`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_func_result_arity(f: Option<&wasm_func_t>) -> usize {
    // SAFETY: the client keeps the threading rule of `wasm_func_type`.
    unsafe { ty_of(f) }.map_or(0, |ty| ty.results().len())
}

/// Calls the function, as WAMR does: one argument per parameter is read
/// from `args->data` (extra ones are ignored; too few are a trap), each at
/// the width of its kind byte, so an argument of the other kind of the
/// same width (`f32` for `i32`, `f64` for `i64`) passes its bits; other
/// kinds are a trap. The function runs before `results` is looked at, so a
/// trap of the function is returned even with no room for results; after
/// a successful call the results go to `results->data`, with `num_elems =
/// size = result count`, or, when `results` has no room for them (where
/// WAMR would write past it), nothing is written and a trap says so.
/// Returns NULL on success and an owned trap otherwise. NULL `func` does
/// nothing.
///
/// # Safety
/// `func` may be NULL or any pointer: anything but a live function counts
/// as NULL. `args` and `results` must be NULL or valid vectors (`data`
/// holding `size` values, or `num_elems` if more). A callback that runs
/// meanwhile may delete the function. The store must not be used by
/// another thread meanwhile.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_func_call(
    func: Option<&wasm_func_t>,
    args: Option<&wasm_val_vec_t>,
    results: Option<&mut wasm_val_vec_t>,
) -> *mut wasm_trap_t {
    // SAFETY: the object is read before the call only: a callback may
    // delete it, so what the call needs is copied out first.
    let Some(f) = (unsafe { get::<wasm_func_t>(func) }) else { return ptr::null_mut() };
    let store = f.header.store;
    let Item::Func(data) = &f.item else {
        // A placeholder, or a function of no store (which WAMR, too, calls
        // only through an instance).
        // SAFETY: the store of a live object is NULL or live.
        return unsafe { traps::new_trap(store, UNLINKED.as_bytes(), Vec::new()) };
    };
    let call = Call { func: data.func, ty: data.ty.clone(), raw: data.raw };
    let profile = data.profile.clone();
    // SAFETY: the store of a live function of the core is live; the
    // vectors are valid (caller). A store another thread is using gets a
    // trap of no store (making one in it would touch it).
    unsafe {
        store::claimed(store, "wasm_func_call", || call.run(store, args, results, profile))
            .unwrap_or_else(|| traps::new_trap(ptr::null_mut(), STORE_BUSY.as_bytes(), Vec::new()))
    }
}

/// The message of the trap a call into a store another thread is using
/// gets.
pub const STORE_BUSY: &str = "Exception: store is in use by another thread";

/// Whether an argument of kind `kind` is read as a `ty`: its own kind, or
/// WAMR's reading of a same-width number by its bits. A concrete
/// reference type takes either reference kind: whether it names a function
/// or a struct or array type is the engine's to say, and the value's
/// object says which it is (see [`val::to_core`]).
fn kind_fits(kind: u8, ty: cranewasm::ValType) -> bool {
    if let cranewasm::ValType::Ref(r) = ty
        && let cranewasm::HeapType::Concrete(_) = r.heap_type()
    {
        return kind == kinds::EXTERNREF || kind == kinds::FUNCREF;
    }
    let width = |k: u8| match k {
        k if k == kinds::I32 || k == kinds::F32 => Some(4),
        k if k == kinds::I64 || k == kinds::F64 => Some(8),
        _ => None,
    };
    kind == valkind(ty) || (width(kind).is_some() && width(kind) == width(valkind(ty)))
}

/// What [`wasm_func_call`] needs of a function object, copied out of it.
struct Call {
    func: Func,
    ty: FuncType,
    raw: bool,
}

impl Call {
    /// Checks the arguments, calls and writes the results.
    ///
    /// # Safety
    /// `store` must be live and own the function; the vectors valid.
    unsafe fn run(
        &self,
        store: *mut StoreObj,
        args: Option<&wasm_val_vec_t>,
        results: Option<&mut wasm_val_vec_t>,
        profile: Option<(Rc<Profile>, usize)>,
    ) -> *mut wasm_trap_t {
        let trap = |msg: String| {
            // SAFETY: `store` is live (caller).
            unsafe { traps::new_trap(store, msg.as_bytes(), Vec::new()) }
        };
        let (np, nr) = (self.ty.params().len(), self.ty.results().len());
        // SAFETY: a valid vector (caller).
        let given: &[wasm_val_t] = args.map_or(&[], |a| unsafe { a.raw().first(a.size.max(a.num_elems)) });
        let Some(args) = given.get(..np) else {
            return trap(format!("wasm_func_call: expected {np} arguments, got {}", given.len()));
        };
        for (i, (a, t)) in args.iter().zip(self.ty.params()).enumerate() {
            if !kind_fits(a.kind, *t) {
                return trap(format!("wasm_func_call: argument {i} has kind {}, expected {t}", a.kind));
            }
        }
        // Where the results go: NULL (a scratch buffer) when there is no
        // room, checked only after the call.
        let (out, out_size) = match &results {
            Some(r) if nr > 0 && r.size >= nr && !r.data.is_null() => (r.data, r.size),
            _ => (ptr::null_mut(), 0),
        };

        let start = profile.as_ref().map(|_| Instant::now());
        // SAFETY: the arguments were checked against the signature, and
        // `out` is NULL or has room for `out_size >= nr` values.
        let outcome = unsafe {
            if self.raw { self.call_raw(store, args, out, out_size) } else { self.call_slots(store, args, out) }
        };
        if let (Some(start), Some((profile, i))) = (start, &profile) {
            profile.add(*i, start.elapsed());
        }
        match outcome {
            Ok(()) if nr > 0 && out.is_null() => {
                trap(format!("wasm_func_call: the results vector has no room for {nr} results"))
            }
            Ok(()) => {
                if let Some(r) = results.filter(|_| nr > 0) {
                    r.num_elems = nr;
                    r.size = nr;
                }
                ptr::null_mut()
            }
            Err(trap) => trap,
        }
    }

    /// Runs a call whose values are all numbers over one slot array: the
    /// client's arguments when there are no results, the client's results
    /// buffer when it can hold both, a stack buffer otherwise (whose
    /// results are dropped when `out` is NULL).
    ///
    /// # Safety
    /// As for [`Call::run`]; `args` match the parameters, `out` is NULL or
    /// has room for `out_size >= results` values.
    unsafe fn call_raw(
        &self,
        store: *mut StoreObj,
        args: &[wasm_val_t],
        out: *mut wasm_val_t,
        out_size: usize,
    ) -> Result<(), *mut wasm_trap_t> {
        let (np, nr) = (args.len(), self.ty.results().len());
        // SAFETY: `store` is live (caller).
        let core = unsafe { store::core(store) };
        // SAFETY: (each call) `slots` hold the arguments, whose kinds were
        // checked against the signature, with room for max(params, results)
        // values.
        let mut call = |slots: *mut ValRaw| unsafe { core::call_raw(&mut *core, self.func, slots) };
        // SAFETY: (each copy) the arrays hold the arguments and have room
        // for max(params, results) values; `out` has room for `out_size`.
        let result = unsafe {
            if nr == 0 {
                // Nothing is written back, so the arguments are used in place.
                call(args.as_ptr().cast_mut().cast())
            } else if out_size >= np.max(nr) {
                let (a, o) = (args.as_ptr() as usize, out as usize);
                let len = np * std::mem::size_of::<wasm_val_t>();
                if a == o || a + len <= o || o + len <= a {
                    // The same array for both (a common client idiom), or apart.
                    copy_payloads(out, args.as_ptr(), self.ty.params());
                } else {
                    ptr::copy(args.as_ptr(), out, np);
                }
                call(out.cast())
            } else {
                core::with_slots(np.max(nr), |slots| {
                    copy_payloads(slots.as_mut_ptr().cast(), args.as_ptr(), self.ty.params());
                    let r = call(slots.as_mut_ptr());
                    if r.is_ok() && !out.is_null() {
                        copy_payloads(out, slots.as_ptr().cast(), self.ty.results());
                    }
                    r
                })
            }
        };
        // SAFETY: `store` is live (caller).
        result.map_err(|t| unsafe { traps::from_core(store, &t) })
    }

    /// Runs a call with references or v128s: the arguments are converted
    /// into slots (a function object to its funcref, a host pointer to its
    /// externref, a v128's 16 bytes), and the results out of them.
    ///
    /// # Safety
    /// As for [`Call::call_raw`].
    unsafe fn call_slots(
        &self,
        store: *mut StoreObj,
        args: &[wasm_val_t],
        out: *mut wasm_val_t,
    ) -> Result<(), *mut wasm_trap_t> {
        // SAFETY: `store` is live (caller) and not otherwise borrowed here.
        let core = unsafe { store::core(store) };
        let n = self.ty.params().len().max(self.ty.results().len());
        core::with_slots(n, |slots| {
            for (i, ((s, a), t)) in slots.iter_mut().zip(args).zip(self.ty.params()).enumerate() {
                // SAFETY: `core` is the core store of `store`.
                let msg = match unsafe { val::to_core(&mut *core, a, *t) } {
                    // The kind byte said little about a reference: its
                    // value must be one of the parameter's type, or
                    // compiled code would read it as one.
                    Ok(v) if !v.matches_ty_in(&*core, *t) => {
                        format!("wasm_func_call: argument {i} is not a value of type {t}")
                    }
                    Ok(v) => match v.into_raw_in_mut(&mut *core) {
                        Ok(v) => {
                            *s = v;
                            continue;
                        }
                        // A reference of another store, as the core words it.
                        Err(e) => e.to_string(),
                    },
                    Err(msg) => format!("wasm_func_call: {msg}"),
                };
                // SAFETY: `store` is live.
                return Err(unsafe { traps::new_trap(store, msg.as_bytes(), Vec::new()) });
            }
            // SAFETY: the slots hold the parameters, of the store, with
            // room for the results.
            if let Err(t) = unsafe { core::call_raw(&mut *core, self.func, slots.as_mut_ptr()) } {
                // SAFETY: `store` is live.
                return Err(unsafe { traps::from_core(store, &t) });
            }
            if out.is_null() {
                return Ok(());
            }
            // The results' own handles end here; reference objects pin them.
            let mut scope = cranewasm::RootScope::new(&mut *core);
            for (i, (s, t)) in slots.iter().zip(self.ty.results()).enumerate() {
                // SAFETY: the call's results, of this store.
                let v = unsafe { Val::from_raw_in(&scope, *s, *t) };
                // SAFETY: `out` has room for every result (caller); `scope`
                // is the core store of `store`.
                unsafe { out.add(i).write(val::from_core(store, &mut scope, v)) };
            }
            Ok(())
        })
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
        // SAFETY: both arrays hold `types.len()` values and do not overlap.
        let (from, to) = unsafe { (&*src.add(i), &mut *dst.add(i)) };
        to.kind = from.kind;
        // SAFETY: reading the union as the integer of the value's width;
        // every bit pattern is an integer.
        unsafe {
            match ty {
                cranewasm::ValType::I32 | cranewasm::ValType::F32 => to.of.i32 = from.of.i32,
                _ => to.of.i64 = from.of.i64,
            }
        }
    }
}
