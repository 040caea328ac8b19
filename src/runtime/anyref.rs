//! References of the `any` hierarchy (GC, issue 40 stage 1): [`AnyRef`]
//! and the unboxed [`I31`], and what they share with [`ExternRef`].
//!
//! One word encodes every `any` and `extern` reference (see
//! `src/runtime/vm/gc/README.md`): host data is its `VMExternData`
//! address, an i31 is `(v << 1) | 1`. So `any.convert_extern` and
//! `extern.convert_any` change nothing, and an i31 passed out as an
//! externref comes back intact.

use super::externref::ExternRef;
use super::store::StoreOpaque;
use super::vm::externref::VMExternData;
use super::vm::stored::Stored;
use crate::environ::error::Result;

/// An unboxed 31-bit integer, the value of an `i31ref`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct I31(u32);

impl I31 {
    /// The low 31 bits of `v` (as `ref.i31` takes them).
    pub fn wrapping_i32(v: i32) -> I31 {
        I31(v as u32 & 0x7fff_ffff)
    }

    /// The low 31 bits of `v`.
    pub fn wrapping_u32(v: u32) -> I31 {
        I31(v & 0x7fff_ffff)
    }

    /// The value sign-extended from 31 bits (`i31.get_s`).
    pub fn get_i32(self) -> i32 {
        ((self.0 << 1) as i32) >> 1
    }

    /// The value zero-extended (`i31.get_u`).
    pub fn get_u32(self) -> u32 {
        self.0
    }
}

/// What a non-null `any` or `extern` reference is, whichever hierarchy
/// it is seen in.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum RefRepr {
    /// Host data (`ExternRef::new`), perhaps made internal.
    Host(Stored<VMExternData>),
    /// An i31, perhaps made external.
    I31(I31),
    /// A struct or array object of a store's GC heap, perhaps made
    /// external.
    Object(ObjectRef),
}

/// A struct or array object of a store's GC heap, rooted: a slot of the
/// store's root list, which the collector keeps pointing at the object
/// wherever it moves it (see `vm::gc::host_roots`), and the header's id
/// word, read when the handle was made (an object never changes type).
///
/// The slot lives until the host function that made the handle returns,
/// or the [`RootScope`](crate::RootScope) it was made in ends; made
/// outside both, as long as the store. A handle used after its slot was
/// freed is an error, never a read of another object. Equality is the
/// handles' (two handles of one object may differ); compare objects with
/// `ref.eq` in wasm.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct ObjectRef {
    store: super::vm::store::StoreId,
    index: u32,
    generation: u32,
    id: u32,
}

impl ObjectRef {
    /// Whether this is an array (else a struct).
    pub fn is_array(&self) -> bool {
        self.id & crate::environ::gc_layout::ARRAY_BIT != 0
    }

    pub(crate) fn store_id(&self) -> super::vm::store::StoreId {
        self.store
    }

    /// The canonical id of the object's type.
    pub(crate) fn type_id(&self) -> u32 {
        self.id & !crate::environ::gc_layout::ARRAY_BIT
    }

    /// A new root in `store` for the object of reference word `word`,
    /// whose header's id word is `id`.
    pub(crate) fn root(store: &StoreOpaque, word: u32, id: u32) -> ObjectRef {
        let (index, generation) = store.gc_host_roots.push(word);
        ObjectRef { store: store.id(), index, generation, id }
    }

    /// Another handle of this object, rooted until [`unpin`](Self::unpin)
    /// frees it, whatever scope or host call ends meanwhile: for holders
    /// that no scope follows (the C API's object cells). An error with
    /// another store, or once this handle's root was freed.
    pub fn pin(&self, store: impl crate::AsContext) -> Result<ObjectRef> {
        let cx = store.as_context();
        let store = cx.opaque();
        let word = self.word(store)?;
        let (index, generation) = store.gc_host_roots.pin(word);
        Ok(ObjectRef { store: self.store, index, generation, id: self.id })
    }

    /// Frees the root of a handle made by [`pin`](Self::pin): false if it
    /// is not one, or was freed already, or is of another store.
    pub fn unpin(self, store: impl crate::AsContext) -> bool {
        let cx = store.as_context();
        let store = cx.opaque();
        self.store == store.id() && store.gc_host_roots.unpin(self.index, self.generation)
    }

    /// The object's reference word now, in `store`: an error with another
    /// store, or once the handle's root was freed.
    pub(crate) fn word(&self, store: &StoreOpaque) -> Result<u32> {
        if self.store != store.id() {
            return Err(crate::environ::error::Error::WrongStore);
        }
        store.gc_host_roots.get(self.index, self.generation).ok_or_else(|| {
            crate::environ::error::Error::Resource(
                "a GC object's handle was used after its root scope (or host call) ended".into(),
            )
        })
    }
}

