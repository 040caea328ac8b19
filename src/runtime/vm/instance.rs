//! [`VMInstance`]: an instance as its store owns it (its VMContext block,
//! the memories and tables it defines, and what keeps it alive), and
//! instantiation's filling in of that block, applying of segments and
//! running of the start function.
//!
//! Instantiation compiles nothing: the module's code and VMContext layout
//! are ready, so it is one allocation plus filling in pointers. The public
//! side ([`Instance`]) checks the imports first.

use std::alloc::Layout;
use std::ops::Range;
use std::ptr::NonNull;
use std::sync::Arc;

use super::export::VMExtern;
use super::memory::VMMemory;
use super::memory_image::MemoryImage;
use super::module_code::ModuleCode;
use super::shared_memory::VMSharedMemory;
use super::store::{StoreId, StoreOpaque};
use super::stored::Stored;
use super::table::VMTable;
use crate::environ::builtins::BuiltinFunctions;
use crate::environ::error::{Error, Result};
use crate::environ::index::*;
use crate::environ::module_info::{ConstExpr, ConstOp, DataMode, ElemMode, ModuleInfo};
use crate::environ::trap::{Trap, TrapCode};
use crate::environ::type_registry::TypeUse;
use crate::environ::types::{ExternType, MemoryType, ValType};
use crate::environ::val_raw::ValRaw;
use crate::environ::vmctx::*;
use cranelift_entity::EntityRef;

/// An instance's VMContext allocation.
struct VMContextBox {
    ptr: NonNull<u8>,
    layout: Layout,
}

impl Drop for VMContextBox {
    fn drop(&mut self) {
        // SAFETY: allocated in `instantiate` with this layout.
        unsafe { std::alloc::dealloc(self.ptr.as_ptr(), self.layout) }
    }
}

/// What an instance needs of its module, which it keeps alive: the
/// runtime's `Module` provides it.
pub(crate) trait InstanceModule: Send + Sync {
    /// The module's declarations and compiled code.
    fn code(&self) -> &Arc<ModuleCode>;
    /// The VMContext layout of its instances.
    fn offsets(&self) -> &VMOffsets;
    /// The module's binary, where data segments are.
    fn wasm(&self) -> &[u8];
    /// The copy-on-write image of each defined memory, where it has one.
    fn memory_images(&self) -> &[Option<MemoryImage>];
    /// The module itself, for the safe side to give back.
    fn as_any(&self) -> &dyn std::any::Any;
}

/// An instance as its store owns it.
#[allow(
    clippy::vec_box,
    reason = "JIT code and handles hold pointers to these objects, so they must not move when the Vec grows"
)]
pub(crate) struct VMInstance {
    pub(crate) module: Box<dyn InstanceModule>,
    store: StoreId,
    index: usize,
    vmctx: VMContextBox,
    /// The memories and tables the module defines.
    memories: Vec<Box<VMMemory>>,
    /// Every memory the instance uses, imported ones first, by index (the
    /// VMContext holds their extents, which for a shared memory is not
    /// inside the store's `VMMemory`).
    memory_objects: Vec<NonNull<VMMemory>>,
    tables: Vec<Box<VMTable>>,
    /// Instances this one imports from (once per import).
    imports_from: Vec<usize>,
    /// Owner of each imported global, in import order of globals.
    imported_global_owners: Vec<Option<usize>>,
    /// Live instances importing from this one.
    importers: usize,
    /// Whether references to this instance's functions may have escaped
    /// where we cannot track them; then it lives as long as its store.
    pinned: bool,
    /// Whether the embedder has released it.
    pub(crate) released: bool,
    /// Items of each element segment; emptied when dropped (actives and
    /// declaratives are dropped once instantiation applies them).
    pub(crate) elems: Vec<Box<[usize]>>,
    /// Byte range of each data segment in the module binary; emptied when
    /// dropped.
    pub(crate) datas: Vec<Range<usize>>,
}

impl VMInstance {
    /// The instance's index in its store.
    pub(crate) fn index(&self) -> usize {
        self.index
    }

