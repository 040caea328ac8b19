//! Functions: host functions, calls from the host, and the [`Func`] handle.
//!
//! Every function, wasm or host, is a [`VMFuncRef`]. Calling one from the
//! host goes through its `array_call` entry with an array of raw slots: for
//! wasm functions that is the compiled entry trampoline of the signature,
//! for host functions a Rust shim. Wasm calls a host function through the
//! exit trampoline in `wasm_call`, which lands in [`HostFunc::host_call`].

use std::mem::MaybeUninit;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr::NonNull;
use std::sync::Arc;

use super::caller::Caller;
use super::entry::{enter_wasm, raise_host_trap};
use super::store::{AsContext, AsContextMut, StoreContextMut, StoreId, StoreInner, StoreOpaque};
use super::unwind::{raise, UnwindReason};
use crate::code_memory::CodeMemory;
use crate::error::{Error, Result};
use crate::trap::{Trap, TrapCode};
use crate::types::FuncType;
use crate::values::{Val, ValRaw};
use crate::vmctx::{VMContext, VMFuncRef, VMStoreContext, HOST_CONTEXT_MAGIC};

/// How a host function is called: `(context, caller_vmctx, values)`.
type HostCallFn = unsafe extern "C" fn(*mut HostFunc, *mut VMContext, *mut ValRaw);

/// A host function's context. Its `VMFuncRef` names it as the "vmctx", so
/// the exit trampoline finds `host_call` and the store at fixed offsets
/// (see [`crate::vmctx::host_ctx`]).
#[repr(C)]
pub(crate) struct HostFunc {
    magic: u32,
    host_call: HostCallFn,
    store_vm: *mut VMStoreContext,
    func_ref: VMFuncRef,
    store: *mut StoreOpaque,
    ty: FuncType,
    /// The exit trampoline `func_ref.wasm_call` points into.
    _trampoline: Option<Arc<CodeMemory>>,
    /// The closure `host_call` runs; its concrete type is known only to
    /// `host_call`.
    closure: Box<dyn std::any::Any + Send + Sync>,
}

/// A function in a store: defined by a wasm instance or by the host.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Func {
    pub(crate) store: StoreId,
    pub(crate) ptr: NonNull<VMFuncRef>,
}

// SAFETY: a handle is an id; it is only dereferenced with its store.
unsafe impl Send for Func {}
// SAFETY: a shared `&Func` only lets one copy the id and pointer; every
// dereference still goes through its store, which is borrowed for it.
unsafe impl Sync for Func {}

