//! A module's type section as embedders reflect on it (issue 40: WAMR's
//! `gc_export.h` asks for defined types by index, their fields, and
//! subtyping between them).
//!
//! After registration a module keeps its types in canonical form (see
//! `TypeCollection`): references to its own types name engine-wide ids.
//! Embedders speak of a module's types by their index in its type
//! section, so these functions turn canonical references back into module
//! indices, and module-relative types into canonical form to compare them.

use crate::environ::index::{FuncIndex, TypeIndex};
use crate::environ::type_registry::canonical_id;
use crate::environ::types::{CompositeType, FieldType, HeapType, RefType, StorageType, SubType, ValType};
use crate::runtime::module::Module;

impl Module {
    /// How many types the module's type section defines.
    pub fn defined_type_count(&self) -> u32 {
        self.info().types.len() as u32
    }

    /// Type `index` of the type section as declared: its supertype and the
    /// concrete types it refers to named by their index in this module.
    /// `None` past the end.
    pub fn defined_type(&self, index: u32) -> Option<SubType> {
        let sub = self.info().types.get(TypeIndex::from_u32(index))?;
        let local = |t: TypeIndex| self.local_index(t).unwrap_or(t);
        let val = |v: ValType| match v {
            ValType::Ref(r) => match r.heap_type() {
                HeapType::Concrete(t) => ValType::Ref(RefType::new(r.is_nullable(), HeapType::Concrete(local(t)))),
                _ => v,
            },
            _ => v,
        };
        let field = |f: &FieldType| FieldType {
            storage: match f.storage {
                StorageType::Val(v) => StorageType::Val(val(v)),
                s => s,
            },
            mutable: f.mutable,
        };
        let composite = match &sub.composite {
            CompositeType::Func(f) => CompositeType::Func(crate::environ::types::FuncType::new(
                f.params().iter().map(|v| val(*v)),
                f.results().iter().map(|v| val(*v)),
            )),
            CompositeType::Struct(fields) => CompositeType::Struct(fields.iter().map(field).collect()),
            CompositeType::Array(f) => CompositeType::Array(field(f)),
        };
        Some(SubType { is_final: sub.is_final, supertype: sub.supertype.map(local), composite })
    }

    /// Whether type `a` of this module is type `b` of `other` or one of its
    /// subtypes (declared subtyping, with iso-recursive equality: equal
    /// recursion groups give the same type, in any two modules of one
    /// engine). False for an index past either type section.
    pub fn defined_type_matches(&self, a: u32, other: &Module, b: u32) -> bool {
        if !crate::Engine::same(self.engine(), other.engine()) {
            return false;
        }
        match (self.canonical_type(a), other.canonical_type(b)) {
            (Some(x), Some(y)) => self.engine().type_registry().is_subtype(x, y),
            _ => false,
        }
    }

    /// Whether types `a` of this module and `b` of `other` are the same
    /// type (see [`Module::defined_type_matches`]).
    pub fn defined_type_equals(&self, a: u32, other: &Module, b: u32) -> bool {
        crate::Engine::same(self.engine(), other.engine())
            && matches!((self.canonical_type(a), other.canonical_type(b)), (Some(x), Some(y)) if x == y)
    }

    /// Whether a reference of type `a` may be used where `b` is expected,
    /// both with concrete types named by their index in this module. False
    /// when either names a type the module does not have.
    pub fn ref_type_matches(&self, a: RefType, b: RefType) -> bool {
        match (self.canonical_ref(a), self.canonical_ref(b)) {
            (Some(a), Some(b)) => self.engine().type_registry().ref_matches(a, b),
            _ => false,
        }
    }

    /// The type index of function `func` (imports first), if it exists.
    pub fn func_type_index(&self, func: u32) -> Option<u32> {
        self.info().funcs.get(FuncIndex::from_u32(func)).map(|t| t.as_u32())
    }

    /// The canonical id of the module's type `index`.
    pub(crate) fn canonical_type(&self, index: u32) -> Option<crate::environ::type_registry::SharedTypeIndex> {
        if index as usize >= self.info().types.len() {
            return None;
        }
        let concrete = RefType::new(true, HeapType::Concrete(TypeIndex::from_u32(index)));
        match self.code().types.canonical(ValType::Ref(concrete)) {
            ValType::Ref(r) => match r.heap_type() {
                HeapType::Concrete(t) => canonical_id(t),
                _ => None,
            },
            _ => None,
        }
    }

    /// `r` with its concrete type (a module index) in canonical form;
    /// `None` for an index past the type section.
    fn canonical_ref(&self, r: RefType) -> Option<RefType> {
        match r.heap_type() {
            HeapType::Concrete(t) if t.as_u32() as usize >= self.info().types.len() => None,
            _ => match self.code().types.canonical(ValType::Ref(r)) {
                ValType::Ref(r) => Some(r),
                _ => None,
            },
        }
    }

    /// The first index of the module's type section whose canonical id is
    /// the one canonical reference `t` names (two structurally equal
    /// groups of one module share ids; the first index stands for both).
    fn local_index(&self, t: TypeIndex) -> Option<TypeIndex> {
        let id = canonical_id(t)?;
        (0..self.defined_type_count()).find(|i| self.canonical_type(*i) == Some(id)).map(TypeIndex::from_u32)
    }
}

impl HeapType {
    /// Concrete type `index` of a module's type section, for embedders
    /// that name types by index (WAMR's `gc_export.h`).
    pub fn concrete(index: u32) -> HeapType {
        HeapType::Concrete(TypeIndex::from_u32(index))
    }

    /// The index of a concrete type (`None` for an abstract one).
    pub fn concrete_index(&self) -> Option<u32> {
        match self {
            HeapType::Concrete(t) => Some(t.as_u32()),
            _ => None,
        }
    }
}
