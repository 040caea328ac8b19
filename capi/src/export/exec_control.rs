//! Execution control of `wasm_export.h`: the callback told when a memory
//! fails to grow (`wasm_runtime_set_enlarge_mem_error_callback`) and
//! instruction metering (`wasm_runtime_set_instruction_count_limit`).
//! Termination (`wasm_runtime_terminate`) is with exceptions, in
//! [`instance`](crate::export::instance).
//!
//! The enlarge-error callback hears of every failed growth of an
//! instance's memory, as WAMR's: `memory.grow` executed by wasm (through
//! the core store's `on_memory_grow_failure`, installed at instantiation)
//! and growth the API asks for (`wasm_runtime_enlarge_memory`,
//! `wasm_memory_enlarge`). It runs in the middle of the call whose growth
//! failed, as in WAMR.

use std::ffi::c_void;
use std::sync::Mutex;
use std::sync::atomic::Ordering;

use cranewasm::{GrowFailureReason, MemoryGrowFailure};

use crate::core::runtime::log;
use crate::export::exec_env::exec_env;
use crate::export::instance::{ModuleInst, inst};
use crate::export::types::*;

/// WAMR's `INTERNAL_ERROR`: the host could not provide the memory.
const INTERNAL_ERROR: enlarge_memory_error_reason_t = 0;
/// WAMR's `MAX_SIZE_REACHED`: the growth would pass the maximum.
pub(crate) const MAX_SIZE_REACHED: enlarge_memory_error_reason_t = 1;

/// The enlarge-error callback and its user data.
static ENLARGE_CALLBACK: Mutex<(enlarge_memory_error_callback_t, usize)> = Mutex::new((None, 0));

/// Sets the function told when growing a memory fails (see the module
/// documentation); NULL removes it.
///
/// # Safety
/// `callback` must be NULL or callable as its type says from any thread.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_set_enlarge_mem_error_callback(
    callback: enlarge_memory_error_callback_t,
    user_data: *mut c_void,
) {
    *ENLARGE_CALLBACK.lock().unwrap_or_else(|e| e.into_inner()) = (callback, user_data as usize);
}

/// Tells the enlarge-error callback, if any, that growing memory `index`
/// of `inst` by `inc` pages from `size` bytes failed.
pub fn report_enlarge_failure(
    inst: &ModuleInst,
    inc: u64,
    size: u64,
    index: u32,
    reason: enlarge_memory_error_reason_t,
) {
    let (cb, data) = *ENLARGE_CALLBACK.lock().unwrap_or_else(|e| e.into_inner());
    let Some(cb) = cb else { return };
    let handle = inst.handle();
    // SAFETY: the client's callback, called as its type says.
    unsafe {
        cb(
            inc.min(u64::from(u32::MAX)) as u32,
            size,
            index,
            reason,
            handle as wasm_module_inst_t,
            inst.current_exec_env() as wasm_exec_env_t,
            data as *mut c_void,
        )
    };
}

/// The store callback of instance `handle`: a failed growth of one of its
/// memories, reported with WAMR's arguments.
pub fn on_grow_failure(handle: usize, f: &MemoryGrowFailure) {
    // SAFETY: a handle, checked; the store calling this belongs to it.
    let Some(inst) = (unsafe { inst(handle as wasm_module_inst_t) }) else { return };
    let reason = match f.reason {
        GrowFailureReason::MaximumReached | GrowFailureReason::LimitReached => MAX_SIZE_REACHED,
        _ => INTERNAL_ERROR,
    };
    report_enlarge_failure(inst, f.delta_pages, f.current_bytes as u64, f.memory_index.unwrap_or(0), reason);
}

/// Sets the operators each call on the exec env may run; negative: no
/// limit (see the module documentation).
///
/// As in WAMR, the limit counts only where instructions are counted: in
/// instances running in `Mode_Interp` (modules loaded while that was the
/// default running mode, or any module under
/// `CRANEWASM_INSTRUCTION_METERING=1`). Elsewhere it is kept and has no
/// effect, silently as in WAMR's JIT modes (a verbose-level log line says
/// why).
///
/// # Safety
/// `exec_env` may be NULL or any pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_set_instruction_count_limit(exec_env: wasm_exec_env_t, instruction_count: i32) {
    let Some(env) = self::exec_env(exec_env as usize) else { return };
    env.instruction_limit.store(instruction_count, Ordering::Relaxed);
    let counted = env.instance().is_some_and(counts_instructions);
    if instruction_count >= 0 && !counted {
        log(
            WASM_LOG_LEVEL_VERBOSE,
            format_args!(
                "wasm_runtime_set_instruction_count_limit: the instance does not run in Mode_Interp, which \
                 counts instructions; the limit has no effect"
            ),
        );
    }
}

/// Whether calls of `inst` count instructions against their exec env's
/// limit.
pub fn counts_instructions(inst: &ModuleInst) -> bool {
    inst.metered && inst.running_mode.load(Ordering::Relaxed) == MODE_INTERP
}

/// Before an outermost call on exec env `env` of a metered instance: the
/// fuel its limit allows.
pub fn fuel_for_call(inst: &ModuleInst, env: usize) -> u64 {
    match exec_env(env).map_or(-1, |e| e.instruction_limit.load(Ordering::Relaxed)) {
        n if n >= 0 && counts_instructions(inst) => n as u64,
        _ => u64::MAX,
    }
}
