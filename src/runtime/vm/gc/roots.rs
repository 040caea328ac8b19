//! The GC roots in wasm frames (issue 40): the stack slots that the
//! stack maps of compiled code name (`translate::stack_maps` declares the
//! values, `compile::stack_maps` records where Cranelift keeps them).
//!
//! A collection starts in the host: a builtin or a host function that
//! wasm called, through an exit trampoline that recorded its frame
//! pointer in `VMStoreContext::last_exit_fp`. From there the walk follows
//! frame pointers, as a backtrace does. Each return address into wasm code
//! is a call site of the frame above it; if that site has a stack map, the
//! frame's stack pointer at the call is its frame pointer minus the map's
//! span, and each root is a slot above it. The walk ends at the first
//! return address outside wasm code: the host frames that entered wasm.
//!
//! A host function that calls back into wasm starts a new activation,
//! whose exit record replaces the outer one's while it runs (see
//! `entry::enter_wasm`). Each activation keeps the record it replaced
//! (`CallThreadState::outer_exit_fp`), so the walk goes on from there
//! through the outer activation's frames, for every activation of the
//! same store on this thread.

use super::super::arch;
use super::super::code_registry;
use super::super::unwind;
use crate::environ::vmctx::VMStoreContext;

/// Calls `f` with the address of each root slot in the wasm frames of
/// `vm`'s store on this thread, whose innermost activation called out of
/// wasm. A slot holds one reference word, which a moving collector may
/// rewrite: compiled code reloads it after the call.
///
/// # Safety
/// Must run on the thread of those activations, while the host call that
/// set `vm.last_exit_fp` runs (so every frame of the walk is live).
#[cfg_attr(not(test), allow(dead_code, reason = "the collector (issue 40 stage 2b) is its caller; tests are today"))]
pub(crate) unsafe fn for_each_wasm_root(vm: &VMStoreContext, mut f: impl FnMut(*mut usize)) {
    let mut activation = unwind::current();
    let mut exit_fp = vm.last_exit_fp;
    while let Some(state) = activation {
        // Activations of other stores (a host function that called into
        // another store) hold none of this store's frames, and leave its
        // exit record alone.
        if std::ptr::eq(state.vm, vm) {
            // SAFETY: as for this function (caller); `exit_fp` is the
            // record of the host call this activation's wasm frames made.
            unsafe { walk_activation(state, exit_fp, &mut f) };
            exit_fp = state.outer_exit_fp;
        }
        activation = state.prev();
    }
}

