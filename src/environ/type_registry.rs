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
use super::types::{FuncType, SubType, LARGE_SIG_ID_TAG};

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
    /// Registers every type of a module's type section.
    pub fn new(registry: &Arc<TypeRegistry>, types: &PrimaryMap<TypeIndex, SubType>) -> TypeCollection {
        let mut ids = PrimaryMap::with_capacity(types.len());
        let mut sig_ids = PrimaryMap::with_capacity(types.len());
        for ty in types.values() {
            // Validation lets only function types through (see the module
            // documentation).
            let func = ty.as_func().expect("only function types are registered before GC");
            let id = registry.register(func);
            ids.push(id);
            sig_ids.push(sig_id(func, id));
        }
        TypeCollection { registry: registry.clone(), ids, sig_ids }
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