impl Func {
    /// A host function of type `ty` working on [`Val`]s.
    pub fn new<T: 'static>(
        mut store: impl AsContextMut<Data = T>,
        ty: FuncType,
        f: impl Fn(Caller<'_, T>, &[Val], &mut [Val]) -> Result<(), Trap> + Send + Sync + 'static,
    ) -> Func {
        let raw = move |mut caller: Caller<'_, T>, slots: &mut [ValRaw]| {
            let (n_params, n_results) = (ty.params().len(), ty.results().len());
            with_scratch(n_params + n_results, Val::I32(0), |vals| {
                let (params, results) = vals.split_at_mut(n_params);
                let store = &caller.store.opaque;
                for ((p, slot), t) in params.iter_mut().zip(slots.iter()).zip(ty.params()) {
                    *p = Val::from_raw(store, *slot, *t);
                }
                for (r, t) in results.iter_mut().zip(ty.results()) {
                    *r = Val::default_for(*t);
                }
                f(caller.reborrow(), params, results)?;
                let store = &caller.store.opaque;
                for ((slot, r), t) in slots.iter_mut().zip(results.iter()).zip(ty.results()) {
                    if r.ty() != *t {
                        return Err(Trap::new(format!("host function returned {} where {t} was expected", r.ty())));
                    }
                    *slot = r.to_raw(store).map_err(|e| Trap::new(e.to_string()))?;
                }
                Ok(())
            })
        };
        Func::new_raw(store.as_context_mut(), ty, raw).expect("trampoline compilation cannot fail")
    }

    /// A host function of type `ty` working on raw slots: the fast form
    /// that the C API and typed functions build on.
    pub fn new_raw<T: 'static, F>(store: StoreContextMut<'_, T>, ty: FuncType, f: F) -> Result<Func>
    where
        F: Fn(Caller<'_, T>, &mut [ValRaw]) -> Result<(), Trap> + Send + Sync + 'static,
    {
        let inner: &mut StoreInner<T> = store.0;
        let trampoline = inner.opaque.engine().exit_trampoline(ty)?;
        let store_ptr: *mut StoreInner<T> = inner;
        let mut host = Box::new(HostFunc {
            magic: HOST_CONTEXT_MAGIC,
            host_call: host_call::<T, F>,
            store_vm: &mut *inner.opaque.vm,
            func_ref: VMFuncRef {
                wasm_call: trampoline.base(),
                array_call: host_array_call::<T, F>,
                vmctx: std::ptr::null_mut(),
                sig: ty.sig_id(),
            },
            store: store_ptr.cast(),
            ty,
            _trampoline: Some(trampoline),
            closure: Box::new(f),
        });
        host.func_ref.vmctx = (&mut *host as *mut HostFunc).cast();
        let ptr = NonNull::from(&host.func_ref);
        inner.opaque.host_funcs.push(host);
        Ok(Func { store: inner.opaque.id(), ptr })
    }

    /// A function that traps with "failed to call unlinked function" when
    /// called: the C API's stand-in for an import that was never given.
    pub fn unlinked<T: 'static>(store: impl AsContextMut<Data = T>, ty: FuncType) -> Func {
        let mut store = store;
        Func::new_raw(store.as_context_mut(), ty, |_, _| Err(Trap::from_code(TrapCode::UnlinkedFunction)))
            .expect("trampoline compilation cannot fail")
    }

    fn vm(&self) -> &VMFuncRef {
        // SAFETY: callers have checked the store, which owns the funcref.
        unsafe { self.ptr.as_ref() }
    }

    /// The function's signature.
    pub fn ty(&self, store: impl AsContext) -> FuncType {
        store.as_context().opaque().assert_owns(self.store);
        self.ty_unchecked()
    }

    pub(crate) fn ty_unchecked(&self) -> FuncType {
        // SAFETY: `sig` of every funcref is an interned signature id.
        unsafe { FuncType::from_sig_id(self.vm().sig) }
    }

    /// Calls the function with `params`, writing its results to `results`.
    ///
    /// Wrong arity or value types are an [`Error::Usage`]; a trap is an
    /// [`Error::Trap`]. After a trap the store remains usable.
    pub fn call(&self, mut store: impl AsContextMut, params: &[Val], results: &mut [Val]) -> Result<()> {
        let mut cx = store.as_context_mut();
        let store = cx.opaque();
        store.check(self.store)?;
        let ty = self.ty_unchecked();
        if params.len() != ty.params().len() || results.len() != ty.results().len() {
            return Err(Error::Usage(format!(
                "function of type {ty} called with {} arguments and {} result slots",
                params.len(),
                results.len()
            )));
        }
        with_scratch(ty.params().len().max(ty.results().len()), ValRaw::default(), |slots| {
            for ((slot, p), t) in slots.iter_mut().zip(params).zip(ty.params()) {
                if p.ty() != *t {
                    return Err(Error::Usage(format!("argument of type {} where {t} was expected", p.ty())));
                }
                *slot = p.to_raw(store)?;
            }
            // SAFETY: `slots` holds the parameters and has room for the results.
            unsafe { self.call_raw(store, slots.as_mut_ptr())? };
            for ((r, slot), t) in results.iter_mut().zip(slots.iter()).zip(ty.results()) {
                *r = Val::from_raw(store, *slot, *t);
            }
            Ok(())
        })
    }

    /// Calls the function with arguments and results in `values`, which
    /// must hold `max(params, results)` slots of the right types.
    ///
    /// # Safety
    /// The slots must match the function's signature, and references in
    /// them must belong to `store`.
    pub unsafe fn call_raw(&self, store: &mut StoreOpaque, values: *mut ValRaw) -> Result<(), Trap> {
        store.assert_owns(self.store);
        let f: *const VMFuncRef = self.ptr.as_ptr();
        enter_wasm(store, || ((*f).array_call)((*f).vmctx, std::ptr::null_mut(), (*f).wasm_call, values))
    }
}

