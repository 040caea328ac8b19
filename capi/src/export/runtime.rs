//! The runtime's C functions: initialisation, runtime memory, log level,
//! running modes and the version. The state they set (the reference
//! count, the engines, the allocator) is the core's
//! ([`crate::core::runtime`]), which the wasm-c-api shares.
//!
//! WAMR manages its own memory in one of three ways (`mem_alloc_type_t`).
//! cranewasm serves all three from the C allocator: `Alloc_With_Pool`'s
//! buffer size is a budget that bounds what the runtime allocates for the
//! embedder ([`pool`](crate::core::pool); `wasm_runtime_get_mem_alloc_info`
//! reports on it), while `Alloc_With_Allocator`'s functions are honoured by
//! `wasm_runtime_malloc`, `_realloc` and `_free`. Linear memories are
//! always reserved by the core, not allocated here.

use std::ffi::c_void;

use crate::core::options::mem_alloc_type_t;
use crate::core::pool;
use crate::core::runtime::{FreeFn, MallocFn, ReallocFn, plain_engine, runtime, supported, warn};
use crate::export::types::*;

/// `Alloc_With_Pool`.
const ALLOC_WITH_POOL: mem_alloc_type_t = 0;
/// `Alloc_With_Allocator`.
const ALLOC_WITH_ALLOCATOR: mem_alloc_type_t = 1;

/// Initialises the runtime, or counts one more initialisation. Marks the
/// calling thread's environment as initialised.
fn init(args: Option<&RuntimeInitArgs>) -> bool {
    {
        let mut rt = runtime();
        if rt.refs == 0 {
            if let Some(a) = args {
                if !supported(a.running_mode) {
                    return false;
                }
                rt.mem_alloc_type = a.mem_alloc_type;
                rt.default_running_mode = a.running_mode;
                rt.linux_perf = a.enable_linux_perf;
                rt.gc_heap_size = a.gc_heap_size;
                rt.allocator = None;
                let pool_size = if a.mem_alloc_type == ALLOC_WITH_POOL {
                    // SAFETY: the pool variant is the one in use.
                    Some(unsafe { a.mem_alloc_option.pool.heap_size } as usize)
                } else {
                    None
                };
                pool::start(pool_size);
                if a.mem_alloc_type == ALLOC_WITH_ALLOCATOR {
                    // SAFETY: the allocator variant is the one in use.
                    let f = unsafe { a.mem_alloc_option.allocator };
                    // SAFETY: non-null function pointers of the types the
                    // header documents (or NULL, which leaves `None`).
                    unsafe {
                        let malloc = std::mem::transmute::<*mut c_void, Option<MallocFn>>(f.malloc_func);
                        let realloc = std::mem::transmute::<*mut c_void, Option<ReallocFn>>(f.realloc_func);
                        let free = std::mem::transmute::<*mut c_void, Option<FreeFn>>(f.free_func);
                        rt.allocator = malloc.map(|m| (m, realloc, free));
                    }
                }
            } else {
                rt.mem_alloc_type = 2;
                rt.allocator = None;
                rt.default_running_mode = MODE_DEFAULT;
                rt.linux_perf = false;
                rt.gc_heap_size = 0;
                pool::start(None);
            }
            if rt.linux_perf && rt.engine.is_some() {
                warn(format_args!("enable_linux_perf ignored: the runtime's engine was made before"));
            }
            if let Err(e) = plain_engine(&mut rt) {
                crate::log(format_args!("Init runtime environment failed: {e}"));
                return false;
            }
        }
        rt.refs += 1;
    }
    crate::export::threads::mark_thread_inited();
    true
}

/// Initialises the runtime with default settings (or counts one more
/// initialisation: each needs a `wasm_runtime_destroy`).
#[unsafe(no_mangle)]
pub extern "C" fn wasm_runtime_init() -> bool {
    init(None)
}

