//! Functions as compiled code sees them: every function, wasm or host, is a
//! [`VMFuncRef`]; a host function's is part of a [`VMHostFunc`] that the
//! store owns.
//!
//! Calling any function from the host goes through its `array_call` entry
//! with an array of raw slots (see [`entry::call`](super::entry::call)):
//! for wasm functions that is the compiled entry trampoline of the
//! signature, for host functions [`host_array_call`]. Wasm calls a host
//! function through the exit trampoline in `wasm_call`, which lands in
//! [`host_call`].

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr::NonNull;
use std::sync::Arc;

use super::code_memory::CodeMemory;
use super::entry::raise_host_trap;
use super::instance::CallerVmctx;
use super::store::StoreOpaque;
use super::stored::Stored;
use super::unwind::{raise, UnwindReason};
use crate::environ::error::Result;
use crate::environ::trap::Trap;
use crate::environ::type_registry::RegisteredType;
use crate::environ::types::FuncType;
use crate::environ::val_raw::ValRaw;
use crate::environ::vmctx::{VMContext, VMFuncRef, VMStoreContext, HOST_CONTEXT_MAGIC};

impl VMFuncRef {
    /// The function's signature.
    pub(crate) fn ty(&self) -> &FuncType {
        // SAFETY: `ty` points at a `FuncType` that lives as long as the
        // function (see `VMFuncRef::ty`), which `self` is.
        unsafe { &*self.ty }
    }
}

/// How a host function is called: `(context, caller_vmctx, values)`.
type HostCallFn = unsafe extern "C" fn(*mut VMHostFunc, *mut VMContext, *mut ValRaw);

/// What a host function runs: given its store, its caller and the value
/// slots (parameters in, results out). The runtime's `Func` wraps the
/// embedder's closure into one, which makes the `Caller` the embedder
/// sees from the store pointer.
pub(crate) trait HostClosure:
    Fn(*mut StoreOpaque, CallerVmctx, &mut [ValRaw]) -> Result<(), Trap> + Send + Sync + 'static
{
}
impl<F> HostClosure for F where
    F: Fn(*mut StoreOpaque, CallerVmctx, &mut [ValRaw]) -> Result<(), Trap> + Send + Sync + 'static
{
}

/// A host function's context. Its `VMFuncRef` names it as the "vmctx", so
/// the exit trampoline finds `host_call` and the store at fixed offsets
/// (see [`crate::environ::vmctx::host_ctx`]).
#[repr(C)]
pub(crate) struct VMHostFunc {
    magic: u32,
    host_call: HostCallFn,
    store_vm: *mut VMStoreContext,
    func_ref: VMFuncRef,
    store: *mut StoreOpaque,
    /// The signature, registered with the engine while the function lives.
    ty: RegisteredType,
    /// The exit trampoline `func_ref.wasm_call` points into (`None` while
    /// that is `late_exit::address()`).
    trampoline: Option<Arc<CodeMemory>>,
    /// The closure `host_call` runs; its concrete type is known only to
    /// `host_call`.
    closure: Box<dyn std::any::Any + Send + Sync>,
}

impl VMHostFunc {
    /// A host function of type `ty` running `f`, owned by `store`.
    pub(crate) fn create<F: HostClosure>(store: &mut StoreOpaque, ty: FuncType, f: F) -> Result<Stored<VMFuncRef>> {
        let (trampoline, wasm_call) = match store.engine().exit_trampoline(&ty) {
            Ok((code, at)) => (Some(code), at),
            // Found once a module of its type is loaded (see `late_exit`).
            Err(_) if !cfg!(feature = "compiler") => (None, super::late_exit::address()),
            Err(e) => return Err(e),
        };
        let ty = RegisteredType::new(store.engine().type_registry(), ty);
        let store_ptr: *mut StoreOpaque = store;
        let mut host = Box::new(VMHostFunc {
            magic: HOST_CONTEXT_MAGIC,
            host_call: host_call::<F>,
            store_vm: &mut *store.vm,
            func_ref: VMFuncRef {
                wasm_call,
                array_call: host_array_call::<F>,
                vmctx: std::ptr::null_mut(),
                sig: ty.sig_id(),
                ty: std::ptr::null(),
                // Host functions have plain types.
                display: crate::environ::type_registry::PLAIN_DISPLAY.as_ptr(),
            },
            store: store_ptr,
            ty,
            trampoline,
            closure: Box::new(f),
        });
        host.func_ref.vmctx = (&mut *host as *mut VMHostFunc).cast();
        // The registration is in the box, at a stable address.
        host.func_ref.ty = host.ty.ty();
        let func_ref = NonNull::from(&host.func_ref);
        store.host_funcs.push(host);
        // SAFETY: the funcref is part of a box the store owns until it is
        // dropped.
        Ok(unsafe { Stored::new_unchecked(store.id(), func_ref) })
    }

