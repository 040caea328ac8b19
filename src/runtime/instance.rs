//! The [`Instance`] handle: instantiating a module with its imports, and
//! reaching the instance's exports. What the store keeps of an instance is
//! a [`VMInstance`](super::vm::instance::VMInstance).

use super::extern_::Extern;
use super::func::Func;
use super::global::Global;
use super::limits::InstanceLimits;
use super::memory::Memory;
use super::shared_memory::SharedMemory;
use super::store::{AsContext, AsContextMut, StoreContext, StoreId, StoreOpaque};
use super::table::Table;
use super::typed::{TypedFunc, WasmList};
use super::vm::instance::{self as vm_instance, VMInstance};
use crate::environ::error::{Error, LinkError, Result};
use crate::environ::index::{EntityIndex, FuncIndex, GlobalIndex, MemoryIndex, TableIndex};
use crate::environ::type_registry::{large_sig_id, TypeRegistry};
use crate::environ::types::{ExternType, MemoryType, Mutability};
use crate::runtime::engine::Engine;
use crate::runtime::module::Module;

/// An instance of a module in a store.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Instance {
    pub(crate) store: StoreId,
    pub(crate) index: usize,
}

impl Instance {
    /// Instantiates `module` with `imports` given in the module's import
    /// order (the C API's model; see [`Linker`](crate::Linker) for imports
    /// by name).
    ///
    /// Fails with [`Error::Link`] when the number of imports is wrong or an
    /// import is of the wrong kind or type, [`Error::WrongStore`] or
    /// [`Error::WrongEngine`] for objects of another store or a module of
    /// another engine, and [`Error::Trap`] when a segment does not fit or
    /// the start function traps. Segments applied before such a trap stay
    /// applied.
    ///
    /// With a [`ResourceLimiter`](crate::ResourceLimiter) on the store, an
    /// instance, memory or table past its limits fails with
    /// [`Error::Resource`], and nothing of the instance stays in the store.
    pub fn new(store: impl AsContextMut, module: &Module, imports: &[Extern]) -> Result<Instance> {
        Instance::new_with_limits(store, module, imports, &InstanceLimits::default())
    }

    /// As [`Instance::new`], with limits for this instance alone (WAMR's
    /// `InstantiationArgs`).
    pub fn new_with_limits(
        mut store: impl AsContextMut,
        module: &Module,
        imports: &[Extern],
        limits: &InstanceLimits,
    ) -> Result<Instance> {
        let mut cx = store.as_context_mut();
        let store = cx.opaque();
        check_imports(store, module, imports, false)?;
        match limits.max_memory_pages.filter(|p| *p != 0) {
            None => instantiate(store, module, imports, None, &[]),
            Some(_) => instantiate(store, module, imports, Some(&|_, ty| limits.memory_type(ty)), &[]),
        }
    }

    /// As [`Instance::new`], creating each memory the module defines with
    /// the type `memory_type` gives for it (from its index among the
    /// defined memories and its declared type) instead of the declared
    /// one: how an embedder makes room for a heap of its own at the end of
    /// a memory, or caps a memory below its declared maximum (WAMR's
    /// instantiation arguments). A type whose minimum exceeds its maximum
    /// is an [`Error::Resource`]. A memory given for an import may likewise
    /// be larger than the import's maximum (below 4 GiB): the embedder made
    /// it for this module, with room for a heap of its own (WAMR's app heap
    /// in an imported `env.memory`).
    pub fn new_with_memory_types(
        mut store: impl AsContextMut,
        module: &Module,
        imports: &[Extern],
        memory_type: impl Fn(u32, MemoryType) -> MemoryType,
    ) -> Result<Instance> {
        let mut cx = store.as_context_mut();
        let store = cx.opaque();
        check_imports(store, module, imports, true)?;
        instantiate(store, module, imports, Some(&memory_type), &[])
    }

    /// As [`Instance::new`], with the shared memories the module defines
    /// being the ones in `shared` (by index among the defined memories;
    /// `None` or a missing entry creates the memory as declared): another
    /// thread's instance of the same program over the same memory, as
    /// WAMR's spawned instances are. Active data segments are not applied
    /// to a memory given here (the instance that made it did that). Fails
    /// with [`Error::Usage`] when a given memory is not shared or is
    /// smaller than the module declares. Memories given for imports may be
    /// larger than declared, as for [`Instance::new_with_memory_types`].
    pub fn new_sharing_memories(
        mut store: impl AsContextMut,
        module: &Module,
        imports: &[Extern],
        shared: &[Option<SharedMemory>],
    ) -> Result<Instance> {
        let mut cx = store.as_context_mut();
        let store = cx.opaque();
        check_imports(store, module, imports, true)?;
        let info = module.info();
        let defined = info.memories.values().skip(info.num_imported_memories);
        for (i, (given, declared)) in shared.iter().zip(defined).enumerate() {
            let Some(given) = given else { continue };
            let ty = given.ty();
            // As an import would match (an embedder may have made the
            // memory larger than declared, for a heap of its own).
            let fits = declared.is_shared()
                && ty.minimum() >= declared.minimum()
                && ty.maximum().unwrap_or(u64::MAX) >= declared.maximum().unwrap_or(u64::MAX);
            if !fits {
                return Err(Error::Usage(format!("shared memory {i} is smaller than the module's, or not shared")));
            }
        }
        let shared: Vec<_> = shared.iter().map(|s| s.as_ref().map(|s| s.0.clone())).collect();
        instantiate(store, module, imports, None, &shared)
    }

