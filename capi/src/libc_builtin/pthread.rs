//! WAMR's lib-pthread (`WAMR_BUILD_LIB_PTHREAD`, which WAMR's
//! `samples/multi-thread` builds its iwasm with): the POSIX threads of
//! apps built against WAMR's `libc-builtin-sysroot`, as `env` natives.
//!
//! `pthread_create` runs the app's start routine (an element of table 0)
//! on a new thread with an exec env of the thread manager
//! ([`crate::export::thread_mgr`]: an instance of its own over the shared
//! memory, a slice of the shadow stack, `max_thread_num`), and its result
//! is what `pthread_join` gives. Mutexes, condition variables and
//! semaphores are host objects named by a handle, which the app keeps in
//! its `pthread_mutex_t` (etc., 32-bit cells) or gets from `sem_open`, as
//! in WAMR. They all wait on one lock and condition variable: wasm threads
//! of these apps are few, and one monitor keeps `pthread_cond_wait`'s
//! release-and-wait atomic simply. Condition variables may wake spuriously
//! (a signal wakes every waiter, which POSIX allows). As in WAMR, whose
//! cluster spreads an exception to every thread, the program ends when
//! any of its threads traps or exits, the main one included, and the
//! others are stopped. Unlike WAMR, whose natives wait on OS mutexes and
//! leave such a thread blocked (its main instance's destruction then
//! waits for it forever), a wait in these natives then returns -1, so
//! that its thread stops as it returns to wasm. Cancellation,
//! `pthread_exit`, thread-specific keys and timed waits are not provided
//! (their imports stay unlinked, trapping when called).

use std::collections::HashMap;
use std::ffi::{CStr, c_char, c_void};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;

use crate::export::types::*;

/// The host side of the app's synchronisation objects.
#[derive(Default)]
struct Objects {
    /// Mutexes: locked or not.
    mutexes: HashMap<u32, bool>,
    /// Condition variables: how many times each was signalled.
    conds: HashMap<u32, u64>,
    /// Semaphores by handle, with their counts, and their names.
    sems: HashMap<u32, u32>,
    sem_names: HashMap<String, u32>,
    /// Threads to join, by id.
    threads: HashMap<u32, JoinHandle<u32>>,
}

static OBJECTS: Mutex<Option<Objects>> = Mutex::new(None);
static CHANGED: Condvar = Condvar::new();
static NEXT_HANDLE: AtomicU32 = AtomicU32::new(1);

thread_local! {
    /// This thread's `pthread_self` (0 for a thread the app did not create).
    static SELF_ID: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

fn objects() -> MutexGuard<'static, Option<Objects>> {
    OBJECTS.lock().unwrap_or_else(|e| e.into_inner())
}

/// Runs `f` on the objects, waiting (and retrying) while it answers `None`.
fn wait_until<R>(f: impl FnMut(&mut Objects) -> Option<R>) -> R {
    wait_or_end(std::ptr::null_mut(), f).expect("no exec env, no program to end")
}

/// [`wait_until`] for a native of `exec_env`, which stops waiting with
/// `None` when the exec env's program ends (a thread trapped or exited:
/// the caller is then stopped as soon as it returns to wasm).
fn wait_or_end<R>(exec_env: wasm_exec_env_t, mut f: impl FnMut(&mut Objects) -> Option<R>) -> Option<R> {
    let mut g = objects();
    loop {
        if let Some(r) = f(g.get_or_insert_with(Objects::default)) {
            CHANGED.notify_all();
            return Some(r);
        }
        // Checked under the lock that [`wake_waiters`] takes after the
        // program is marked ended, so that its wake-up is not lost.
        if !exec_env.is_null() && crate::export::thread_mgr::program_ended(exec_env) {
            return None;
        }
        g = CHANGED.wait(g).unwrap_or_else(|e| e.into_inner());
    }
}

/// Wakes every thread waiting in these natives, to look again whether its
/// program ended.
pub(crate) fn wake_waiters() {
    let _g = objects();
    CHANGED.notify_all();
}

