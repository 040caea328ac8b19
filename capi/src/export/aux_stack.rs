//! The program's auxiliary (shadow) stack, found as WAMR's loader finds it
//! (`load_from_sections` in `wasm_loader.c`), for the thread manager to
//! cut into one slice per thread.
//!
//! WAMR looks only at modules that export both `__heap_base` and
//! `__data_end` as globals they define, immutable i32s initialised with an
//! `i32.const`, `__data_end` (rounded up to 16) at or below
//! `__heap_base`. The stack pointer is then the first global the module
//! defines that is a mutable i32 initialised with an `i32.const` at or
//! below `__heap_base`: LLVM's `__stack_pointer`, wherever the linker put
//! it among the globals (a module may declare `__heap_base` and
//! `__data_end` first). Its stack reaches from that value down to
//! `__data_end`, or down to 0 when the value lies below `__data_end`.
//! Without the two exports, or without such a global (WAMR then takes
//! `__heap_base` with a stack of size 0), or with a stack pointer of 0,
//! the program has no aux stack and spawns no threads.

use cranewasm::{ExternType, Instance, Mutability, ValType};

use crate::core::runtime::log;
use crate::export::instance::Locked;
use crate::export::types::WASM_LOG_LEVEL_VERBOSE;

/// The stack the thread manager slices.
pub struct AuxStack {
    /// The stack pointer's index among the instance's globals.
    pub global: u32,
    /// The stack pointer's initial value: the top of the stack.
    pub top: u32,
    /// Bytes of stack below `top`.
    pub size: u32,
}

/// The aux stack of a new main instance (see the module documentation).
pub fn find(locked: &Locked<'_>, instance: Instance) -> Option<AuxStack> {
    let store = locked.store();
    let module = &locked.inst.module;
    let imported = module.imports().filter(|i| matches!(i.ty, ExternType::Global(_))).count() as u32;
    let globals = || (imported..).map_while(|i| instance.global(&*store, i).map(|g| (i, g)));
    // The constant an exported linker symbol is defined as.
    let symbol = |name: &str| {
        let g = instance.get_global(&*store, name)?;
        let (index, _) = globals().find(|(_, d)| *d == g)?;
        let ty = g.ty(&*store);
        let v = (ty.content == ValType::I32 && ty.mutability == Mutability::Const)
            .then(|| module.global_i32_const(index))??;
        log(WASM_LOG_LEVEL_VERBOSE, format_args!("Found aux {name} global, value: {}", v as u32));
        Some(u64::from(v as u32))
    };
    let (Some(heap_base), Some(data_end)) =
        (symbol("__heap_base"), symbol("__data_end").map(|d| d.next_multiple_of(16)))
    else {
        log(WASM_LOG_LEVEL_VERBOSE, format_args!("No aux stack info for this module, can't create thread"));
        return None;
    };
    if data_end > heap_base {
        return None;
    }
    let (global, top) = globals().find_map(|(i, g)| {
        let ty = g.ty(&*store);
        if ty.content != ValType::I32 || ty.mutability != Mutability::Var {
            return None;
        }
        let top = u64::from(module.global_i32_const(i)? as u32);
        (top <= heap_base).then_some((i, top))
    })?;
    let size = if top > data_end { top - data_end } else { top };
    log(
        WASM_LOG_LEVEL_VERBOSE,
        format_args!("Found aux stack top global, value: {top}, global index: {global}, stack size: {size}"),
    );
    (top != 0 && size != 0).then_some(AuxStack { global, top: top as u32, size: size as u32 })
}
