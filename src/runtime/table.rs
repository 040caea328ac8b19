//! Tables: their storage, growth, bulk operations, and the [`Table`] handle.
//!
//! Elements are raw references — a `*const VMFuncRef` for funcref tables,
//! a `*const ExternData` for externref tables, 0 for null — so compiled
//! code reads them directly. Growing may move the elements; the definition
//! that instances point at is updated in place.

use std::ptr::NonNull;

use super::store::{AsContext, AsContextMut, StoreId, StoreOpaque};
use crate::error::{Error, Result};
use crate::trap::TrapCode;
use crate::types::{Limits, TableType, ValType};
use crate::values::Val;
use crate::vmctx::VMTableDefinition;

/// The most elements a table may have, whatever its declared maximum: a
/// bound on what one `table.grow` can make the host allocate.
pub const MAX_TABLE_ELEMENTS: u32 = 10_000_000;

/// A table's storage. Instances point at `definition`, so it comes first.
#[repr(C)]
pub struct TableInstance {
    pub(crate) definition: VMTableDefinition,
    elements: Vec<usize>,
    element: ValType,
    max: Option<u32>,
    /// The size the table was created with.
    declared_min: u32,
    /// The instance that defined this table (None for host-created ones).
    pub(crate) owner: Option<usize>,
}

// SAFETY: plain owned data; access is serialised by the owning store.
unsafe impl Send for TableInstance {}

impl TableInstance {
    pub fn new(ty: TableType, init: usize) -> Result<TableInstance> {
        if ty.limits.min > MAX_TABLE_ELEMENTS {
            return Err(Error::Resource(format!("table of {} elements is too large", ty.limits.min)));
        }
        let mut t = TableInstance {
            definition: VMTableDefinition { base: std::ptr::null_mut(), length: 0 },
            elements: vec![init; ty.limits.min as usize],
            element: ty.element,
            max: ty.limits.max,
            declared_min: ty.limits.min,
            owner: None,
        };
        t.sync();
        Ok(t)
    }

    /// Points the definition at the (possibly moved) elements.
    fn sync(&mut self) {
        self.definition.base = self.elements.as_mut_ptr();
        self.definition.length = self.elements.len() as u32;
    }

    pub fn len(&self) -> u32 {
        self.elements.len() as u32
    }

    /// The table's type with its current size as minimum.
    pub fn ty(&self) -> TableType {
        TableType::new(self.element, Limits::new(self.len(), self.max))
    }

    pub fn declared_ty(&self) -> TableType {
        TableType::new(self.element, Limits::new(self.declared_min, self.max))
    }

    pub fn elements(&self) -> &[usize] {
        &self.elements
    }

    pub fn elements_mut(&mut self) -> &mut [usize] {
        &mut self.elements
    }

    /// Grows by `delta` elements set to `init`; the old size, or `None`
    /// past the maximum.
    pub fn grow(&mut self, delta: u32, init: usize) -> Option<u32> {
        let old = self.len();
        let new = old.checked_add(delta)?;
        if new > self.max.unwrap_or(u32::MAX) || new > MAX_TABLE_ELEMENTS {
            return None;
        }
        self.elements.try_reserve(delta as usize).ok()?;
        self.elements.resize(new as usize, init);
        self.sync();
        Some(old)
    }

    /// Sets `len` elements from `dst` to `value`.
    pub fn fill(&mut self, dst: u32, value: usize, len: u32) -> Result<(), TrapCode> {
        let end = (dst as usize).checked_add(len as usize).filter(|e| *e <= self.elements.len());
        let end = end.ok_or(TrapCode::TableOutOfBounds)?;
        self.elements[dst as usize..end].fill(value);
        Ok(())
    }
}

/// A table in a store.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Table {
    pub(crate) store: StoreId,
    pub(crate) ptr: NonNull<TableInstance>,
}

