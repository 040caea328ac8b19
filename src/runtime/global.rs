//! The [`Global`] handle: a global of a store, as the embedder sees it. The
//! storage is a [`VMGlobal`].

use super::store::{AsContext, AsContextMut};
use super::vm::stored::Stored;
use crate::environ::error::{Error, Result};
use crate::environ::types::{GlobalType, Mutability};
use crate::environ::vmctx::VMGlobal;
use crate::runtime::values::Val;

/// A global in a store.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Global {
    pub(crate) storage: Stored<VMGlobal>,
    pub(crate) ty: GlobalType,
    /// The instance whose VMContext holds the storage (None when the store
    /// holds it).
    pub(crate) owner: Option<usize>,
}

impl Global {
    /// A new global of type `ty` holding `value`.
    pub fn new(mut store: impl AsContextMut, ty: GlobalType, value: Val) -> Result<Global> {
        let mut cx = store.as_context_mut();
        let store = cx.opaque();
        // A value of the type: a null for a nullable typed reference too.
        if !value.matches_in(store, ty.content) {
            return Err(Error::Usage(format!("global of type {} initialised with {}", ty.content, value.ty())));
        }
        let mut storage = VMGlobal::default();
        storage.write(ty.content, value.to_raw(store)?);
        let storage = Stored::push(store, storage);
        if ty.content.is_ref() {
            store.gc_ref_globals.push(storage.as_ptr());
        }
        Ok(Global { storage, ty, owner: None })
    }

    /// The global's type.
    pub fn ty(&self, store: impl AsContext) -> GlobalType {
        store.as_context().opaque().assert_owns(self.storage.store_id());
        self.ty
    }

    /// The global's current value.
    pub fn get(&self, store: impl AsContext) -> Val {
        let cx = store.as_context();
        let raw = self.storage.get(cx.opaque()).read(self.ty.content);
        Val::from_raw(cx.opaque(), raw, self.ty.content)
    }

    /// Address of the global's value: its 16 bytes of storage, the value
    /// little-endian from the first byte (what WAMR's `global_data` points
    /// at). It stays valid while the global's store and owner live; writing
    /// through it bypasses the mutability check.
    pub fn data_ptr(&self, store: impl AsContext) -> *mut u8 {
        let cx = store.as_context();
        std::ptr::from_ref(self.storage.get(cx.opaque())).cast_mut().cast()
    }

    /// Sets a mutable global; an error for a constant or a value of another
    /// type.
    pub fn set(&self, store: impl AsContextMut, value: Val) -> Result<()> {
        if self.ty.mutability != Mutability::Var {
            return Err(Error::Usage("cannot set an immutable global".into()));
        }
        self.set_ignoring_mutability(store, value)
    }

    /// Sets the global even if it is immutable: WAMR's C API lets
    /// `wasm_global_set` change constant globals, and the C layer follows
    /// it. Code reads the new value from its next call on (a function
    /// running meanwhile may have read it already). An error for a value
    /// of another type.
    pub fn set_ignoring_mutability(&self, mut store: impl AsContextMut, value: Val) -> Result<()> {
        let mut cx = store.as_context_mut();
        let store = cx.opaque();
        self.storage.check(store)?;
        if !value.matches_in(store, self.ty.content) {
            return Err(Error::Usage(format!("global of type {} set to {}", self.ty.content, value.ty())));
        }
        // SAFETY: `value` holds its object as a rooted handle; its word is
        // read after this.
        unsafe { crate::runtime::gc_object::make_room_for(store, [&value]) };
        let raw = value.to_raw(store)?;
        self.storage.get_mut(store).write(self.ty.content, raw);
        Ok(())
    }
}
