//! How an instance of `wasm_export.h` links its imports, as WAMR's
//! `wasm_runtime_instantiate` resolves them, over the one linker
//! ([`crate::core::link`]). The chain, tried in this order:
//!
//! 1. functions: wasi-threads' `thread-spawn`, then a registered native
//!    (or the builtin libc; see [`crate::export::natives`]);
//! 2. functions: WASI, over the instance's WASI context;
//! 3. globals: the builtin libc's (`global.NaN`, `global.Infinity`);
//! 4. memories: a spawned thread's parent's shared memory; the memory of
//!    a built-in module (`env`, WASI), which WAMR makes itself, as
//!    declared (memory 0 with the app heap), and a shared memory a program
//!    imports from elsewhere;
//! 5. tables and tags: those of a built-in module, made as declared (a
//!    tag so is what toolchains import for their exceptions, LLVM's
//!    `env.__cpp_exception`, when nothing defines it);
//! 6. anything: the export of a registered sub-module (multi-module),
//!    instantiated into this store on first use;
//! 7. functions: a stand-in that fails with WAMR's "failed to call
//!    unlinked import function (m, f)" (with its warning).
//!
//! An import none of these gives fails with WAMR's "failed to link import
//! KIND (m, n)".

use std::cell::Cell;

use cranewasm::{
    Extern, ExternType, Func, FuncType, Global, GlobalType, ImportType, Instance, Linker, Mutability, Store, Table,
    Tag, Val, ValType,
};

use crate::core::link::{self, Resolver};
use crate::core::module::is_built_in_module;
use crate::core::module::{RtModule, module};
use crate::core::runtime::warn;
use crate::export::instance::{
    HeapPlan, InstData, InstOf, Locked, ModuleInst, capped_max, link_error, new_memory, pages, plan_memory0,
    set_fixed_heap, sized,
};
use crate::wasm_module_t;

