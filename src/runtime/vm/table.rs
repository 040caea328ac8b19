//! [`VMTable`]: a table's storage, growth and bulk operations.
//!
//! Elements are raw references — a `*const VMFuncRef` for funcref tables,
//! a `*const VMExternData` for externref tables, 0 for null — so compiled
//! code reads them directly. Growing may move the elements; the definition
//! that instances point at is updated in place.

use super::store::StoreOpaque;
use super::stored::StoreOwned;
use crate::environ::error::{Error, Result};
use crate::environ::trap::TrapCode;
use crate::environ::types::{RefType, TableType};
use crate::environ::vmctx::{VMFuncRef, VMTableDefinition};

/// The most elements a table may have, whatever its declared maximum: a
/// bound on what one `table.grow` can make the host allocate.
pub const MAX_TABLE_ELEMENTS: u32 = 10_000_000;

/// A table's storage. Instances point at `definition`, so it comes first.
#[repr(C)]
pub struct VMTable {
    pub(crate) definition: VMTableDefinition,
    elements: Vec<usize>,
    /// The code addresses of a frozen table's functions (see
    /// `VMTableDefinition::codes`); empty otherwise.
    codes: Vec<usize>,
    element: RefType,
    /// The maximum size (a 32-bit table's, which fits).
    max: Option<u32>,
    /// The type the table was created with (its index type and exact
    /// maximum, which a 64-bit table's may exceed `max`).
    declared: TableType,
    /// The instance that defined this table (None for host-created ones).
    pub(crate) owner: Option<usize>,
    /// Its module's code assumes it never changes after instantiation (a
    /// frozen table, see `module::frozen_tables`): the host may read it
    /// but neither write it nor give it to another module.
    pub(crate) read_only: bool,
}

impl VMTable {
    /// A table of type `ty` with every element set to the raw reference
    /// `init`.
    pub fn new(ty: TableType, init: usize) -> Result<VMTable> {
        if ty.minimum() > u64::from(MAX_TABLE_ELEMENTS) {
            return Err(Error::Resource(format!("table of {} elements is too large", ty.minimum())));
        }
        let mut t = VMTable {
            definition: VMTableDefinition { base: std::ptr::null_mut(), length: 0, codes: std::ptr::null() },
            elements: vec![init; ty.minimum() as usize],
            codes: Vec::new(),
            element: ty.element(),
            max: ty.maximum().map(|m| u32::try_from(m).unwrap_or(u32::MAX)),
            declared: ty,
            owner: None,
            read_only: false,
        };
        t.sync();
        Ok(t)
    }

    /// Points the definition at the (possibly moved) elements.
    fn sync(&mut self) {
        self.definition.base = self.elements.as_mut_ptr();
        self.definition.length = self.elements.len() as u32;
    }

    /// Records the code address of every element, for a frozen table whose
    /// elements are all null or funcrefs of its module's functions, once
    /// its segments are applied: nothing changes it after that (compiled
    /// code relies on it, and the host may not write it: `read_only`).
    /// A null slot gets the address of a stub that traps as calling null
    /// does (`null_call`); a lazily compiled function's is its stub, which
    /// jumps to the code once compiled.
    ///
    /// # Safety
    /// Every non-null element must point at a live `VMFuncRef`.
    pub unsafe fn freeze_codes(&mut self) {
        debug_assert!(self.read_only && self.element == RefType::FUNCREF);
        let code = |f: usize| match f {
            0 => super::null_call::address(),
            // SAFETY: the caller guarantees each non-null element is a
            // live funcref.
            f => unsafe { (*(f as *const VMFuncRef)).wasm_call as usize },
        };
        // Called twice (all nulls at creation, then after the segments):
        // the second time refills the same buffer.
        self.codes.clear();
        self.codes.extend(self.elements.iter().map(|&f| code(f)));
        self.definition.codes = self.codes.as_ptr();
    }

    pub fn len(&self) -> u32 {
        self.elements.len() as u32
    }

    /// The table's type with its current size as minimum.
    pub fn ty(&self) -> TableType {
        let d = self.declared;
        match d.is_64() {
            true => TableType::new64(d.element(), self.len().into(), d.maximum()),
            false => TableType::new(d.element(), self.len(), self.max),
        }
    }

    /// The type the table was created (or declared) with.
    pub fn declared_ty(&self) -> TableType {
        self.declared
    }

    /// The element type.
    pub fn element(&self) -> RefType {
        self.element
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

impl StoreOwned for VMTable {
    fn list(store: &mut StoreOpaque) -> &mut Vec<Box<Self>> {
        &mut store.tables
    }
}
