//! The engine's registry of types: one canonical id per distinct type,
//! while some module, host function or value uses it.
//!
//! Compiled code compares function types by id (`call_indirect`, casts):
//! a plain signature of a few 2.0 types (final, no supertype, alone in its
//! recursion group) has an id that is a pure function of its types
//! (`small_sig_id`), and every other type gets the registry's canonical id,
//! written into the code's VMContext when it is instantiated. Ids are
//! reference-counted: a module registers its types when it is created
//! ([`TypeCollection`]) and releases them when dropped, so an engine that
//! loads and drops modules forever keeps only the types in use.
//!
//! The registry holds whole recursion groups, as the spec's type
//! equivalence is iso-recursive: two groups are the same when their types
//! are equal with references inside the group taken relative to the
//! group's start ([`REC_RELATIVE_BIT`]) and references to earlier groups
//! by canonical id ([`CANONICAL_TYPE_BIT`]). Each type of a group gets an
//! id; the group is freed when its last use is released.
//!
//! Subtyping: each registered type keeps its supertype display, the ids
//! of its supertypes from the root down to itself, so `a <: b` is
//! `display(a)[depth(b)] == b` (see `src/runtime/vm/gc/README.md`).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use cranelift_entity::PrimaryMap;

use super::index::TypeIndex;
use super::types::{
    CompositeType, FieldType, FuncType, HeapType, RefType, StorageType, SubType, ValType, LARGE_SIG_ID_TAG,
};

/// A type's canonical id in its engine's registry.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct SharedTypeIndex(u32);

/// An engine's types.
#[derive(Default)]
pub struct TypeRegistry {
    inner: Mutex<Inner>,
}

/// A recursion group in the form two equal groups share: references into
/// the group relative to its start, others by canonical id.
type GroupKey = Box<[SubType]>;

struct Entry {
    /// The type, every reference by canonical id.
    ty: SubType,
    /// Its group, by index in `Inner::groups`.
    group: u32,
    /// Its supertype display as compiled code reads it (through
    /// `VMFuncRef::display`): the count, then its supertypes' ids from the
    /// root down, ending with its own; its depth is the count less one.
    /// Boxed, so that it stays where it is while the type is registered.
    display: Box<[u32]>,
}

struct Group {
    key: GroupKey,
    ids: Box<[SharedTypeIndex]>,
    /// How many registrations hold it.
    uses: usize,
}

#[derive(Default)]
struct Inner {
    by_group: HashMap<GroupKey, u32>,
    groups: Vec<Option<Group>>,
    free_groups: Vec<u32>,
    /// Each id's type; `None` when the id is free.
    entries: Vec<Option<Entry>>,
    /// Free ids, reused first.
    free: Vec<u32>,
}

/// Marks a concrete heap type whose index is an engine's canonical id
/// ([`SharedTypeIndex`]) rather than an index in a module's type section.
pub const CANONICAL_TYPE_BIT: u32 = 1 << 31;

/// Marks a concrete heap type, in a [`GroupKey`], that is the type at this
/// index of the same recursion group. (Module indices are below 2^20, ids
/// are tagged with [`CANONICAL_TYPE_BIT`].)
pub const REC_RELATIVE_BIT: u32 = 1 << 30;

/// `sub` with each type index `t` it refers to (in its fields, parameters,
/// results and supertype) replaced by `f(t)`.
fn map_sub(sub: &SubType, f: &impl Fn(TypeIndex) -> TypeIndex) -> SubType {
    let val = |t: ValType| match t {
        ValType::Ref(r) => match r.heap_type() {
            HeapType::Concrete(i) => ValType::Ref(RefType::new(r.is_nullable(), HeapType::Concrete(f(i)))),
            _ => t,
        },
        _ => t,
    };
    let field = |x: &FieldType| FieldType {
        storage: match x.storage {
            StorageType::Val(v) => StorageType::Val(val(v)),
            s => s,
        },
        mutable: x.mutable,
    };
    let composite = match &sub.composite {
        CompositeType::Func(func) => CompositeType::Func(FuncType::new(
            func.params().iter().map(|t| val(*t)),
            func.results().iter().map(|t| val(*t)),
        )),
        CompositeType::Struct(fields) => CompositeType::Struct(fields.iter().map(field).collect()),
        CompositeType::Array(a) => CompositeType::Array(field(a)),
    };
    SubType { is_final: sub.is_final, supertype: sub.supertype.map(f), composite }
}

