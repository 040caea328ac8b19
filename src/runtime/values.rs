//! WebAssembly values as the embedding API passes them: [`Val`].

use crate::environ::types::{HeapType, ValType};
use crate::environ::val_raw::{ValRaw, V128};
use crate::runtime::anyref::{AnyRef, RefRepr};
use crate::runtime::externref::ExternRef;
use crate::runtime::func::Func;
use crate::runtime::tag::Exn;

/// A value passed to or returned from WebAssembly.
///
/// Floats are kept as bit patterns so NaN payloads survive a round trip.
#[derive(Clone, Copy, Debug)]
pub enum Val {
    /// An `i32`.
    I32(i32),
    /// An `i64`.
    I64(i64),
    /// An `f32`, as its bits.
    F32(u32),
    /// An `f64`, as its bits.
    F64(u64),
    /// A `v128`.
    V128(V128),
    /// A `funcref`, `None` for null.
    FuncRef(Option<Func>),
    /// An `externref`, `None` for null.
    ExternRef(Option<ExternRef>),
    /// An `exnref`, `None` for null: a caught exception wasm passes on.
    ExnRef(Option<Exn>),
    /// A reference of the `any` hierarchy (`anyref`, `eqref`, `i31ref`,
    /// `nullref`...), `None` for null.
    AnyRef(Option<AnyRef>),
}

impl Val {
    /// An `f32` value.
    pub fn f32(v: f32) -> Val {
        Val::F32(v.to_bits())
    }

    /// An `f64` value.
    pub fn f64(v: f64) -> Val {
        Val::F64(v.to_bits())
    }

    /// The type of this value.
    pub fn ty(&self) -> ValType {
        match self {
            Val::I32(_) => ValType::I32,
            Val::I64(_) => ValType::I64,
            Val::F32(_) => ValType::F32,
            Val::F64(_) => ValType::F64,
            Val::V128(_) => ValType::V128,
            Val::FuncRef(_) => ValType::FUNCREF,
            Val::ExternRef(_) => ValType::EXTERNREF,
            Val::ExnRef(_) => ValType::EXNREF,
            Val::AnyRef(_) => ValType::ANYREF,
        }
    }

    /// Whether this value may be passed where `ty` is expected: one of
    /// its type, or a reference that is a value of `ty` (a non-null one
    /// for `(ref extern)`, null for any nullable type of its hierarchy).
    /// A function reference of a concrete type is not checked against
    /// its signature from here, so only null passes for one.
    ///
    /// A struct or array passes for its own concrete type only: see
    /// [`matches_ty_in`](Self::matches_ty_in) for declared subtypes.
    pub fn matches_ty(&self, ty: ValType) -> bool {
        let ValType::Ref(r) = ty else { return self.ty() == ty };
        let (is_null, top) = match self {
            Val::FuncRef(f) => (f.is_none(), HeapType::Func),
            Val::ExternRef(e) => (e.is_none(), HeapType::Extern),
            Val::ExnRef(e) => (e.is_none(), HeapType::Exn),
            Val::AnyRef(Some(a)) => {
                // A non-null `any` value: an i31 is an `eq` and an `i31`
                // too; internalised host data only an `any`.
                let is_i31 = a.as_i31().is_some();
                let object = a.as_object();
                return match r.heap_type() {
                    HeapType::Any => true,
                    HeapType::Eq => a.is_eq(),
                    HeapType::I31 => is_i31,
                    HeapType::Struct => object.is_some_and(|o| !o.is_array()),
                    HeapType::Array => object.is_some_and(|o| o.is_array()),
                    // Exactly its type (a declared supertype is not
                    // looked up from here).
                    HeapType::Concrete(t) => object
                        .is_some_and(|o| t.as_u32() == o.type_id() | crate::environ::type_registry::CANONICAL_TYPE_BIT),
                    _ => false,
                };
            }
            Val::AnyRef(None) => (true, HeapType::Any),
            _ => return false,
        };
        match (is_null, r.heap_type()) {
            (true, h) => r.is_nullable() && h.top() == top,
            (false, HeapType::Func | HeapType::Extern | HeapType::Exn) => r.heap_type() == top,
            (false, _) => false,
        }
    }

    /// The default ("zero") value of a type: what locals and table slots
    /// start as.
    pub fn default_for(ty: ValType) -> Val {
        match ty {
            ValType::I32 => Val::I32(0),
            ValType::I64 => Val::I64(0),
            ValType::F32 => Val::F32(0),
            ValType::F64 => Val::F64(0),
            ValType::V128 => Val::V128(V128(0)),
            ValType::Ref(r) if r.is_func() => Val::FuncRef(None),
            ValType::Ref(r) if r.heap_type().top() == HeapType::Exn => Val::ExnRef(None),
            ValType::Ref(r) if r.heap_type().top() == HeapType::Any => Val::AnyRef(None),
            ValType::Ref(_) => Val::ExternRef(None),
        }
    }

