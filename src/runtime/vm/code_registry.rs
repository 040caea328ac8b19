//! Which address ranges hold compiled wasm code, process-wide.
//!
//! The signal handler asks whether a faulting instruction is a trap site;
//! backtraces ask which function a return address belongs to. Modules
//! register their code image when created and unregister when dropped.

use std::collections::BTreeMap;
use std::sync::{Arc, RwLock, RwLockReadGuard, TryLockError};

use super::module_code::ModuleCode;
use crate::environ::trap::TrapCode;

/// Code images by end address, so a range query finds the candidate image.
static REGISTRY: RwLock<BTreeMap<usize, Arc<ModuleCode>>> = RwLock::new(BTreeMap::new());

pub fn register(code: Arc<ModuleCode>) {
    let range = code.compiled.code.range();
    if range.is_empty() {
        return;
    }
    REGISTRY.write().unwrap_or_else(|e| e.into_inner()).insert(range.end, code);
}

pub fn unregister(code: &ModuleCode) {
    let end = code.compiled.code.range().end;
    REGISTRY.write().unwrap_or_else(|e| e.into_inner()).remove(&end);
}

/// The image containing `pc`, if any.
pub fn lookup(pc: usize) -> Option<Arc<ModuleCode>> {
    // The signal handler calls this on a thread that is running wasm code,
    // so this thread cannot already hold the lock.
    let map = REGISTRY.read().unwrap_or_else(|e| e.into_inner());
    let (_, code) = map.range(pc + 1..).next()?;
    code.compiled.code.range().contains(&pc).then(|| code.clone())
}

/// Whether `pc` is inside compiled wasm code. Takes no blocking lock (the
/// fault handler's backtraces ask), so it may answer `false` when the
/// registry stays locked.
pub fn is_wasm_pc(pc: usize) -> bool {
    let Some(map) = read_in_handler() else { return false };
    map.range(pc + 1..).next().is_some_and(|(_, c)| c.compiled.code.range().contains(&pc))
}

/// As [`is_wasm_pc`], for a signal handler that may have interrupted this
/// thread while it held the registry's lock: `None` when the lock is taken.
pub fn try_is_wasm_pc(pc: usize) -> Option<bool> {
    let map = REGISTRY.try_read().ok()?;
    Some(map.range(pc + 1..).next().is_some_and(|(_, c)| c.compiled.code.range().contains(&pc)))
}

/// The registry, read from a signal handler: without blocking, since the
/// interrupted code may hold the lock. A writer on another thread holds it
/// for one map update, so a bounded spin gets it; the interrupted thread
/// itself holding it (never while it runs wasm, and so never at a trap
/// site) gives `None` after the spin instead of a deadlock.
fn read_in_handler() -> Option<RwLockReadGuard<'static, BTreeMap<usize, Arc<ModuleCode>>>> {
    for _ in 0..1 << 22 {
        match REGISTRY.try_read() {
            Ok(map) => return Some(map),
            Err(TryLockError::Poisoned(e)) => return Some(e.into_inner()),
            Err(TryLockError::WouldBlock) => std::hint::spin_loop(),
        }
    }
    None
}

/// The trap recorded for the instruction at `pc`, if `pc` is a trap site.
/// For the fault handler: takes no blocking lock.
pub fn trap_at(pc: usize) -> Option<TrapCode> {
    let map = read_in_handler()?;
    let (_, code) = map.range(pc + 1..).next()?;
    let range = code.compiled.code.range();
    if !range.contains(&pc) {
        return None;
    }
    code.compiled.trap_at((pc - range.start) as u32)
}
