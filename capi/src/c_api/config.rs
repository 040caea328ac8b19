//! `wasm_config_t` and the option structs of WAMR's header, field by
//! field.
//!
//! cranewasm has no pluggable allocator and no segment-register memory
//! access, so those options are accepted and ignored, never rejected.
//! The layout is WAMR's, so clients may read the fields of a configuration
//! `wasm_config_new` made; the functions here use only such configurations
//! (listed in [`CONFIGS`]) and take any other pointer for NULL. The
//! one option with an effect is `enable_linux_perf`: as in WAMR, the
//! engine then writes Linux perf's map file (`/tmp/perf-<pid>.map`, the
//! core's `Profiler::PerfMap`) naming every compiled function, and it
//! also turns on the timing behind `wasm_instance_sum_wasm_exec_time`
//! (see [`crate::c_api::instance`]).

use std::ptr;
use std::sync::{Mutex, MutexGuard};

use cranewasm::{Config, Profiler};

pub use crate::core::options::*;

/// Engine configuration, laid out as WAMR's `struct wasm_config_t`.
#[repr(C)]
pub struct wasm_config_t {
    pub mem_alloc_type: mem_alloc_type_t,
    pub mem_alloc_option: MemAllocOption,
    pub segue_flags: u32,
    pub enable_linux_perf: bool,
}

impl Default for wasm_config_t {
    fn default() -> wasm_config_t {
        wasm_config_t {
            mem_alloc_type: ALLOC_WITH_SYSTEM_ALLOCATOR,
            mem_alloc_option: MemAllocOption {
                allocator: MemAllocAllocator {
                    malloc_func: ptr::null_mut(),
                    realloc_func: ptr::null_mut(),
                    free_func: ptr::null_mut(),
                    user_data: ptr::null_mut(),
                },
            },
            segue_flags: 0,
            enable_linux_perf: false,
        }
    }
}

/// The configurations `wasm_config_new` made and not yet deleted, by
/// address, with the features switched off in each. `wasm_config_t` has
/// WAMR's layout, with no room for the features; a process has a handful
/// of configurations, so a list will do.
static CONFIGS: Mutex<Vec<(usize, u32)>> = Mutex::new(Vec::new());

fn configs() -> MutexGuard<'static, Vec<(usize, u32)>> {
    CONFIGS.lock().unwrap_or_else(|e| e.into_inner())
}

/// Runs `f` on a configuration `wasm_config_new` made and its switched-off
/// features; `None` for NULL and any other pointer (which is not read).
fn with_config<R>(config: *const wasm_config_t, f: impl FnOnce(&mut wasm_config_t, &mut u32) -> R) -> Option<R> {
    let mut all = configs();
    let Some((_, off)) = all.iter_mut().find(|(c, _)| *c == config as usize) else {
        if !config.is_null() {
            crate::handle::refused("wasm_config_t");
        }
        return None;
    };
    // SAFETY: a live configuration of ours (deleted only under this lock);
    // the client must not use it on another thread meanwhile.
    Some(f(unsafe { &mut *config.cast_mut() }, off))
}

/// A configuration with WAMR's defaults: the system allocator, no perf.
///
/// # Safety
/// None needed: it takes no pointer.
#[unsafe(no_mangle)]
pub extern "C" fn wasm_config_new() -> *mut wasm_config_t {
    let config = Box::into_raw(Box::<wasm_config_t>::default());
    configs().push((config as usize, 0));
    config
}

/// Deletes a configuration (engines keep no pointer to it).
///
/// # Safety
/// `config` may be NULL or any pointer: anything but a live configuration
/// from `wasm_config_new` is ignored, so deleting twice is harmless. No
/// other thread may use it meanwhile.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_config_delete(config: *mut wasm_config_t) {
    let mut all = configs();
    if let Some(i) = all.iter().position(|(c, _)| *c == config as usize) {
        all.swap_remove(i);
        // SAFETY: ours, from `Box::into_raw`, and no longer listed.
        drop(unsafe { Box::from_raw(config) });
    } else if !config.is_null() {
        crate::handle::refused("wasm_config_t");
    }
}

/// `cranewasm_feature_t`: a WebAssembly proposal beyond 2.0 (or SIMD) that
/// [`cranewasm_config_set_feature`] switches.
pub type cranewasm_feature_t = u32;
/// 128-bit SIMD (part of WebAssembly 2.0).
pub const CRANEWASM_FEATURE_SIMD: cranewasm_feature_t = 0;
/// Relaxed SIMD.
pub const CRANEWASM_FEATURE_RELAXED_SIMD: cranewasm_feature_t = 1;
/// Tail calls (`return_call`, `return_call_indirect`).
pub const CRANEWASM_FEATURE_TAIL_CALL: cranewasm_feature_t = 2;
/// Extended constant expressions.
pub const CRANEWASM_FEATURE_EXTENDED_CONST: cranewasm_feature_t = 3;
/// Several memories per module.
pub const CRANEWASM_FEATURE_MULTI_MEMORY: cranewasm_feature_t = 4;