/// Initialises the runtime with `init_args` and registers its natives.
/// The allocator options are served from the C allocator, within the
/// pool's size for `Alloc_With_Pool` (see the module documentation);
/// `max_thread_num` is kept for the thread manager; `enable_linux_perf`
/// makes the engine write perf's map (when it is made here, before any
/// module); the debug and JIT options are accepted and ignored. False for
/// NULL, for a running mode cranewasm does not have, and when the natives'
/// signatures are refused.
///
/// # Safety
/// `init_args` must be NULL or point at a `RuntimeInitArgs`; its native
/// symbols as for `wasm_runtime_register_natives`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_full_init(init_args: *mut RuntimeInitArgs) -> bool {
    // SAFETY: NULL or valid (caller).
    let Some(args) = (unsafe { init_args.as_ref() }) else { return false };
    if !init(Some(args)) {
        return false;
    }
    crate::export::thread_mgr::set_max_thread_num(args.max_thread_num);
    if args.n_native_symbols > 0 {
        // SAFETY: as the caller promises.
        let ok = unsafe {
            crate::export::natives::register(args.native_module_name, args.native_symbols, args.n_native_symbols, false)
        };
        if !ok {
            wasm_runtime_destroy();
            return false;
        }
    }
    true
}

/// Drops one initialisation; the last one frees the modules, instances and
/// exec envs the client left (its later destroy calls for them are
/// accepted silently) and forgets the registered natives, the module
/// registry and the context keys, as WAMR does.
#[unsafe(no_mangle)]
pub extern "C" fn wasm_runtime_destroy() {
    let last = {
        let mut rt = runtime();
        if rt.refs == 0 {
            return;
        }
        rt.refs -= 1;
        rt.refs == 0
    };
    if last {
        crate::export::teardown::free_all();
        // WAMR's pool goes with the runtime; what is left of it is no
        // longer counted.
        pool::start(None);
        crate::core::natives::clear();
        crate::core::module::clear_registry();
        crate::export::context::clear_keys();
    }
}

/// Sets the level of the library's diagnostics (`WASM_LOG_LEVEL_FATAL` 0
/// .. `WASM_LOG_LEVEL_VERBOSE` 4; warnings by default), the one
/// `bh_log_set_verbose_level` sets too; 0 silences the library.
#[unsafe(no_mangle)]
pub extern "C" fn wasm_runtime_set_log_level(level: log_level_t) {
    crate::diag::set_level(level);
}

/// Whether cranewasm runs modules in `running_mode`: `Mode_LLVM_JIT`
/// (ahead-of-call compilation by Cranelift), `Mode_Interp` (the same with
/// instruction counting compiled in, for instruction limits) and 0,
/// "default"; not the fast JIT or multi-tier JIT.
#[unsafe(no_mangle)]
pub extern "C" fn wasm_runtime_is_running_mode_supported(running_mode: RunningMode) -> bool {
    supported(running_mode)
}

/// Sets the mode new instances run in; false for an unsupported one.
#[unsafe(no_mangle)]
pub extern "C" fn wasm_runtime_set_default_running_mode(running_mode: RunningMode) -> bool {
    if !supported(running_mode) {
        return false;
    }
    runtime().default_running_mode = running_mode;
    true
}

/// `size` bytes from the runtime's allocator (the client's under
/// `Alloc_With_Allocator`, else the C allocator); a request for 0 bytes
/// gets 1, as in WAMR.
#[unsafe(no_mangle)]
pub extern "C" fn wasm_runtime_malloc(size: u32) -> *mut c_void {
    let size = size.max(1);
    match runtime().allocator {
        // SAFETY: the client's malloc, as it registered it.
        Some((malloc, _, _)) => unsafe { malloc(size) },
        // SAFETY: plain malloc.
        None => pool_checked(unsafe { libc::malloc(size as usize) }),
    }
}

/// `p`, a fresh block of the C allocator, charged to the pool if one is
/// running; NULL (and `p` freed) if it does not fit, as WAMR's pool then
/// has no room.
fn pool_checked(p: *mut c_void) -> *mut c_void {
    if p.is_null() || !pool::active() {
        return p;
    }
    // SAFETY: a live block of the C allocator.
    if pool::charge_block(unsafe { cranewasm::__sys::malloc_usable_size(p) }) {
        return p;
    }
    // SAFETY: ours, unused.
    unsafe { libc::free(p) };
    std::ptr::null_mut()
}

/// Releases a block of the C allocator from the pool (if one is running)
/// before it is freed or moved.
fn pool_release(p: *mut c_void) {
    if pool::active() {
        // SAFETY: a live block of the C allocator (the caller's promise).
        pool::release_block(unsafe { cranewasm::__sys::malloc_usable_size(p) });
    }
}