    /// The instance whose VMContext is `vmctx`, or `None` when `vmctx` is a
    /// host function's context.
    ///
    /// # Safety
    /// `vmctx` must be the live VMContext of an instance or the context of a
    /// live host function.
    unsafe fn of_context<'a>(vmctx: *const VMContext) -> Option<&'a VMInstance> {
        // SAFETY: `vmctx` is a live VMContext or host context (caller); both
        // start with a magic word, and an instance's holds its `VMInstance`.
        unsafe {
            let base = vmctx as *const u8;
            if *(base.add(header::MAGIC as usize) as *const u32) != VMCONTEXT_MAGIC {
                return None;
            }
            Some(&**(base.add(header::INSTANCE as usize) as *const *const VMInstance))
        }
    }

    /// The instance owning `vmctx`, as a builtin called by its code gets it.
    ///
    /// # Safety
    /// `vmctx` must be the VMContext of a live instance, passed by its code;
    /// no other reference to the instance may be live.
    pub(crate) unsafe fn from_vmctx<'a>(vmctx: *mut VMContext) -> &'a mut VMInstance {
        // SAFETY: `vmctx` is a live instance's VMContext with no other reference
        // to the instance live (caller).
        unsafe { &mut **(vmctx as *mut u8).add(header::INSTANCE as usize).cast::<*mut VMInstance>() }
    }

    pub(crate) fn info(&self) -> &ModuleInfo {
        &self.module.code().info
    }

    /// Bytes of the memories this instance defines.
    pub(crate) fn defined_memory_bytes(&self) -> usize {
        self.memories.iter().map(|m| m.byte_size()).sum()
    }

    /// How many memories this instance defines.
    pub(crate) fn defined_memory_count(&self) -> usize {
        self.memories.len()
    }

    /// Calls `f` with each reference this instance keeps outside the GC
    /// heap (roots of the collector): its globals of reference types, its
    /// tables' elements and its element segments' items. Imported globals
    /// and tables are their owners' (an instance's, or the store's).
    pub(crate) fn for_each_gc_root(&mut self, mut f: impl FnMut(*mut usize)) {
        let info = self.info();
        let offsets = self.module.offsets();
        let globals: Vec<u32> = (info.globals.iter().skip(info.num_imported_globals))
            .enumerate()
            .filter(|(_, (_, ty))| ty.content.is_ref())
            .map(|(d, _)| offsets.defined_global(DefinedGlobalIndex::new(d)))
            .collect();
        for offset in globals {
            // SAFETY: the VMContext holds each defined global at its offset;
            // a reference global's word is its first 8 bytes.
            f(unsafe { self.field::<VMGlobal>(offset).cast() });
        }
        for table in self.tables.iter_mut() {
            table.elements_mut().iter_mut().for_each(|w| f(w));
        }
        for items in self.elems.iter_mut() {
            items.iter_mut().for_each(|w| f(w));
        }
    }

    /// How many tables this instance defines.
    pub(crate) fn defined_table_count(&self) -> usize {
        self.tables.len()
    }

    pub(crate) fn vmctx(&self) -> *mut VMContext {
        self.vmctx.ptr.as_ptr().cast()
    }

    /// Sets the VMContext's copy of the store's stack limit (see
    /// `StoreOpaque::publish_stack_limit`).
    pub(crate) fn set_stack_limit(&self, limit: usize) {
        // SAFETY: `header::STACK_LIMIT` is a `usize` field of every layout;
        // no compiled code of the store runs while the store is borrowed
        // here, so nothing reads it concurrently.
        unsafe { *self.field::<usize>(header::STACK_LIMIT as u32) = limit }
    }

    /// The VMContext field at `offset`.
    ///
    /// # Safety
    /// `offset` must be a field of type `F` in this module's layout.
    unsafe fn field<F>(&self, offset: u32) -> *mut F {
        // SAFETY: `offset` is a field of type `F` in this module's layout
        // (caller), inside the VMContext allocation.
        unsafe { self.vmctx.ptr.as_ptr().add(offset as usize).cast() }
    }

