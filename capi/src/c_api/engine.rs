//! The engine: one per process, reference-counted, as in WAMR.
//!
//! `wasm_engine_new` may be called any number of times: the first call
//! creates the engine (with its configuration), later calls return the same
//! engine and count a reference, and the last `wasm_engine_delete` frees
//! it. Stores keep the core engine alive on their own, so deleting the
//! engine before its stores is harmless.

use std::ptr;
use std::sync::Mutex;

use cranewasm::Engine;

use crate::c_api::config::wasm_config_t;
use crate::handle::Kind;
use crate::object::{self, Object, Ptr, c_object};

/// What a `wasm_engine_t *` points at.
pub struct EngineObj {
    pub engine: Engine,
    /// Profiling was requested (`enable_linux_perf`).
    pub profiling: bool,
}

// SAFETY: engine cells hold `EngineObj`s, named by `wasm_engine_t` only.
unsafe impl Object for EngineObj {
    fn kind(&self) -> Kind {
        Kind::Engine
    }
}

c_object! {
    /// The process-wide engine (one, reference-counted).
    wasm_engine_t: EngineObj [Engine];
}

pub(crate) struct Singleton {
    /// The live engine's handle, as an address (0 when there is none).
    engine: usize,
    refs: usize,
}

static SINGLETON: Mutex<Singleton> = Mutex::new(Singleton { engine: 0, refs: 0 });

pub(crate) fn singleton() -> std::sync::MutexGuard<'static, Singleton> {
    SINGLETON.lock().unwrap_or_else(|e| e.into_inner())
}

/// The core engine and profiling flag of `e`, if `e` is the live engine.
pub fn lookup(e: impl Ptr<wasm_engine_t>) -> Option<(Engine, bool)> {
    let _s = singleton();
    // SAFETY: the engine is deleted only under the singleton's lock, held
    // here.
    let obj = unsafe { object::get::<wasm_engine_t>(e) }?;
    Some((obj.engine.clone(), obj.profiling))
}

/// The process engine with default settings (see
/// [`wasm_engine_new_with_config`]).
///
/// # Safety
/// None needed: it takes no pointer.
#[unsafe(no_mangle)]
pub extern "C" fn wasm_engine_new() -> *mut wasm_engine_t {
    // SAFETY: no configuration.
    unsafe { wasm_engine_new_with_config(ptr::null_mut()) }
}

/// The process engine. The first call creates it with `config` (NULL for
/// defaults; the configuration stays the caller's); later calls return the
/// same engine and add a reference. NULL if Cranelift cannot generate code
/// for this host.
///
/// # Safety
/// `config` may be NULL or any pointer: anything but a live configuration
/// from `wasm_config_new` counts as NULL (see [`crate::c_api::config`]).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_engine_new_with_config(config: *mut wasm_config_t) -> *mut wasm_engine_t {
    let mut s = singleton();
    if s.engine != 0 {
        s.refs += 1;
        return s.engine as *mut wasm_engine_t;
    }
    let (config, profiling) = crate::c_api::config::core_config(config);
    match Engine::new(&config) {
        Ok(engine) => {
            let handle = object::new::<wasm_engine_t>(EngineObj { engine, profiling });
            if !handle.is_null() {
                s.engine = handle as usize;
                s.refs = 1;
            }
            handle
        }
        Err(e) => {
            crate::log(format_args!("wasm_engine_new: {e}"));
            ptr::null_mut()
        }
    }
}

/// Drops a reference to the engine; the last one frees it. NULL, or an
/// engine that is no longer live, is ignored.
///
/// # Safety
/// `engine` may be NULL or any pointer: anything but the live engine is
/// ignored.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_engine_delete(engine: Option<&mut wasm_engine_t>) {
    let mut s = singleton();
    if s.engine == 0 || engine.addr() != s.engine {
        return;
    }
    s.refs -= 1;
    if s.refs == 0 {
        s.engine = 0;
        // SAFETY: the engine's handle, under the singleton's lock.
        unsafe { object::delete(engine) };
    }
}
