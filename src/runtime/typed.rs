//! Statically typed functions: [`Func::wrap`] turns a Rust closure into a
//! host function, and [`TypedFunc`] calls wasm with Rust values, both
//! without building [`Val`](crate::Val)s.

use std::marker::PhantomData;
use std::sync::Arc;

use super::caller::Caller;
use super::func::Func;
use super::store::{AsContext, AsContextMut};
use super::vm::scratch::with_scratch;
use crate::environ::error::{Error, Result};
use crate::environ::trap::Trap;
use crate::environ::types::{FuncType, ValType};
use crate::environ::val_raw::{ValRaw, V128};

/// A Rust type that is a WebAssembly value type.
pub trait WasmTy: Copy + Send + Sync + 'static {
    /// The wasm type of this Rust type.
    const TYPE: ValType;
    /// The value in a raw slot.
    fn into_raw(self) -> ValRaw;
    /// The value from a raw slot of this type.
    fn from_raw(raw: &ValRaw) -> Self;
}

macro_rules! wasm_ty {
    ($($t:ty => $vt:ident, |$v:ident| $to:expr, |$r:ident| $from:expr;)*) => {$(
        impl WasmTy for $t {
            const TYPE: ValType = ValType::$vt;
            fn into_raw(self) -> ValRaw {
                let $v = self;
                $to
            }
            fn from_raw($r: &ValRaw) -> Self {
                $from
            }
        }
    )*};
}

wasm_ty! {
    i32 => I32, |v| ValRaw::i32(v), |r| r.get_i32();
    u32 => I32, |v| ValRaw::i32(v as i32), |r| r.get_i32() as u32;
    i64 => I64, |v| ValRaw::i64(v), |r| r.get_i64();
    u64 => I64, |v| ValRaw::i64(v as i64), |r| r.get_i64() as u64;
    f32 => F32, |v| ValRaw::f32(v.to_bits()), |r| f32::from_bits(r.get_f32());
    f64 => F64, |v| ValRaw::f64(v.to_bits()), |r| f64::from_bits(r.get_f64());
    V128 => V128, |v| ValRaw::v128(v.0), |r| V128(r.get_v128());
}

/// A list of wasm values as a Rust tuple (or a single value, or `()`).
pub trait WasmList: Send + Sync + 'static {
    /// Number of values.
    const LEN: usize;
    /// Types of the values, in order.
    fn types() -> Vec<ValType>;
    /// Writes the values into the first `LEN` slots.
    fn store(self, slots: &mut [ValRaw]);
    /// Reads the values from the first `LEN` slots.
    fn load(slots: &[ValRaw]) -> Self;
}

impl<A: WasmTy> WasmList for A {
    const LEN: usize = 1;
    fn types() -> Vec<ValType> {
        vec![A::TYPE]
    }
    fn store(self, slots: &mut [ValRaw]) {
        slots[0] = self.into_raw();
    }
    fn load(slots: &[ValRaw]) -> Self {
        A::from_raw(&slots[0])
    }
}

macro_rules! wasm_list_tuples {
    ($( ($($n:tt $t:ident),*) )*) => {$(
        impl<$($t: WasmTy),*> WasmList for ($($t,)*) {
            const LEN: usize = 0 $(+ { let _ = $n; 1 })*;
            fn types() -> Vec<ValType> {
                vec![$($t::TYPE),*]
            }
            #[allow(unused_variables)]
            fn store(self, slots: &mut [ValRaw]) {
                $(slots[$n] = self.$n.into_raw();)*
            }
            // The empty list loads as `()`.
            #[allow(unused_variables, clippy::unused_unit)]
            fn load(slots: &[ValRaw]) -> Self {
                ($($t::from_raw(&slots[$n]),)*)
            }
        }
    )*};
}

wasm_list_tuples! {
    ()
    (0 A)
    (0 A, 1 B)
    (0 A, 1 B, 2 C)
    (0 A, 1 B, 2 C, 3 D)
    (0 A, 1 B, 2 C, 3 D, 4 E)
    (0 A, 1 B, 2 C, 3 D, 4 E, 5 F)
    (0 A, 1 B, 2 C, 3 D, 4 E, 5 F, 6 G)
    (0 A, 1 B, 2 C, 3 D, 4 E, 5 F, 6 G, 7 H)
}

/// What a host closure may return: its results, or a trap.
pub trait HostResult<R: WasmList> {
    /// The results, or the trap to raise.
    fn into_result(self) -> Result<R, Trap>;
}

impl<R: WasmList> HostResult<R> for R {
    fn into_result(self) -> Result<R, Trap> {
        Ok(self)
    }
}

impl<R: WasmList> HostResult<R> for Result<R, Trap> {
    fn into_result(self) -> Result<R, Trap> {
        self
    }
}

