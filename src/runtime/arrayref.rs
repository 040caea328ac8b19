//! [`ArrayRef`]: the host's handle of an array object (GC, issue 40).

use crate::environ::error::{Error, Result};
use crate::environ::gc_layout::{self, HEADER, LEN};
use crate::runtime::anyref::{AnyRef, ObjectRef, RefRepr};
use crate::runtime::gc_object::{self, ObjectType};
use crate::runtime::module::Module;
use crate::runtime::store::{AsContext, AsContextMut};
use crate::runtime::values::Val;
use crate::runtime::vm::gc::objects::{offset_of, ArrayInit};
use crate::runtime::vm::store::StoreOpaque;

/// An array object of a store's GC heap, rooted as [`StructRef`](crate::StructRef)
/// is (see there for how long a handle lives).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct ArrayRef(ObjectRef);

/// How [`ArrayRef::make`] fills the array.
enum Init<'a> {
    Fill(Val, u32),
    Each(&'a [Val]),
}

impl ArrayRef {
    /// A new array of type `type_index` of `module`'s type section, of
    /// `len` elements, each `elem` (an `I32` for packed i8 or i16
    /// elements). Errors as for [`StructRef::new`](crate::StructRef::new);
    /// an array larger than the heap may hold is `Trap::OutOfMemory`.
    pub fn new(store: impl AsContextMut, module: &Module, type_index: u32, elem: Val, len: u32) -> Result<ArrayRef> {
        ArrayRef::make(store, module, type_index, Init::Fill(elem, len))
    }

    /// A new array of type `type_index` of `module` holding `elems`
    /// (`array.new_fixed`).
    pub fn new_fixed(store: impl AsContextMut, module: &Module, type_index: u32, elems: &[Val]) -> Result<ArrayRef> {
        ArrayRef::make(store, module, type_index, Init::Each(elems))
    }

    fn make(mut store: impl AsContextMut, module: &Module, type_index: u32, init: Init<'_>) -> Result<ArrayRef> {
        let mut cx = store.as_context_mut();
        let store = cx.opaque();
        let ty = ObjectType::of_module(store, module, type_index, true)?;
        let f = ty.elem();
        let (vals, len): (&[Val], u32) = match &init {
            Init::Fill(v, len) => (std::slice::from_ref(v), *len),
            Init::Each(vs) => {
                let len = u32::try_from(vs.len()).map_err(|_| gc_object::out_of_memory())?;
                (vs, len)
            }
        };
        for (i, v) in vals.iter().enumerate() {
            gc_object::check(store, f, v, &format_args!("element {i} of array type {type_index}"))?;
        }
        store.keep_gc_types(ty.code());
        let size = gc_layout::array_size(ty.layout().elem_size(), len, store.gc_max_bytes() as u64)
            .ok_or_else(gc_object::out_of_memory)?;
        // SAFETY: the host holds objects only as rooted handles: the checks
        // above read words but keep none, and the values' words are read
        // after the collection this may run.
        unsafe { store.gc_make_room(u64::from(size) + gc_object::box_bytes(vals)) };
        let raw = vals.iter().map(|v| gc_object::to_raw(store, f.storage, *v)).collect::<Result<Vec<_>>>()?;
        let init = match init {
            Init::Fill(..) => ArrayInit::Fill(raw[0]),
            Init::Each(_) => ArrayInit::Each(&raw),
        };
        let (id, display) = ty.header();
        let word =
            store.gc_new_array(ty.sub(), ty.layout(), id, display, len, init).ok_or_else(gc_object::out_of_memory)?;
        Ok(ArrayRef(ObjectRef::root(store, word as u32, id | gc_layout::ARRAY_BIT)))
    }

    /// A new array of type `type_index` of `module` of `len` default
    /// elements (zero, null): an error for a non-nullable reference type.
    pub fn new_default(store: impl AsContextMut, module: &Module, type_index: u32, len: u32) -> Result<ArrayRef> {
        let elem = match module.info().types.get(crate::environ::index::TypeIndex::from_u32(type_index)) {
            Some(crate::environ::types::SubType {
                composite: crate::environ::types::CompositeType::Array(f), ..
            }) => gc_object::default_of(f.storage),
            _ => Val::I32(0),
        };
        ArrayRef::new(store, module, type_index, elem, len)
    }

