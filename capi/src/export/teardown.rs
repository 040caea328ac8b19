//! What the last `wasm_runtime_destroy` frees for the client: the objects
//! of `wasm_export.h` it has not destroyed.
//!
//! WAMR accepts a program that destroys the runtime with modules,
//! instances and exec envs alive (its language bindings do, in whatever
//! order their garbage collector picks); its pool allocator then goes, and
//! with it everything. Here every such object is freed as *retired*
//! ([`object::retire`]): a destroy call the client makes for it afterwards
//! is accepted without a word, as WAMR accepts it, while a pointer never
//! handed out, or freed by its own destroy call, is still refused with the
//! one-time warning. Objects in use stay: the instances of calls still
//! running (on other threads) and of programs whose threads still run,
//! and their exec envs; wasm-c-api modules (`*module`) go with their
//! `wasm_module_delete`.

use crate::core::module::RtModule;
use crate::export::instance::ModuleInst;
use crate::export::types::*;
use crate::handle::{Kind, live_cells};
use crate::object::{self, get_stored};
use crate::{WASMModuleCommon, wasm_module_t};

/// Frees every object of `wasm_export.h` the client left, that nothing
/// uses (see the module documentation).
pub fn free_all() {
    // A spawned exec env goes with its own instance.
    crate::export::thread_mgr::destroy_idle_spawned();
    // Instances take their functions, memories and singletons along.
    for h in live_cells(Kind::ModuleInst.bit()) {
        // SAFETY: a live cell of the kind, just listed.
        let Some(i) = (unsafe { get_stored::<WASMModuleInstanceCommon>(h) }) else { continue };
        if !i.is_sub && !busy(i) {
            // SAFETY: no call runs in it; the client gave it up with the
            // runtime.
            unsafe { object::retire::<WASMModuleInstanceCommon>(h as wasm_module_inst_t) };
        }
    }
    for h in live_cells(Kind::ExecEnv.bit()) {
        // SAFETY: as above.
        let Some(e) = (unsafe { get_stored::<WASMExecEnv>(h) }) else { continue };
        if e.instance().is_none_or(|i| !busy(i)) {
            // SAFETY: its instance is gone or runs no call.
            unsafe { object::retire::<WASMExecEnv>(h as wasm_exec_env_t) };
        }
    }
    for h in live_cells(Kind::InstArgs.bit()) {
        // SAFETY: arguments are used only while an instantiation reads them.
        unsafe { object::retire::<InstantiationArgs2>(h as *mut InstantiationArgs2) };
    }
    for h in live_cells(Kind::RtModule.bit()) {
        // SAFETY: as above.
        let capi = unsafe { get_stored::<WASMModuleCommon>(h) }.is_none_or(|m: &RtModule| m.capi_owned);
        if !capi {
            // SAFETY: instances keep the code they need (the core module).
            unsafe { object::retire::<WASMModuleCommon>(h as wasm_module_t) };
        }
    }
}

/// Whether the instance or its program is running: a call in it, or
/// threads of its program.
fn busy(i: &ModuleInst) -> bool {
    // SAFETY: `handle` is the instance's own live handle.
    i.running() || unsafe { crate::export::thread_mgr::threads_running(i.handle() as wasm_module_inst_t) } > 0
}