    /// The object stored in this VMContext at `defined` when the entity is
    /// defined here, else the one whose address the import slot `imported`
    /// holds.
    ///
    /// # Safety
    /// The offsets must be of fields of type `T` (`defined`) and `*mut T`
    /// (`imported`) in this module's layout, the import slot filled.
    unsafe fn own_or_imported<T>(&self, defined: Option<u32>, imported: u32) -> NonNull<T> {
        // SAFETY: the offsets are fields of this layout of the right types, and
        // an import slot is filled (caller).
        unsafe {
            match defined {
                Some(offset) => NonNull::new_unchecked(self.field(offset)),
                None => NonNull::new_unchecked(*self.field::<*mut T>(imported)),
            }
        }
    }

    pub(crate) fn func_ref(&self, f: FuncIndex) -> NonNull<VMFuncRef> {
        let offsets = self.module.offsets();
        let defined = self.info().defined_func_index(f).map(|d| offsets.defined_func(d));
        // SAFETY: offsets come from this module's layout; imported slots were
        // filled with live funcrefs at instantiation.
        unsafe { self.own_or_imported(defined, offsets.imported_func(f)) }
    }

    pub(crate) fn global_ptr(&self, g: GlobalIndex) -> NonNull<VMGlobal> {
        let offsets = self.module.offsets();
        let defined = self.info().defined_global_index(g).map(|d| offsets.defined_global(d));
        // SAFETY: as for `func_ref`, with globals.
        unsafe { self.own_or_imported(defined, offsets.imported_global(g)) }
    }

    pub(crate) fn memory(&self, m: MemoryIndex) -> NonNull<VMMemory> {
        self.memory_objects[m.index()]
    }

    /// Tag `t` of this instance (defined or imported; its store keeps it).
    pub(crate) fn tag(&self, t: TagIndex) -> *mut super::exception::VMTag {
        // SAFETY: the slot of a tag of this module, written at instantiation.
        unsafe { *self.field::<*mut super::exception::VMTag>(self.module.offsets().tag(t)) }
    }

    pub(crate) fn table(&self, t: TableIndex) -> NonNull<VMTable> {
        // SAFETY: as for `memory`, with `VMTable`.
        unsafe { NonNull::new_unchecked(*self.field::<*mut VMTableDefinition>(self.module.offsets().table(t))).cast() }
    }

    /// Function `f` of this instance: defined here, or imported (from the
    /// store's host functions or other instances, which this one keeps
    /// alive, see `importers`), all of this instance's store.
    pub(crate) fn func(&self, f: FuncIndex) -> Stored<VMFuncRef> {
        // SAFETY: as this function's documentation says.
        unsafe { Stored::new_unchecked(self.store, self.func_ref(f)) }
    }

    /// The entity `index` of this instance (an export): one this instance
    /// defines or imports, of its store.
    pub(crate) fn export(&self, index: EntityIndex) -> VMExtern {
        match index {
            EntityIndex::Func(f) => VMExtern::Func(self.func_ref(f)),
            EntityIndex::Memory(m) => VMExtern::Memory(self.memory(m)),
            EntityIndex::Table(t) => VMExtern::Table(self.table(t)),
            EntityIndex::Tag(t) => VMExtern::Tag(NonNull::new(self.tag(t)).expect("tags are set at instantiation")),
            EntityIndex::Global(g) => {
                let owner = match self.info().defined_global_index(g) {
                    Some(_) => Some(self.index),
                    None => self.imported_global_owners[g.index()],
                };
                VMExtern::Global { storage: self.global_ptr(g), ty: self.info().globals[g], owner }
            }
        }
    }

