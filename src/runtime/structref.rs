//! [`StructRef`]: the host's handle of a struct object (GC, issue 40).

use crate::environ::error::{Error, Result};
use crate::runtime::anyref::{AnyRef, ObjectRef, RefRepr};
use crate::runtime::gc_object::{self, ObjectType};
use crate::runtime::module::Module;
use crate::runtime::store::{AsContext, AsContextMut};
use crate::runtime::values::Val;

/// A struct object of a store's GC heap, rooted as an [`ObjectRef`] is:
/// valid until the host call or [`RootScope`](crate::RootScope) it was
/// made in ends (made outside both, as long as the store), wherever the
/// collector moves the object meanwhile. Using it with another store, or
/// after its root was freed, is an error, never a read of another object.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct StructRef(ObjectRef);

impl StructRef {
    /// A new struct of type `type_index` of `module`'s type section, with
    /// `fields` in order: one value per field, of its type (an `I32` for
    /// a packed i8 or i16 field, whose low bits are kept). `module` must
    /// be of the store's engine. An error for a type that is not a struct
    /// type, a wrong count or type of values, a reference of another store;
    /// a full heap is `Trap::OutOfMemory`.
    pub fn new(mut store: impl AsContextMut, module: &Module, type_index: u32, fields: &[Val]) -> Result<StructRef> {
        let mut cx = store.as_context_mut();
        let store = cx.opaque();
        let ty = ObjectType::of_module(store, module, type_index, false)?;
        let types = ty.fields();
        if types.len() != fields.len() {
            return Err(Error::Usage(format!(
                "struct type {type_index} has {} fields; {} values were given",
                types.len(),
                fields.len()
            )));
        }
        for (i, (f, v)) in types.iter().zip(fields).enumerate() {
            gc_object::check(store, *f, v, &format_args!("field {i} of struct type {type_index}"))?;
        }
        // Its objects name the type's id and display: the store keeps them.
        store.keep_gc_types(ty.code());
        let (_, size) = ty.layout().as_struct();
        // SAFETY: the host holds objects only as rooted handles: the checks
        // above read words but keep none, and the values' words are read
        // after the collection this may run.
        unsafe { store.gc_make_room(u64::from(size) + gc_object::box_bytes(fields)) };
        let raw = types
            .iter()
            .zip(fields)
            .map(|(f, v)| gc_object::to_raw(store, f.storage, *v))
            .collect::<Result<Vec<_>>>()?;
        let (id, display) = ty.header();
        let word =
            store.gc_new_struct(ty.sub(), ty.layout(), id, display, &raw).ok_or_else(gc_object::out_of_memory)?;
        Ok(StructRef(ObjectRef::root(store, word as u32, id)))
    }

    /// A new struct of type `type_index` of `module` with every field at
    /// its default value (zero, null): an error if a field has none (a
    /// non-nullable reference), as `struct.new_default` is invalid there.
    pub fn new_default(store: impl AsContextMut, module: &Module, type_index: u32) -> Result<StructRef> {
        let defaults: Vec<Val> = match module.info().types.get(crate::environ::index::TypeIndex::from_u32(type_index)) {
            Some(crate::environ::types::SubType {
                composite: crate::environ::types::CompositeType::Struct(fields),
                ..
            }) => fields.iter().map(|f| gc_object::default_of(f.storage)).collect(),
            _ => Vec::new(),
        };
        StructRef::new(store, module, type_index, &defaults)
    }

    /// The handle this is.
    pub fn as_object(&self) -> ObjectRef {
        self.0
    }

    /// Another handle of this struct, rooted until [`unpin`](Self::unpin)
    /// (see [`ObjectRef::pin`]).
    pub fn pin(&self, store: impl AsContext) -> Result<StructRef> {
        self.0.pin(store).map(StructRef)
    }