/// Memory of `size` bytes aligned to `alignment`: only with
/// `Alloc_With_Pool`, as in WAMR (NULL otherwise), and only for an
/// alignment that is a power of two from 8 to the page size dividing
/// `size`.
#[unsafe(no_mangle)]
pub extern "C" fn wasm_runtime_aligned_alloc(size: u32, alignment: u32) -> *mut c_void {
    // SAFETY: a plain query.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) }.max(4096) as u32;
    let ok = runtime().mem_alloc_type == ALLOC_WITH_POOL
        && alignment.is_power_of_two()
        && (8..=page).contains(&alignment)
        && size > 0
        && size.is_multiple_of(alignment);
    if !ok {
        return std::ptr::null_mut();
    }
    let mut p = std::ptr::null_mut();
    // SAFETY: a valid alignment (checked) and an out pointer of ours.
    match unsafe { libc::posix_memalign(&mut p, alignment as usize, size as usize) } {
        0 => pool_checked(p),
        _ => std::ptr::null_mut(),
    }
}

/// Resizes memory from [`wasm_runtime_malloc`]; NULL `ptr` allocates.
///
/// # Safety
/// `ptr` must be NULL or come from this allocator and not be freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_realloc(ptr: *mut c_void, size: u32) -> *mut c_void {
    if ptr.is_null() {
        return wasm_runtime_malloc(size);
    }
    let allocator = runtime().allocator;
    match allocator {
        // SAFETY: the client's realloc, for memory its malloc gave.
        Some((_, Some(realloc), _)) => unsafe { realloc(ptr, size) },
        Some((_, None, _)) => std::ptr::null_mut(),
        None if pool::active() => {
            // As a new block: charged first, the old one released once
            // moved (a failed move keeps it, and its charge).
            let q = wasm_runtime_malloc(size);
            if q.is_null() {
                return q;
            }
            // SAFETY: both live blocks of the C allocator; the copy is the
            // smaller of their sizes.
            unsafe {
                let n = cranewasm::__sys::malloc_usable_size(ptr).min(size as usize);
                std::ptr::copy_nonoverlapping(ptr.cast::<u8>(), q.cast::<u8>(), n);
                wasm_runtime_free(ptr);
            }
            q
        }
        // SAFETY: memory of the C allocator (caller).
        None => unsafe { libc::realloc(ptr, size as usize) },
    }
}

/// Frees memory from [`wasm_runtime_malloc`]; NULL is ignored.
///
/// # Safety
/// As for [`wasm_runtime_realloc`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_free(ptr: *mut c_void) {
    if ptr.is_null() {
        return;
    }
    let allocator = runtime().allocator;
    match allocator {
        // SAFETY: the client's free, for memory its malloc gave.
        Some((_, _, Some(free))) => unsafe { free(ptr) },
        Some((_, _, None)) => {}
        None => {
            pool_release(ptr);
            // SAFETY: memory of the C allocator (caller).
            unsafe { libc::free(ptr) }
        }
    }
}

/// The pool's budget, as WAMR reports on its pool allocator: its size,
/// what is free and the most used at once. False (nothing written) without
/// a pool, as in WAMR, and for NULL.
///
/// # Safety
/// `mem_alloc_info` must be NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_get_mem_alloc_info(mem_alloc_info: *mut mem_alloc_info_t) -> bool {
    let (Some((total, free, highmark)), false) = (pool::info(), mem_alloc_info.is_null()) else { return false };
    let clamp = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
    // SAFETY: writable (caller).
    unsafe {
        mem_alloc_info.write(mem_alloc_info_t {
            total_size: clamp(total),
            total_free_size: clamp(free),
            highmark_size: clamp(highmark),
        })
    };
    true
}

/// WAMR's version this library implements the API of: 2.4.3.
///
/// # Safety
/// Each pointer must be NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_get_version(major: *mut u32, minor: *mut u32, patch: *mut u32) {
    for (p, v) in [(major, 2), (minor, 4), (patch, 3)] {
        if !p.is_null() {
            // SAFETY: writable (caller).
            unsafe { p.write(v) };
        }
    }
}