/// The externs for the module's imports, in import order.
pub(crate) fn link(
    locked: &Locked<'_>,
    rt: &RtModule,
    heap_size: u32,
    max_memory_pages: u32,
    heap_base: bool,
    plan: &Cell<HeapPlan>,
    parent: Option<&ModuleInst>,
) -> Result<Vec<Extern>, String> {
    let module = &rt.module;
    let mut natives = |store: &mut Store<InstData>, _: usize, import: &ImportType| {
        let ExternType::Func(ty) = &import.ty else { return Ok(None) };
        let (m, n) = (import.module.as_str(), import.name.as_str());
        if crate::core::wasi::is_thread_spawn(m, n, ty) {
            return Ok(Some(Extern::Func(crate::export::thread_mgr::thread_spawn_func(store))));
        }
        let Some(native) = crate::core::natives::resolve_for_instantiation(m, n, ty) else { return Ok(None) };
        let f = crate::export::natives::host_func(store, &native, ty.clone()).map_err(|e| e.to_string())?;
        Ok(Some(Extern::Func(f)))
    };
    let mut wasi_linker = None::<Linker<InstData>>;
    let mut wasi = |store: &mut Store<InstData>, _: usize, import: &ImportType| {
        Ok(crate::export::wasi::func(&mut wasi_linker, store, module, import).map(Extern::Func))
    };
    let mut libc_globals = |store: &mut Store<InstData>, _: usize, import: &ImportType| {
        let ExternType::Global(g) = &import.ty else { return Ok(None) };
        match crate::libc_builtin::global(&import.module, &import.name) {
            Some(v) if g.content == ValType::F64 && g.mutability == Mutability::Const => {
                let ty = GlobalType::new(ValType::F64, Mutability::Const);
                Ok(Some(Extern::Global(Global::new(&mut *store, ty, Val::f64(v)).map_err(|e| e.to_string())?)))
            }
            _ => Ok(None),
        }
    };
    let mut memory_index = 0;
    let mut memories = |store: &mut Store<InstData>, _: usize, import: &ImportType| {
        let &ExternType::Memory(ty) = &import.ty else { return Ok(None) };
        let first = memory_index == 0;
        memory_index += 1;
        if let Some(shared) = parent.and_then(|p| p.shared_memory(memory_index - 1)) {
            return Ok(Some(Extern::Memory(shared.to_memory(&mut *store).map_err(|e| e.to_string())?)));
        }
        if !(is_built_in_module(&import.module) || (ty.is_shared() && !rt.deps.contains_key(&import.module))) {
            return Ok(None);
        }
        // WAMR makes the memories the built-in modules "export" itself, as
        // declared (memory 0 with the app heap), and a shared memory a
        // program imports from elsewhere.
        let t = if first {
            let (t, p) = plan_memory0(ty, heap_size, max_memory_pages, heap_base)?;
            plan.set(p);
            set_fixed_heap(locked.inst, p);
            t
        } else {
            let (min, max) = pages(&ty);
            sized(ty, min, capped_max(max_memory_pages, min, max))
        };
        Ok(Some(Extern::Memory(new_memory(store, t)?)))
    };
    let mut tables = |store: &mut Store<InstData>, _: usize, import: &ImportType| {
        let &ExternType::Table(ty) = &import.ty else { return Ok(None) };
        if !is_built_in_module(&import.module) {
            return Ok(None);
        }
        let init = Val::default_for(ty.element().into());
        Ok(Some(Extern::Table(Table::new(&mut *store, ty, init).map_err(|e| e.to_string())?)))
    };
    let mut tags = |store: &mut Store<InstData>, _: usize, import: &ImportType| {
        let ExternType::Tag(ty) = &import.ty else { return Ok(None) };
        if !is_built_in_module(&import.module) {
            return Ok(None);
        }
        Ok(Some(Extern::Tag(Tag::new(&mut *store, ty).map_err(|e| e.to_string())?)))
    };
    let mut subs = |_: &mut Store<InstData>, _: usize, import: &ImportType| sub_export(locked, rt, import);
    let mut unlinked = |store: &mut Store<InstData>, _: usize, import: &ImportType| {
        let ExternType::Func(ty) = &import.ty else { return Ok(None) };
        let (m, n) = (import.module.as_str(), import.name.as_str());
        warn(format_args!("warning: failed to link import function ({m}, {n})"));
        Ok(Some(Extern::Func(unlinked(store, ty.clone(), m, n))))
    };
    let chain: &mut [&mut Resolver<'_, String>] = &mut [
        &mut natives,
        &mut wasi,
        &mut libc_globals,
        &mut memories,
        &mut tables,
        &mut tags,
        &mut subs,
        &mut unlinked,
    ];
    link::link(locked.store(), module, chain, link::unresolved)
}

/// The export `import` names of the instance of dependency `import.module`
/// (instantiated into this store on first use), if its kind fits.
fn sub_export(locked: &Locked<'_>, rt: &RtModule, import: &ImportType) -> Result<Option<Extern>, String> {
    let dep = import.module.as_str();
    let Some(&h) = rt.deps.get(dep) else { return Ok(None) };
    let subs = || locked.inst.subs.lock().unwrap_or_else(|e| e.into_inner());
    let made = subs().get(dep).is_some();
    let store = locked.store();
    if !made {
        // SAFETY: dependencies are registry modules, alive while the
        // runtime is.
        let sub_rt = unsafe { module(h as wasm_module_t) }.ok_or_else(|| format!("unknown import {dep}"))?;
        let imports = link(locked, sub_rt, 0, 0, false, &Cell::new(HeapPlan::None), None)?;
        let i = Instance::new(&mut *store, &sub_rt.module, &imports).map_err(|e| match e {
            cranewasm::Error::Trap(t) | cranewasm::Error::Exception(t) => format!("Exception: {}", t.message()),
            e => link_error(&e),
        })?;
        subs().add(dep, i);
    }
    Ok(subs().export(store, dep, &import.name, &import.ty))
}

/// A stand-in for an import nothing provides: calling it fails with
/// WAMR's exception.
fn unlinked(store: &mut Store<InstData>, ty: FuncType, m: &str, n: &str) -> Func {
    let msg = format!("failed to call unlinked import function ({m}, {n})");
    Func::new_raw(cranewasm::AsContextMut::as_context_mut(store), ty, move |caller, _| {
        Err(caller.data().inst().raise(&msg))
    })
    .expect("trampoline compilation cannot fail")
}
