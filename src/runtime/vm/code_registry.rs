//! Which address ranges hold compiled wasm code, process-wide.
//!
//! The signal handler asks whether a faulting instruction is a trap site;
//! backtraces ask which function a return address belongs to. Modules
//! register their code image when created and unregister when dropped.

use std::collections::BTreeMap;
use std::sync::{Arc, RwLock};

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

/// Whether `pc` is inside compiled wasm code.
pub fn is_wasm_pc(pc: usize) -> bool {
    let map = REGISTRY.read().unwrap_or_else(|e| e.into_inner());
    map.range(pc + 1..).next().is_some_and(|(_, c)| c.compiled.code.range().contains(&pc))
}

/// As [`is_wasm_pc`], for a signal handler that may have interrupted this
/// thread while it held the registry's lock: `None` when the lock is taken.
pub fn try_is_wasm_pc(pc: usize) -> Option<bool> {
    let map = REGISTRY.try_read().ok()?;
    Some(map.range(pc + 1..).next().is_some_and(|(_, c)| c.compiled.code.range().contains(&pc)))
}

/// The trap recorded for the instruction at `pc`, if `pc` is a trap site.
pub fn trap_at(pc: usize) -> Option<TrapCode> {
    let map = REGISTRY.read().unwrap_or_else(|e| e.into_inner());
    let (_, code) = map.range(pc + 1..).next()?;
    let range = code.compiled.code.range();
    if !range.contains(&pc) {
        return None;
    }
    code.compiled.trap_at((pc - range.start) as u32)
}
