//! Linking an import vector as WAMR does (`wasm_c_api.c`'s `do_link`, and
//! what its `wasm_runtime_instantiate` checks afterwards), over the one
//! linker of both headers ([`crate::core::link`]): the externs given
//! (by the positional rule, `link::positions`), then WASI's functions,
//! then what the runtime makes.
//!
//! * `wasm_module_imports` lists the imports grouped by kind: functions,
//!   globals, memories, tables, each group in module order ([`grouped`]).
//! * The vector's first `num_elems` externs are matched by kind and
//!   position: the i-th function to the i-th imported function, the i-th
//!   global to the i-th imported global, however the kinds interleave.
//!   Names play no part.
//! * A function must have the imported type, a global the imported value
//!   kind; its mutability is not compared (the instance then gets a global
//!   of the imported type holding the given one's value). A NULL element,
//!   a mismatch, an object of another store, or more functions or globals
//!   than the module imports (where WAMR writes past its import table)
//!   fail with "Failed to validate imports".
//! * Missing functions (not given, or placeholders) are allowed. WASI's
//!   functions are then linked by the runtime, as WAMR links its
//!   registered natives (see `crate::core::wasi::resolve`); calling
//!   any other traps with "Exception: failed to call unlinked import function
//!   (m, f)". A missing global fails the instantiation ("failed to link
//!   import global (m, g)", the first in module order).
//! * A host global (or one of another mutability) is not shared: the
//!   instance gets a global of its own holding its value, as in WAMR.
//! * WAMR neither links nor checks memories and tables: the instance gets
//!   those it declares, and extra ones are ignored. We do the same, except
//!   that a memory or table of the store given at an import's position
//!   that has the imported type is linked, so that a host memory is shared
//!   as the spec intends (a program written for WAMR cannot tell). A
//!   shared memory import (the threads proposal) is linked to a shared
//!   memory only, such as another instance's export in the same store.
//! * After a successful instantiation, the global, memory and table
//!   objects given at an import's position stand for what the instance
//!   imported there (in WAMR they then refer to the instance's).

use std::sync::Arc;

use cranewasm::{
    Extern, ExternType, Func, Global, ImportType, InstanceLimits, Memory, Module, Store, Table, TrapError, Val,
};

use crate::c_api::extern_::{ExternObj, Item, Unbound};
use crate::c_api::func::{HostCallback, realize};
use crate::c_api::store::{self, StoreData, StoreObj};
use crate::c_api::vec::wasm_extern_vec_t;
use crate::core::link;
use crate::core::wasi::WasiArgs;
use crate::object::get_mut;
use crate::*;

/// Why linking failed, as WAMR words it after `wasm_instance_new_with_args_ex
/// failed: `.
pub enum Failure {
    /// "Failed to validate imports": a NULL element or a mismatch.
    Validate,
    /// "WASM module instantiate failed: " and the reason.
    Instantiate(String),
}

/// The kinds in WAMR's order of imports.
const FUNC: usize = 0;
const GLOBAL: usize = 1;
const MEMORY: usize = 2;
const TABLE: usize = 3;

fn rank(ty: &ExternType) -> usize {
    match ty {
        ExternType::Func(_) => FUNC,
        ExternType::Global(_) => GLOBAL,
        ExternType::Memory(_) => MEMORY,
        ExternType::Table(_) => TABLE,
        // No C API links tags; they sort last.
        ExternType::Tag(_) => TABLE + 1,
    }
}

/// The module's imports grouped by kind, in WAMR's order.
pub fn grouped(module: &Module) -> Vec<ImportType> {
    let mut imports: Vec<ImportType> = module.imports().collect();
    imports.sort_by_key(|i| rank(&i.ty));
    imports
}

/// What an extern of the vector becomes for the import at its position.
enum Plan {
    /// Linked as it is.
    Use(Extern),
    /// A function of no store, made a function of this store.
    Realize(Arc<HostCallback>),
    /// A new global of the imported type holding this value (converted in
    /// the store when the plan is carried out).
    Global(GlobalValue),
    /// Not linked (a placeholder, or a memory or table that does not fit):
    /// the import is missing.
    Missing,
}

/// Where a new global's value comes from.
enum GlobalValue {
    Current(Global),
    Init(std::rc::Rc<Unbound>),
}

/// The externs to instantiate `module` with in `store`, in module order,
/// and the objects that stand for them afterwards ([`Linked::rebind`]).
pub struct Linked {
    pub externs: Vec<Extern>,
    /// (handle, position among the module's imports).
    rebinds: Vec<(usize, usize)>,
}

