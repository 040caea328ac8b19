//! Execution environments: `wasm_runtime_create_exec_env`, the instance's
//! singleton, user data, the attachment a native sees, and the instance an
//! exec env runs.
//!
//! WAMR's exec env holds the interpreter's stack; here wasm runs on the
//! native stack, so an exec env is what calls need besides: its instance
//! (which `wasm_runtime_set_module_inst` may change), user data, and the
//! attachment of the native being called. It is the first argument of
//! every native, so `wasm_runtime_get_module_inst(exec_env)` works inside
//! one. The singleton belongs to its instance and is freed with it.

use std::ffi::c_void;
use std::ptr;
use std::sync::atomic::{AtomicI32, AtomicPtr, AtomicU64, AtomicUsize, Ordering};

use crate::core::pool;
use crate::core::runtime::warn;
use crate::export::instance::{ModuleInst, inst};
use crate::export::types::*;
use crate::handle::Kind;
use crate::object::{self, Handle, Object, get, get_stored};

/// What a `wasm_exec_env_t` points at.
pub struct ExecEnv {
    /// The instance it runs (a handle).
    inst: AtomicUsize,
    /// That instance's [`ModuleInst::serial`].
    inst_serial: AtomicU64,
    pub stack_size: u32,
    user_data: AtomicPtr<c_void>,
    /// The attachment of the native being called through it.
    attachment: AtomicPtr<c_void>,
    /// The boundary set with `wasm_runtime_set_native_stack_boundary`.
    boundary: AtomicPtr<u8>,
    /// The instance's singleton, which the instance frees.
    singleton: bool,
    /// Operators each call on it may run
    /// (`wasm_runtime_set_instruction_count_limit`); negative: no limit.
    pub instruction_limit: AtomicI32,
    /// Its stack's share of the memory pool (`Alloc_With_Pool`), as
    /// WAMR's exec env holds a wasm stack of `stack_size`; the singleton's
    /// is its instance's.
    _pool: pool::Charge,
    /// The top of its chain of local object references (`gc_export.h`'s
    /// `wasm_runtime_push_local_obj_ref`), client memory.
    pub local_obj_ref: AtomicPtr<c_void>,
}

// SAFETY: ExecEnv cells hold `ExecEnv`s, named by `WASMExecEnv` only.
unsafe impl Object for ExecEnv {
    fn kind(&self) -> Kind {
        Kind::ExecEnv
    }
}

// SAFETY: ExecEnv cells hold `ExecEnv`s.
unsafe impl Handle for WASMExecEnv {
    type Obj = ExecEnv;
    const KINDS: u32 = Kind::ExecEnv.bit();
    const NAME: &'static str = "wasm_exec_env_t";
}

/// A new exec env for the instance handle `inst`.
pub fn new_exec_env(inst: usize, stack_size: u32, singleton: bool) -> ExecEnv {
    ExecEnv {
        inst: AtomicUsize::new(inst),
        inst_serial: AtomicU64::new(serial_of(inst)),
        stack_size,
        user_data: AtomicPtr::new(ptr::null_mut()),
        attachment: AtomicPtr::new(ptr::null_mut()),
        boundary: AtomicPtr::new(ptr::null_mut()),
        singleton,
        instruction_limit: AtomicI32::new(-1),
        _pool: pool::Charge::default(),
        local_obj_ref: AtomicPtr::new(ptr::null_mut()),
    }
}

/// The exec env with handle `addr`, if it is a live one.
pub fn exec_env(addr: usize) -> Option<&'static ExecEnv> {
    // SAFETY: exec envs are deleted by their owner only; the call paths
    // that look them up run while their owner keeps them.
    unsafe { get::<WASMExecEnv>(addr as *const WASMExecEnv) }
}

/// The serial of the live instance with handle `h` (0 if there is none).
fn serial_of(h: usize) -> u64 {
    // SAFETY: a handle, checked; only a number is read.
    unsafe { get_stored::<WASMModuleInstanceCommon>(h) }.map_or(0, |i| i.serial)
}

impl ExecEnv {
    /// The instance handle it runs.
    pub fn inst(&self) -> usize {
        self.inst.load(Ordering::Relaxed)
    }

    /// The instance it runs, unless that was destroyed (which is no
    /// mistake of the client's until it calls through the exec env: WAMR's
    /// bindings destroy an exec env after its instance).
    pub fn instance(&self) -> Option<&'static ModuleInst> {
        // SAFETY: a handle, checked; instances are destroyed by their
        // owner, who keeps them while calling through their exec envs.
        let i = unsafe { get_stored::<WASMModuleInstanceCommon>(self.inst()) }?;
        (i.serial == self.inst_serial.load(Ordering::Relaxed)).then_some(i)
    }

    /// The boundary set with `wasm_runtime_set_native_stack_boundary`
    /// (0 if none).
    pub fn native_stack_boundary(&self) -> usize {
        self.boundary.load(Ordering::Relaxed) as usize
    }

    /// Sets the attachment, giving the previous one. Only the thread
    /// running a call on the exec env does this, so a plain load and a
    /// store (when it changes) do, without a locked exchange.
    pub fn set_attachment(&self, a: *mut c_void) -> *mut c_void {
        let prev = self.attachment.load(Ordering::Relaxed);
        if prev != a {
            self.attachment.store(a, Ordering::Relaxed);
        }
        prev
    }
}