    /// Frees a handle made by [`pin`](Self::pin) (see [`ObjectRef::unpin`]).
    pub fn unpin(self, store: impl AsContext) -> bool {
        self.0.unpin(store)
    }

    /// How many fields the struct has.
    pub fn field_count(&self, store: impl AsContext) -> Result<usize> {
        let cx = store.as_context();
        let store = cx.opaque();
        self.0.word(store)?;
        Ok(ObjectType::of_object(store, &self.0)?.fields().len())
    }

    /// The type of field `index`; a concrete reference type in it names
    /// an engine-wide type, not an index of a module.
    pub fn field_type(&self, store: impl AsContext, index: usize) -> Result<crate::FieldType> {
        let cx = store.as_context();
        let store = cx.opaque();
        self.0.word(store)?;
        let ty = ObjectType::of_object(store, &self.0)?;
        ty.fields().get(index).copied().ok_or_else(|| self.no_field(index, ty.fields().len()))
    }

    /// The value of field `index`: a packed i8 or i16 field as an `I32`,
    /// zero-extended; a reference as a new handle (in the current scope).
    pub fn field(&self, store: impl AsContext, index: usize) -> Result<Val> {
        let cx = store.as_context();
        let store = cx.opaque();
        self.0.word(store)?;
        let ty = ObjectType::of_object(store, &self.0)?;
        let f = *ty.fields().get(index).ok_or_else(|| self.no_field(index, ty.fields().len()))?;
        let (at, size) = ty.layout().as_struct().0[index];
        gc_object::read(store, &self.0, at, f.storage, size)
    }

    /// Sets field `index` to `v`: an error for a field that is not
    /// mutable, past the last, or of another type (as for [`new`](Self::new)).
    pub fn set_field(&self, store: impl AsContextMut, index: usize, v: Val) -> Result<()> {
        self.set(store, index, v, true)
    }

    /// Sets field `index` to `v` whether or not the field is mutable, as
    /// a host does that fills a struct made with default values (WAMR's
    /// `wasm_struct_obj_set_field` makes no difference). Wasm may assume
    /// an immutable field never changes: call it only before the struct
    /// is shared with wasm. Other errors as for [`set_field`](Self::set_field).
    pub fn init_field(&self, store: impl AsContextMut, index: usize, v: Val) -> Result<()> {
        self.set(store, index, v, false)
    }

    fn set(&self, mut store: impl AsContextMut, index: usize, v: Val, only_mutable: bool) -> Result<()> {
        let mut cx = store.as_context_mut();
        let store = cx.opaque();
        self.0.word(store)?;
        let ty = ObjectType::of_object(store, &self.0)?;
        let f = *ty.fields().get(index).ok_or_else(|| self.no_field(index, ty.fields().len()))?;
        if only_mutable && !f.mutable {
            return Err(Error::Usage(format!("field {index} of the struct is immutable")));
        }
        gc_object::check(store, f, &v, &format_args!("field {index} of the struct"))?;
        let (at, size) = ty.layout().as_struct().0[index];
        // SAFETY: as in `new`.
        unsafe { store.gc_make_room(gc_object::box_bytes([&v])) };
        let raw = gc_object::to_raw(store, f.storage, v)?;
        gc_object::write(store, &self.0, at, f.storage, size, raw)
    }

    fn no_field(&self, index: usize, count: usize) -> Error {
        Error::Usage(format!("field {index} is past the struct's {count} fields"))
    }
}

impl From<StructRef> for AnyRef {
    fn from(s: StructRef) -> AnyRef {
        AnyRef(RefRepr::Object(s.0))
    }
}

impl From<StructRef> for Val {
    fn from(s: StructRef) -> Val {
        Val::AnyRef(Some(s.into()))
    }
}

impl AnyRef {
    /// The struct this is, if it is one.
    pub fn as_struct(&self) -> Option<StructRef> {
        self.as_object().filter(|o| !o.is_array()).map(StructRef)
    }
}