    /// Evaluates a constant expression in this instance, whose GC objects
    /// go in `store`'s heap (a full heap fails with a trap).
    fn eval(&self, store: &mut StoreOpaque, expr: &ConstExpr) -> Result<ValRaw> {
        let mut stack: Vec<ValRaw> = Vec::with_capacity(2);
        // The extended-const arithmetic `$op` on the top two values, at the
        // width that `$get` reads and `$make` writes.
        macro_rules! arith {
            ($op:expr, $get:ident, $make:ident) => {{
                let (b, a) = (stack.pop().unwrap().$get(), stack.pop().unwrap().$get());
                ValRaw::$make(match $op {
                    ConstOp::I32Add | ConstOp::I64Add => a.wrapping_add(b),
                    ConstOp::I32Sub | ConstOp::I64Sub => a.wrapping_sub(b),
                    _ => a.wrapping_mul(b),
                })
            }};
        }
        for op in expr.ops.iter() {
            let v = match *op {
                ConstOp::I32Const(v) => ValRaw::i32(v),
                ConstOp::I64Const(v) => ValRaw::i64(v),
                ConstOp::F32Const(v) => ValRaw::f32(v),
                ConstOp::F64Const(v) => ValRaw::f64(v),
                ConstOp::V128Const(v) => ValRaw::v128(v),
                ConstOp::GlobalGet(g) => {
                    // SAFETY: globals are initialised in order, and validation
                    // only lets an initialiser read earlier globals.
                    unsafe { self.global_ptr(g).as_ref() }.read(self.info().globals[g].content)
                }
                ConstOp::RefNull => ValRaw::reference(ValType::FUNCREF, 0),
                ConstOp::RefFunc(f) => ValRaw::reference(ValType::FUNCREF, self.func_ref(f).as_ptr() as usize),
                ConstOp::RefI31 => {
                    let v = stack.pop().expect("validated: an operand").get_i32() as u32;
                    ValRaw::reference(ValType::ANYREF, crate::runtime::vm::gc::i31_raw(v))
                }
                ConstOp::I32Add | ConstOp::I32Sub | ConstOp::I32Mul => arith!(op, get_i32, i32),
                ConstOp::I64Add | ConstOp::I64Sub | ConstOp::I64Mul => arith!(op, get_i64, i64),
                _ => self.eval_gc(store, *op, &mut stack)?,
            };
            stack.push(v);
        }
        Ok(stack.pop().expect("validated constant expressions leave one value"))
    }
}

/// The VMContext of the wasm code calling a host function, or none when
/// the host called it: what [`Caller::instance`](crate::Caller::instance)
/// looks at.
#[derive(Copy, Clone)]
pub(crate) struct CallerVmctx(*mut VMContext);

impl CallerVmctx {
    /// The caller whose VMContext is `vmctx`.
    ///
    /// # Safety
    /// `vmctx` must be null, or the VMContext of the instance (or the
    /// context of the host function) making the call in progress; the value
    /// must not be used after that call returns.
    pub(crate) unsafe fn new(vmctx: *mut VMContext) -> CallerVmctx {
        CallerVmctx(vmctx)
    }

    /// The calling instance's index in its store, if wasm of an instance
    /// made the call.
    pub(crate) fn instance_index(self) -> Option<usize> {
        self.instance_data().map(VMInstance::index)
    }

    /// The calling instance's data, if wasm of an instance made the call.
    pub(crate) fn instance_data<'a>(self) -> Option<&'a VMInstance> {
        if self.0.is_null() {
            return None;
        }
        // SAFETY: a non-null caller context is live while its call runs
        // (see `new`), and callers hold the store borrowed for `'a`.
        unsafe { VMInstance::of_context(self.0) }
    }
}

