//! [`Extern`]: anything an instance imports or exports.

use super::func::Func;
use super::global::Global;
use super::memory::Memory;
use super::store::{AsContext, StoreId, StoreOpaque};
use super::table::Table;
use super::tag::Tag;
use super::vm::export::VMExtern;
use super::vm::stored::Stored;
use crate::environ::types::ExternType;

/// A function, global, table or memory of a store.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Extern {
    /// A function.
    Func(Func),
    /// A global.
    Global(Global),
    /// A table.
    Table(Table),
    /// A linear memory.
    Memory(Memory),
    /// An exception tag.
    Tag(Tag),
}

impl Extern {
    /// The entity as the internals hold it.
    pub(crate) fn to_vm(&self) -> VMExtern {
        match self {
            Extern::Func(f) => VMExtern::Func(f.0.as_non_null()),
            Extern::Global(g) => VMExtern::Global { storage: g.storage.as_non_null(), ty: g.ty, owner: g.owner },
            Extern::Table(t) => VMExtern::Table(t.0.as_non_null()),
            Extern::Memory(m) => VMExtern::Memory(m.0.as_non_null()),
            Extern::Tag(t) => VMExtern::Tag(t.0.as_non_null()),
        }
    }

    /// The handle of an entity of store `store`, as the internals give it.
    pub(crate) fn from_vm(store: StoreId, e: VMExtern) -> Extern {
        // SAFETY: (each `new_unchecked`) the internals give entities of the
        // store they are asked about, which live as long as it (or, for an
        // instance's, until the instance is released, whose contract
        // forbids using its handles after).
        unsafe {
            match e {
                VMExtern::Func(f) => Extern::Func(Func(Stored::new_unchecked(store, f))),
                VMExtern::Global { storage, ty, owner } => {
                    Extern::Global(Global { storage: Stored::new_unchecked(store, storage), ty, owner })
                }
                VMExtern::Table(t) => Extern::Table(Table(Stored::new_unchecked(store, t))),
                VMExtern::Memory(m) => Extern::Memory(Memory(Stored::new_unchecked(store, m))),
                VMExtern::Tag(t) => Extern::Tag(Tag(Stored::new_unchecked(store, t))),
            }
        }
    }

    /// The current type of the entity (tables and memories report their
    /// current size as minimum).
    pub fn ty(&self, store: impl AsContext) -> ExternType {
        self.ty_in(store.as_context().opaque())
    }

    pub(crate) fn ty_in(&self, store: &StoreOpaque) -> ExternType {
        match self {
            Extern::Func(f) => ExternType::Func(f.0.get(store).ty().clone()),
            Extern::Global(g) => {
                store.assert_owns(g.storage.store_id());
                ExternType::Global(g.ty)
            }
            Extern::Table(t) => ExternType::Table(t.0.get(store).ty()),
            Extern::Memory(m) => ExternType::Memory(m.0.get(store).ty()),
            Extern::Tag(t) => ExternType::Tag(crate::environ::types::TagType::new(t.0.get(store).ty.clone())),
        }
    }

    /// The function, if this is one.
    pub fn into_func(self) -> Option<Func> {
        if let Extern::Func(f) = self {
            Some(f)
        } else {
            None
        }
    }
    /// The global, if this is one.
    pub fn into_global(self) -> Option<Global> {
        if let Extern::Global(g) = self {
            Some(g)
        } else {
            None
        }
    }
    /// The table, if this is one.
    pub fn into_table(self) -> Option<Table> {
        if let Extern::Table(t) = self {
            Some(t)
        } else {
            None
        }
    }
    /// The tag, if this is one.
    pub fn into_tag(self) -> Option<Tag> {
        if let Extern::Tag(t) = self {
            Some(t)
        } else {
            None
        }
    }
    /// The memory, if this is one.
    pub fn into_memory(self) -> Option<Memory> {
        if let Extern::Memory(m) = self {
            Some(m)
        } else {
            None
        }
    }

    pub(crate) fn store_id(&self) -> StoreId {
        match self {
            Extern::Func(f) => f.0.store_id(),
            Extern::Global(g) => g.storage.store_id(),
            Extern::Table(t) => t.0.store_id(),
            Extern::Memory(m) => m.0.store_id(),
            Extern::Tag(t) => t.0.store_id(),
        }
    }
}

impl From<Func> for Extern {
    fn from(f: Func) -> Extern {
        Extern::Func(f)
    }
}
impl From<Global> for Extern {
    fn from(g: Global) -> Extern {
        Extern::Global(g)
    }
}
impl From<Table> for Extern {
    fn from(t: Table) -> Extern {
        Extern::Table(t)
    }
}
impl From<Tag> for Extern {
    fn from(t: Tag) -> Extern {
        Extern::Tag(t)
    }
}
impl From<Memory> for Extern {
    fn from(m: Memory) -> Extern {
        Extern::Memory(m)
    }
}
