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
        })
    }

    /// The reference whose word is `raw` (not 0), which compiled code of
    /// `store` or its tables and globals hold.
    pub(crate) fn from_raw(store: &StoreOpaque, raw: usize) -> RefRepr {
        match raw & 0b11 {
            0b01 | 0b11 => RefRepr::I31(I31((raw >> 1) as u32 & 0x7fff_ffff)),
            // Words ending in 10 are GC heap objects (stage 2); until the
            // heap exists no code can make one.
            0b10 => unreachable!("a GC heap object before the GC heap exists"),
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
/// `i31ref`, ...). So far an [`I31`], or host data made internal by
/// `any.convert_extern` ([`AnyRef::convert_extern`]); struct and array
/// objects come with the GC heap.
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
            RefRepr::Host(_) => None,
        }
    }

    /// Whether this is an `eqref` (an i31; later a struct or an array),
    /// which `ref.eq` compares.
    pub fn is_eq(&self) -> bool {
        self.as_i31().is_some()
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