/// Creates an instance of `module` in `store`: allocates and fills its
/// VMContext, applies its segments and runs its start function.
///
/// `imports` must belong to `store` and match the module's import types, in
/// its import order (`Instance::new` checks them). `memory_type` gives the
/// type each memory the module defines is created with, from its index
/// among them and its declared type. Returns the instance's index in the
/// store.
pub(crate) fn instantiate(
    store: &mut StoreOpaque,
    module: Box<dyn InstanceModule>,
    imports: &[VMExtern],
    memory_type: MemoryTypeFn<'_>,
    shared: &[Option<Arc<VMSharedMemory>>],
) -> Result<usize> {
    let code = module.code().clone();
    let info = &code.info;
    store.check_instantiation(info)?;
    let offsets = module.offsets();
    let layout = Layout::from_size_align(offsets.size().max(16) as usize, 16).expect("sane VMContext size");
    // SAFETY: non-zero size; zeroed memory is a valid initial VMContext.
    let ptr = NonNull::new(unsafe { std::alloc::alloc_zeroed(layout) })
        .ok_or_else(|| Error::Resource("out of memory".into()))?;
    // Slots of freed instances are reused, so a long-lived store that
    // instantiates and releases forever stays the size of its peak.
    let index = store.free_slots.pop().unwrap_or(store.instances.len());
    // SAFETY: imports are live entities of `store`, as the caller promises.
    let imports_from: Vec<usize> = imports.iter().filter_map(|e| unsafe { owner_of(store, e) }).collect();
    for owner in &imports_from {
        store.instances[*owner].as_mut().expect("imports come from live instances").importers += 1;
    }
    let imported_global_owners = imports
        .iter()
        .filter_map(|e| match e {
            VMExtern::Global { owner, .. } => Some(*owner),
            _ => None,
        })
        .collect();
    let pinned = may_leak_func_refs(info);
    let slot = Some(Box::new(VMInstance {
        module,
        store: store.id(),
        index,
        vmctx: VMContextBox { ptr, layout },
        memories: Vec::new(),
        memory_objects: Vec::new(),
        tables: Vec::new(),
        imports_from,
        imported_global_owners,
        importers: 0,
        pinned,
        released: false,
        elems: Vec::new(),
        datas: Vec::new(),
    }));
    if index == store.instances.len() {
        store.instances.push(slot);
    } else {
        store.instances[index] = slot;
    }
    store.count_instance();
    let data_ptr: *mut VMInstance = &mut **store.instances[index].as_mut().unwrap();
    // SAFETY: the instance is boxed in the store (stable address) and all
    // offsets come from its module's layout.
    let made = unsafe {
        fill_vmctx(store, &mut *data_ptr, imports, memory_type, shared)
            .and_then(|()| initialize(store, &mut *data_ptr, shared))
    };
    if let Err(e) = made {
        // Nobody gets a handle: free what can be freed (a start function's
        // effects on imported tables may keep it alive, see `pinned`).
        store.instances[index].as_mut().expect("just made").released = true;
        try_free(store, index);
        return Err(e);
    }
    Ok(index)
}

/// Decides the type of each memory an instance defines (see
/// `Instance::new_with_memory_types`); `None` keeps the declared ones.
pub(crate) type MemoryTypeFn<'a> = Option<&'a dyn Fn(u32, MemoryType) -> MemoryType>;

static BUILTINS: BuiltinFunctions = super::libcalls::BUILTINS;

