//! The engine's registry of types: one canonical id per distinct type,
//! while some module, host function or value uses it.
//!
//! Compiled code compares function types by id (`call_indirect`, and
//! later casts): a signature of a few 2.0 types has an id that is a pure
//! function of its types (`small_sig_id`), and every other type gets the
//! registry's canonical id, written into the code when it is loaded. Ids
//! are reference-counted: a module registers its types when it is created
//! ([`TypeCollection`]) and releases them when dropped, so an engine that
//! loads and drops modules forever keeps only the types in use.
//!
//! The registry holds recursion groups: in WebAssembly 2.0 every type is a
//! final function type in a group of its own, and two such groups are the
//! same type exactly when their function types are equal. Groups with
//! struct and array types and declared supertypes (GC) are parsed into
//! the model but refused by validation, so they never reach the registry
//! until GC lands; it will canonicalise them whole, as the spec's type
//! equivalence does.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use cranelift_entity::PrimaryMap;

use super::index::TypeIndex;
use super::types::{FuncType, HeapType, RefType, SubType, ValType, LARGE_SIG_ID_TAG};

/// A type's canonical id in its engine's registry.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct SharedTypeIndex(u32);

/// An engine's types.
#[derive(Default)]
pub struct TypeRegistry {
    inner: Mutex<Inner>,
}

#[derive(Default)]
struct Inner {
    by_type: HashMap<FuncType, SharedTypeIndex>,
    /// Each id's type and how many registrations hold it; `None` when the
    /// id is free.
    entries: Vec<Option<(FuncType, usize)>>,
    /// Free ids, reused first.
    free: Vec<u32>,
}

impl TypeRegistry {
    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Registers one use of `ty` and returns its canonical id.
    pub fn register(&self, ty: &FuncType) -> SharedTypeIndex {
        let mut inner = self.lock();
        if let Some(&id) = inner.by_type.get(ty) {
            inner.entries[id.0 as usize].as_mut().expect("registered ids have entries").1 += 1;
            return id;
        }
        let id = match inner.free.pop() {
            Some(i) => {
                inner.entries[i as usize] = Some((ty.clone(), 1));
                SharedTypeIndex(i)
            }
            None => {
                let i = u32::try_from(inner.entries.len()).expect("fewer than 2^32 types");
                inner.entries.push(Some((ty.clone(), 1)));
                SharedTypeIndex(i)
            }
        };
        inner.by_type.insert(ty.clone(), id);
        id
    }

    /// Releases one use of `id`; the last frees it.
    pub fn release(&self, id: SharedTypeIndex) {
        let mut inner = self.lock();
        let entry = inner.entries[id.0 as usize].as_mut().expect("released ids are registered");
        entry.1 -= 1;
        if entry.1 == 0 {
            let (ty, _) = inner.entries[id.0 as usize].take().expect("just seen");
            inner.by_type.remove(&ty);
            inner.free.push(id.0);
            if inner.by_type.is_empty() {
                // Nothing registered: give the tables' memory back, so that
                // an engine between modules holds nothing for types.
                *inner = Inner::default();
            }
        }
    }

    /// How many distinct types are registered.
    pub fn len(&self) -> usize {
        self.lock().by_type.len()
    }
}

/// The id compiled code compares `ty` by, its canonical id being `id`:
/// the small id when it has one, else the canonical id tagged so that it
/// never equals a small one.
pub fn sig_id(ty: &FuncType, id: SharedTypeIndex) -> usize {
    ty.small_sig_id().unwrap_or(id.0 as usize | LARGE_SIG_ID_TAG)
}

/// Marks a concrete heap type whose index is an engine's canonical id
/// ([`SharedTypeIndex`]) rather than an index in a module's type section.
pub const CANONICAL_TYPE_BIT: u32 = 1 << 31;

/// `ty` with each reference to a module type `t` (of those in `ids`)
/// replaced by one to canonical id `ids[t]`, marked with
/// [`CANONICAL_TYPE_BIT`]. Ids are those of the types' structure, so the
/// same type in two modules gets the same form; an id stays valid while
/// the module that registered it lives, as the types that use it do.
fn canonical(ty: ValType, ids: &PrimaryMap<TypeIndex, SharedTypeIndex>) -> ValType {
    match ty {
        ValType::Ref(r) => match r.heap_type() {
            HeapType::Concrete(t) => match ids.get(t) {
                Some(id) => ValType::Ref(RefType::new(
                    r.is_nullable(),
                    HeapType::Concrete(TypeIndex::from_u32(id.0 | CANONICAL_TYPE_BIT)),
                )),
                None => ty,
            },
            _ => ty,
        },
        _ => ty,
    }
}

fn canonical_func(func: &FuncType, ids: &PrimaryMap<TypeIndex, SharedTypeIndex>) -> FuncType {
    let map = |t: &ValType| canonical(*t, ids);
    FuncType::new(func.params().iter().map(map), func.results().iter().map(map))
}

