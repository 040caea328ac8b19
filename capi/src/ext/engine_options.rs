//! Engines with options WAMR's configuration has no room for: fuel, epoch
//! interruption, lazy compilation, the bounds-check strategy and the wasm
//! stack size.
//!
//! `wasm_engine_new` returns the process's one engine, as in WAMR, with
//! the configuration of its first call. An engine made here is a separate
//! engine of its own (its modules, stores and epoch are its own), deleted
//! with [`cranewasm_engine_delete`], which also takes the process engine.

use std::ptr;
use std::sync::Mutex;

use cranewasm::{BoundsChecks, Config, Engine};

use crate::c_api::engine::{self, EngineObj, wasm_engine_delete, wasm_engine_t};
use crate::object;

/// `cranewasm_engine_options_t`: what [`cranewasm_engine_new_with_options`]
/// builds an engine with. For the tri-state fields, -1 keeps the default
/// (which the environment may set: `CRANEWASM_LAZY`,
/// `CRANEWASM_BOUNDS_CHECKS`), 0 and 1 choose.
#[repr(C)]
#[derive(Copy, Clone, Debug)]
pub struct cranewasm_engine_options_t {
    /// Count operators against each store's fuel
    /// (`cranewasm_store_set_fuel`); running out
    /// traps with `CRANEWASM_TRAP_OUT_OF_FUEL`.
    pub consume_fuel: bool,
    /// Let epoch deadlines stop calls
    /// (`cranewasm_store_set_epoch_deadline`,
    /// `cranewasm_engine_increment_epoch`).
    pub epoch_interruption: bool,
    /// Compile each function on its first call: -1 default, 0 no, 1 yes.
    pub lazy_compilation: i8,
    /// Bounds checks: -1 default, 0 guard pages, 1 an explicit compare.
    pub bounds_checks: i8,
    /// The most bytes of native stack wasm may use (0: the default).
    pub max_wasm_stack: usize,
}

/// The engines made here and not yet deleted, by address.
static OWNED: Mutex<Vec<usize>> = Mutex::new(Vec::new());

fn owned() -> std::sync::MutexGuard<'static, Vec<usize>> {
    OWNED.lock().unwrap_or_else(|e| e.into_inner())
}

/// The core configuration of `o`; an error for a value out of range.
fn config_of(o: &cranewasm_engine_options_t) -> Result<Config, String> {
    let mut c = Config::default();
    c.cache_dir_from_environment();
    c.consume_fuel(o.consume_fuel).epoch_interruption(o.epoch_interruption);
    match o.lazy_compilation {
        -1 => {}
        0 | 1 => {
            c.lazy_compilation(o.lazy_compilation == 1);
        }
        v => return Err(format!("lazy_compilation is -1, 0 or 1, not {v}")),
    }
    match o.bounds_checks {
        -1 => {}
        0 => {
            c.bounds_checks(BoundsChecks::GuardPages);
        }
        1 => {
            c.bounds_checks(BoundsChecks::Explicit);
        }
        v => return Err(format!("bounds_checks is -1, 0 or 1, not {v}")),
    }
    if o.max_wasm_stack != 0 {
        c.max_wasm_stack(o.max_wasm_stack);
    }
    Ok(c)
}

/// cranewasm extension: a new engine of its own with `options` (NULL for
/// the defaults), not the process engine `wasm_engine_new` returns. NULL,
/// with the reason as the last error (and on stderr), for an option out
/// of range or an engine that cannot be made.
///
/// # Safety
/// `options` must be NULL or point at a readable options struct.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cranewasm_engine_new_with_options(
    options: *const cranewasm_engine_options_t,
) -> *mut wasm_engine_t {
    let defaults = cranewasm_engine_options_t {
        consume_fuel: false,
        epoch_interruption: false,
        lazy_compilation: -1,
        bounds_checks: -1,
        max_wasm_stack: 0,
    };
    // SAFETY: NULL or readable (caller).
    let o = unsafe { options.as_ref() }.copied().unwrap_or(defaults);
    let made = config_of(&o).and_then(|c| Engine::new(&c).map_err(|e| e.to_string()));
    match made {
        Ok(engine) => {
            let handle = object::new::<wasm_engine_t>(EngineObj { engine, profiling: false });
            if !handle.is_null() {
                owned().push(handle as usize);
            }
            handle
        }
        Err(e) => {
            crate::log(format_args!("cranewasm_engine_new_with_options: {e}"));
            ptr::null_mut()
        }
    }
}

/// cranewasm extension: deletes an engine from
/// [`cranewasm_engine_new_with_options`], or drops a reference to the
/// process engine as `wasm_engine_delete` does. Stores keep their engine
/// alive on their own, so deleting it before them is harmless. NULL, or
/// anything but a live engine, is ignored.
///
/// # Safety
/// `engine` may be NULL or any pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cranewasm_engine_delete(engine: *mut wasm_engine_t) {
    let mut list = owned();
    if let Some(i) = list.iter().position(|e| *e == engine as usize) {
        list.swap_remove(i);
        drop(list);
        // Under the engine lock, as `engine::lookup` reads engines under it.
        let _s = engine::singleton();
        // SAFETY: a live engine of ours, no longer listed.
        unsafe { object::delete::<wasm_engine_t>(engine) };
    } else {
        drop(list);
        // SAFETY: any pointer is accepted.
        unsafe { wasm_engine_delete(engine.as_mut()) };
    }
}

/// cranewasm extension: advances `engine`'s epoch by one, from any thread:
/// calls in its stores whose epoch deadline this reaches trap with
/// `CRANEWASM_TRAP_EPOCH_DEADLINE`. False for NULL or anything but a live
/// engine.
///
/// # Safety
/// `engine` may be NULL or any pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cranewasm_engine_increment_epoch(engine: *mut wasm_engine_t) -> bool {
    match engine::lookup(engine.cast_const()) {
        Some((e, _)) => {
            e.increment_epoch();
            true
        }
        None => false,
    }
}
