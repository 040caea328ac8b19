//! The one host-function path of both headers: a wasm-c-api callback
//! (`wasm_func_new`) and a `wasm_export.h` native
//! (`wasm_runtime_register_natives`) are both core functions over raw
//! slots, whatever their signature, made by [`new`].
//!
//! Numbers reach the body as they are. An externref parameter reaches it
//! as its host pointer (in a slot of kind `WASM_EXTERNREF`, so that a
//! `wasm_val_t` view of the slots reads it as C does), and a host pointer
//! the body leaves in an externref result becomes the externref standing
//! for it in the store ([`crate::core::store`]'s one map). Function
//! references and v128s are the body's to convert (each header has its
//! own form for them: a function object, a function index, NULL, a
//! pointer to 16 bytes).

use cranewasm::{AsContext, Caller, Func, FuncType, StoreContextMut, TrapError, Val, ValRaw, ValType};

use crate::core::store::{StoreData, externref_for, host_pointer};

/// Makes a host function of `ty` in `store` that runs `body` over its
/// slots (parameters, then results), with externrefs as host pointers (see
/// the module documentation). `null` is the host pointer that stands for
/// `ref.null` in an externref result (WAMR's two headers differ: NULL for
/// the wasm-c-api, `(uintptr_t)-1` for natives).
pub fn new<F>(store: StoreContextMut<'_, StoreData>, ty: FuncType, null: usize, body: F) -> cranewasm::Result<Func>
where
    F: Fn(Caller<'_, StoreData>, &mut [ValRaw]) -> Result<(), TrapError> + Send + Sync + 'static,
{
    let positions = |types: &[ValType]| -> Vec<usize> {
        types.iter().enumerate().filter(|(_, t)| **t == ValType::EXTERNREF).map(|(i, _)| i).collect()
    };
    let (params, results) = (positions(ty.params()), positions(ty.results()));
    if params.is_empty() && results.is_empty() {
        // Nothing to convert: the body is the host function itself.
        return Func::new_raw(store, ty, body);
    }
    Func::new_raw(store, ty, move |mut caller, slots| {
        for &i in &params {
            // SAFETY: a parameter slot of this store, written by its
            // compiled code.
            let v = unsafe { Val::from_raw_in(&caller, slots[i], ValType::EXTERNREF) };
            let p = match v {
                Val::ExternRef(Some(e)) => host_pointer(&caller, e),
                _ => 0,
            };
            slots[i] = ValRaw::reference(ValType::EXTERNREF, p);
        }
        body(caller.reborrow(), slots)?;
        for &i in &results {
            let p = slots[i].get_ref();
            let v = if p == null { Val::ExternRef(None) } else { Val::ExternRef(Some(externref_for(&mut caller, p))) };
            slots[i] = v.into_raw_in(&caller).map_err(|e| TrapError::new(e.to_string()))?;
        }
        Ok(())
    })
}

/// The funcref in a slot of `cx`'s store (a parameter of a host function).
pub fn funcref_of(cx: impl AsContext<Data = StoreData>, slot: ValRaw) -> Option<Func> {
    // SAFETY: a slot of this store, written by its compiled code.
    match unsafe { Val::from_raw_in(&cx, slot, ValType::FUNCREF) } {
        Val::FuncRef(f) => f,
        _ => None,
    }
}

/// The slot of funcref `f` in `cx`'s store (a result of a host function);
/// an error for a function of another store.
pub fn funcref_slot(cx: impl AsContext<Data = StoreData>, f: Option<Func>) -> Result<ValRaw, TrapError> {
    Val::FuncRef(f).into_raw_in(&cx).map_err(|e| TrapError::new(e.to_string()))
}