    pub(crate) fn data<'a>(&self, store: &'a StoreOpaque) -> &'a VMInstance {
        store.assert_owns(self.store);
        store.instance(self.index)
    }

    /// Gives the instance back: its memories, tables and VMContext are
    /// freed as soon as nothing can reach them — no other live instance
    /// imports from it, and its functions cannot have escaped into tables,
    /// globals or the host (modules that share tables or pass funcrefs
    /// across their imports and exports keep their instances until the
    /// store is dropped). Freeing waits for any running call to return.
    ///
    /// This is how the C API's `wasm_instance_delete` frees instances that
    /// a long-lived store no longer needs.
    ///
    /// # Safety
    /// Neither this `Instance` (nor a copy of it) nor any handle obtained
    /// from it (its exports, functions, memories, tables, globals, or
    /// funcref values pointing at its functions) may be used afterwards: a
    /// later instantiation may reuse its place in the store.
    pub unsafe fn release(self, mut store: impl AsContextMut) {
        let mut cx = store.as_context_mut();
        let store = cx.opaque();
        store.assert_owns(self.store);
        if let Some(data) = store.instances[self.index].as_mut() {
            data.released = true;
            vm_instance::try_free(store, self.index);
        }
    }

    /// The module this is an instance of.
    pub fn module<'a, T: 'a>(&self, store: impl Into<StoreContext<'a, T>>) -> &'a Module {
        let module = self.data(store.into().into_opaque()).module.as_any().downcast_ref();
        module.expect("instances are made of `Module`s")
    }

    /// The export called `name`.
    pub fn get_export(&self, store: impl AsContext, name: &str) -> Option<Extern> {
        let cx = store.as_context();
        let data = self.data(cx.opaque());
        data.info().export(name).map(|i| Extern::from_vm(self.store, data.export(i)))
    }

    /// All exports, in the module's order.
    pub fn exports(&self, store: impl AsContext) -> Vec<(String, Extern)> {
        let cx = store.as_context();
        let data = self.data(cx.opaque());
        data.info().exports.iter().map(|(n, i)| (n.clone(), Extern::from_vm(self.store, data.export(*i)))).collect()
    }

    /// Memory `index` of the instance (imported ones first, as in the
    /// module's index space), exported or not.
    pub fn memory(&self, store: impl AsContext, index: u32) -> Option<Memory> {
        let cx = store.as_context();
        let data = self.data(cx.opaque());
        (index < data.info().memories.len() as u32)
            .then(|| {
                Extern::from_vm(self.store, data.export(EntityIndex::Memory(MemoryIndex::from_u32(index))))
                    .into_memory()
            })
            .flatten()
    }

    /// Table `index` of the instance (imported ones first), exported or not.
    /// An unexported table its module never writes is read-only through
    /// the handle (see [`Table::set`]).
    pub fn table(&self, store: impl AsContext, index: u32) -> Option<Table> {
        let cx = store.as_context();
        let data = self.data(cx.opaque());
        (index < data.info().tables.len() as u32)
            .then(|| {
                Extern::from_vm(self.store, data.export(EntityIndex::Table(TableIndex::from_u32(index)))).into_table()
            })
            .flatten()
    }

    /// Global `index` of the instance (imported ones first), exported or
    /// not: how an embedder reaches a toolchain's unexported globals, such
    /// as LLVM's `__stack_pointer` (the first defined global).
    pub fn global(&self, store: impl AsContext, index: u32) -> Option<Global> {
        let cx = store.as_context();
        let data = self.data(cx.opaque());
        (index < data.info().globals.len() as u32)
            .then(|| {
                Extern::from_vm(self.store, data.export(EntityIndex::Global(GlobalIndex::from_u32(index))))
                    .into_global()
            })
            .flatten()
    }

    /// Function `index` of the instance (imported ones first), exported
    /// or not: how an embedder turns a function index (WAMR's funcref
    /// values in its `wasm_export.h` calls) into a function.
    pub fn func(&self, store: impl AsContext, index: u32) -> Option<Func> {
        let cx = store.as_context();
        let data = self.data(cx.opaque());
        (index < data.info().funcs.len() as u32)
            .then(|| {
                Extern::from_vm(self.store, data.export(EntityIndex::Func(FuncIndex::from_u32(index)))).into_func()
            })
            .flatten()
    }

    /// The exported function called `name`.
    pub fn get_func(&self, store: impl AsContext, name: &str) -> Option<Func> {
        self.get_export(store, name)?.into_func()
    }
    /// The exported function called `name`, with the static signature
    /// `P -> R` (wasmtime's name): an error when there is no such export
    /// or its type is another.
    pub fn get_typed_func<P: WasmList, R: WasmList>(
        &self,
        store: impl AsContextMut,
        name: &str,
    ) -> Result<TypedFunc<P, R>> {
        let store = store.as_context();
        let func =
            self.get_func(&store, name).ok_or_else(|| Error::Usage(format!("no exported function named `{name}`")))?;
        func.typed(&store)
    }
    /// The exported memory called `name`.
    pub fn get_memory(&self, store: impl AsContext, name: &str) -> Option<Memory> {
        self.get_export(store, name)?.into_memory()
    }
    /// The exported global called `name`.
    pub fn get_global(&self, store: impl AsContext, name: &str) -> Option<Global> {
        self.get_export(store, name)?.into_global()
    }
    /// The exported table called `name`.
    pub fn get_table(&self, store: impl AsContext, name: &str) -> Option<Table> {
        self.get_export(store, name)?.into_table()
    }
}