fn plain(ty: &FuncType) -> SubType {
    SubType { is_final: true, supertype: None, composite: CompositeType::Func(ty.clone()) }
}

fn canonical_index(id: SharedTypeIndex) -> TypeIndex {
    TypeIndex::from_u32(id.0 | CANONICAL_TYPE_BIT)
}

/// The canonical id a concrete type in canonical form names.
pub fn canonical_id(t: TypeIndex) -> Option<SharedTypeIndex> {
    (t.as_u32() & CANONICAL_TYPE_BIT != 0).then(|| SharedTypeIndex(t.as_u32() & !CANONICAL_TYPE_BIT))
}

impl TypeRegistry {
    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Registers one use of `ty`, a plain function type (final, without
    /// supertype, alone in its group), and returns its canonical id.
    pub fn register(&self, ty: &FuncType) -> SharedTypeIndex {
        self.register_group(Box::new([plain(ty)])).1[0]
    }

    /// Registers one use of the recursion group `key` (in [`GroupKey`]
    /// form, which validation's rules make well-formed: supertypes come
    /// earlier, in the group or by id) and returns it (what
    /// [`release_group`](Self::release_group) takes) and its types' ids.
    /// (A group may be empty: `(rec)`.)
    fn register_group(&self, key: GroupKey) -> (u32, Box<[SharedTypeIndex]>) {
        let mut inner = self.lock();
        if let Some(&g) = inner.by_group.get(&key) {
            let group = inner.groups[g as usize].as_mut().expect("indexed groups exist");
            group.uses += 1;
            return (g, group.ids.clone());
        }
        let g = match inner.free_groups.pop() {
            Some(g) => g,
            None => {
                inner.groups.push(None);
                u32::try_from(inner.groups.len() - 1).expect("fewer than 2^32 groups")
            }
        };
        let ids: Box<[SharedTypeIndex]> = key
            .iter()
            .map(|_| match inner.free.pop() {
                Some(i) => SharedTypeIndex(i),
                None => {
                    inner.entries.push(None);
                    SharedTypeIndex(u32::try_from(inner.entries.len() - 1).expect("fewer than 2^32 types"))
                }
            })
            .collect();
        let resolve = |t: TypeIndex| match t.as_u32() {
            i if i & REC_RELATIVE_BIT != 0 => canonical_index(ids[(i & !REC_RELATIVE_BIT) as usize]),
            _ => t,
        };
        for (sub, id) in key.iter().zip(ids.iter()) {
            let ty = map_sub(sub, &resolve);
            let mut display: Vec<u32> = match ty.supertype.and_then(canonical_id) {
                Some(s) => inner.entries[s.0 as usize].as_ref().expect("a supertype is registered").display.to_vec(),
                None => vec![0],
            };
            display.push(id.0);
            display[0] += 1;
            inner.entries[id.0 as usize] = Some(Entry { ty, group: g, display: display.into() });
        }
        inner.groups[g as usize] = Some(Group { key: key.clone(), ids: ids.clone(), uses: 1 });
        inner.by_group.insert(key, g);
        (g, ids)
    }

    /// Registers one more use of the group holding `id`, a registered type.
    pub fn retain(&self, id: SharedTypeIndex) {
        let mut inner = self.lock();
        let g = inner.entries[id.0 as usize].as_ref().expect("retained ids are registered").group;
        inner.groups[g as usize].as_mut().expect("registered ids have groups").uses += 1;
    }

    /// Releases one use of the group holding `id`; the last frees it.
    pub fn release(&self, id: SharedTypeIndex) {
        let g = self.lock().entries[id.0 as usize].as_ref().expect("released ids are registered").group;
        self.release_group(g);
    }

    /// Releases one use of group `g`; the last frees it.
    fn release_group(&self, g: u32) {
        let mut inner = self.lock();
        let group = inner.groups[g as usize].as_mut().expect("registered ids have groups");
        group.uses -= 1;
        if group.uses > 0 {
            return;
        }
        let group = inner.groups[g as usize].take().expect("just seen");
        inner.by_group.remove(&group.key);
        inner.free_groups.push(g);
        for id in group.ids.iter() {
            inner.entries[id.0 as usize] = None;
            inner.free.push(id.0);
        }
        if inner.by_group.is_empty() {
            // Nothing registered: give the tables' memory back, so that
            // an engine between modules holds nothing for types.
            *inner = Inner::default();
        }
    }

    /// How many distinct types are registered.
    pub fn len(&self) -> usize {
        self.lock().entries.iter().filter(|e| e.is_some()).count()
    }

    /// Whether type `a` is `b` or one of its subtypes: `b`'s id at `b`'s
    /// depth in `a`'s supertype display.
    pub fn is_subtype(&self, a: SharedTypeIndex, b: SharedTypeIndex) -> bool {
        if a == b {
            return true;
        }
        let inner = self.lock();
        let depth = |id: SharedTypeIndex| inner.entries.get(id.0 as usize)?.as_ref().map(|e| e.display[0] as usize - 1);
        let (Some(db), Some(Some(ea))) = (depth(b), inner.entries.get(a.0 as usize)) else { return false };
        ea.display.get(1 + db) == Some(&b.0)
    }

    /// Where type `id`'s supertype display is (see [`Entry::display`]),
    /// valid while the type is registered.
    fn display(&self, id: SharedTypeIndex) -> *const u32 {
        let inner = self.lock();
        inner.entries[id.0 as usize].as_ref().expect("a registered id").display.as_ptr()
    }

    /// The kind of registered type `id`: `HeapType::Func`, `Struct` or
    /// `Array`.
    pub fn kind(&self, id: SharedTypeIndex) -> Option<HeapType> {
        let inner = self.lock();
        inner.entries.get(id.0 as usize)?.as_ref().map(|e| match e.ty.composite {
            CompositeType::Func(_) => HeapType::Func,
            CompositeType::Struct(_) => HeapType::Struct,
            CompositeType::Array(_) => HeapType::Array,
        })
    }

    /// Whether a reference of type `a` may be used where `b` is expected,
    /// both in canonical form: abstract subtyping, plus declared subtyping
    /// between concrete types and a concrete type's place under its kind's
    /// abstract types.
    pub fn ref_matches(&self, a: RefType, b: RefType) -> bool {
        if a == b || a.matches_abstract(&b) && !matches!(a.heap_type(), HeapType::Concrete(_)) {
            return true;
        }
        if a.is_nullable() && !b.is_nullable() {
            return false;
        }
        match (a.heap_type(), b.heap_type()) {
            (HeapType::Concrete(x), HeapType::Concrete(y)) => match (canonical_id(x), canonical_id(y)) {
                (Some(x), Some(y)) => self.is_subtype(x, y),
                _ => x == y,
            },
            (HeapType::Concrete(x), abs) => {
                let kind = canonical_id(x).and_then(|x| self.kind(x)).unwrap_or(HeapType::Func);
                kind == abs || kind.matches_abstract(&abs)
            }
            (bottom, HeapType::Concrete(y)) => {
                let kind = canonical_id(y).and_then(|y| self.kind(y)).unwrap_or(HeapType::Func);
                bottom == HeapType::None && kind != HeapType::Func
                    || bottom == HeapType::NoFunc && kind == HeapType::Func
            }
            _ => false,
        }
    }

    /// [`ref_matches`](Self::ref_matches) for value types.
    pub fn val_matches(&self, a: ValType, b: ValType) -> bool {
        match (a, b) {
            (ValType::Ref(a), ValType::Ref(b)) => self.ref_matches(a, b),
            _ => a == b,
        }
    }
}

/// The id compiled code compares function type `ty` by, its canonical id
/// being `id` and `plain` saying whether it is final, without supertype
/// and alone in its group: the small id when it has one, else the
/// canonical id tagged so that it never equals a small one.
pub fn sig_id(ty: &FuncType, plain: bool, id: SharedTypeIndex) -> usize {
    match plain {
        true => ty.small_sig_id().unwrap_or(id.0 as usize | LARGE_SIG_ID_TAG),
        false => id.0 as usize | LARGE_SIG_ID_TAG,
    }
}

/// The canonical id behind a signature id of [`sig_id`], if it is not a
/// small one.
pub fn large_sig_id(sig: usize) -> Option<SharedTypeIndex> {
    (sig & LARGE_SIG_ID_TAG != 0).then(|| SharedTypeIndex((sig & !LARGE_SIG_ID_TAG) as u32))
}

/// `ty` with each reference to a module type `t` (of those in `ids`)
/// replaced by one to canonical id `ids[t]`, marked with
/// [`CANONICAL_TYPE_BIT`]. Ids are those of the types' structure, so the
/// same type in two modules gets the same form; an id stays valid while
/// the module that registered it lives, as the types that use it do.
fn canonical(ty: ValType, ids: &PrimaryMap<TypeIndex, SharedTypeIndex>) -> ValType {
    match ty {
        ValType::Ref(r) => match r.heap_type() {
            HeapType::Concrete(t) => match ids.get(t) {
                Some(id) => ValType::Ref(RefType::new(r.is_nullable(), HeapType::Concrete(canonical_index(*id)))),
                None => ty,
            },
            _ => ty,
        },
        _ => ty,
    }
}

/// One use of one type, released when dropped: what a host function holds.
pub struct RegisteredType {
    registry: Arc<TypeRegistry>,
    id: SharedTypeIndex,
    ty: FuncType,
}

impl RegisteredType {
    /// Registers `ty` in `registry`, as a plain function type.
    pub fn new(registry: &Arc<TypeRegistry>, ty: FuncType) -> RegisteredType {
        RegisteredType { registry: registry.clone(), id: registry.register(&ty), ty }
    }