impl RefRepr {
    /// The reference's word in `store`; host data of another store is an
    /// error.
    pub(crate) fn to_raw(self, store: &StoreOpaque) -> Result<usize> {
        Ok(match self {
            RefRepr::Host(h) => {
                h.check(store)?;
                h.as_ptr() as usize
            }
            RefRepr::I31(v) => crate::runtime::vm::gc::i31_raw(v.0),
            RefRepr::Object(o) => o.word(store)? as usize,
        })
    }

    /// The reference whose word is `raw` (not 0), which compiled code of
    /// `store` or its tables and globals hold.
    pub(crate) fn from_raw(store: &StoreOpaque, raw: usize) -> RefRepr {
        match raw & 0b11 {
            0b01 | 0b11 => RefRepr::I31(I31((raw >> 1) as u32 & 0x7fff_ffff)),
            // A box of host data made internal: the host data.
            0b10 if crate::runtime::vm::gc::objects::is_box(raw) => RefRepr::from_raw(store, store.gc_unbox(raw)),
            0b10 => {
                let o = crate::runtime::vm::gc::objects::offset_of(raw);
                // SAFETY: a word of `store` ending in 010 names one of its
                // heap's objects (caller), whose header starts it.
                let id = unsafe { store.gc_at(o, 0).cast::<u32>().read() };
                RefRepr::Object(ObjectRef::root(store, raw as u32, id))
            }
            _ => {
                let p = std::ptr::NonNull::new(raw as *mut VMExternData).expect("not null");
                // SAFETY: a word ending in 00 that is not null is the address
                // of host data that `store` owns (caller), alive with it.
                RefRepr::Host(unsafe { Stored::new_unchecked(store.id(), p) })
            }
        }
    }
}

/// A non-null reference of the `any` hierarchy (`anyref`, `eqref`,
/// `i31ref`, ...): an [`I31`], a struct or array object
/// ([`as_struct`](Self::as_struct), [`as_array`](Self::as_array),
/// [`as_eq`](Self::as_eq)), or host data made internal by
/// `any.convert_extern` ([`AnyRef::convert_extern`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct AnyRef(pub(crate) RefRepr);

impl AnyRef {
    /// The i31 `v` as an `anyref`.
    pub fn from_i31(v: I31) -> AnyRef {
        AnyRef(RefRepr::I31(v))
    }

    /// The i31 this is, if it is one.
    pub fn as_i31(&self) -> Option<I31> {
        match self.0 {
            RefRepr::I31(v) => Some(v),
            _ => None,
        }
    }

    /// The struct or array object this is, if it is one.
    pub fn as_object(&self) -> Option<ObjectRef> {
        match self.0 {
            RefRepr::Object(o) => Some(o),
            _ => None,
        }
    }

    /// Whether this is an `eqref` (an i31, a struct or an array), which
    /// `ref.eq` compares.
    pub fn is_eq(&self) -> bool {
        !matches!(self.0, RefRepr::Host(_))
    }

    /// Another handle of this reference that stays valid until
    /// [`unpin`](Self::unpin), whatever scope ends meanwhile (see
    /// [`ObjectRef::pin`]); an i31 or host data needs no root and comes
    /// back as it is.
    pub fn pin(&self, store: impl crate::AsContext) -> Result<AnyRef> {
        Ok(match self.0 {
            RefRepr::Object(o) => AnyRef(RefRepr::Object(o.pin(store)?)),
            _ => *self,
        })
    }

    /// Frees the root of a handle made by [`pin`](Self::pin) (see
    /// [`ObjectRef::unpin`]); true for an i31 or host data, which have none.
    pub fn unpin(self, store: impl crate::AsContext) -> bool {
        match self.0 {
            RefRepr::Object(o) => o.unpin(store),
            _ => true,
        }
    }

    /// Whether `self` and `other` are one reference, as `ref.eq` (and for
    /// host data made internal, pointer equality) sees it: the same i31
    /// value, the same object whichever handles name it, or the same host
    /// data. An error for a handle of another store or whose root was
    /// freed.
    pub fn ref_eq(&self, store: impl crate::AsContext, other: &AnyRef) -> Result<bool> {
        let cx = store.as_context();
        let store = cx.opaque();
        Ok(self.0.to_raw(store)? == other.0.to_raw(store)?)
    }

    /// `e` made internal, as `any.convert_extern` does.
    pub fn convert_extern(e: ExternRef) -> AnyRef {
        AnyRef(e.0)
    }
}

impl ExternRef {
    /// `a` made external, as `extern.convert_any` does.
    pub fn convert_any(a: AnyRef) -> ExternRef {
        ExternRef(a.0)
    }
}
