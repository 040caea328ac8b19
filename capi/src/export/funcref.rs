//! Funcrefs in `wasm_export.h` calls, as WAMR (built with reference types
//! and without GC) passes them: the function's index in the instance's
//! function index space (imports first), one 32-bit cell, with
//! `0xffffffff` (`NULL_REF`) for `ref.null`. `wasm_runtime_call_wasm`,
//! `_call_wasm_a`, `_call_wasm_v` and `_call_indirect` take and give them
//! so (`_a` reports a funcref result with the kind `WASM_I32`, as WAMR's
//! `parse_uint32_array_to_results` does).

use cranewasm::{Val, ValRaw, ValType};

use crate::export::instance::ModuleInst;

/// `NULL_REF`: the cell of `ref.null func`.
pub(crate) const NULL_FUNC: u32 = u32::MAX;

impl ModuleInst {
    /// The funcref for WAMR's cell `index`: `ref.null` for `NULL_REF`,
    /// else the instance's function of that index; `None` for an index
    /// past its functions (WAMR fails on it with "unknown function" when
    /// wasm uses it).
    pub fn funcref_val(&self, index: u32) -> Option<Val> {
        if index == NULL_FUNC {
            return Some(Val::FuncRef(None));
        }
        let locked = self.lock();
        let f = self.instance()?.func(&*locked.store(), index)?;
        Some(Val::FuncRef(Some(f)))
    }

    /// WAMR's cell for funcref `v`: its function's index in this
    /// instance, `NULL_REF` for `ref.null`; `None` for a function the
    /// instance does not have (another instance's), which an index cannot
    /// name.
    pub fn funcref_index(&self, v: &Val) -> Option<u32> {
        let Val::FuncRef(f) = v else { return None };
        let Some(f) = f else { return Some(NULL_FUNC) };
        let locked = self.lock();
        let store = locked.store();
        let instance = self.instance()?;
        (0..).map_while(|i| instance.func(&*store, i).map(|g| (i, g))).find(|(_, g)| g == f).map(|(i, _)| i)
    }

    /// [`ModuleInst::funcref_val`] as a raw slot of this instance's store.
    pub fn funcref_raw(&self, index: u32) -> Option<ValRaw> {
        let v = self.funcref_val(index)?;
        let locked = self.lock();
        v.into_raw_in(&*locked.store()).ok()
    }

    /// [`ModuleInst::funcref_index`] of a funcref slot of this instance's
    /// store (a call's result).
    pub fn funcref_index_of_raw(&self, raw: ValRaw) -> Option<u32> {
        let v = {
            let locked = self.lock();
            // SAFETY: a slot of this store, written by its compiled code.
            unsafe { Val::from_raw_in(&*locked.store(), raw, ValType::FUNCREF) }
        };
        self.funcref_index(&v)
    }
}