/// A new exec env for the instance. `stack_size` is kept (wasm runs on the
/// native stack) and charged to the memory pool, if there is one. NULL for
/// anything but a live instance, and when the pool has no room.
///
/// # Safety
/// `module_inst` may be NULL or any pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_create_exec_env(
    module_inst: wasm_module_inst_t,
    stack_size: u32,
) -> wasm_exec_env_t {
    // SAFETY: as the caller promises.
    if unsafe { inst(module_inst) }.is_none() {
        return ptr::null_mut();
    }
    // With a memory pool, the stack must fit in it (NULL otherwise, as
    // WAMR's allocation of the stack fails).
    let Some(charge) = pool::charge(stack_size as usize) else { return ptr::null_mut() };
    object::new::<WASMExecEnv>(ExecEnv { _pool: charge, ..new_exec_env(module_inst as usize, stack_size, false) })
}

/// Destroys an exec env. The singleton is refused (its instance frees it),
/// and so is an exec env whose call is still running.
///
/// # Safety
/// `exec_env` may be NULL or any pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_destroy_exec_env(exec_env: wasm_exec_env_t) {
    let Some(env) = self::exec_env(exec_env as usize) else { return };
    if env.singleton {
        warn(format_args!("wasm_runtime_destroy_exec_env: the singleton exec env belongs to its instance"));
        return;
    }
    if let Some(i) = env.instance()
        && i.current_exec_env() == exec_env as usize
    {
        warn(format_args!("wasm_runtime_destroy_exec_env: the exec env is running a call"));
        return;
    }
    // SAFETY: the client gives its exec env up.
    unsafe { object::delete::<WASMExecEnv>(exec_env) };
}

/// The instance's singleton exec env (made with the instance, freed with
/// it); NULL for anything but a live instance.
///
/// # Safety
/// `module_inst` may be NULL or any pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_get_exec_env_singleton(module_inst: wasm_module_inst_t) -> wasm_exec_env_t {
    // SAFETY: as the caller promises.
    unsafe { inst(module_inst) }.map_or(ptr::null_mut(), |i| i.singleton_handle() as wasm_exec_env_t)
}

/// The instance the exec env runs (NULL for a bad exec env, or when its
/// instance was destroyed).
///
/// # Safety
/// `exec_env` may be NULL or any pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_get_module_inst(exec_env: wasm_exec_env_t) -> wasm_module_inst_t {
    let Some(env) = self::exec_env(exec_env as usize) else { return ptr::null_mut() };
    env.instance().map_or(ptr::null_mut(), |i| i.handle() as wasm_module_inst_t)
}

/// Makes the exec env run another instance; anything but a live exec env
/// and a live instance is ignored.
///
/// # Safety
/// Both may be NULL or any pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_set_module_inst(exec_env: wasm_exec_env_t, module_inst: wasm_module_inst_t) {
    let Some(env) = self::exec_env(exec_env as usize) else { return };
    // SAFETY: as the caller promises.
    if let Some(i) = unsafe { inst(module_inst) } {
        env.inst.store(module_inst as usize, Ordering::Relaxed);
        env.inst_serial.store(i.serial, Ordering::Relaxed);
    }
}

/// The attachment of the native being called through the exec env (NULL
/// outside one).
///
/// # Safety
/// `exec_env` may be NULL or any pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_get_function_attachment(exec_env: wasm_exec_env_t) -> *mut c_void {
    self::exec_env(exec_env as usize).map_or(ptr::null_mut(), |e| e.attachment.load(Ordering::Relaxed))
}

/// Attaches client data to the exec env.
///
/// # Safety
/// `exec_env` may be NULL or any pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_set_user_data(exec_env: wasm_exec_env_t, user_data: *mut c_void) {
    if let Some(e) = self::exec_env(exec_env as usize) {
        e.user_data.store(user_data, Ordering::Relaxed);
    }
}

/// The client data attached to the exec env (NULL if none).
///
/// # Safety
/// `exec_env` may be NULL or any pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_get_user_data(exec_env: wasm_exec_env_t) -> *mut c_void {
    self::exec_env(exec_env as usize).map_or(ptr::null_mut(), |e| e.user_data.load(Ordering::Relaxed))
}

/// Sets the exec env's native stack boundary, as WAMR does: its checks
/// (`wasm_runtime_detect_native_stack_overflow`, `_size`, and the one at
/// the start of each call) then count from it instead of from the
/// thread's stack end plus WAMR's guard size. (Compiled code keeps its own
/// limit, from the thread's stack: see `src/runtime/vm/stack.rs`.)
///
/// # Safety
/// `exec_env` may be NULL or any pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_set_native_stack_boundary(
    exec_env: wasm_exec_env_t,
    native_stack_boundary: *mut u8,
) {
    if let Some(e) = self::exec_env(exec_env as usize) {
        e.boundary.store(native_stack_boundary, Ordering::Relaxed);
    }
}