fn new_handle() -> u32 {
    NEXT_HANDLE.fetch_add(1, Ordering::Relaxed)
}

/// `pthread_create(thread, attr, start_routine, arg)`: 0, or -1 when the
/// thread cannot be made.
pub(crate) extern "C" fn pthread_create_wrapper(
    exec_env: wasm_exec_env_t,
    thread: *mut u32,
    _attr: *mut c_void,
    elem_index: u32,
    arg: u32,
) -> i32 {
    // SAFETY: the native's own exec env.
    let env = unsafe { crate::export::thread_mgr::wasm_runtime_spawn_exec_env(exec_env) };
    if env.is_null() {
        return -1;
    }
    let id = new_handle();
    let env_h = env as usize;
    // The thread counts as the program's until its instance is gone, so
    // that a main instance whose program ended is destroyed after it.
    let Some(cluster) = crate::export::thread_mgr::cluster_of(env) else {
        // SAFETY: the exec env made above, not handed out.
        unsafe { crate::export::thread_mgr::wasm_runtime_destroy_spawned_exec_env(env) };
        return -1;
    };
    cluster.thread_started();
    let for_thread = cluster.clone();
    let started = std::thread::Builder::new().stack_size(8 << 20).spawn(move || {
        crate::export::threads::mark_thread_inited();
        SELF_ID.with(|s| s.set(id));
        let env = env_h as wasm_exec_env_t;
        let mut argv = [arg];
        // SAFETY: the thread's own spawned exec env; argv holds the
        // routine's argument and room for its result.
        let ok = unsafe { crate::export::call::wasm_runtime_call_indirect(env, elem_index, 1, argv.as_mut_ptr()) };
        if !ok {
            // WAMR ends the program with the thread's exception.
            // SAFETY: as above.
            let inst = unsafe { crate::export::exec_env::wasm_runtime_get_module_inst(env) };
            // SAFETY: a handle, checked.
            if let Some(inst) = unsafe { crate::export::instance::inst(inst) } {
                crate::export::thread_mgr::end_program(inst);
            }
        }
        // SAFETY: the spawned exec env this thread was given.
        unsafe { crate::export::thread_mgr::wasm_runtime_destroy_spawned_exec_env(env) };
        for_thread.thread_finished();
        argv[0]
    });
    match started {
        Ok(handle) => {
            let mut handle = Some(handle);
            wait_until(|o| {
                o.threads.extend(handle.take().map(|h| (id, h)));
                Some(())
            });
            if !thread.is_null() {
                // SAFETY: a native pointer checked against the app's memory.
                unsafe { thread.write_unaligned(id) };
            }
            0
        }
        Err(_) => {
            // SAFETY: the exec env made above, not handed out.
            unsafe { crate::export::thread_mgr::wasm_runtime_destroy_spawned_exec_env(env) };
            cluster.thread_finished();
            -1
        }
    }
}

/// `pthread_join(thread, retval)`: 0 with the routine's result at the app
/// address `retval` (if not 0), -1 for an unknown thread.
pub(crate) extern "C" fn pthread_join_wrapper(exec_env: wasm_exec_env_t, thread: u32, retval: u32) -> i32 {
    let handle = objects().as_mut().and_then(|o| o.threads.remove(&thread));
    let Some(Ok(ret)) = handle.map(JoinHandle::join) else { return -1 };
    if retval != 0 {
        // SAFETY: the native's exec env; the address is checked.
        unsafe {
            let inst = crate::export::exec_env::wasm_runtime_get_module_inst(exec_env);
            if !crate::export::app_memory::wasm_runtime_validate_app_addr(inst, u64::from(retval), 4) {
                return -1;
            }
            let p = crate::export::app_memory::wasm_runtime_addr_app_to_native(inst, u64::from(retval));
            p.cast::<u32>().write_unaligned(ret);
        }
    }
    0
}

