//! [`EqRef`]: the `eqref` view of an [`AnyRef`], what `ref.eq` compares.

use crate::runtime::anyref::{AnyRef, RefRepr, I31};
use crate::runtime::arrayref::ArrayRef;
use crate::runtime::structref::StructRef;
use crate::runtime::values::Val;

/// A non-null `eqref`: an [`I31`], a [`StructRef`] or an [`ArrayRef`]
/// (not host data made internal, which is only an `anyref`). A struct or
/// array is rooted as its handle is.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct EqRef(RefRepr);

impl EqRef {
    /// The i31 this is, if it is one.
    pub fn as_i31(&self) -> Option<I31> {
        AnyRef(self.0).as_i31()
    }

    /// The struct this is, if it is one.
    pub fn as_struct(&self) -> Option<StructRef> {
        AnyRef(self.0).as_struct()
    }

    /// The array this is, if it is one.
    pub fn as_array(&self) -> Option<ArrayRef> {
        AnyRef(self.0).as_array()
    }
}

impl AnyRef {
    /// The `eqref` this is: `None` for host data made internal.
    pub fn as_eq(&self) -> Option<EqRef> {
        self.is_eq().then_some(EqRef(self.0))
    }
}

impl From<EqRef> for AnyRef {
    fn from(e: EqRef) -> AnyRef {
        AnyRef(e.0)
    }
}

impl From<I31> for EqRef {
    fn from(v: I31) -> EqRef {
        EqRef(RefRepr::I31(v))
    }
}

impl From<StructRef> for EqRef {
    fn from(s: StructRef) -> EqRef {
        EqRef(AnyRef::from(s).0)
    }
}

impl From<ArrayRef> for EqRef {
    fn from(a: ArrayRef) -> EqRef {
        EqRef(AnyRef::from(a).0)
    }
}

impl From<EqRef> for Val {
    fn from(e: EqRef) -> Val {
        Val::AnyRef(Some(e.into()))
    }
}