/// What the extern `obj` becomes for `import` (see the module
/// documentation).
///
/// # Safety
/// `store` must be live and not otherwise borrowed; `obj` live.
unsafe fn plan(store: *mut StoreObj, obj: &ExternObj, import: &ExternType) -> Result<Plan, Failure> {
    let ours = obj.header.store == store;
    // SAFETY: as the caller promises.
    let core = unsafe { store::core(store) };
    Ok(match (&obj.item, import) {
        (Item::Placeholder(_), _) => Plan::Missing,
        (Item::Func(f), ExternType::Func(ty)) if ours && f.ty == *ty => Plan::Use(Extern::Func(f.func)),
        (Item::Global(g), ExternType::Global(ty)) if ours && g.ty(&*core).content == ty.content => {
            if g.ty(&*core) == *ty { Plan::Use(Extern::Global(*g)) } else { Plan::Global(GlobalValue::Current(*g)) }
        }
        (Item::Unbound(u), _) => match (&**u, import) {
            (Unbound::Func(host), ExternType::Func(ty)) if host.ty == *ty => Plan::Realize(host.clone()),
            (Unbound::Global { ty: given, .. }, ExternType::Global(ty)) if given.content == ty.content => {
                Plan::Global(GlobalValue::Init(u.clone()))
            }
            (Unbound::Memory(_) | Unbound::Table(_), _) => Plan::Missing,
            _ => return Err(Failure::Validate),
        },
        // A shared import takes a shared memory, an unshared one an
        // unshared memory; otherwise, as for any memory WAMR does not link,
        // the instance gets one of its own.
        (Item::Memory(m), ExternType::Memory(ty)) if ours && m.ty(&*core).matches(ty) => Plan::Use(Extern::Memory(*m)),
        (Item::Table(t), ExternType::Table(ty)) => {
            let have = if ours { Some(t.ty(&*core)) } else { None };
            match have {
                Some(have) if have.matches(ty) => Plan::Use(Extern::Table(*t)),
                _ => Plan::Missing,
            }
        }
        (Item::Memory(_), _) => Plan::Missing,
        _ => return Err(Failure::Validate),
    })
}