/// The roots of one activation's wasm frames, from its exit record `fp`.
///
/// # Safety
/// As for [`for_each_wasm_root`], with `fp` the frame of a host call this
/// activation is making (or 0).
unsafe fn walk_activation(state: &unwind::CallThreadState, mut fp: usize, f: &mut impl FnMut(*mut usize)) {
    let mut lowest = fp;
    // SAFETY: `fp` starts the chain of frames of the running host call,
    // live below `stack_top` (caller); each step reads a saved frame
    // pointer and return address of a frame of that chain, and the walk
    // stops where the chain leaves wasm code or stops growing upwards.
    unsafe {
        while fp != 0 && fp.is_multiple_of(8) && fp >= lowest && fp < state.stack_top {
            let ra = *((fp + arch::RETURN_ADDRESS_OFFSET) as *const usize);
            let Some(code) = code_registry::lookup(ra) else { break };
            let caller_fp = *(fp as *const usize);
            let offset = (ra - code.compiled.code.range().start) as u32;
            if let Some(map) = code.compiled.stack_map_at(offset) {
                let sp = caller_fp - map.span as usize;
                for slot in map.slots.iter() {
                    f((sp + *slot as usize) as *mut usize);
                }
            }
            lowest = fp;
            fp = caller_fp;
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use crate::{AnyRef, Config, Engine, Func, FuncType, Instance, Module, Store, Val, I31};

    /// A host function called from two wasm frames deep sees the roots of
    /// both frames, and only those: not the i31ref, which is no object.
    /// With the callee inlined or not, compiled lazily (from the file's
    /// tables of each placed function), and at the baseline tier.
    #[test]
    fn roots_of_every_wasm_frame_are_found() {
        let mut no_inlining = Config::new();
        no_inlining.cranelift_inlining(false);
        let mut lazy = Config::new();
        lazy.lazy_compilation(true).cranelift_inlining(false);
        let mut baseline = Config::new();
        baseline.lazy_compilation(true).tiering(true);
        for config in [Config::new(), no_inlining, lazy, baseline] {
            let engine = Engine::new(&config).unwrap();
            roots_found(&engine, Module::new(&engine, WAT).unwrap());
        }
    }

    /// The same from a compiled-code file, whose stack maps are read back.
    #[test]
    fn roots_are_found_from_a_compiled_file() {
        let mut config = Config::new();
        config.cranelift_inlining(false);
        let engine = Engine::new(&config).unwrap();
        let bytes = Module::new(&engine, WAT).unwrap().serialize().unwrap();
        // SAFETY: the bytes were serialized by this engine just above.
        roots_found(&engine, unsafe { Module::deserialize(&engine, &bytes) }.unwrap());
    }

    const WAT: &str = r#"(module
                (import "host" "roots" (func $roots))
                (func $inner (param $own anyref) (result anyref)
                  (call $roots)
                  (local.get $own))
                (func (export "run") (param $a anyref) (param $b externref) (param $c i31ref)
                      (result anyref externref i31ref eqref anyref)
                  (local $d eqref)
                  (local.set $d (ref.i31 (i32.const 77)))
                  (call $inner (ref.i31 (i32.const 40)))
                  (local.set $a)
                  (local.get $a) (local.get $b) (local.get $c) (local.get $d)
                  (call $inner (ref.i31 (i32.const 41)))))"#;

    fn roots_found(engine: &Engine, module: Module) {
        let mut store = Store::new(engine, ());
        let seen: Arc<Mutex<Vec<Vec<usize>>>> = Arc::default();
        let record = seen.clone();
        let roots = Func::new(&mut store, FuncType::new([], []), move |caller, _, _| {
            let mut words = Vec::new();
            // SAFETY: on the thread of the running call, inside its host
            // call. Rewriting 77 as 78 is what a moving collector does to
            // a root: the code must use the new word after the call.
            unsafe {
                super::for_each_wasm_root(&caller.store.opaque.vm, |slot| {
                    words.push(*slot);
                    if *slot == (77 << 1) | 1 {
                        *slot = (78 << 1) | 1;
                    }
                })
            };
            words.sort();
            record.lock().unwrap().push(words);
            Ok(())
        });
        let instance = Instance::new(&mut store, &module, &[roots.into()]).unwrap();
        let run = instance.get_func(&store, "run").unwrap();
        let i31 = |v: u32| Val::AnyRef(Some(AnyRef::from_i31(I31::wrapping_u32(v))));
        let mut results = vec![Val::I32(0); 5];
        run.call(&mut store, &[i31(5), Val::ExternRef(None), i31(9)], &mut results).unwrap();
        let word = |v: usize| (v << 1) | 1;
        // First call: $inner's 40; run's b (null) and d (77, rewritten
        // 78), live after it. Not a (5), which the call's result replaces,
        // nor c (9), an i31ref. Second: $inner's 41; run's a (now 40), b
        // and d (78), on the operand stack; again not c.
        let expected = vec![sorted(vec![word(40), 0, word(77)]), sorted(vec![word(41), word(40), 0, word(78)])];
        assert_eq!(*seen.lock().unwrap(), expected);
        let Val::AnyRef(Some(d)) = &results[3] else { panic!("d: {:?}", results[3]) };
        assert_eq!(d.as_i31().map(|v| v.get_u32()), Some(78), "the rewritten root is what the code returns");
        assert!(matches!(results[2], Val::AnyRef(Some(_))), "c comes back: {:?}", results[2]);
    }

    /// A host function that calls back into wasm: the roots of the outer
    /// activation's frames are found beyond the inner one's.
    #[test]
    fn roots_of_outer_activations_are_found() {
        let engine = Engine::default();
        let module = Module::new(
            &engine,
            r#"(module
                (import "host" "roots" (func $roots))
                (import "host" "reenter" (func $reenter))
                (func (export "deep") (result anyref)
                  (local $x anyref)
                  (local.set $x (ref.i31 (i32.const 60)))
                  (call $roots)
                  (local.get $x))
                (func (export "outer") (result anyref)
                  (local $y anyref)
                  (local.set $y (ref.i31 (i32.const 50)))
                  (call $reenter)
                  (local.get $y)))"#,
        )
        .unwrap();
        let mut store = Store::new(&engine, ());
        let seen: Arc<Mutex<Vec<usize>>> = Arc::default();
        let record = seen.clone();
        let roots = Func::new(&mut store, FuncType::new([], []), move |caller, _, _| {
            // SAFETY: on the thread of the running calls, inside the host call.
            unsafe { super::for_each_wasm_root(&caller.store.opaque.vm, |slot| record.lock().unwrap().push(*slot)) };
            Ok(())
        });
        let reenter = Func::new(&mut store, FuncType::new([], []), |mut caller, _, _| {
            let deep = caller.get_export("deep").and_then(|e| e.into_func()).unwrap();
            let mut result = [Val::I32(0)];
            deep.call(&mut caller, &[], &mut result).map_err(|e| crate::TrapError::new(e.to_string()))
        });
        let instance = Instance::new(&mut store, &module, &[roots.into(), reenter.into()]).unwrap();
        let outer = instance.get_func(&store, "outer").unwrap();
        outer.call(&mut store, &[], &mut [Val::I32(0)]).unwrap();
        assert_eq!(sorted(seen.lock().unwrap().clone()), vec![(50 << 1) | 1, (60 << 1) | 1]);
    }

    fn sorted(mut v: Vec<usize>) -> Vec<usize> {
        v.sort();
        v
    }
}