    /// The handle this is.
    pub fn as_object(&self) -> ObjectRef {
        self.0
    }

    /// Another handle of this array, rooted until [`unpin`](Self::unpin)
    /// (see [`ObjectRef::pin`]).
    pub fn pin(&self, store: impl AsContext) -> Result<ArrayRef> {
        self.0.pin(store).map(ArrayRef)
    }

    /// Frees a handle made by [`pin`](Self::pin) (see [`ObjectRef::unpin`]).
    pub fn unpin(self, store: impl AsContext) -> bool {
        self.0.unpin(store)
    }

    /// How many elements the array has.
    pub fn len(&self, store: impl AsContext) -> Result<u32> {
        length(store.as_context().opaque(), &self.0)
    }

    /// The element type (a concrete reference type in it names an
    /// engine-wide type, not an index of a module).
    pub fn elem_type(&self, store: impl AsContext) -> Result<crate::FieldType> {
        let cx = store.as_context();
        let store = cx.opaque();
        self.0.word(store)?;
        Ok(ObjectType::of_object(store, &self.0)?.elem())
    }

    /// Element `index`: packed i8 or i16 elements as an `I32`,
    /// zero-extended; a reference as a new handle.
    pub fn get(&self, store: impl AsContext, index: u32) -> Result<Val> {
        let cx = store.as_context();
        let store = cx.opaque();
        self.bounds(store, index)?;
        let ty = ObjectType::of_object(store, &self.0)?;
        let size = ty.layout().elem_size();
        gc_object::read(store, &self.0, HEADER + index * size, ty.elem().storage, size)
    }

    /// Sets element `index` to `v`: an error for an immutable array type,
    /// an index out of bounds, or a value of another type.
    pub fn set(&self, store: impl AsContextMut, index: u32, v: Val) -> Result<()> {
        self.store_elem(store, index, v, true)
    }

    /// Sets element `index` to `v` whether or not the elements are
    /// mutable, as a host does that fills an array it made (WAMR's
    /// `wasm_array_obj_set_elem` makes no difference); see
    /// [`StructRef::init_field`](crate::StructRef::init_field).
    pub fn init_elem(&self, store: impl AsContextMut, index: u32, v: Val) -> Result<()> {
        self.store_elem(store, index, v, false)
    }

    fn store_elem(&self, mut store: impl AsContextMut, index: u32, v: Val, only_mutable: bool) -> Result<()> {
        let mut cx = store.as_context_mut();
        let store = cx.opaque();
        self.bounds(store, index)?;
        let ty = ObjectType::of_object(store, &self.0)?;
        let f = ty.elem();
        if only_mutable && !f.mutable {
            return Err(Error::Usage("the array's elements are immutable".into()));
        }
        gc_object::check(store, f, &v, &"the array's element")?;
        let size = ty.layout().elem_size();
        // SAFETY: as in `make`.
        unsafe { store.gc_make_room(gc_object::box_bytes([&v])) };
        let raw = gc_object::to_raw(store, f.storage, v)?;
        gc_object::write(store, &self.0, HEADER + index * size, f.storage, size, raw)
    }

    /// Copies elements `src_index..src_index + len` of `src` to
    /// `dst_index..` of this array, as `array.copy` (the ranges may
    /// overlap, and be the same array): an error for immutable elements
    /// here, elements of `src` that are not values of this array's element
    /// type, or a range out of bounds (then nothing is copied).
    pub fn copy(
        &self,
        store: impl AsContextMut,
        dst_index: u32,
        src: &ArrayRef,
        src_index: u32,
        len: u32,
    ) -> Result<()> {
        self.copy_elems(store, dst_index, src, src_index, len, true)
    }

    /// [`copy`](Self::copy) whether or not the elements are mutable, as
    /// WAMR's `wasm_array_obj_copy` (see [`init_elem`](Self::init_elem)).
    pub fn init_copy(
        &self,
        store: impl AsContextMut,
        dst_index: u32,
        src: &ArrayRef,
        src_index: u32,
        len: u32,
    ) -> Result<()> {
        self.copy_elems(store, dst_index, src, src_index, len, false)
    }

