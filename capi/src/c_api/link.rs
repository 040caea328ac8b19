//! Linking an import vector as WAMR does (`wasm_c_api.c`'s `do_link`, and
//! what its `wasm_runtime_instantiate` checks afterwards).
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
//!   registered natives (see `crate::export::wasi::link_for_capi`); calling
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

use cranewasm::{Extern, ExternType, Func, Global, ImportType, InstanceLimits, Memory, Module, Table, Trap, Val};

use crate::c_api::extern_::{ExternObj, Item, Unbound};
use crate::c_api::func::{HostCallback, realize};
use crate::c_api::store::{self, StoreObj};
use crate::c_api::vec::wasm_extern_vec_t;
use crate::export::module::RtModule;
use crate::export::wasi::link_for_capi;
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

/// Whether limits `have` fit where `want` is imported.
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
/// settings of `rt`.
///
/// # Safety
/// `store` must be live and not otherwise borrowed; `given` NULL or a valid
/// vector whose elements no one else uses meanwhile.
pub unsafe fn link(
    store: *mut StoreObj,
    module: &Module,
    rt: Option<&RtModule>,
    given: Option<&wasm_extern_vec_t>,
    max_memory_pages: Option<u32>,
) -> Result<Linked, Failure> {
    let imports: Vec<ImportType> = module.imports().collect();
    let mut positions: [Vec<usize>; 4] = Default::default();
    for (i, import) in imports.iter().enumerate() {
        positions[rank(&import.ty)].push(i);
    }
    let mut next = [0; 4];
    let mut plans: Vec<Option<Plan>> = imports.iter().map(|_| None).collect();
    let mut rebinds = Vec::new();
    if let Some(v) = given {
        if v.data.is_null() && v.num_elems > 0 {
            return Err(Failure::Validate);
        }
        // SAFETY: a valid vector (caller).
        for &e in unsafe { v.raw().in_use() } {
            // SAFETY: the elements are not used elsewhere meanwhile (caller).
            let Some(obj) = (unsafe { get_mut::<wasm_extern_t>(e) }) else { return Err(Failure::Validate) };
            let kind = match obj.c_kind() {
                0 => FUNC,
                1 => GLOBAL,
                2 => TABLE,
                _ => MEMORY,
            };
            let n = next[kind];
            next[kind] += 1;
            let Some(&pos) = positions[kind].get(n) else {
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
    let mut externs = Vec::with_capacity(imports.len());
    let mut wasi = None;
    for (import, plan) in imports.iter().zip(plans) {
        let plan = plan.unwrap_or(Plan::Missing);
        if let (Plan::Missing, ExternType::Func(_)) = (&plan, &import.ty) {
            // SAFETY: as the caller promises.
            let core = unsafe { store::core(store) };
            if let Some(f) = link_for_capi(&mut wasi, core, module, rt, import).map_err(Failure::Instantiate)? {
                externs.push(Extern::Func(f));
                continue;
            }
        }
        // SAFETY: as the caller promises.
        externs.push(unsafe { carry_out(store, import, plan, max_memory_pages) }?);
    }
    Ok(Linked { externs, rebinds })
}

/// The extern for `import` that `plan` says.
///
/// # Safety
/// `store` must be live and not otherwise borrowed.
unsafe fn carry_out(
    store: *mut StoreObj,
    import: &ImportType,
    plan: Plan,
    max_memory_pages: Option<u32>,
) -> Result<Extern, Failure> {
    let failed = |e: cranewasm::Error| Failure::Instantiate(e.to_string());
    // SAFETY: as the caller promises.
    let core = unsafe { store::core(store) };
    Ok(match (plan, &import.ty) {
        (Plan::Use(e), _) => e,
        // SAFETY: as the caller promises.
        (Plan::Realize(host), _) => Extern::Func(unsafe { realize(store, &host) }.map_err(failed)?),
        (Plan::Global(from), ExternType::Global(ty)) => {
            let value = match from {
                GlobalValue::Current(g) => Some(g.get(&*core)),
                GlobalValue::Init(u) => match &*u {
                    // SAFETY: `core` is the core store of `store`.
                    Unbound::Global { init, .. } => unsafe { init.to_core(store, &mut *core, ty.content) },
                    _ => None,
                },
            };
            let value = value.ok_or(Failure::Validate)?;
            Extern::Global(Global::new(&mut *core, *ty, value).map_err(|_| Failure::Validate)?)
        }
        (_, ExternType::Func(ty)) => {
            let message =
                format!("Exception: failed to call unlinked import function ({}, {})", import.module, import.name);
            let stand_in = Func::new_raw(core.into(), ty.clone(), move |_, _| Err(Trap::new(message.clone())));
            Extern::Func(stand_in.map_err(failed)?)
        }
        (_, ExternType::Memory(ty)) => {
            let ty = InstanceLimits::max_memory_pages(max_memory_pages.unwrap_or(0)).memory_type(*ty);
            Extern::Memory(Memory::new(&mut *core, ty).map_err(failed)?)
        }
        (_, ExternType::Table(ty)) => {
            Extern::Table(Table::new(&mut *core, *ty, Val::default_for(ty.element().into())).map_err(failed)?)
        }
        (_, ExternType::Global(_) | ExternType::Tag(_)) => return Err(Failure::Validate),
    })
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