    /// The `i32`, if this is one.
    pub fn i32(&self) -> Option<i32> {
        if let Val::I32(v) = self {
            Some(*v)
        } else {
            None
        }
    }
    /// The `i64`, if this is one.
    pub fn i64(&self) -> Option<i64> {
        if let Val::I64(v) = self {
            Some(*v)
        } else {
            None
        }
    }
    /// The `f32`, if this is one.
    pub fn f32_value(&self) -> Option<f32> {
        if let Val::F32(v) = self {
            Some(f32::from_bits(*v))
        } else {
            None
        }
    }
    /// The `f64`, if this is one.
    pub fn f64_value(&self) -> Option<f64> {
        if let Val::F64(v) = self {
            Some(f64::from_bits(*v))
        } else {
            None
        }
    }
    /// The `v128`, if this is one.
    pub fn v128(&self) -> Option<V128> {
        if let Val::V128(v) = self {
            Some(*v)
        } else {
            None
        }
    }
    /// The `funcref`, if this is one.
    pub fn funcref(&self) -> Option<Option<Func>> {
        if let Val::FuncRef(v) = self {
            Some(*v)
        } else {
            None
        }
    }
    /// The `exnref`, if this is one.
    pub fn exnref(&self) -> Option<Option<Exn>> {
        if let Val::ExnRef(v) = self {
            Some(*v)
        } else {
            None
        }
    }
    /// The `anyref`, if this is one.
    pub fn anyref(&self) -> Option<Option<AnyRef>> {
        if let Val::AnyRef(v) = self {
            Some(*v)
        } else {
            None
        }
    }
    /// The `externref`, if this is one.
    pub fn externref(&self) -> Option<Option<ExternRef>> {
        if let Val::ExternRef(v) = self {
            Some(*v)
        } else {
            None
        }
    }
}

impl From<i32> for Val {
    fn from(v: i32) -> Val {
        Val::I32(v)
    }
}
impl From<i64> for Val {
    fn from(v: i64) -> Val {
        Val::I64(v)
    }
}
impl From<f32> for Val {
    fn from(v: f32) -> Val {
        Val::f32(v)
    }
}
impl From<f64> for Val {
    fn from(v: f64) -> Val {
        Val::f64(v)
    }
}
impl From<V128> for Val {
    fn from(v: V128) -> Val {
        Val::V128(v)
    }
}

use crate::runtime::store::StoreOpaque;
use crate::runtime::vm::stored::Stored;

impl Val {
    /// The raw slot form of this value in `store`: what [`Func::call_raw`]
    /// and raw host functions ([`Func::new_raw`]) see. A reference of
    /// another store is an error.
    pub fn into_raw_in(self, store: impl crate::AsContext) -> crate::Result<ValRaw> {
        self.to_raw_shared(store.as_context().opaque())
    }

    /// [`into_raw_in`](Self::into_raw_in) that also takes host data made
    /// internal (`AnyRef::convert_extern`), boxing it in the store's GC
    /// heap as `any.convert_extern` does. Boxing never collects, so words
    /// already in other slots stay valid.
    pub fn into_raw_in_mut(self, mut store: impl crate::AsContextMut) -> crate::Result<ValRaw> {
        self.to_raw(store.as_context_mut().opaque())
    }

    /// Whether this value may be passed where `ty` is expected, `ty` being
    /// a type `store`'s engine gave (a function's, global's, table's or
    /// field's): as [`matches_ty`](Self::matches_ty), and a struct or
    /// array also for a concrete supertype it declares.
    pub fn matches_ty_in(&self, store: impl crate::AsContext, ty: ValType) -> bool {
        self.matches_in(store.as_context().opaque(), ty)
    }

    /// [`matches_ty_in`](Self::matches_ty_in) in `store`.
    pub(crate) fn matches_in(&self, store: &StoreOpaque, ty: ValType) -> bool {
        // `matches_ty` decides all but declared supertypes (and a null of
        // a concrete type the host named by a module's index, which the
        // registry does not know).
        self.matches_ty(ty) || crate::runtime::gc_object::fits(store, crate::StorageType::Val(ty), self)
    }

    /// The value of type `ty` in a raw slot of `store`.
    ///
    /// # Safety
    /// A reference in `raw` must be one of `store`: written by its compiled
    /// code (a raw call's results, a raw host function's parameters) or
    /// made by [`Val::into_raw_in`] in it.
    pub unsafe fn from_raw_in(store: impl crate::AsContext, raw: ValRaw, ty: ValType) -> Val {
        Val::from_raw(store.as_context().opaque(), raw, ty)
    }

