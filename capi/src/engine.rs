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

use crate::config::wasm_config_t;
use crate::wasm_engine_t;

/// What a `wasm_engine_t *` points at.
pub struct EngineObj {
    pub engine: Engine,
    /// Profiling was requested (`enable_linux_perf`).
    pub profiling: bool,
}

struct Singleton {
    /// The live engine, as an address (0 when there is none).
    engine: usize,
    refs: usize,
}

static SINGLETON: Mutex<Singleton> = Mutex::new(Singleton { engine: 0, refs: 0 });

fn singleton() -> std::sync::MutexGuard<'static, Singleton> {
    SINGLETON.lock().unwrap_or_else(|e| e.into_inner())
}

/// The core engine and profiling flag of `e`, if `e` is the live engine.
pub fn lookup(e: *mut wasm_engine_t) -> Option<(Engine, bool)> {
    let s = singleton();
    if e.is_null() || e as usize != s.engine {
        return None;
    }
    // SAFETY: the singleton's engine stays alive while the lock is held.
    let obj = unsafe { &*(e as *const EngineObj) };
    Some((obj.engine.clone(), obj.profiling))
}

/// The process engine with default settings (see
/// [`wasm_engine_new_with_config`]).
#[no_mangle]
pub extern "C" fn wasm_engine_new() -> *mut wasm_engine_t {
    let config = wasm_config_t::default();
    // SAFETY: a valid, local configuration.
    unsafe { wasm_engine_new_with_config(&config as *const _ as *mut _) }
}

/// The process engine. The first call creates it with `config` (NULL for
/// defaults; the configuration stays the caller's); later calls return the
/// same engine and add a reference. NULL if Cranelift cannot generate code
/// for this host.
#[no_mangle]
pub unsafe extern "C" fn wasm_engine_new_with_config(config: *mut wasm_config_t) -> *mut wasm_engine_t {
    let mut s = singleton();
    if s.engine != 0 {
        s.refs += 1;
        return s.engine as *mut wasm_engine_t;
    }
    let profiling = config.as_ref().is_some_and(|c| c.enable_linux_perf);
    match Engine::new(&crate::config::core_config(config)) {
        Ok(engine) => {
            let obj = Box::into_raw(Box::new(EngineObj { engine, profiling }));
            s.engine = obj as usize;
            s.refs = 1;
            obj.cast()
        }
        Err(e) => {
            crate::log(format_args!("wasm_engine_new: {e}"));
            ptr::null_mut()
        }
    }
}

/// Drops a reference to the engine; the last one frees it. NULL, or an
/// engine that is no longer live, is ignored.
#[no_mangle]
pub unsafe extern "C" fn wasm_engine_delete(engine: *mut wasm_engine_t) {
    let mut s = singleton();
    if engine.is_null() || engine as usize != s.engine {
        return;
    }
    s.refs -= 1;
    if s.refs == 0 {
        s.engine = 0;
        drop(Box::from_raw(engine.cast::<EngineObj>()));
    }
}
