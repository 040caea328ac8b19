//! [`Tag`] and [`Exn`]: exception tags and the exceptions wasm throws, as
//! the host sees them (see `vm::exception` for how throwing works).

use std::ptr::NonNull;

use super::store::{AsContext, AsContextMut, StoreOpaque};
use super::values::Val;
use super::vm::exception::{VMExn, VMTag};
use super::vm::stored::Stored;
use crate::environ::error::{Error, Result};
use crate::environ::trap::Trap;
use crate::environ::type_registry::TypeUse;
use crate::environ::types::{FuncType, TagType};

/// An exception tag of a store: defined by an instance (and exported) or
/// made by the host. Two tags are the same tag only if they are one
/// object, whatever their types.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Tag(pub(crate) Stored<VMTag>);

impl Tag {
    /// A new tag whose exceptions carry the parameters of `ty` (its
    /// results must be empty).
    pub fn new(mut store: impl AsContextMut, ty: &TagType) -> Result<Tag> {
        if !ty.ty().results().is_empty() {
            return Err(Error::Usage(format!("a tag's type has no results, not {}", ty.ty())));
        }
        let mut cx = store.as_context_mut();
        let store = cx.opaque();
        let type_id = TypeUse::plain(store.engine().type_registry(), ty.ty());
        let ptr = store.keep_tag(Box::new(VMTag { ty: ty.ty().clone(), type_id }));
        // SAFETY: the store keeps the tag as long as it lives.
        Ok(Tag(unsafe { Stored::new_unchecked(store.id(), NonNull::new(ptr).expect("boxed")) }))
    }

    /// The tag's type.
    pub fn ty(&self, store: impl AsContext) -> TagType {
        TagType::new(self.0.get(store.as_context().opaque()).ty.clone())
    }
}

/// An exception: its tag and payload. It belongs to its store.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Exn(pub(crate) Stored<VMExn>);

/// `exnref` values are exceptions.
pub type ExnRef = Exn;

impl Exn {
    /// A new exception of `tag` carrying `values`, which must match the
    /// tag's parameters. A host function throws it by returning
    /// [`Exn::into_trap`].
    pub fn new(mut store: impl AsContextMut, tag: Tag, values: &[Val]) -> Result<Exn> {
        let mut cx = store.as_context_mut();
        let store = cx.opaque();
        let tag_ptr = tag.0.try_get(store)? as *const VMTag;
        // SAFETY: a tag of this store, which keeps it.
        let ty: FuncType = unsafe { (*tag_ptr).ty.clone() };
        if values.len() != ty.params().len() || !values.iter().zip(ty.params()).all(|(v, t)| v.matches_in(store, *t)) {
            return Err(Error::Usage(format!("exception values do not match the tag's type {ty}")));
        }
        // SAFETY: the values hold their objects as rooted handles; their
        // words are read after this.
        unsafe { crate::runtime::gc_object::make_room_for(store, values) };
        let raw = values.iter().map(|v| v.to_raw(store)).collect::<Result<Vec<_>>>()?;
        let mut exn = VMExn::new(tag_ptr, raw.into());
        // The host holds it.
        exn.exposed = 1;
        let ptr = store.keep_exn(exn);
        // SAFETY: the store keeps the exception as long as it lives.
        Ok(Exn(unsafe { Stored::new_unchecked(store.id(), NonNull::new(ptr).expect("boxed")) }))
    }

    /// The uncaught exception an error of a call stands for
    /// ([`Error::Exception`]), if it is one of `store`'s.
    pub fn from_error(store: impl AsContext, error: &Error) -> Option<Exn> {
        let Error::Exception(trap) = error else { return None };
        Exn::from_trap(store.as_context().opaque(), trap)
    }

    pub(crate) fn from_trap(store: &StoreOpaque, trap: &Trap) -> Option<Exn> {
        let ptr = trap.exception()? as *mut VMExn;
        // Only an exception this store keeps is one of its handles.
        let ours = store.exns.iter().any(|e| std::ptr::eq(&**e, ptr));
        // SAFETY: the store keeps it.
        ours.then(|| Exn(unsafe { Stored::new_unchecked(store.id(), NonNull::new(ptr).expect("non-null")) }))
    }

    /// What a host function returns to throw this exception into its wasm
    /// caller (which may catch it), or to pass on one it received.
    pub fn into_trap(self) -> Trap {
        Trap::uncaught_exception(self.0.as_non_null().as_ptr() as usize)
    }

    /// The exception's tag.
    pub fn tag(&self, store: impl AsContext) -> Tag {
        let cx = store.as_context();
        let store = cx.opaque();
        let tag = self.0.get(store).tag as *mut VMTag;
        // SAFETY: an exception's tag is of its store, which keeps it.
        Tag(unsafe { Stored::new_unchecked(store.id(), NonNull::new(tag).expect("exceptions have tags")) })
    }

    /// The values the exception carries, typed by its tag.
    pub fn values(&self, store: impl AsContext) -> Vec<Val> {
        let cx = store.as_context();
        let store = cx.opaque();
        let exn = self.0.get(store);
        // SAFETY: its tag is of its store, which keeps it.
        let ty = unsafe { &(*exn.tag).ty };
        exn.values().iter().zip(ty.params()).map(|(raw, t)| Val::from_raw(store, *raw, *t)).collect()
    }
}