/// Runs a host function for wasm (through the exit trampoline).
///
/// # Safety
/// `ctx` must be the `HostFunc` of a `Func::new_raw::<T, F>` of a live store
/// and `values` must hold `max(params, results)` slots of its signature.
unsafe extern "C" fn host_call<T: 'static, F>(ctx: *mut HostFunc, caller_vmctx: *mut VMContext, values: *mut ValRaw)
where
    F: Fn(Caller<'_, T>, &mut [ValRaw]) -> Result<(), Trap> + Send + Sync + 'static,
{
    let result = {
        let host = &*ctx;
        // SAFETY: `new_raw` boxed an `F` for this very `host_call::<T, F>`,
        // so the cast is exact (no `downcast` type check on every call).
        let f: &F = &*(&*host.closure as *const (dyn std::any::Any + Send + Sync) as *const F);
        // SAFETY: a host function only ever runs in the store that created
        // it, whose `StoreInner<T>` starts with the `StoreOpaque`.
        let store = &mut *host.store.cast::<StoreInner<T>>();
        let n = host.ty.params().len().max(host.ty.results().len());
        let slots = std::slice::from_raw_parts_mut(values, n);
        catch_unwind(AssertUnwindSafe(|| f(Caller::new(store, caller_vmctx), slots)))
    };
    // Nothing with a destructor is live below: raising jumps over this frame.
    match result {
        Ok(Ok(())) => {}
        Ok(Err(trap)) => raise_host_trap(&*(*ctx).store, trap),
        Err(panic) => raise(UnwindReason::Panic(panic)),
    }
}

/// Runs a host function for the host (its `array_call`).
///
/// # Safety
/// As for [`host_call`], with `vmctx` the `HostFunc`.
unsafe extern "C" fn host_array_call<T: 'static, F>(
    vmctx: *mut VMContext,
    caller_vmctx: *mut VMContext,
    _code: *const u8,
    values: *mut ValRaw,
) where
    F: Fn(Caller<'_, T>, &mut [ValRaw]) -> Result<(), Trap> + Send + Sync + 'static,
{
    let ctx: *mut HostFunc = vmctx.cast();
    // No wasm frames lead here: a trap must not walk stale ones.
    let vm = (*ctx).store_vm;
    let saved = (*vm).last_exit_fp;
    (*vm).last_exit_fp = 0;
    host_call::<T, F>(ctx, caller_vmctx, values);
    (*vm).last_exit_fp = saved;
}

/// Runs `f` on `n` copies of `fill`, kept on the stack when few (as for
/// every ordinary signature) so that calls do not allocate.
fn with_scratch<V: Copy, R>(n: usize, fill: V, f: impl FnOnce(&mut [V]) -> R) -> R {
    const ON_STACK: usize = 16;
    if n > ON_STACK {
        return f(&mut vec![fill; n]);
    }
    // Only the `n` slots in use are written: filling all sixteen cost more
    // than the rest of a call.
    let mut buf = [const { MaybeUninit::<V>::uninit() }; ON_STACK];
    for slot in &mut buf[..n] {
        slot.write(fill);
    }
    // SAFETY: the first `n` elements were just initialised; `V: Copy` has no
    // destructor to run when `buf` goes.
    f(unsafe { std::slice::from_raw_parts_mut(buf.as_mut_ptr().cast::<V>(), n) })
}
