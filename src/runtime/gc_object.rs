//! What the host's struct and array handles ([`StructRef`](crate::StructRef),
//! [`ArrayRef`](crate::ArrayRef)) share: finding an object's type, checking
//! a [`Val`] against a field's storage type, and reading and writing one
//! field of an object in the store's heap (`environ::gc_layout` says where).
//!
//! Types are in canonical form here (a module's types after registration):
//! a concrete reference names an engine-wide id, so an object of one module
//! may go into a field of a type another module declared, when the two
//! types are the same or the object's is a declared subtype.

use std::sync::Arc;

use crate::environ::error::{Error, Result};
use crate::environ::gc_layout::{GcLayout, ARRAY_BIT, HEADER};
use crate::environ::index::TypeIndex;
use crate::environ::trap::{Trap, TrapCode};
use crate::environ::type_registry::{canonical_id, SharedTypeIndex, CANONICAL_TYPE_BIT};
use crate::environ::types::{CompositeType, FieldType, HeapType, RefType, StorageType, SubType, ValType};
use crate::environ::val_raw::{ValRaw, V128};
use crate::runtime::anyref::{AnyRef, ObjectRef, RefRepr};
use crate::runtime::module::Module;
use crate::runtime::values::Val;
use crate::runtime::vm::module_code::ModuleCode;
use crate::runtime::vm::store::StoreOpaque;

/// A struct or array type as an object of it is made and read: the
/// module code that registered it (which the store keeps, see
/// `StoreOpaque::gc_modules`) and its index there.
pub(crate) struct ObjectType {
    code: Arc<ModuleCode>,
    t: TypeIndex,
}

/// The canonical id of an object's id word (without the array bit).
fn shared_id(id: u32) -> SharedTypeIndex {
    canonical_id(TypeIndex::from_u32((id & !ARRAY_BIT) | CANONICAL_TYPE_BIT)).expect("the canonical bit is set")
}

impl ObjectType {
    /// Type `index` of `module`'s type section, which must be an array
    /// type (`array`) or a struct type, of `store`'s engine.
    pub(crate) fn of_module(store: &StoreOpaque, module: &Module, index: u32, array: bool) -> Result<ObjectType> {
        if !crate::Engine::same(store.engine(), module.engine()) {
            return Err(Error::WrongEngine);
        }
        let t = TypeIndex::from_u32(index);
        let what = if array { "an array" } else { "a struct" };
        match module.info().types.get(t).map(|s| &s.composite) {
            Some(CompositeType::Array(_)) if array => {}
            Some(CompositeType::Struct(_)) if !array => {}
            Some(_) => return Err(Error::Usage(format!("type {index} of the module is not {what} type"))),
            None => return Err(Error::Usage(format!("the module has no type {index}"))),
        }
        Ok(ObjectType { code: module.code().clone(), t })
    }

    /// The type of object `o` of `store`: one of the types the store keeps
    /// for its objects.
    pub(crate) fn of_object(store: &StoreOpaque, o: &ObjectRef) -> Result<ObjectType> {
        let id = shared_id(o.type_id());
        for code in &store.gc_modules {
            let found = code.info.types.keys().find(|t| {
                code.types.id(*t) == id && !matches!(code.info.gc_layouts.get(*t), None | Some(GcLayout::None))
            });
            if let Some(t) = found {
                return Ok(ObjectType { code: code.clone(), t });
            }
        }
        // Every object's type is kept with the store (`keep_gc_types`).
        Err(Error::Usage("a GC object whose type the store does not know".into()))
    }

    /// The code holding the type (for `StoreOpaque::keep_gc_types`).
    pub(crate) fn code(&self) -> &Arc<ModuleCode> {
        &self.code
    }

    /// The type, canonical form.
    pub(crate) fn sub(&self) -> &SubType {
        &self.code.info.types[self.t]
    }

    pub(crate) fn layout(&self) -> &GcLayout {
        &self.code.info.gc_layouts[self.t]
    }

    /// A struct type's fields.
    pub(crate) fn fields(&self) -> &[FieldType] {
        match &self.sub().composite {
            CompositeType::Struct(f) => f,
            _ => &[],
        }
    }