/// Links `given` against `module`'s imports in `store` (see the module
/// documentation), making what is missing: stand-ins for functions, and
/// memories and tables of the declared types (memories capped at
/// `max_memory_pages`, as WAMR caps them); WASI functions over the WASI
/// settings `wasi_args` (the module's, if it has them).
///
/// # Safety
/// `store` must be live and not otherwise borrowed; `given` NULL or a valid
/// vector whose elements no one else uses meanwhile.
pub unsafe fn link(
    store: *mut StoreObj,
    module: &Module,
    wasi_args: Option<&std::sync::Mutex<WasiArgs>>,
    given: Option<&wasm_extern_vec_t>,
    max_memory_pages: Option<u32>,
) -> Result<Linked, Failure> {
    let imports: Vec<ImportType> = module.imports().collect();
    let mut plans: Vec<Option<Plan>> = imports.iter().map(|_| None).collect();
    let mut rebinds = Vec::new();
    if let Some(v) = given {
        if v.data.is_null() && v.num_elems > 0 {
            return Err(Failure::Validate);
        }
        // SAFETY: a valid vector (caller).
        let elems = unsafe { v.raw().in_use() };
        let mut objs = Vec::with_capacity(elems.len());
        for &e in elems {
            // SAFETY: the elements are not used elsewhere meanwhile (caller).
            let Some(obj) = (unsafe { get_mut::<wasm_extern_t>(e) }) else { return Err(Failure::Validate) };
            let kind = match obj.c_kind() {
                0 => FUNC,
                1 => GLOBAL,
                2 => TABLE,
                _ => MEMORY,
            };
            objs.push((e, obj, kind));
        }
        let positions = link::positions(&imports, objs.iter().map(|o| o.2), rank);
        for ((e, obj, kind), pos) in objs.into_iter().zip(positions) {
            let Some(pos) = pos else {
                // WAMR ignores extra memories and tables, and writes extra
                // functions and globals past its import table.
                match kind {
                    FUNC | GLOBAL => return Err(Failure::Validate),
                    _ => continue,
                }
            };
            // SAFETY: as the caller promises; `obj` is live.
            plans[pos] = Some(unsafe { plan(store, obj, &imports[pos].ty) }?);
            if kind != FUNC && (obj.header.store.is_null() || obj.header.store == store) {
                rebinds.push((e as usize, pos));
            }
        }
    }
    if let Some(missing) = imports.iter().zip(&plans).find_map(|(i, p)| match (p, &i.ty) {
        (None | Some(Plan::Missing), ExternType::Global(_)) => Some(i),
        _ => None,
    }) {
        return Err(Failure::Instantiate(format!(
            "failed to link import global ({}, {})",
            missing.module, missing.name
        )));
    }
    // The chain: what the client gave, WASI's functions for functions it
    // did not give, then what the runtime makes.
    let mut plans: Vec<Plan> = plans.into_iter().map(|p| p.unwrap_or(Plan::Missing)).collect();
    let mut given = |_: &mut Store<StoreData>, index: usize, import: &ImportType| {
        let plan = std::mem::replace(&mut plans[index], Plan::Missing);
        // SAFETY: as the caller promises.
        unsafe { carry_out(store, import, plan) }
    };
    let mut wasi = None;
    let mut wasi_funcs = |core: &mut Store<StoreData>, _: usize, import: &ImportType| {
        // WASI's functions, over a context made on first use from the
        // module's settings (`wasm_runtime_set_wasi_args` on `*module`).
        let new_context = |d: &mut StoreData| {
            let args = wasi_args.map(|w| w.lock().unwrap_or_else(|e| e.into_inner()).clone()).unwrap_or_default();
            d.wasi.push(args.build()?);
            Ok(Some(d.wasi.len() - 1))
        };
        let f =
            crate::core::wasi::resolve(&mut wasi, core, module, import, new_context).map_err(Failure::Instantiate)?;
        Ok(f.map(Extern::Func))
    };
    let mut made = |core: &mut Store<StoreData>, _: usize, import: &ImportType| made(core, import, max_memory_pages);
    // SAFETY: as the caller promises.
    let core = unsafe { store::core(store) };
    let chain: &mut [&mut link::Resolver<'_, Failure>] = &mut [&mut given, &mut wasi_funcs, &mut made];
    let externs = link::link(core, module, chain, |_| Failure::Validate)?;
    Ok(Linked { externs, rebinds })
}

/// The extern the client gave for `import`, as `plan` says to link it;
/// `None` for a missing one.
///
/// # Safety
/// `store` must be live and not otherwise borrowed.
unsafe fn carry_out(store: *mut StoreObj, import: &ImportType, plan: Plan) -> Result<Option<Extern>, Failure> {
    let failed = |e: cranewasm::Error| Failure::Instantiate(e.to_string());
    Ok(Some(match (plan, &import.ty) {
        (Plan::Missing, _) => return Ok(None),
        (Plan::Use(e), _) => e,
        // SAFETY: as the caller promises.
        (Plan::Realize(host), _) => Extern::Func(unsafe { realize(store, &host) }.map_err(failed)?),
        (Plan::Global(from), ExternType::Global(ty)) => {
            // SAFETY: as the caller promises.
            let core = unsafe { store::core(store) };
            let value = match from {
                GlobalValue::Current(g) => Some(g.get(&*core)),
                GlobalValue::Init(u) => match &*u {
                    // SAFETY: `core` is the core store of `store`.
                    Unbound::Global { init, .. } => unsafe { init.to_core(&mut *core, ty.content) },
                    _ => None,
                },
            };
            let value = value.ok_or(Failure::Validate)?;
            Extern::Global(Global::new(&mut *core, *ty, value).map_err(|_| Failure::Validate)?)
        }
        (Plan::Global(_), _) => return Err(Failure::Validate),
    }))
}

/// What the runtime makes for an import nothing was given for: a stand-in
/// that traps for a function, and a memory or table of the declared type
/// (memories capped at `max_memory_pages`, as WAMR caps them).
fn made(
    core: &mut Store<StoreData>,
    import: &ImportType,
    max_memory_pages: Option<u32>,
) -> Result<Option<Extern>, Failure> {
    let failed = |e: cranewasm::Error| Failure::Instantiate(e.to_string());
    Ok(Some(match &import.ty {
        ExternType::Func(ty) => {
            let message =
                format!("Exception: failed to call unlinked import function ({}, {})", import.module, import.name);
            let stand_in = Func::new_raw(core.into(), ty.clone(), move |_, _| Err(TrapError::new(message.clone())));
            Extern::Func(stand_in.map_err(failed)?)
        }
        ExternType::Memory(ty) => {
            let ty = InstanceLimits::max_memory_pages(max_memory_pages.unwrap_or(0)).memory_type(*ty);
            Extern::Memory(Memory::new(&mut *core, ty).map_err(failed)?)
        }
        ExternType::Table(ty) => {
            Extern::Table(Table::new(&mut *core, *ty, Val::default_for(ty.element().into())).map_err(failed)?)
        }
        ExternType::Global(_) | ExternType::Tag(_) => return Err(Failure::Validate),
    }))
}

impl Linked {
    /// Makes the global, memory and table objects that were given stand for
    /// what the instance imported at their positions.
    ///
    /// # Safety
    /// `store` must be live and own the externs; the objects must not be
    /// used elsewhere meanwhile.
    pub unsafe fn rebind(&self, store: *mut StoreObj) {
        for &(cell, pos) in &self.rebinds {
            // SAFETY: as the caller promises; the handle is checked again,
            // since instantiation ran wasm (a start function) meanwhile.
            if let Some(obj) = unsafe { get_mut::<wasm_extern_t>(cell as *mut wasm_extern_t) } {
                // SAFETY: the object's store is NULL or `store`, which owns
                // the entity.
                unsafe { obj.rebind(cell, store, self.externs[pos]) };
            }
        }
    }
}