// SAFETY: a handle is an id; it is only dereferenced with its store.
unsafe impl Send for Table {}
// SAFETY: a shared `&Table` only lets one copy the id and pointer; every
// dereference still goes through its store, which is borrowed for it.
unsafe impl Sync for Table {}

impl Table {
    /// A new table of type `ty` with every element set to `init`.
    pub fn new(mut store: impl AsContextMut, ty: TableType, init: Val) -> Result<Table> {
        let mut cx = store.as_context_mut();
        let store = cx.opaque();
        if init.ty() != ty.element {
            return Err(Error::Usage(format!("table of {} initialised with {}", ty.element, init.ty())));
        }
        let init = init.to_raw(store)?.get_ref();
        Ok(Table::from_owned(store, TableInstance::new(ty, init)?))
    }

    pub(crate) fn from_owned(store: &mut StoreOpaque, table: TableInstance) -> Table {
        let mut boxed = Box::new(table);
        let ptr = NonNull::from(&mut *boxed);
        store.tables.push(boxed);
        Table { store: store.id(), ptr }
    }

    #[inline]
    pub(crate) fn get_instance<'a>(&self, store: &'a StoreOpaque) -> &'a TableInstance {
        store.assert_owns(self.store);
        // SAFETY: the store owns the table and outlives the borrow.
        unsafe { self.ptr.as_ref() }
    }

    #[allow(clippy::mut_from_ref)]
    #[inline]
    pub(crate) fn get_instance_mut<'a>(&self, store: &'a mut StoreOpaque) -> &'a mut TableInstance {
        store.assert_owns(self.store);
        // SAFETY: as above; `&mut StoreOpaque` gives exclusive access.
        unsafe { &mut *self.ptr.as_ptr() }
    }

    /// The table's type, with its current size as minimum.
    pub fn ty(&self, store: impl AsContext) -> TableType {
        self.get_instance(store.as_context().opaque()).ty()
    }

    /// The type the table was created (or declared) with, whatever it has
    /// grown to since: what WAMR's C API reports.
    pub fn declared_ty(&self, store: impl AsContext) -> TableType {
        self.get_instance(store.as_context().opaque()).declared_ty()
    }

    /// The number of elements.
    pub fn size(&self, store: impl AsContext) -> u32 {
        self.get_instance(store.as_context().opaque()).len()
    }

    /// Element `index`, or `None` when out of bounds.
    pub fn get(&self, store: impl AsContext, index: u32) -> Option<Val> {
        let cx = store.as_context();
        let t = self.get_instance(cx.opaque());
        let raw = *t.elements.get(index as usize)?;
        Some(Val::from_raw_ref(cx.opaque(), t.element, raw))
    }

    /// Sets element `index`.
    pub fn set(&self, mut store: impl AsContextMut, index: u32, value: Val) -> Result<()> {
        let mut cx = store.as_context_mut();
        let store = cx.opaque();
        let t = self.get_instance(store);
        if value.ty() != t.element {
            return Err(Error::Usage(format!("{} stored in a table of {}", value.ty(), t.element)));
        }
        let raw = value.to_raw(store)?.get_ref();
        let t = self.get_instance_mut(store);
        let slot = t.elements.get_mut(index as usize).ok_or(Error::Trap(TrapCode::TableOutOfBounds.into()))?;
        *slot = raw;
        Ok(())
    }

    /// Grows by `delta` elements set to `init`; returns the old size.
    pub fn grow(&self, mut store: impl AsContextMut, delta: u32, init: Val) -> Result<u32> {
        let mut cx = store.as_context_mut();
        let store = cx.opaque();
        let element = self.get_instance(store).element;
        if init.ty() != element {
            return Err(Error::Usage(format!("table of {element} grown with {}", init.ty())));
        }
        let raw = init.to_raw(store)?.get_ref();
        self.get_instance_mut(store)
            .grow(delta, raw)
            .ok_or_else(|| Error::Usage(format!("table cannot grow by {delta} elements")))
    }
}
