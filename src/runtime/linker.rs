//! [`Linker`]: resolving imports by module and field name, in wasmtime's
//! shape (generic over the store's data, host functions defined once and
//! made in each store that instantiates with them).

use std::collections::HashMap;
use std::marker::PhantomData;
use std::sync::Arc;

use crate::environ::error::{Error, LinkError, Result};
use crate::environ::trap::{Trap, TrapCode};
use crate::environ::types::{ExternType, FuncType};
use crate::environ::val_raw::ValRaw;
use crate::runtime::caller::Caller;
use crate::runtime::engine::Engine;
use crate::runtime::extern_::Extern;
use crate::runtime::func::Func;
use crate::runtime::instance::Instance;
use crate::runtime::module::Module;
use crate::runtime::store::{AsContext, AsContextMut};
use crate::runtime::typed::IntoFunc;
use crate::runtime::values::Val;

/// A host function on raw slots, shared by every store it is made in.
type RawHostFn<T> = Arc<dyn Fn(Caller<'_, T>, &mut [ValRaw]) -> Result<(), Trap> + Send + Sync>;
/// A host function on [`Val`]s, shared by every store it is made in.
type ValHostFn<T> = Arc<dyn Fn(Caller<'_, T>, &[Val], &mut [Val]) -> Result<(), Trap> + Send + Sync>;

/// What a name is defined as: an item of one store, or a host function
/// that is made in whichever store instantiates with it.
enum Definition<T> {
    Extern(Extern),
    Raw(FuncType, RawHostFn<T>),
    Vals(FuncType, ValHostFn<T>),
}

impl<T> Clone for Definition<T> {
    fn clone(&self) -> Self {
        match self {
            Definition::Extern(e) => Definition::Extern(*e),
            Definition::Raw(ty, f) => Definition::Raw(ty.clone(), f.clone()),
            Definition::Vals(ty, f) => Definition::Vals(ty.clone(), f.clone()),
        }
    }
}

impl<T: 'static> Definition<T> {
    fn to_extern(&self, mut store: impl AsContextMut<Data = T>) -> Result<Extern> {
        Ok(match self {
            Definition::Extern(e) => *e,
            Definition::Raw(ty, f) => {
                let f = f.clone();
                Func::new_raw(store.as_context_mut(), ty.clone(), move |c, slots| f(c, slots))?.into()
            }
            Definition::Vals(ty, f) => {
                let f = f.clone();
                Func::new(store, ty.clone(), move |c, p, r| f(c, p, r)).into()
            }
        })
    }
}

/// A set of named definitions that modules can import, for stores whose
/// data is a `T` (wasmtime's `Linker<T>`).
///
/// Items of a store ([`define`](Self::define), [`instance`](Self::instance))
/// can only be used in that store; host functions
/// ([`func_wrap`](Self::func_wrap), [`func_new`](Self::func_new)) are made
/// anew in each store that instantiates with them. Defining a name twice
/// is an error unless [`allow_shadowing`](Self::allow_shadowing) is on.
///
/// ```
/// use cranewasm::{Caller, Engine, Linker, Module, Store};
///
/// let engine = Engine::default();
/// let mut linker = Linker::new(&engine);
/// linker.func_wrap("host", "add", |caller: Caller<'_, i32>, a: i32| a + *caller.data())?;
/// let module = Module::new(&engine, r#"(module
///     (import "host" "add" (func $add (param i32) (result i32)))
///     (func (export "run") (result i32) (call $add (i32.const 1))))"#)?;
/// let mut store = Store::new(&engine, 41);
/// let instance = linker.instantiate(&mut store, &module)?;
/// let run = instance.get_typed_func::<(), i32>(&mut store, "run")?;
/// assert_eq!(run.call(&mut store, ())?, 42);
/// # Ok::<(), cranewasm::Error>(())
/// ```
pub struct Linker<T> {
    defs: HashMap<(String, String), Definition<T>>,
    allow_shadowing: bool,
    _marker: PhantomData<fn(T) -> T>,
}

impl<T> Clone for Linker<T> {
    fn clone(&self) -> Self {
        Linker { defs: self.defs.clone(), allow_shadowing: self.allow_shadowing, _marker: PhantomData }
    }
}

/// An empty linker (an addition: wasmtime's takes the engine, which ours
/// does not need).
impl<T> Default for Linker<T> {
    fn default() -> Self {
        Linker { defs: HashMap::new(), allow_shadowing: false, _marker: PhantomData }
    }
}

impl<T: 'static> Linker<T> {
    /// An empty linker for stores of `engine`.
    pub fn new(engine: &Engine) -> Linker<T> {
        let _ = engine;
        Linker::default()
    }

    /// Whether a later definition of a name replaces an earlier one
    /// (`true`) or is an error (`false`, the default).
    pub fn allow_shadowing(&mut self, allow: bool) -> &mut Self {
        self.allow_shadowing = allow;
        self
    }

    fn insert(&mut self, module: &str, name: &str, def: Definition<T>) -> Result<&mut Self> {
        let key = (module.to_string(), name.to_string());
        if !self.allow_shadowing && self.defs.contains_key(&key) {
            return Err(Error::Usage(format!("import of `{module}::{name}` defined twice")));
        }
        self.defs.insert(key, def);
        Ok(self)
    }

    /// Defines `module::name` as `item`, an item of `store`.
    pub fn define(
        &mut self,
        store: impl AsContext<Data = T>,
        module: &str,
        name: &str,
        item: impl Into<Extern>,
    ) -> Result<&mut Self> {
        let _ = store;
        self.insert(module, name, Definition::Extern(item.into()))
    }

    /// Defines `module::name` as a host function from a Rust closure, as
    /// [`Func::wrap`] makes them, in each store that uses it.
    pub fn func_wrap<P, R>(&mut self, module: &str, name: &str, func: impl IntoFunc<T, P, R>) -> Result<&mut Self> {
        let (ty, f) = func.into_raw();
        self.insert(module, name, Definition::Raw(ty, f))
    }

    /// Defines `module::name` as a host function of type `ty` on
    /// [`Val`]s, as [`Func::new`] makes them, in each store that uses it.
    pub fn func_new(
        &mut self,
        module: &str,
        name: &str,
        ty: FuncType,
        func: impl Fn(Caller<'_, T>, &[Val], &mut [Val]) -> Result<(), Trap> + Send + Sync + 'static,
    ) -> Result<&mut Self> {
        self.insert(module, name, Definition::Vals(ty, Arc::new(func)))
    }

    /// Defines every export of `instance` under the module name `module`.
    pub fn instance(&mut self, store: impl AsContext<Data = T>, module: &str, instance: Instance) -> Result<&mut Self> {
        for (name, item) in instance.exports(&store) {
            self.insert(module, &name, Definition::Extern(item))?;
        }
        Ok(self)
    }

    /// Defines the exports of `module` under the name `module_name`, as
    /// wasmtime does: a command (a module exporting `_start`) gets a fresh
    /// instance for each call of one of its exported functions; any other
    /// module (a reactor) is instantiated now, its `_initialize` run if it
    /// exports one, and its exports defined.
    pub fn module(
        &mut self,
        mut store: impl AsContextMut<Data = T>,
        module_name: &str,
        module: &Module,
    ) -> Result<&mut Self> {
        if !module.exports().any(|e| e.name == "_start") {
            let instance = self.instantiate(&mut store, module)?;
            if let Some(init) = instance.get_func(&store, "_initialize") {
                init.call(&mut store, &[], &mut [])?;
            }
            return self.instance(&store, module_name, instance);
        }
        let snapshot = self.clone();
        for export in module.exports() {
            let ExternType::Func(ty) = export.ty else { continue };
            let (linker, module, name) = (snapshot.clone(), module.clone(), export.name.clone());
            self.func_new(module_name, &export.name, ty, move |mut caller, params, results| {
                let instance = linker.instantiate(&mut caller, &module).map_err(Trap::from)?;
                let func = instance.get_func(&caller, &name).expect("the module exports it");
                func.call(&mut caller, params, results).map_err(Trap::from)
            })?;
        }
        Ok(self)
    }

    /// For each function import of `module` that nothing defines, defines
    /// a function that traps ("failed to call unlinked function") when
    /// called, so the module instantiates and fails only if it calls one.
    pub fn define_unknown_imports_as_traps(&mut self, module: &Module) -> Result<()> {
        for import in module.imports() {
            let ExternType::Func(ty) = import.ty else { continue };
            if !self.defs.contains_key(&(import.module.clone(), import.name.clone())) {
                let trap: RawHostFn<T> = Arc::new(|_, _| Err(Trap::from_code(TrapCode::UnlinkedFunction)));
                self.insert(&import.module, &import.name, Definition::Raw(ty, trap))?;
            }
        }
        Ok(())
    }

    /// The definition of `module::name` as an item of `store`, if any.
    pub fn get(&self, mut store: impl AsContextMut<Data = T>, module: &str, name: &str) -> Option<Extern> {
        let def = self.defs.get(&(module.to_string(), name.to_string()))?;
        def.to_extern(store.as_context_mut()).ok()
    }

    /// The default export of `module`: its function named `""`, else
    /// `_start`, else a function that does nothing (as in wasmtime).
    pub fn get_default(&self, mut store: impl AsContextMut<Data = T>, module: &str) -> Result<Func> {
        for name in ["", "_start"] {
            if let Some(item) = self.get(&mut store, module, name) {
                return item
                    .into_func()
                    .ok_or_else(|| Error::Usage(format!("default export `{module}::{name}` is not a function")));
            }
        }
        Ok(Func::wrap(store, || {}))
    }

    /// Instantiates `module`, resolving each import by name; a
    /// [`LinkError::Missing`] for the first import without a definition.
    pub fn instantiate(&self, mut store: impl AsContextMut<Data = T>, module: &Module) -> Result<Instance> {
        let mut imports = Vec::with_capacity(module.imports().len());
        for (index, import) in module.imports().enumerate() {
            let Some(def) = self.defs.get(&(import.module.clone(), import.name.clone())) else {
                return Err(LinkError::Missing { index, import }.into());
            };
            imports.push(def.to_extern(&mut store)?);
        }
        Instance::new(&mut store, module, &imports)
    }
}
