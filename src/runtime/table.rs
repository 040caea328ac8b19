//! The [`Table`] handle: a table of a store, as the embedder sees it. The
//! storage is a [`VMTable`](super::vm::table::VMTable).

use super::store::{AsContext, AsContextMut};
use super::vm::stored::Stored;
use super::vm::table::VMTable;
use crate::environ::error::{Error, Result};
use crate::environ::trap::TrapCode;
use crate::environ::types::{TableType, ValType};
use crate::runtime::values::Val;

/// A table in a store.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Table(pub(crate) Stored<VMTable>);

impl Table {
    /// A new table of type `ty` with every element set to `init`.
    pub fn new(mut store: impl AsContextMut, ty: TableType, init: Val) -> Result<Table> {
        let mut cx = store.as_context_mut();
        let store = cx.opaque();
        // A value of the type: a null for a nullable typed reference too.
        if !init.matches_in(store, ValType::Ref(ty.element())) {
            return Err(Error::Usage(format!("table of {} initialised with {}", ty.element(), init.ty())));
        }
        let init = init.to_raw(store)?.get_ref();
        let table = store.create_table(ty, init)?;
        Ok(Table(Stored::push(store, table)))
    }

    /// The table's type, with its current size as minimum.
    pub fn ty(&self, store: impl AsContext) -> TableType {
        self.0.get(store.as_context().opaque()).ty()
    }

    /// The type the table was created (or declared) with, whatever it has
    /// grown to since: what WAMR's C API reports.
    pub fn declared_ty(&self, store: impl AsContext) -> TableType {
        self.0.get(store.as_context().opaque()).declared_ty()
    }

    /// The number of elements.
    pub fn size(&self, store: impl AsContext) -> u32 {
        self.0.get(store.as_context().opaque()).len()
    }

    /// Element `index`, or `None` when out of bounds.
    pub fn get(&self, store: impl AsContext, index: u32) -> Option<Val> {
        let cx = store.as_context();
        let t = self.0.get(cx.opaque());
        let raw = *t.elements().get(index as usize)?;
        Some(Val::from_raw_ref(cx.opaque(), ValType::Ref(t.element()), raw))
    }

    /// Sets element `index`; a trap (`out of bounds table access`) past the
    /// end. An unexported table that its module never writes (reached
    /// through [`Instance::table`](crate::Instance::table)) is read-only:
    /// its code was compiled assuming it never changes.
    pub fn set(&self, mut store: impl AsContextMut, index: u32, value: Val) -> Result<()> {
        self.check_writable(&mut store)?;
        let raw = self.raw_value(&mut store, value, "set to")?;
        let mut cx = store.as_context_mut();
        let slot = self
            .0
            .get_mut(cx.opaque())
            .elements_mut()
            .get_mut(index as usize)
            .ok_or(Error::Trap(TrapCode::TableOutOfBounds.into()))?;
        *slot = raw;
        Ok(())
    }

    /// Grows by `delta` elements set to `init`; returns the old size, or an
    /// [`Error::TableGrow`] past the maximum.
    pub fn grow(&self, mut store: impl AsContextMut, delta: u32, init: Val) -> Result<u32> {
        self.check_writable(&mut store)?;
        let raw = self.raw_value(&mut store, init, "grown with")?;
        let mut cx = store.as_context_mut();
        let store = cx.opaque();
        let table: *mut VMTable = self.0.get_mut(store);
        // SAFETY: the table belongs to `store` (checked by `get_mut`) and no
        // reference to it is kept across the call.
        unsafe { store.grow_table(table, delta, raw) }.ok_or(Error::TableGrow { delta })
    }

    /// An error for a read-only table (see [`Table::set`]).
    fn check_writable(&self, mut store: impl AsContextMut) -> Result<()> {
        let mut cx = store.as_context_mut();
        match self.0.get(cx.opaque()).read_only {
            true => Err(Error::Usage(READ_ONLY.into())),
            false => Ok(()),
        }
    }

    /// `value` as a raw element of this table, or an error when its type is
    /// not the element type (`how` says what was done, for the message).
    fn raw_value(&self, mut store: impl AsContextMut, value: Val, how: &str) -> Result<usize> {
        let mut cx = store.as_context_mut();
        let store = cx.opaque();
        let element = ValType::Ref(self.0.get(store).element());
        if !value.matches_in(store, element) {
            return Err(Error::Usage(format!("table of {element} {how} {}", value.ty())));
        }
        // SAFETY: `value` holds its object as a rooted handle; its word is
        // read after this.
        unsafe { crate::runtime::gc_object::make_room_for(store, [&value]) };
        Ok(value.to_raw(store)?.get_ref())
    }
}

/// Why a frozen table cannot be written or imported.
pub(crate) const READ_ONLY: &str =
    "table is read-only: it is not exported and its module's code was compiled assuming it never changes";