    /// The code wasm calls: the exit trampoline of the function's type,
    /// looked up and kept now if it was not known at creation (see
    /// `late_exit`).
    pub(crate) fn resolve_exit(&mut self) -> Result<*const u8> {
        if self.trampoline.is_none() {
            // SAFETY: the store owns its host functions, so it is alive.
            let engine = unsafe { (*self.store).engine() };
            let (code, at) = engine.exit_trampoline(self.ty.ty())?;
            self.trampoline = Some(code);
            self.func_ref.wasm_call = at;
        }
        Ok(self.func_ref.wasm_call)
    }
}

/// Runs a host function for wasm (through the exit trampoline).
///
/// # Safety
/// `ctx` must be the `VMHostFunc` of a `VMHostFunc::create::<F>` of a
/// live store, `caller_vmctx` null or the calling instance's VMContext, and
/// `values` must hold `max(params, results)` slots of its signature.
unsafe extern "C" fn host_call<F: HostClosure>(
    ctx: *mut VMHostFunc,
    caller_vmctx: *mut VMContext,
    values: *mut ValRaw,
) {
    // SAFETY: `ctx` is a `VMHostFunc` made by `create::<F>` in a live store,
    // and `values` holds the signature's slots (the exit trampoline passes
    // them); nothing with a destructor is live when it raises.
    unsafe {
        // Interruptible stores learn that their call is in the host, where no
        // signal can stop it, and check for an interrupt on the way back.
        let vm = (*ctx).store_vm;
        if let Some(interrupt) = super::interrupt::of_store(vm) {
            interrupt.set_in_host(true);
        }
        let result = {
            let host = &*ctx;
            // SAFETY: `create` boxed an `F` for this very `host_call::<F>`,
            // so the cast is exact (no `downcast` type check on every call).
            let f: &F = &*(&*host.closure as *const (dyn std::any::Any + Send + Sync) as *const F);
            let ty = host.ty.ty();
            let n = ty.params().len().max(ty.results().len());
            let slots = std::slice::from_raw_parts_mut(values, n);
            let caller = CallerVmctx::new(caller_vmctx);
            // The handles of heap objects the call makes (its arguments
            // among them) are freed when it returns: its results are words
            // in `slots` by then.
            let roots = (*host.store).gc_host_roots.mark();
            let result = catch_unwind(AssertUnwindSafe(|| f(host.store, caller, slots)));
            (*host.store).gc_host_roots.truncate(roots);
            result
        };
        let stop = super::interrupt::of_store(vm).and_then(|i| i.set_in_host(false));
        // Nothing with a destructor is live below: raising jumps over this frame.
        match result {
            Ok(Ok(())) if stop.is_some() => raise_host_trap(&*(*ctx).store, Trap::from(stop.expect("checked"))),
            Ok(Ok(())) => {}
            Ok(Err(trap)) => raise_host_trap(&*(*ctx).store, trap),
            Err(panic) => raise(UnwindReason::Panic(panic)),
        }
    }
}

/// Runs a host function for the host (its `array_call`).
///
/// # Safety
/// As for [`host_call`], with `vmctx` the `VMHostFunc`.
unsafe extern "C" fn host_array_call<F: HostClosure>(
    vmctx: *mut VMContext,
    caller_vmctx: *mut VMContext,
    _code: *const u8,
    values: *mut ValRaw,
) {
    // SAFETY: as for `host_call`; `vmctx` is the `VMHostFunc` its funcref
    // names.
    unsafe {
        let ctx: *mut VMHostFunc = vmctx.cast();
        // No wasm frames lead here: a trap must not walk stale ones.
        let vm = (*ctx).store_vm;
        let saved = (*vm).last_exit_fp;
        (*vm).last_exit_fp = 0;
        host_call::<F>(ctx, caller_vmctx, values);
        (*vm).last_exit_fp = saved;
    }
}