/// Closures that can become host functions: `Fn(A, B, ...) -> R` or
/// `Fn(Caller<T>, A, B, ...) -> R`, where `R` is a value, a tuple, or a
/// `Result` of those with a [`Trap`].
pub trait IntoFunc<T, Params, Results>: Send + Sync + 'static {
    #[doc(hidden)]
    fn into_func(self, store: super::store::StoreContextMut<'_, T>) -> Func;
    /// The signature and the body on raw slots, for a
    /// [`Linker`](crate::Linker) to make the function in any store.
    #[doc(hidden)]
    #[allow(clippy::type_complexity)]
    fn into_raw(self) -> (FuncType, Arc<dyn Fn(Caller<'_, T>, &mut [ValRaw]) -> Result<(), Trap> + Send + Sync>);
}

macro_rules! into_func {
    ($( ($($n:tt $t:ident),*) )*) => {$(
        impl<T: 'static, F, R, Ret, $($t: WasmTy),*> IntoFunc<T, ($($t,)*), R> for F
        where
            F: Fn($($t),*) -> Ret + Send + Sync + 'static,
            Ret: HostResult<R>,
            R: WasmList,
        {
            fn into_func(self, store: super::store::StoreContextMut<'_, T>) -> Func {
                let ty = FuncType::new(<($($t,)*) as WasmList>::types(), R::types());
                Func::new_raw(store, ty, move |_: Caller<'_, T>, slots: &mut [ValRaw]| {
                    let ($($n,)*) = <($($t,)*) as WasmList>::load(slots);
                    let _ = &slots;
                    self($($n),*).into_result()?.store(slots);
                    Ok(())
                })
                .expect("trampoline compilation cannot fail")
            }

            fn into_raw(self) -> (FuncType, Arc<dyn Fn(Caller<'_, T>, &mut [ValRaw]) -> Result<(), Trap> + Send + Sync>) {
                let ty = FuncType::new(<($($t,)*) as WasmList>::types(), R::types());
                (ty, Arc::new(move |_: Caller<'_, T>, slots: &mut [ValRaw]| {
                    let ($($n,)*) = <($($t,)*) as WasmList>::load(slots);
                    let _ = &slots;
                    self($($n),*).into_result()?.store(slots);
                    Ok(())
                }))
            }
        }

        impl<T: 'static, F, R, Ret, $($t: WasmTy),*> IntoFunc<T, (Caller<'static, T>, $($t,)*), R> for F
        where
            F: Fn(Caller<'_, T>, $($t),*) -> Ret + Send + Sync + 'static,
            Ret: HostResult<R>,
            R: WasmList,
        {
            fn into_func(self, store: super::store::StoreContextMut<'_, T>) -> Func {
                let ty = FuncType::new(<($($t,)*) as WasmList>::types(), R::types());
                Func::new_raw(store, ty, move |caller: Caller<'_, T>, slots: &mut [ValRaw]| {
                    let ($($n,)*) = <($($t,)*) as WasmList>::load(slots);
                    self(caller, $($n),*).into_result()?.store(slots);
                    Ok(())
                })
                .expect("trampoline compilation cannot fail")
            }

            fn into_raw(self) -> (FuncType, Arc<dyn Fn(Caller<'_, T>, &mut [ValRaw]) -> Result<(), Trap> + Send + Sync>) {
                let ty = FuncType::new(<($($t,)*) as WasmList>::types(), R::types());
                (ty, Arc::new(move |caller: Caller<'_, T>, slots: &mut [ValRaw]| {
                    let ($($n,)*) = <($($t,)*) as WasmList>::load(slots);
                    self(caller, $($n),*).into_result()?.store(slots);
                    Ok(())
                }))
            }
        }
    )*};
}

into_func! {
    ()
    (a A)
    (a A, b B)
    (a A, b B, c C)
    (a A, b B, c C, d D)
    (a A, b B, c C, d D, e E)
    (a A, b B, c C, d D, e E, f G)
}

impl Func {
    /// A host function from a Rust closure whose argument and result types
    /// give the wasm signature:
    ///
    /// ```
    /// # use cranewasm::*;
    /// let mut store = Store::new(&Engine::default(), ());
    /// let add = Func::wrap(&mut store, |a: i32, b: i32| a.wrapping_add(b));
    /// assert_eq!(add.typed::<(i32, i32), i32>(&store)?.call(&mut store, (2, 3))?, 5);
    /// # Ok::<(), cranewasm::Error>(())
    /// ```
    pub fn wrap<T: 'static, P, R>(mut store: impl AsContextMut<Data = T>, f: impl IntoFunc<T, P, R>) -> Func {
        f.into_func(store.as_context_mut())
    }

    /// This function with a static signature, checked once here so that
    /// calls need no checks.
    pub fn typed<P: WasmList, R: WasmList>(&self, store: impl AsContext) -> Result<TypedFunc<P, R>> {
        let ty = self.ty(store);
        if ty.params() != P::types().as_slice() || ty.results() != R::types().as_slice() {
            return Err(Error::Usage(format!(
                "function of type {ty} used as {}",
                FuncType::new(P::types(), R::types())
            )));
        }
        Ok(TypedFunc { func: *self, _marker: PhantomData })
    }
}

/// A function whose signature is known statically.
pub struct TypedFunc<P, R> {
    func: Func,
    _marker: PhantomData<fn(P) -> R>,
}

impl<P, R> Clone for TypedFunc<P, R> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<P, R> Copy for TypedFunc<P, R> {}

impl<P: WasmList, R: WasmList> TypedFunc<P, R> {
    /// Calls the function.
    pub fn call(&self, mut store: impl AsContextMut, params: P) -> Result<R, Trap> {
        let mut cx = store.as_context_mut();
        let store = cx.opaque();
        with_scratch(P::LEN.max(R::LEN).max(1), ValRaw::default(), |slots| {
            params.store(slots);
            // SAFETY: `typed` checked the signature; the slots hold the
            // parameters and have room for the results; no references.
            unsafe { self.func.call_raw(store, slots.as_mut_ptr())? };
            Ok(R::load(slots))
        })
    }

    /// The untyped function.
    pub fn func(&self) -> Func {
        self.func
    }
}