/// `pthread_detach(thread)`: the thread is no longer joinable.
pub(crate) extern "C" fn pthread_detach_wrapper(_exec_env: wasm_exec_env_t, thread: u32) -> i32 {
    if objects().as_mut().and_then(|o| o.threads.remove(&thread)).is_some() { 0 } else { -1 }
}

/// `pthread_self()`.
pub(crate) extern "C" fn pthread_self_wrapper(_exec_env: wasm_exec_env_t) -> u32 {
    SELF_ID.with(|s| s.get())
}

/// `pthread_mutex_init(mutex, attr)`.
pub(crate) extern "C" fn pthread_mutex_init_wrapper(_e: wasm_exec_env_t, mutex: *mut u32, _attr: *mut c_void) -> i32 {
    let h = new_handle();
    wait_until(|o| Some(o.mutexes.insert(h, false)));
    // SAFETY: a native pointer checked against the app's memory.
    unsafe { mutex.write_unaligned(h) };
    0
}

/// The handle in the app's cell at `p`.
fn handle_at(p: *const u32) -> u32 {
    // SAFETY: a native pointer checked against the app's memory.
    unsafe { p.read_unaligned() }
}

/// `pthread_mutex_lock(mutex)`: waits until it is free (-1 when the
/// program ends meanwhile).
pub(crate) extern "C" fn pthread_mutex_lock_wrapper(e: wasm_exec_env_t, mutex: *mut u32) -> i32 {
    let h = handle_at(mutex);
    wait_or_end(e, |o| match o.mutexes.get_mut(&h) {
        None => Some(-1),
        Some(true) => None,
        Some(locked) => {
            *locked = true;
            Some(0)
        }
    })
    .unwrap_or(-1)
}

/// `pthread_mutex_unlock(mutex)`.
pub(crate) extern "C" fn pthread_mutex_unlock_wrapper(_e: wasm_exec_env_t, mutex: *mut u32) -> i32 {
    let h = handle_at(mutex);
    wait_until(|o| Some(o.mutexes.get_mut(&h).map_or(-1, |l| std::mem::replace(l, false) as i32 - 1)))
}

/// `pthread_mutex_destroy(mutex)`.
pub(crate) extern "C" fn pthread_mutex_destroy_wrapper(_e: wasm_exec_env_t, mutex: *mut u32) -> i32 {
    let h = handle_at(mutex);
    wait_until(|o| Some(if o.mutexes.remove(&h).is_some() { 0 } else { -1 }))
}

/// `pthread_cond_init(cond, attr)`.
pub(crate) extern "C" fn pthread_cond_init_wrapper(_e: wasm_exec_env_t, cond: *mut u32, _attr: *mut c_void) -> i32 {
    let h = new_handle();
    wait_until(|o| Some(o.conds.insert(h, 0)));
    // SAFETY: a native pointer checked against the app's memory.
    unsafe { cond.write_unaligned(h) };
    0
}

/// `pthread_cond_wait(cond, mutex)`: releases the mutex, waits for a
/// signal, takes the mutex again (-1 when the program ends meanwhile).
pub(crate) extern "C" fn pthread_cond_wait_wrapper(e: wasm_exec_env_t, cond: *mut u32, mutex: *mut u32) -> i32 {
    let (c, m) = (handle_at(cond), handle_at(mutex));
    let seen = wait_until(|o| match (o.conds.get(&c).copied(), o.mutexes.get_mut(&m)) {
        (Some(seq), Some(locked)) => {
            *locked = false;
            Some(Some(seq))
        }
        _ => Some(None),
    });
    let Some(seen) = seen else { return -1 };
    wait_or_end(e, |o| {
        let signalled = o.conds.get(&c).is_none_or(|s| *s != seen);
        match o.mutexes.get_mut(&m) {
            Some(locked) if signalled && !*locked => {
                *locked = true;
                Some(0)
            }
            None => Some(-1),
            _ => None,
        }
    })
    .unwrap_or(-1)
}