/// Writes the VMContext of a new instance: imports, own memories (of the
/// types `memory_type` gives, see `Instance::new_with_memory_types`),
/// tables, globals and function references.
///
/// # Safety
/// `data` must be the boxed instance just pushed into `store`, with a
/// zeroed VMContext of its module's layout, and `imports` checked against
/// the module's import types.
unsafe fn fill_vmctx(
    store: &mut StoreOpaque,
    data: &mut VMInstance,
    imports: &[VMExtern],
    memory_type: MemoryTypeFn<'_>,
    shared: &[Option<Arc<VMSharedMemory>>],
) -> Result<()> {
    // SAFETY: `data` is the instance just pushed into `store`, its VMContext
    // zeroed and of its module's layout, and `imports` were checked
    // against the import types (caller): every field written below is of
    // that layout and type.
    unsafe {
        let code = data.module.code().clone();
        store.keep_gc_types(&code);
        let info = &code.info;
        let offsets = data.module.offsets().clone();
        *data.field::<u32>(header::MAGIC as u32) = VMCONTEXT_MAGIC;
        *data.field::<*const BuiltinFunctions>(header::BUILTINS as u32) = &BUILTINS;
        *data.field::<*mut VMStoreContext>(header::STORE as u32) = &mut *store.vm;
        *data.field::<*mut VMInstance>(header::INSTANCE as u32) = data;
        // An instance made by a host function while wasm runs needs the limit
        // of that call at once.
        data.set_stack_limit(store.vm.stack_limit);

        for (import, given) in info.imports.iter().zip(imports) {
            match (import.index, given) {
                (EntityIndex::Func(f), VMExtern::Func(func)) => {
                    super::late_exit::resolve_now(func.as_ptr())?;
                    *data.field::<*mut VMFuncRef>(offsets.imported_func(f)) = func.as_ptr();
                }
                (EntityIndex::Global(g), VMExtern::Global { storage, .. }) => {
                    *data.field::<*mut VMGlobal>(offsets.imported_global(g)) = storage.as_ptr();
                }
                (EntityIndex::Memory(m), VMExtern::Memory(memory)) => set_memory(data, m, memory.as_ptr()),
                (EntityIndex::Table(t), VMExtern::Table(table)) => {
                    *data.field::<*mut VMTable>(offsets.table(t)) = table.as_ptr();
                }
                (EntityIndex::Tag(t), VMExtern::Tag(tag)) => {
                    *data.field::<*mut super::exception::VMTag>(offsets.tag(t)) = tag.as_ptr();
                }
                _ => unreachable!("import kinds were checked"),
            }
        }

        // A defined tag is new per instance; the store keeps it, since
        // exceptions of it may outlive the instance.
        for (t, ty) in info.tags.iter().skip(info.num_imported_tags) {
            let type_id = TypeUse::retain(code.types.registry(), code.types.id(*ty));
            let tag = store.keep_tag(Box::new(super::exception::VMTag { ty: info.func_sig(*ty).clone(), type_id }));
            *data.field::<*mut super::exception::VMTag>(offsets.tag(t)) = tag;
        }

        for (i, (m, ty)) in info.memories.iter().skip(info.num_imported_memories).enumerate() {
            let mut memory = Box::new(match shared.get(i).and_then(Option::as_ref) {
                Some(s) => VMMemory::from_shared(s.clone(), store.engine())?,
                None => {
                    let ty = memory_type.map_or(*ty, |f| f(i as u32, *ty));
                    if ty.minimum() >= ty.pages_in_4gib() && info.memories_below_4gib() {
                        return Err(Error::Resource(format!(
                            "memory {} would be 4 GiB, but the module's code was compiled for memories below 4 GiB",
                            m.index()
                        )));
                    }
                    store.create_memory(ty, data.defined_memory_bytes())?
                }
            });
            memory.owner = Some(data.index);
            set_memory(data, m, &mut *memory);
            data.memories.push(memory);
        }
        debug_assert_eq!(data.memory_objects.len(), info.memories.len());
        for (t, ty) in info.tables.iter().skip(info.num_imported_tables) {
            let mut table = Box::new(store.create_table(*ty, 0)?);
            table.owner = Some(data.index);
            table.read_only = info.frozen_tables.contains_key(&t);
            if info.frozen_tables.get(&t).is_some_and(|f| f.calls_by_code()) {
                // Its code array exists before the segments fill it (null
                // slots trap), so a failed instantiation leaves no dangling
                // array for the functions it already put in other tables.
                // SAFETY: a new table's elements are all null.
                table.freeze_codes();
            }
            *data.field::<*mut VMTable>(offsets.table(t)) = &mut *table;
            data.tables.push(table);
        }

        let compiled = &code.compiled;
        let base = compiled.code.base();
        for (d, loc) in compiled.tables.funcs.iter() {
            let f = info.func_index(d);
            let array_call = base.add(compiled.tables.entry_trampolines[d] as usize);
            *data.field::<VMFuncRef>(offsets.defined_func(d)) = VMFuncRef {
                wasm_call: base.add(loc.start as usize),
                // SAFETY: the entry trampoline was compiled with the ArrayCallFn
                // signature.
                array_call: std::mem::transmute::<*const u8, ArrayCallFn>(array_call),
                vmctx: data.vmctx(),
                sig: code.types.sig_id(info.funcs[f]).expect("function types are registered"),
                ty: info.func_type(f),
                display: code.types.display(info.funcs[f]),
            };
        }

        for t in info.types.keys() {
            let id = code.types.sig_id(t).unwrap_or(0);
            *data.field::<usize>(offsets.type_id(t)) = id;
            *data.field::<*const u32>(offsets.type_display(t)) = code.types.display(t);
        }

        for (d, init) in info.global_inits.iter() {
            let g = info.global_index(d);
            let value = data.eval(store, init)?;
            (*data.field::<VMGlobal>(offsets.defined_global(d))).write(info.globals[g].content, value);
        }

        data.elems = info
            .elems
            .values()
            .map(|e| match e.mode {
                ElemMode::Passive => e.items.iter().map(|i| Ok(data.eval(store, i)?.get_ref())).collect(),
                _ => Ok(Box::default()),
            })
            .collect::<Result<_>>()?;
        data.datas = info
            .datas
            .values()
            .map(|d| match d.mode {
                DataMode::Passive => d.range.clone(),
                DataMode::Active { .. } => 0..0,
            })
            .collect();
        Ok(())
    }
}