    fn copy_elems(
        &self,
        mut store: impl AsContextMut,
        dst_index: u32,
        src: &ArrayRef,
        src_index: u32,
        len: u32,
        only_mutable: bool,
    ) -> Result<()> {
        let mut cx = store.as_context_mut();
        let store = cx.opaque();
        let (dst_len, src_len) = (length(store, &self.0)?, length(store, &src.0)?);
        let (dt, st) = (ObjectType::of_object(store, &self.0)?, ObjectType::of_object(store, &src.0)?);
        let (d, s) = (dt.elem(), st.elem());
        if only_mutable && !d.mutable {
            return Err(Error::Usage("the array's elements are immutable".into()));
        }
        let fits = match (s.storage, d.storage) {
            (crate::StorageType::Val(a), crate::StorageType::Val(b)) => {
                store.engine().type_registry().val_matches(a, b)
            }
            (a, b) => a == b,
        };
        if !fits {
            return Err(Error::Usage(format!(
                "elements of type {:?} do not fit an array of {:?}",
                s.storage, d.storage
            )));
        }
        let out = |at: u32, n: u32| at.checked_add(len).is_none_or(|end| end > n);
        if out(dst_index, dst_len) || out(src_index, src_len) {
            return Err(Error::Usage(format!(
                "copying {len} elements from {src_index} of {src_len} to {dst_index} of {dst_len} is out of bounds"
            )));
        }
        let size = dt.layout().elem_size();
        let (to, from) = (offset_of(self.0.word(store)? as usize), offset_of(src.0.word(store)? as usize));
        // SAFETY: both ranges lie within live arrays of `store` (checked
        // above) with elements of one size; `copy` allows overlap.
        unsafe {
            std::ptr::copy(
                store.gc_at(from, HEADER + src_index * size),
                store.gc_at(to, HEADER + dst_index * size),
                (len * size) as usize,
            )
        };
        Ok(())
    }

    /// The address of element `index` (`index` may be the length: the
    /// end), for hosts that read or write elements in place (WAMR's
    /// `wasm_array_obj_elem_addr`). It is valid only until the store next
    /// allocates or runs wasm: a collection moves objects (pinning keeps
    /// an object alive, not in place). Elements are little-endian, packed
    /// at the element type's size; reference elements of the `any`
    /// hierarchy are 32-bit heap words, not pointers.
    pub fn elem_addr(&self, store: impl AsContext, index: u32) -> Result<*mut u8> {
        let cx = store.as_context();
        let store = cx.opaque();
        let len = length(store, &self.0)?;
        if index > len {
            return Err(Error::Usage(format!("index {index} is past the end of an array of {len} elements")));
        }
        let size = ObjectType::of_object(store, &self.0)?.layout().elem_size();
        Ok(store.gc_at(offset_of(self.0.word(store)? as usize), HEADER + index * size))
    }

    /// Whether `index` is an element (the handle checked too).
    fn bounds(&self, store: &StoreOpaque, index: u32) -> Result<()> {
        let len = length(store, &self.0)?;
        match index < len {
            true => Ok(()),
            false => Err(Error::Usage(format!("index {index} is out of bounds of an array of {len} elements"))),
        }
    }
}

/// The length of the array `o` names.
pub(crate) fn length(store: &StoreOpaque, o: &ObjectRef) -> Result<u32> {
    let offset = offset_of(o.word(store)? as usize);
    // SAFETY: a live array of `store` (its root was just checked), whose
    // header holds its length.
    Ok(unsafe { store.gc_at(offset, LEN as u32).cast::<u32>().read() })
}

impl From<ArrayRef> for AnyRef {
    fn from(a: ArrayRef) -> AnyRef {
        AnyRef(RefRepr::Object(a.0))
    }
}

impl From<ArrayRef> for Val {
    fn from(a: ArrayRef) -> Val {
        Val::AnyRef(Some(a.into()))
    }
}

impl AnyRef {
    /// The array this is, if it is one.
    pub fn as_array(&self) -> Option<ArrayRef> {
        self.as_object().filter(|o| o.is_array()).map(ArrayRef)
    }
}