    /// The raw slot form of this value, checking that references belong to
    /// `store`.
    pub(crate) fn to_raw(self, store: &mut StoreOpaque) -> crate::Result<ValRaw> {
        match self {
            // Host data made internal is boxed in the store's GC heap, as
            // `any.convert_extern` boxes it.
            Val::AnyRef(Some(AnyRef(RefRepr::Host(h)))) => {
                h.check(store)?;
                let word = store.gc_box(h.as_ptr() as usize).ok_or_else(|| {
                    crate::Error::from(crate::environ::trap::Trap::from_code(
                        crate::environ::trap::TrapCode::OutOfMemory,
                    ))
                })?;
                Ok(ValRaw::reference(ValType::ANYREF, word))
            }
            v => v.to_raw_shared(store),
        }
    }

    /// [`to_raw`](Self::to_raw) where the store cannot allocate: host data
    /// made internal is refused.
    pub(crate) fn to_raw_shared(self, store: &StoreOpaque) -> crate::Result<ValRaw> {
        Ok(match self {
            Val::I32(v) => ValRaw::i32(v),
            Val::I64(v) => ValRaw::i64(v),
            Val::F32(v) => ValRaw::f32(v),
            Val::F64(v) => ValRaw::f64(v),
            Val::V128(v) => ValRaw::v128(v.0),
            Val::FuncRef(f) => ValRaw::reference(
                ValType::FUNCREF,
                match f {
                    None => 0,
                    Some(f) => {
                        f.0.check(store)?;
                        f.0.as_ptr() as usize
                    }
                },
            ),
            Val::ExternRef(e) => ValRaw::reference(ValType::EXTERNREF, e.map_or(Ok(0), |e| e.0.to_raw(store))?),
            Val::AnyRef(Some(AnyRef(RefRepr::Host(_)))) => {
                return Err(crate::Error::Resource(
                    "host data made internal needs a mutable store to be boxed in its GC heap".into(),
                ))
            }
            Val::AnyRef(a) => ValRaw::reference(ValType::ANYREF, a.map_or(Ok(0), |a| a.0.to_raw(store))?),
            Val::ExnRef(e) => ValRaw::reference(
                ValType::EXNREF,
                match e {
                    None => 0,
                    Some(e) => {
                        e.0.check(store)?;
                        e.0.as_ptr() as usize
                    }
                },
            ),
        })
    }

    /// The value of type `ty` in a raw slot written by compiled code of
    /// `store`.
    pub(crate) fn from_raw(store: &StoreOpaque, raw: ValRaw, ty: ValType) -> Val {
        match ty {
            ValType::I32 => Val::I32(raw.get_i32()),
            ValType::I64 => Val::I64(raw.get_i64()),
            ValType::F32 => Val::F32(raw.get_f32()),
            ValType::F64 => Val::F64(raw.get_f64()),
            ValType::V128 => Val::V128(V128(raw.get_v128())),
            ValType::Ref(_) => Val::from_raw_ref(store, ty, raw.get_ref()),
        }
    }

    /// A reference value from its raw form (0 for null), which must come
    /// from `store`: written by its compiled code, or stored in its tables
    /// or globals.
    pub(crate) fn from_raw_ref(store: &StoreOpaque, ty: ValType, raw: usize) -> Val {
        let ptr = std::ptr::NonNull::new(raw as *mut u8);
        // A non-null reference of `store` is the address of a funcref,
        // externref data or exception that the store owns.
        fn stored<T>(store: &StoreOpaque, p: std::ptr::NonNull<u8>) -> Stored<T> {
            // SAFETY: as said above, an object of `store`, alive with it.
            unsafe { Stored::new_unchecked(store.id(), p.cast()) }
        }
        match ty {
            // A struct or array of a concrete type: its type is not at hand
            // (`HeapType::top` takes a concrete type for a function type),
            // but no function reference has these low bits.
            ValType::Ref(r) if r.is_func() && raw & 0b11 != 0 => {
                Val::AnyRef(Some(AnyRef(RefRepr::from_raw(store, raw))))
            }
            // A null of one: the engine's registry says which kind of
            // type it is (a null function reference otherwise).
            ValType::Ref(r)
                if raw == 0
                    && matches!(r.heap_type(), HeapType::Concrete(_))
                    && store.engine().top_of(r) == HeapType::Any =>
            {
                Val::AnyRef(None)
            }
            ValType::Ref(r) if r.is_func() => Val::FuncRef(ptr.map(|p| Func(stored(store, p)))),
            // Not an externref: reading its data would read an exception.
            ValType::Ref(r) if r.heap_type().top() == HeapType::Exn => Val::ExnRef(ptr.map(|p| Exn(stored(store, p)))),
            ValType::Ref(r) if r.heap_type().top() == HeapType::Any => {
                Val::AnyRef(ptr.map(|_| AnyRef(RefRepr::from_raw(store, raw))))
            }
            _ => Val::ExternRef(ptr.map(|_| ExternRef(RefRepr::from_raw(store, raw)))),
        }
    }
}