/// The instance that owns an entity given as an import, if an instance
/// does (host-created entities belong to the store).
///
/// # Safety
/// `e` must be a live entity of `store`.
unsafe fn owner_of(store: &StoreOpaque, e: &VMExtern) -> Option<usize> {
    let _ = store;
    // SAFETY: (each arm) `e` is live, as the caller promises; a funcref's
    // vmctx is an instance's or a host function's.
    unsafe {
        match e {
            VMExtern::Func(f) => VMInstance::of_context(f.as_ref().vmctx).map(|i| i.index),
            VMExtern::Memory(m) => m.as_ref().owner,
            VMExtern::Table(t) => t.as_ref().owner,
            VMExtern::Global { owner, .. } => *owner,
            VMExtern::Tag(_) => None,
        }
    }
}

/// Whether a module's functions can become references held outside its
/// instance where we cannot count them: through shared tables, reference
/// globals, or funcrefs crossing its imports and exports.
fn may_leak_func_refs(info: &ModuleInfo) -> bool {
    let leaks = |ty: ExternType| match ty {
        ExternType::Table(_) => true,
        ExternType::Global(g) => g.content.is_ref(),
        ExternType::Func(f) => f.params().iter().chain(f.results()).any(|t| t.as_ref().is_some_and(|r| r.is_func())),
        ExternType::Memory(_) => false,
        // An exception can carry function references anywhere.
        ExternType::Tag(_) => true,
    };
    info.imports.iter().any(|i| leaks(info.entity_type(i.index)))
        || info.exports.iter().any(|(_, i)| leaks(info.entity_type(*i)))
}

/// Frees a released instance if nothing can reach it, then whatever that
/// makes unreachable in turn.
pub(crate) fn try_free(store: &mut StoreOpaque, index: usize) {
    let Some(data) = store.instances[index].as_ref() else { return };
    if !data.released || data.pinned || data.importers > 0 {
        return;
    }
    if store.active_calls > 0 {
        // Its code may be on the stack: free it when the call returns.
        store.deferred_frees.push(index);
        return;
    }
    let data = store.instances[index].take().expect("checked above");
    store.forget_instance(&data);
    store.free_slots.push(index);
    for owner in &data.imports_from {
        if let Some(o) = store.instances[*owner].as_mut() {
            o.importers -= 1;
        }
        try_free(store, *owner);
    }
}

/// Points memory slot `m` of the VMContext at `memory`, the instance's
/// next memory in index order.
///
/// # Safety
/// `m` must be a memory index of `data`'s module and `memory` a memory
/// that outlives the instance.
unsafe fn set_memory(data: &mut VMInstance, m: MemoryIndex, memory: *mut VMMemory) {
    // SAFETY: `m` is a memory index of the module and `memory` outlives the
    // instance (caller).
    unsafe {
        debug_assert_eq!(data.memory_objects.len(), m.index());
        let def = (*memory).definition_ptr();
        let offsets = data.module.offsets();
        *data.field::<VMMemoryImport>(offsets.memory_base(m)) = VMMemoryImport { base: (*def).base, definition: def };
        data.memory_objects.push(NonNull::new_unchecked(memory));
    }
}