/// Instantiates `module` in `store` with `imports`, which
/// [`check_imports`] accepted.
fn instantiate(
    store: &mut StoreOpaque,
    module: &Module,
    imports: &[Extern],
    memory_type: vm_instance::MemoryTypeFn<'_>,
    shared: &[Option<std::sync::Arc<crate::runtime::vm::shared_memory::VMSharedMemory>>],
) -> Result<Instance> {
    let imports: Vec<_> = imports.iter().map(Extern::to_vm).collect();
    let index = vm_instance::instantiate(store, Box::new(module.clone()), &imports, memory_type, shared)?;
    Ok(Instance { store: store.id(), index })
}

/// Checks that `imports` can instantiate `module` in `store`: same engine,
/// one import per declared import, each of the store and of a matching type
/// (with `enlarged`, memories larger than declared match too, see
/// [`import_matches`]).
fn check_imports(store: &StoreOpaque, module: &Module, imports: &[Extern], enlarged: bool) -> Result<()> {
    if !Engine::same(store.engine(), module.engine()) {
        return Err(Error::WrongEngine);
    }
    let info = module.info();
    if imports.len() != info.imports.len() {
        return Err(LinkError::Count { expected: info.imports.len(), given: imports.len() }.into());
    }
    for (index, (import, given)) in info.imports.iter().zip(imports).enumerate() {
        if given.store_id() != store.id() {
            return Err(Error::WrongStore);
        }
        if let Extern::Table(t) = given {
            if t.0.get(store).read_only {
                return Err(Error::Usage(super::table::READ_ONLY.into()));
            }
        }
        let actual = given.ty_in(store);
        let registry = module.engine().type_registry();
        let matches = match (given, import.index) {
            // Functions match by type id, which tells types of equal
            // structure in different recursion groups apart, or as a
            // declared subtype (GC).
            (Extern::Func(f), EntityIndex::Func(fi)) => {
                let actual = f.0.get(store).sig;
                let expected = module.code().types.sig_id(info.funcs[fi]).expect("function types are registered");
                actual == expected
                    || match (large_sig_id(actual), large_sig_id(expected)) {
                        (Some(a), Some(e)) => registry.is_subtype(a, e),
                        _ => false,
                    }
            }
            // Tags match exactly, by type id (not by structure, for the
            // same reason as functions).
            (Extern::Tag(t), EntityIndex::Tag(ti)) => {
                t.0.get(store).type_id.id() == module.code().types.id(info.tags[ti])
            }
            _ => import_matches(&actual, &info.entity_type(import.index), enlarged, registry),
        };
        if !matches {
            // Named only now: instantiating clones no strings.
            let import = module.imports().nth(index).expect("index of an import");
            return Err(LinkError::Incompatible { index, import, actual }.into());
        }
    }
    Ok(())
}

/// Whether `actual` can be given where `expected` is imported. With
/// `enlarged`, a memory may also exceed the import's maximum, as long as it
/// stays below 4 GiB: compiled code assumes no more of an imported memory
/// (`ModuleInfo::memories_below_4gib`; such a memory stops growing short
/// of 4 GiB, `vm::memory::max_pages`).
fn import_matches(actual: &ExternType, expected: &ExternType, enlarged: bool, registry: &TypeRegistry) -> bool {
    match (actual, expected) {
        (ExternType::Func(a), ExternType::Func(e)) => a == e,
        // A constant global may be of a subtype (`(ref func)` for
        // `funcref`, say); a mutable one is read and written, so exactly.
        (ExternType::Global(a), ExternType::Global(e)) => {
            a == e
                || (a.mutability() == Mutability::Const
                    && e.mutability() == Mutability::Const
                    && registry.val_matches(a.content(), e.content()))
        }
        (ExternType::Table(a), ExternType::Table(e)) => a.matches(e),
        // Tag types match exactly (in canonical form).
        (ExternType::Tag(a), ExternType::Tag(e)) => a == e,
        (ExternType::Memory(a), ExternType::Memory(e)) => {
            a.matches(e) || (enlarged && a.matches(&e.with_max(None)) && a.minimum() < a.pages_in_4gib())
        }
        _ => false,
    }
}