    /// An array type's element type.
    pub(crate) fn elem(&self) -> FieldType {
        match &self.sub().composite {
            CompositeType::Array(f) => *f,
            _ => panic!("an array type (checked when the type was found)"),
        }
    }

    /// The header's id word (without the array bit) and display pointer.
    pub(crate) fn header(&self) -> (u32, usize) {
        let types = &self.code.types;
        // The low half of a struct or array type's signature id is its
        // canonical id, which is what an object's header holds.
        (types.sig_id(self.t).expect("types are registered") as u32, types.display(self.t) as usize)
    }
}

impl ObjectRef {
    /// Whether the object is of type `type_index` of `module` or of one of
    /// its declared subtypes (iso-recursive equality: a type of another
    /// module of the engine may be the same). False for an index past the
    /// module's types or a module of another engine; an error with another
    /// store or a freed handle.
    pub fn is_instance_of(&self, store: impl crate::AsContext, module: &Module, type_index: u32) -> Result<bool> {
        let cx = store.as_context();
        let store = cx.opaque();
        self.word(store)?;
        if !crate::Engine::same(store.engine(), module.engine()) {
            return Ok(false);
        }
        Ok(module
            .canonical_type(type_index)
            .is_some_and(|t| store.engine().type_registry().is_subtype(shared_id(self.type_id()), t)))
    }

    /// The first index of `module`'s type section that is the object's
    /// type (not a supertype), if the module has it.
    pub fn type_index_in(&self, store: impl crate::AsContext, module: &Module) -> Result<Option<u32>> {
        let cx = store.as_context();
        let store = cx.opaque();
        self.word(store)?;
        if !crate::Engine::same(store.engine(), module.engine()) {
            return Ok(None);
        }
        let id = shared_id(self.type_id());
        Ok((0..module.defined_type_count()).find(|i| module.canonical_type(*i) == Some(id)))
    }
}

/// The default value of a field of `storage`: zero, or null (a null of
/// a concrete object type being taken as `Val::FuncRef(None)` too).
pub(crate) fn default_of(storage: StorageType) -> Val {
    match storage {
        StorageType::I8 | StorageType::I16 => Val::I32(0),
        StorageType::Val(t) => Val::default_for(t),
    }
}

/// The trap of a full heap, as wasm's allocations give it.
pub(crate) fn out_of_memory() -> Error {
    Error::from(Trap::from_code(TrapCode::OutOfMemory))
}

/// Whether `v` may be stored in a field of `storage` (canonical form) of
/// `store`'s engine: an I32 for a packed field; for a concrete struct or
/// array type, null (if nullable) or an object of that type or one of its
/// declared subtypes; else as [`Val::matches_ty`] decides.
pub(crate) fn fits(store: &StoreOpaque, storage: StorageType, v: &Val) -> bool {
    let ty = match storage {
        StorageType::I8 | StorageType::I16 => return matches!(v, Val::I32(_)),
        StorageType::Val(ty) => ty,
    };
    let ValType::Ref(r) = ty else { return v.matches_ty(ty) };
    let HeapType::Concrete(t) = r.heap_type() else { return v.matches_ty(ty) };
    let registry = store.engine().type_registry();
    let Some(target) = canonical_id(t) else { return false };
    match registry.kind(target) {
        Some(HeapType::Struct | HeapType::Array) => match v {
            // A null of a concrete object type reads back from the API as a
            // null funcref (`Val::from_raw_ref`), so both nulls are taken.
            Val::AnyRef(None) | Val::FuncRef(None) => r.is_nullable(),
            Val::AnyRef(Some(a)) => a.as_object().is_some_and(|o| registry.is_subtype(shared_id(o.type_id()), target)),
            _ => false,
        },
        _ => v.matches_ty(ty),
    }
}

/// Checks `v` against a field of `field`'s type, named `what` in the error:
/// its type, and that a reference in it belongs to `store`.
pub(crate) fn check(store: &StoreOpaque, field: FieldType, v: &Val, what: &dyn std::fmt::Display) -> Result<()> {
    if !fits(store, field.storage, v) {
        return Err(Error::Usage(format!("{what} is of type {:?}; {v:?} is not a value of it", field.storage)));
    }
    match v {
        Val::AnyRef(Some(AnyRef(RefRepr::Host(h)))) => h.check(store),
        v => v.to_raw_shared(store).map(|_| ()),
    }
}