/// Applies active segments in order, then runs the start function.
///
/// # Safety
/// `data` must be an instance of `store` whose VMContext `fill_vmctx`
/// completed.
unsafe fn initialize(
    store: &mut StoreOpaque,
    data: &mut VMInstance,
    shared: &[Option<Arc<VMSharedMemory>>],
) -> Result<()> {
    // SAFETY: `data` is an instance of `store` whose VMContext `fill_vmctx`
    // completed (caller), so its tables, memories and functions are set.
    unsafe {
        let code = data.module.code().clone();
        let info = &code.info;
        for (t, init) in &info.table_inits {
            let value = data.eval(store, init)?.get_ref();
            (*data.table(*t).as_ptr()).elements_mut().fill(value);
        }
        for seg in info.elems.values() {
            let ElemMode::Active { table, offset } = &seg.mode else { continue };
            let start = segment_offset(data.eval(store, offset)?, info.tables[*table].is_64());
            let table = &mut *data.table(*table).as_ptr();
            let end = start.checked_add(seg.items.len()).filter(|e| *e <= table.len() as usize);
            let Some(end) = end else { return Err(Trap::from_code(TrapCode::TableOutOfBounds).into()) };
            for (slot, item) in table.elements_mut()[start..end].iter_mut().zip(seg.items.iter()) {
                *slot = data.eval(store, item)?.get_ref();
            }
        }
        for (t, frozen) in &info.frozen_tables {
            if frozen.calls_by_code() {
                // SAFETY: the segments just applied put null or a `ref.func`
                // of this instance (`own_functions`) in every slot.
                (*data.table(*t).as_ptr()).freeze_codes();
            }
        }
        // Memories with an image get it mapped; their segments are in it.
        // SAFETY (of the lifetime): the module outlives this call, as `data`
        // keeps it.
        let module: &dyn InstanceModule = &*(&*data.module as *const dyn InstanceModule);
        let images = module.memory_images();
        for (d, image) in images.iter().enumerate() {
            if let Some(image) = image {
                let m = MemoryIndex::from_u32((info.num_imported_memories + d) as u32);
                (*data.memory(m).as_ptr()).map_image(image)?;
            }
        }
        let wasm = module.wasm();
        for seg in info.datas.values() {
            let DataMode::Active { memory, offset } = &seg.mode else { continue };
            let defined = memory.index().checked_sub(info.num_imported_memories);
            let imaged = defined.and_then(|d| images.get(d));
            // A memory another instance made (and initialised) keeps its data.
            let reused = defined.and_then(|d| shared.get(d)).is_some_and(Option::is_some);
            if matches!(imaged, Some(Some(_))) || reused {
                continue;
            }
            let start = segment_offset(data.eval(store, offset)?, info.memories[*memory].is_64());
            let memory = &mut *data.memory(*memory).as_ptr();
            let bytes = &wasm[seg.range.clone()];
            let dst = start.checked_add(bytes.len()).and_then(|end| memory.data_mut().get_mut(start..end));
            let Some(dst) = dst else { return Err(Trap::from_code(TrapCode::MemoryOutOfBounds).into()) };
            dst.copy_from_slice(bytes);
        }
        if let Some(start) = info.start {
            let mut none = [ValRaw::default(); 1];
            super::entry::call(store, data.func(start), none.as_mut_ptr())?;
        }
        Ok(())
    }
}

/// An active segment's offset: an i64 for a 64-bit memory or table, an i32
/// otherwise, unsigned (saturating to the host's width, which is past the
/// end anyway).
fn segment_offset(v: ValRaw, is_64: bool) -> usize {
    let offset = if is_64 { v.get_i64() as u64 } else { u64::from(v.get_i32() as u32) };
    usize::try_from(offset).unwrap_or(usize::MAX)
}