/// One use of one type, released when dropped: what a host function holds.
pub struct RegisteredType {
    registry: Arc<TypeRegistry>,
    id: SharedTypeIndex,
    ty: FuncType,
}

impl RegisteredType {
    /// Registers `ty` in `registry`.
    pub fn new(registry: &Arc<TypeRegistry>, ty: FuncType) -> RegisteredType {
        RegisteredType { registry: registry.clone(), id: registry.register(&ty), ty }
    }

    /// The type.
    pub fn ty(&self) -> &FuncType {
        &self.ty
    }

    /// The id compiled code compares it by.
    pub fn sig_id(&self) -> usize {
        sig_id(&self.ty, self.id)
    }
}

impl Drop for RegisteredType {
    fn drop(&mut self) {
        self.registry.release(self.id);
    }
}

/// The types of one module, registered: their canonical ids by index in
/// the module, released when the module is dropped.
pub struct TypeCollection {
    registry: Arc<TypeRegistry>,
    ids: PrimaryMap<TypeIndex, SharedTypeIndex>,
    /// What compiled code compares each type by (see [`sig_id`]); 0 for a
    /// type that is not a function type.
    sig_ids: PrimaryMap<TypeIndex, usize>,
}

impl TypeCollection {
    /// Registers every type of a module's type section, rewriting the
    /// references to the module's types inside them into canonical form
    /// first (see [`canonical`]), so that two modules' types are equal
    /// exactly when they are the same type.
    pub fn new(registry: &Arc<TypeRegistry>, types: &mut PrimaryMap<TypeIndex, SubType>) -> TypeCollection {
        let mut ids: PrimaryMap<TypeIndex, SharedTypeIndex> = PrimaryMap::with_capacity(types.len());
        let mut sig_ids = PrimaryMap::with_capacity(types.len());
        for ty in types.values_mut() {
            // Validation lets only function types through (see the module
            // documentation).
            let func = ty.as_func().expect("only function types are registered before GC");
            // Without recursion groups (GC), a type refers only to earlier
            // ones, whose ids are known.
            let func = canonical_func(func, &ids);
            ty.composite = super::types::CompositeType::Func(func.clone());
            let id = registry.register(&func);
            ids.push(id);
            sig_ids.push(sig_id(&func, id));
        }
        TypeCollection { registry: registry.clone(), ids, sig_ids }
    }

    /// `ty` with its references to the module's types in canonical form:
    /// for the types of globals, tables and tags, so that imports match
    /// across modules.
    pub fn canonical(&self, ty: ValType) -> ValType {
        canonical(ty, &self.ids)
    }

    /// Registers the types of `info` (see [`TypeCollection::new`]) and puts
    /// the types of its globals and tables in canonical form too.
    pub fn for_module(registry: &Arc<TypeRegistry>, info: &mut super::module_info::ModuleInfo) -> TypeCollection {
        let types = TypeCollection::new(registry, &mut info.types);
        for g in info.globals.values_mut() {
            *g = super::types::GlobalType::new(types.canonical(g.content()), g.mutability());
        }
        for t in info.tables.values_mut() {
            let element = match types.canonical(ValType::Ref(t.element())) {
                ValType::Ref(r) => r,
                _ => unreachable!("a reference stays one"),
            };
            *t = match t.is_64() {
                false => super::types::TableType::new(element, t.minimum() as u32, t.maximum().map(|m| m as u32)),
                true => super::types::TableType::new64(element, t.minimum(), t.maximum()),
            };
        }
        types
    }

    /// What compiled code compares the module's type `t` by.
    pub fn sig_id(&self, t: TypeIndex) -> Option<usize> {
        self.sig_ids.get(t).copied()
    }
}

impl Drop for TypeCollection {
    fn drop(&mut self) {
        for id in self.ids.values() {
            self.registry.release(*id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::environ::types::ValType;

    #[test]
    fn ids_are_shared_counted_and_reused() {
        let registry = Arc::new(TypeRegistry::default());
        let a = FuncType::new([ValType::I32; 9], []);
        let first = RegisteredType::new(&registry, a.clone());
        let second = RegisteredType::new(&registry, FuncType::new([ValType::I32; 9], []));
        assert_eq!(first.sig_id(), second.sig_id());
        assert_eq!(first.sig_id() & LARGE_SIG_ID_TAG, LARGE_SIG_ID_TAG);
        assert_eq!(registry.len(), 1);
        let small = RegisteredType::new(&registry, FuncType::new([ValType::I32], []));
        assert_eq!(Some(small.sig_id()), small.ty().small_sig_id());
        drop(first);
        assert_eq!(registry.len(), 2, "still used by `second`");
        drop(second);
        let again = RegisteredType::new(&registry, FuncType::new([ValType::F64; 9], []));
        assert_eq!(again.sig_id(), LARGE_SIG_ID_TAG, "a freed id is reused");
        drop(small);
        drop(again);
        assert_eq!(registry.len(), 0);
    }
}