/// The heap bytes that storing `vals` takes beyond the object itself:
/// a box for each piece of host data made internal.
pub(crate) fn box_bytes<'a>(vals: impl IntoIterator<Item = &'a Val>) -> u64 {
    let boxes = vals.into_iter().filter(|v| matches!(v, Val::AnyRef(Some(AnyRef(RefRepr::Host(_)))))).count();
    boxes as u64 * u64::from(HEADER)
}

/// Makes room for the boxes that storing `vals` takes, collecting first
/// if a collection is due, so that garbage is reclaimed for host data
/// the API boxes as it is for wasm's allocations. Call it before reading
/// any of their reference words (a collection moves objects).
///
/// # Safety
/// As for `gc_make_room`: the values hold their objects as rooted handles
/// (which every `Val` does), and no other word is held outside the roots.
pub(crate) unsafe fn make_room_for<'a>(store: &mut StoreOpaque, vals: impl IntoIterator<Item = &'a Val>) {
    let bytes = box_bytes(vals);
    if bytes > 0 {
        // SAFETY: as the caller promises.
        unsafe { store.gc_make_room(bytes) }
    }
}

/// The raw form of `v` (checked) for a field of `storage`. Call it only
/// after `gc_make_room`: it reads reference words and may box host data.
pub(crate) fn to_raw(store: &mut StoreOpaque, storage: StorageType, v: Val) -> Result<ValRaw> {
    match (storage, v) {
        (StorageType::I8 | StorageType::I16, Val::I32(x)) => Ok(ValRaw::i32(x)),
        // A null of a concrete object type given as a null funcref (see
        // `fits`) is the null word of any hierarchy.
        (_, Val::FuncRef(None)) => Ok(ValRaw::reference(ValType::ANYREF, 0)),
        _ => v.to_raw(store),
    }
}

/// The value of the field of `storage` (`size` bytes) at byte `at` of the
/// object `o` names in `store`. A packed field reads zero-extended.
pub(crate) fn read(store: &StoreOpaque, o: &ObjectRef, at: u32, storage: StorageType, size: u32) -> Result<Val> {
    let offset = crate::runtime::vm::gc::objects::offset_of(o.word(store)? as usize);
    let mut bytes = [0u8; 16];
    // SAFETY: `o` names a live object of `store` (its root was checked
    // just now), whose type puts a field of `size` bytes at `at`.
    unsafe { std::ptr::copy_nonoverlapping(store.gc_at(offset, at), bytes.as_mut_ptr(), size as usize) };
    let bits = u128::from_le_bytes(bytes);
    Ok(match storage {
        StorageType::I8 | StorageType::I16 | StorageType::Val(ValType::I32) => Val::I32(bits as u32 as i32),
        StorageType::Val(ValType::I64) => Val::I64(bits as u64 as i64),
        StorageType::Val(ValType::F32) => Val::F32(bits as u32),
        StorageType::Val(ValType::F64) => Val::F64(bits as u64),
        StorageType::Val(ValType::V128) => Val::V128(V128(bits)),
        StorageType::Val(ValType::Ref(r)) => read_ref(store, r, bits as usize),
    })
}

/// The reference of type `r` whose word is `raw`, read from a field (a
/// null of a concrete type in its hierarchy: see `Val::from_raw_ref`).
fn read_ref(store: &StoreOpaque, r: RefType, raw: usize) -> Val {
    Val::from_raw_ref(store, ValType::Ref(r), raw)
}

/// Writes `v` (checked, made raw by [`to_raw`]) into the field of
/// `storage` (`size` bytes) at byte `at` of the object `o` names.
pub(crate) fn write(
    store: &mut StoreOpaque,
    o: &ObjectRef,
    at: u32,
    storage: StorageType,
    size: u32,
    v: ValRaw,
) -> Result<()> {
    let offset = crate::runtime::vm::gc::objects::offset_of(o.word(store)? as usize);
    // SAFETY: `o` names a live object of `store` whose type puts a field
    // of `storage` at `at`.
    unsafe { store.gc_write_field(offset, at, storage, size, v) };
    Ok(())
}
