//! Tag types: what an exception carries (the exception-handling proposal,
//! part of WebAssembly 3.0).

use super::func::FuncType;

/// The type of a tag: the signature whose parameters an exception of the
/// tag carries (its results are empty).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TagType {
    ty: FuncType,
}

impl TagType {
    /// The tag type of exceptions carrying `ty`'s parameters.
    pub fn new(ty: FuncType) -> TagType {
        TagType { ty }
    }

    /// The signature of the tag.
    pub fn ty(&self) -> &FuncType {
        &self.ty
    }
}