/// `pthread_cond_signal(cond)` (and `_broadcast`): wakes the waiters.
pub(crate) extern "C" fn pthread_cond_signal_wrapper(_e: wasm_exec_env_t, cond: *mut u32) -> i32 {
    let c = handle_at(cond);
    wait_until(|o| {
        Some(o.conds.get_mut(&c).map_or(-1, |s| {
            *s += 1;
            0
        }))
    })
}

/// `pthread_cond_destroy(cond)`.
pub(crate) extern "C" fn pthread_cond_destroy_wrapper(_e: wasm_exec_env_t, cond: *mut u32) -> i32 {
    let c = handle_at(cond);
    wait_until(|o| Some(if o.conds.remove(&c).is_some() { 0 } else { -1 }))
}

/// `sem_open(name, oflag, mode, value)`: the named semaphore's handle,
/// made with `value` if new; 0 for a bad name.
pub(crate) extern "C" fn sem_open_wrapper(
    _e: wasm_exec_env_t,
    name: *const c_char,
    _oflag: i32,
    _mode: i32,
    value: u32,
) -> u32 {
    // SAFETY: a NUL-terminated string checked against the app's memory.
    let Ok(name) = unsafe { CStr::from_ptr(name) }.to_str() else { return 0 };
    wait_until(|o| {
        if let Some(h) = o.sem_names.get(name) {
            return Some(*h);
        }
        let h = new_handle();
        o.sem_names.insert(name.to_string(), h);
        o.sems.insert(h, value);
        Some(h)
    })
}

/// `sem_wait(sem)`: waits for a positive count and takes one (-1 when
/// the program ends meanwhile).
pub(crate) extern "C" fn sem_wait_wrapper(e: wasm_exec_env_t, sem: u32) -> i32 {
    wait_or_end(e, |o| match o.sems.get_mut(&sem) {
        None => Some(-1),
        Some(0) => None,
        Some(n) => {
            *n -= 1;
            Some(0)
        }
    })
    .unwrap_or(-1)
}

/// `sem_trywait(sem)`: takes one if the count is positive, else -1.
pub(crate) extern "C" fn sem_trywait_wrapper(_e: wasm_exec_env_t, sem: u32) -> i32 {
    wait_until(|o| {
        Some(match o.sems.get_mut(&sem) {
            Some(n) if *n > 0 => {
                *n -= 1;
                0
            }
            _ => -1,
        })
    })
}

/// `sem_post(sem)`.
pub(crate) extern "C" fn sem_post_wrapper(_e: wasm_exec_env_t, sem: u32) -> i32 {
    wait_until(|o| {
        Some(o.sems.get_mut(&sem).map_or(-1, |n| {
            *n += 1;
            0
        }))
    })
}

/// `sem_getvalue(sem, sval)`.
pub(crate) extern "C" fn sem_getvalue_wrapper(_e: wasm_exec_env_t, sem: u32, sval: *mut i32) -> i32 {
    let Some(v) = wait_until(|o| Some(o.sems.get(&sem).copied())) else { return -1 };
    // SAFETY: a native pointer checked against the app's memory.
    unsafe { sval.write_unaligned(v as i32) };
    0
}

/// `sem_close(sem)`: the semaphore stays until unlinked.
pub(crate) extern "C" fn sem_close_wrapper(_e: wasm_exec_env_t, sem: u32) -> i32 {
    if wait_until(|o| Some(o.sems.contains_key(&sem))) { 0 } else { -1 }
}

/// `sem_unlink(name)`.
pub(crate) extern "C" fn sem_unlink_wrapper(_e: wasm_exec_env_t, name: *const c_char) -> i32 {
    // SAFETY: a NUL-terminated string checked against the app's memory.
    let name = unsafe { CStr::from_ptr(name) }.to_string_lossy().into_owned();
    wait_until(|o| {
        Some(match o.sem_names.remove(&name) {
            Some(h) => {
                o.sems.remove(&h);
                0
            }
            None => -1,
        })
    })
}
