//! The [`Func`] handle: functions of a store, wasm or host, as the embedder
//! creates and calls them. What compiled code sees of them lives in
//! [`vm::func`](super::vm::func).

use super::caller::Caller;
use super::store::{AsContext, AsContextMut, StoreContextMut, StoreInner, StoreOpaque};
use super::vm::entry;
use super::vm::func::VMHostFunc;
use super::vm::instance::CallerVmctx;
use super::vm::scratch::with_scratch;
use super::vm::stored::Stored;
use crate::environ::error::{Error, Result};
use crate::environ::trap::{Trap, TrapCode};
use crate::environ::types::FuncType;
use crate::environ::val_raw::ValRaw;
use crate::environ::vmctx::VMFuncRef;
use crate::runtime::values::Val;

/// A function in a store: defined by a wasm instance or by the host.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Func(pub(crate) Stored<VMFuncRef>);

impl Func {
    /// A host function of type `ty` working on [`Val`]s.
    pub fn new<T: 'static>(
        mut store: impl AsContextMut<Data = T>,
        ty: FuncType,
        f: impl Fn(Caller<'_, T>, &[Val], &mut [Val]) -> Result<(), Trap> + Send + Sync + 'static,
    ) -> Func {
        let sig = ty.clone();
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
                let store = &mut caller.store.opaque;
                for ((slot, r), t) in slots.iter_mut().zip(results.iter()).zip(ty.results()) {
                    if !r.matches_in(store, *t) {
                        return Err(Trap::new(format!("host function returned {} where {t} was expected", r.ty())));
                    }
                    *slot = r.to_raw(store).map_err(|e| Trap::new(e.to_string()))?;
                }
                Ok(())
            })
        };
        Func::new_raw(store.as_context_mut(), sig, raw).expect("trampoline compilation cannot fail")
    }

    /// A host function of type `ty` working on raw slots: the fast form
    /// that the C API and typed functions build on.
    pub fn new_raw<T: 'static, F>(store: StoreContextMut<'_, T>, ty: FuncType, f: F) -> Result<Func>
    where
        F: Fn(Caller<'_, T>, &mut [ValRaw]) -> Result<(), Trap> + Send + Sync + 'static,
    {
        let run = move |store: *mut StoreOpaque, caller: CallerVmctx, slots: &mut [ValRaw]| {
            // SAFETY: a host function only ever runs in the store that
            // created it, a `StoreInner<T>` (`repr(C)`, starting with its
            // `StoreOpaque`), which no one else borrows during the call.
            let store = unsafe { &mut *store.cast::<StoreInner<T>>() };
            f(Caller::new(store, caller), slots)
        };
        Ok(Func(VMHostFunc::create(&mut store.0.opaque, ty, run)?))
    }

    /// A function that traps with "failed to call unlinked function" when
    /// called: the C API's stand-in for an import that was never given.
    pub fn unlinked<T: 'static>(mut store: impl AsContextMut<Data = T>, ty: FuncType) -> Func {
        Func::new_raw(store.as_context_mut(), ty, |_, _| Err(Trap::from_code(TrapCode::UnlinkedFunction)))
            .expect("trampoline compilation cannot fail")
    }

    /// The function's signature.
    pub fn ty(&self, store: impl AsContext) -> FuncType {
        self.0.get(store.as_context().opaque()).ty().clone()
    }

    /// Calls the function with `params`, writing its results to `results`.
    ///
    /// Wrong arity or value types are an [`Error::Usage`], a function or
    /// reference of another store an [`Error::WrongStore`]; a trap is an
    /// [`Error::Trap`]. After a trap the store remains usable.
    pub fn call(&self, mut store: impl AsContextMut, params: &[Val], results: &mut [Val]) -> Result<()> {
        let mut cx = store.as_context_mut();
        let store = cx.opaque();
        let ty = self.0.try_get(store)?.ty().clone();
        if params.len() != ty.params().len() || results.len() != ty.results().len() {
            return Err(Error::Usage(format!(
                "function of type {ty} called with {} arguments and {} result slots",
                params.len(),
                results.len()
            )));
        }
        // SAFETY: the parameters are values, their objects rooted handles;
        // their words are read after this.
        unsafe { crate::runtime::gc_object::make_room_for(store, params) };
        with_scratch(ty.params().len().max(ty.results().len()), ValRaw::default(), |slots| {
            for ((slot, p), t) in slots.iter_mut().zip(params).zip(ty.params()) {
                if !p.matches_in(store, *t) {
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
        // SAFETY: `entry::call`'s contract is this function's: the slots match
        // the signature and hold references of `store`.
        unsafe {
            // SAFETY: this function's contract is `entry::call`'s.
            entry::call(store, self.0, values)
        }
    }
}