    /// The type.
    pub fn ty(&self) -> &FuncType {
        &self.ty
    }

    /// The id compiled code compares it by.
    pub fn sig_id(&self) -> usize {
        sig_id(&self.ty, true, self.id)
    }
}

impl Drop for RegisteredType {
    fn drop(&mut self) {
        self.registry.release(self.id);
    }
}

/// One use of a registered type (its whole group), released when dropped:
/// what a tag holds, so that its type's id outlives the module that
/// defined it (the store keeps tags as long as exceptions may name them).
pub struct TypeUse {
    registry: Arc<TypeRegistry>,
    id: SharedTypeIndex,
}

impl TypeUse {
    /// One more use of `id`, which something else holds registered now.
    pub fn retain(registry: &Arc<TypeRegistry>, id: SharedTypeIndex) -> TypeUse {
        registry.retain(id);
        TypeUse { registry: registry.clone(), id }
    }

    /// Registers `ty` as a plain function type, as a host function's is.
    pub fn plain(registry: &Arc<TypeRegistry>, ty: &FuncType) -> TypeUse {
        TypeUse { registry: registry.clone(), id: registry.register(ty) }
    }

    /// The canonical id: two uses name the same type exactly when equal.
    pub fn id(&self) -> SharedTypeIndex {
        self.id
    }
}

impl Drop for TypeUse {
    fn drop(&mut self) {
        self.registry.release(self.id);
    }
}

/// The types of one module, registered: their canonical ids by index in
/// the module, released (one use per group) when the module is dropped.
pub struct TypeCollection {
    registry: Arc<TypeRegistry>,
    ids: PrimaryMap<TypeIndex, SharedTypeIndex>,
    /// Each recursion group, as `release_group` takes it.
    groups: Vec<u32>,
    /// What compiled code compares each type by (see [`sig_id`]); 0 for a
    /// type that is not a function type.
    sig_ids: PrimaryMap<TypeIndex, usize>,
    /// Each type's supertype display, for its functions' `VMFuncRef`s:
    /// [`PLAIN_DISPLAY`] for a plain type.
    displays: PrimaryMap<TypeIndex, *const u32>,
}

// SAFETY: the display pointers point into the registry's boxes, which live
// (unchanged) while the collection holds their groups; they are only read.
unsafe impl Send for TypeCollection {}
// SAFETY: as for `Send`.
unsafe impl Sync for TypeCollection {}

/// The display of a plain type (final, no supertype, alone in its group):
/// no entries, so a check against a non-final type fails, as it must.
pub static PLAIN_DISPLAY: [u32; 1] = [0];

impl TypeCollection {
    /// Registers every recursion group of a module's type section, and
    /// rewrites the references to the module's types inside them into
    /// canonical form (see [`canonical`]), so that two modules' types are
    /// equal exactly when they are the same type.
    pub fn new(registry: &Arc<TypeRegistry>, info: &mut super::module_info::ModuleInfo) -> TypeCollection {
        let mut ids: PrimaryMap<TypeIndex, SharedTypeIndex> = PrimaryMap::with_capacity(info.types.len());
        let mut groups = Vec::with_capacity(info.rec_groups.len());
        for group in &info.rec_groups {
            let start = group.range.start;
            let to_key = |t: TypeIndex| match t.as_u32() {
                i if i >= start => TypeIndex::from_u32(REC_RELATIVE_BIT | (i - start)),
                // Validation: references reach only earlier groups, or this one.
                _ => canonical_index(ids[t]),
            };
            let key: GroupKey =
                group.range.clone().map(|t| map_sub(&info.types[TypeIndex::from_u32(t)], &to_key)).collect();
            let (g, group_ids) = registry.register_group(key);
            groups.push(g);
            for id in group_ids.iter() {
                ids.push(*id);
            }
        }
        let mut sig_ids = PrimaryMap::with_capacity(info.types.len());
        let mut displays = PrimaryMap::with_capacity(info.types.len());
        for t in info.types.keys().collect::<Vec<_>>() {
            let plain = info.is_plain_type(t);
            displays.push(if plain { PLAIN_DISPLAY.as_ptr() } else { registry.display(ids[t]) });
            let ty = map_sub(&info.types[t], &|i| canonical_index(ids[i]));
            // A struct or array type: its canonical id, tagged, as a
            // non-plain function type's (GC objects record the id).
            sig_ids.push(ty.as_func().map_or(ids[t].0 as usize | LARGE_SIG_ID_TAG, |f| sig_id(f, plain, ids[t])));
            info.types[t] = ty;
        }
        TypeCollection { registry: registry.clone(), ids, groups, sig_ids, displays }
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
        let types = TypeCollection::new(registry, info);
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

    /// The canonical id of the module's type `t`.
    pub fn id(&self, t: TypeIndex) -> SharedTypeIndex {
        self.ids[t]
    }

    /// The registry the types are registered in.
    pub fn registry(&self) -> &Arc<TypeRegistry> {
        &self.registry
    }

    /// What compiled code compares the module's type `t` by.
    pub fn sig_id(&self, t: TypeIndex) -> Option<usize> {
        self.sig_ids.get(t).copied()
    }

    /// The supertype display of the module's type `t` (see
    /// `VMFuncRef::display`), valid while the collection lives.
    pub fn display(&self, t: TypeIndex) -> *const u32 {
        self.displays[t]
    }
}

impl Drop for TypeCollection {
    fn drop(&mut self) {
        for g in &self.groups {
            self.registry.release_group(*g);
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
