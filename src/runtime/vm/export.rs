//! [`VMExtern`]: an entity of a store as the internals hold it — the
//! address compiled code uses, without the store id that makes it a
//! handle. Instantiation takes imports in this form and gives exports in
//! it; the safe side (`runtime::extern_`) turns them into handles.

use std::ptr::NonNull;

use super::memory::VMMemory;
use super::table::VMTable;
use crate::environ::types::GlobalType;
use crate::environ::vmctx::{VMFuncRef, VMGlobal};

/// A function, global, table or memory of a store, by address.
#[derive(Copy, Clone, Debug)]
pub(crate) enum VMExtern {
    Func(NonNull<VMFuncRef>),
    Global {
        storage: NonNull<VMGlobal>,
        ty: GlobalType,
        /// The instance (index in the store) whose VMContext holds the
        /// storage; `None` when the store holds it.
        owner: Option<usize>,
    },
    Table(NonNull<VMTable>),
    Memory(NonNull<VMMemory>),
    /// A tag, which its store keeps (see `exception`).
    Tag(NonNull<super::exception::VMTag>),
}
