//! Globals and the [`Global`] handle.

use std::ptr::NonNull;

use super::store::{AsContext, AsContextMut, StoreId};
use crate::error::{Error, Result};
use crate::types::{GlobalType, Mutability, ValType};
use crate::values::{Val, ValRaw};
use crate::vmctx::VMGlobal;

/// Reads a global's storage as a raw value of type `ty`.
pub(crate) fn read(g: &VMGlobal, ty: ValType) -> ValRaw {
    let b = g.bytes;
    let word = u64::from_le_bytes(b[..8].try_into().unwrap());
    match ty {
        ValType::I32 => ValRaw::i32(word as u32 as i32),
        ValType::I64 => ValRaw::i64(word as i64),
        ValType::F32 => ValRaw::f32(word as u32),
        ValType::F64 => ValRaw::f64(word),
        ValType::V128 => ValRaw::v128(u128::from_le_bytes(b)),
        ValType::FuncRef | ValType::ExternRef => ValRaw::reference(ty, word as usize),
    }
}

/// Writes a raw value of type `ty` into a global's storage.
pub(crate) fn write(g: &mut VMGlobal, ty: ValType, v: ValRaw) {
    g.bytes = match ty {
        ValType::I32 | ValType::F32 => (v.get_i32() as u32 as u128).to_le_bytes(),
        ValType::I64 | ValType::F64 => (v.get_i64() as u64 as u128).to_le_bytes(),
        ValType::V128 => v.get_v128().to_le_bytes(),
        ValType::FuncRef | ValType::ExternRef => (v.get_ref() as u128).to_le_bytes(),
    };
}

/// A global in a store.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Global {
    pub(crate) store: StoreId,
    pub(crate) ptr: NonNull<VMGlobal>,
    pub(crate) ty: GlobalType,
    /// The instance whose VMContext holds the storage (None when the store
    /// holds it).
    pub(crate) owner: Option<usize>,
}

// SAFETY: a handle is an id; it is only dereferenced with its store.
unsafe impl Send for Global {}
// SAFETY: a shared `&Global` only lets one copy the id and pointer; every
// dereference still goes through its store, which is borrowed for it.
unsafe impl Sync for Global {}

impl Global {
    /// A new global of type `ty` holding `value`.
    pub fn new(mut store: impl AsContextMut, ty: GlobalType, value: Val) -> Result<Global> {
        let mut cx = store.as_context_mut();
        let store = cx.opaque();
        if value.ty() != ty.content {
            return Err(Error::Usage(format!("global of type {} initialised with {}", ty.content, value.ty())));
        }
        let mut storage = Box::new(VMGlobal::default());
        write(&mut storage, ty.content, value.to_raw(store)?);
        let ptr = NonNull::from(&mut *storage);
        store.globals.push(storage);
        Ok(Global { store: store.id(), ptr, ty, owner: None })
    }

    /// The global's type.
    pub fn ty(&self, store: impl AsContext) -> GlobalType {
        store.as_context().opaque().assert_owns(self.store);
        self.ty
    }

    /// The global's current value.
    pub fn get(&self, store: impl AsContext) -> Val {
        let cx = store.as_context();
        let store = cx.opaque();
        store.assert_owns(self.store);
        // SAFETY: the store owns the storage and is borrowed.
        let raw = read(unsafe { self.ptr.as_ref() }, self.ty.content);
        Val::from_raw(store, raw, self.ty.content)
    }

    /// Sets a mutable global; an error for a constant or a value of another
    /// type.
    pub fn set(&self, mut store: impl AsContextMut, value: Val) -> Result<()> {
        let mut cx = store.as_context_mut();
        let store = cx.opaque();
        store.check(self.store)?;
        if self.ty.mutability != Mutability::Var {
            return Err(Error::Usage("cannot set an immutable global".into()));
        }
        if value.ty() != self.ty.content {
            return Err(Error::Usage(format!("global of type {} set to {}", self.ty.content, value.ty())));
        }
        let raw = value.to_raw(store)?;
        // SAFETY: the store owns the storage and is borrowed exclusively.
        write(unsafe { &mut *self.ptr.as_ptr() }, self.ty.content, raw);
        Ok(())
    }
}