/// cranewasm extension: turns a proposal on or off for engines made from
/// `config` (all are on by default). Returns false for NULL or an unknown
/// feature. As in WAMR, the process has one engine, which keeps the
/// configuration of the first `wasm_engine_new_with_config`.
///
/// # Safety
/// `config` may be NULL or any pointer: anything but a live configuration
/// from `wasm_config_new` counts as NULL. No other thread may use it
/// meanwhile.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cranewasm_config_set_feature(
    config: *mut wasm_config_t,
    feature: cranewasm_feature_t,
    enable: bool,
) -> bool {
    if feature > CRANEWASM_FEATURE_MULTI_MEMORY {
        return false;
    }
    with_config(config, |_, bits| {
        if enable {
            *bits &= !(1 << feature);
        } else {
            *bits |= 1 << feature;
        }
    })
    .is_some()
}

/// The core configuration an engine made from `config` uses, and whether
/// it profiles. A configuration `wasm_config_new` did not make counts as
/// NULL: it may be anything, down to a zero-sized struct a binding
/// allocated, so it is not read (WAMR's `wasm_engine_new_with_args`
/// passes one from the stack, but holding only allocator options, which
/// cranewasm ignores).
pub fn core_config(config: *const wasm_config_t) -> (Config, bool) {
    let (off, profiling) = with_config(config, |c, off| (*off, c.enable_linux_perf)).unwrap_or((0, false));
    let on = |f: cranewasm_feature_t| off & (1 << f) == 0;
    let mut c = Config::default();
    c.cache_dir_from_environment();
    c.wasm_simd(on(CRANEWASM_FEATURE_SIMD))
        .wasm_relaxed_simd(on(CRANEWASM_FEATURE_RELAXED_SIMD) && on(CRANEWASM_FEATURE_SIMD))
        .wasm_tail_call(on(CRANEWASM_FEATURE_TAIL_CALL))
        .wasm_extended_const(on(CRANEWASM_FEATURE_EXTENDED_CONST))
        .wasm_multi_memory(on(CRANEWASM_FEATURE_MULTI_MEMORY));
    if profiling {
        c.profiler(Profiler::PerfMap);
    }
    (c, profiling)
}

/// Records WAMR's allocator choice. cranewasm always uses the system
/// allocator, so the option is accepted and has no effect. Returns
/// `config` (NULL for NULL).
///
/// # Safety
/// `config` as for [`cranewasm_config_set_feature`]; `option` must be NULL
/// or point at a `MemAllocOption`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_config_set_mem_alloc_opt(
    config: *mut wasm_config_t,
    mem_alloc_type: mem_alloc_type_t,
    option: Option<&mut MemAllocOption>,
) -> *mut wasm_config_t {
    with_config(config, |c, _| {
        c.mem_alloc_type = mem_alloc_type;
        if let Some(o) = option {
            c.mem_alloc_option = *o;
        }
        config
    })
    .unwrap_or(ptr::null_mut())
}

/// Turns profiling on or off: an engine made with it on writes Linux
/// perf's map file (`/tmp/perf-<pid>.map`) for the functions it compiles
/// or loads, as WAMR's does, and times calls into instances for
/// `wasm_instance_sum_wasm_exec_time`. Returns `config` (NULL for NULL).
///
/// # Safety
/// As for [`cranewasm_config_set_feature`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_config_set_linux_perf_opt(
    config: *mut wasm_config_t,
    enable: bool,
) -> *mut wasm_config_t {
    with_config(config, |c, _| {
        c.enable_linux_perf = enable;
        config
    })
    .unwrap_or(ptr::null_mut())
}

/// Records WAMR's segment-register flags. cranewasm's memory accesses do
/// not use segment registers, so the flags are accepted and have no effect.
/// Returns `config` (NULL for NULL).
///
/// # Safety
/// As for [`cranewasm_config_set_feature`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_config_set_segue_flags(
    config: *mut wasm_config_t,
    segue_flags: u32,
) -> *mut wasm_config_t {
    with_config(config, |c, _| {
        c.segue_flags = segue_flags;
        config
    })
    .unwrap_or(ptr::null_mut())
}
