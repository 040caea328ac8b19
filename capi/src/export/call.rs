//! Calls: `wasm_runtime_call_wasm` (arguments and results in 32-bit cells
//! as WAMR lays them out), `_call_wasm_a` (`wasm_val_t` arrays),
//! `_call_wasm_v` (variadic arguments), `_call_indirect` (through table
//! 0), and the call stack of the last trap.
//!
//! Cells: i32 and f32 take one, i64 and f64 two (low word first), v128
//! four; an externref is a host pointer in two cells, a funcref the
//! function's index in one (null is `0xffffffff`, see [`funcref`]).
//! Results are written to the first cells of `argv`, which must have room
//! for them.
//!
//! `argc` as WAMR (with reference types, its default) counts it: an
//! externref is one cell there, as in its interpreter's frames, though
//! `argv` holds it in two. A call needs `argc` at least that count, else
//! WAMR's "invalid argument count" exception (WAMR's default build reads
//! on past `argc`; its build without reference types refuses so, and
//! reading past the caller's count is not safe). Parameters are read
//! while their first cell lies below `argc`; one that starts at or past it
//! (only possible after an externref) reads as zero, as in WAMR.
//!
//! [`funcref`]: crate::export::funcref
//!
//! Each call first makes WAMR's native stack check
//! ([`detect`](crate::export::threads::detect)): without its guard size
//! of stack above the guard pages, it fails with "native stack overflow".
//!
//! A call fails — false, with the exception set — when the function traps,
//! when a native sets an exception, and when an exception set earlier was
//! not cleared (WAMR's calls report the instance's exception, whatever set
//! it). Calls from a thread that did not initialise its environment fail
//! with WAMR's "thread signal env not inited".

use std::ffi::c_char;

use cranewasm::__sys::VaArgs;
use cranewasm::{Func, FuncType, TrapError, Val, ValRaw, ValType};

use crate::core::call as core;
use crate::core::kinds::{self, valkind};

use crate::core::runtime::log;
use crate::core::val::wasm_val_t;
use crate::export::exec_env::exec_env;
use crate::export::gc::call_refs;
use crate::export::instance::ModuleInst;
use crate::export::lookup::func_inst;
use crate::export::types::*;

/// How many cells a value of type `t` takes in `argv`.
fn cells(t: ValType) -> usize {
    match t {
        ValType::I32 | ValType::F32 => 1,
        ValType::I64 | ValType::F64 => 2,
        ValType::V128 => 4,
        // A function's index, or a host pointer.
        ValType::Ref(r) if r.is_func() => 1,
        ValType::Ref(_) => 2,
    }
}

/// How many cells a value of type `t` of `inst` takes in `argv`: a GC
/// reference is a `wasm_obj_t`, a pointer (see [`call_refs`]).
fn cells_in(inst: &ModuleInst, t: ValType) -> usize {
    if call_refs::is_gc(inst, t) { 2 } else { cells(t) }
}

/// How many cells WAMR's `argc` counts for a value of type `t`: an
/// externref as one (see the module documentation).
fn argc_cells(inst: &ModuleInst, t: ValType) -> usize {
    match t {
        ValType::EXTERNREF => 1,
        t => cells_in(inst, t),
    }
}

/// The exec env's instance and the function, if both are live and belong
/// together; the reason otherwise (logged, and set as the instance's
/// exception when there is an instance).
fn resolve<'a>(
    exec_env_h: wasm_exec_env_t,
    function: wasm_function_inst_t,
) -> Option<(&'a ModuleInst, usize, Func, FuncType)> {
    let env = exec_env(exec_env_h as usize).or_else(|| {
        log(1, format_args!("Invalid exec env stack info."));
        None
    })?;
    let inst = env.instance().or_else(|| {
        log(1, format_args!("Invalid exec env stack info."));
        None
    })?;
    // SAFETY: function handles are checked before use.
    let Some(f) = (unsafe { func_inst(function) }) else {
        log(1, format_args!("wasm_runtime_call_wasm: not a live function"));
        return None;
    };
    if f.inst != env.inst() {
        inst.set_exception(Some("the function does not belong to the instance of the exec env"));
        return None;
    }
    Some((inst, env.inst(), f.func, f.ty.clone()))
}

/// Runs `call` as a call on exec env `env`: locked, counted, its trap
/// turned into the exception. True when no exception is set afterwards.
fn run(
    inst: &ModuleInst,
    env: usize,
    call: impl FnOnce(&mut cranewasm::Store<crate::export::instance::InstData>) -> Result<(), TrapError>,
) -> bool {
    if !crate::export::threads::may_call() {
        inst.set_exception(Some("thread signal env not inited"));
        return false;
    }
    if inst.terminated() {
        return false;
    }
    // WAMR's check at the start of every call: the guard size of native
    // stack left above the guard pages ("native stack overflow").
    if !crate::export::threads::call_may_start(env as wasm_exec_env_t, inst) {
        return false;
    }
    let locked = inst.lock();
    if inst.metered && inst.current_exec_env() == 0 {
        // An outermost call gets its exec env's instruction budget afresh.
        let _ = locked.store().set_fuel(crate::export::exec_control::fuel_for_call(inst, env));
    }
    let outcome = inst.enter(env, || call(locked.store()));
    inst.finish_call(outcome)
}

/// Calls `func` with `params`, returning its results (`None`: failed, the
/// exception set): for the runtime's own calls (`main`, `malloc`, a
/// thread's start), through the slots of [`call_slots`].
pub fn call_vals(inst: &ModuleInst, env: usize, func: Func, ty: &FuncType, params: &[Val]) -> Option<Vec<Val>> {
    core::with_slots(ty.params().len().max(ty.results().len()), |slots| {
        {
            let locked = inst.lock();
            let store = locked.store();
            for (s, p) in slots.iter_mut().zip(params) {
                *s = p.into_raw_in(&*store).ok()?;
            }
        }
        if !call_slots(inst, env, func, slots) {
            return None;
        }
        let locked = inst.lock();
        let store = locked.store();
        // SAFETY: the call's results, written by the store's compiled code.
        Some(ty.results().iter().zip(slots.iter()).map(|(t, s)| unsafe { Val::from_raw_in(&*store, *s, *t) }).collect())
    })
}

/// Calls a function over raw slots holding its parameters (and then its
/// results): the one call path of `wasm_export.h`.
fn call_slots(inst: &ModuleInst, env: usize, func: Func, slots: &mut [ValRaw]) -> bool {
    // SAFETY: the caller filled the slots from the function's type, with
    // room for its results, and references of the instance's store.
    run(inst, env, |store| unsafe { core::call_raw(store, func, slots.as_mut_ptr()) })
}

/// Reads a value of type `t` from cells at `argv[*p..]` into a slot; the
/// exception for a value cells cannot stand for (an unknown function
/// index).
///
/// # Safety
/// `argv` must hold the cells.
unsafe fn read_cell(inst: &ModuleInst, argv: *const u32, p: &mut usize, t: ValType) -> Result<ValRaw, &'static str> {
    // SAFETY: as the caller promises.
    let c = |i: usize| unsafe { *argv.add(*p + i) };
    let w = |i: usize| u64::from(c(i)) | (u64::from(c(i + 1)) << 32);
    let slot = match t {
        ValType::I32 => ValRaw::i32(c(0) as i32),
        ValType::F32 => ValRaw::f32(c(0)),
        ValType::I64 => ValRaw::i64(w(0) as i64),
        ValType::F64 => ValRaw::f64(w(0)),
        ValType::V128 => ValRaw::v128(u128::from(w(0)) | (u128::from(w(2)) << 64)),
        ValType::EXTERNREF => inst.externref_raw(w(0) as usize),
        ValType::FUNCREF => inst.funcref_raw(c(0)).ok_or("unknown function")?,
        t if call_refs::is_gc(inst, t) => call_refs::slot_of(inst, w(0) as usize, t)?,
        ValType::Ref(_) => return Err("a reference of a type the C API cannot pass"),
    };
    *p += cells_in(inst, t);
    Ok(slot)
}

/// Writes slot `s` of type `t` into cells at `argv[*p..]`; false for a
/// value cells cannot hold (a function of another instance).
///
/// # Safety
/// `argv` must have room for the cells.
unsafe fn write_cell(inst: &ModuleInst, argv: *mut u32, p: &mut usize, t: ValType, s: ValRaw) -> bool {
    let put = |i: usize, x: u32| {
        // SAFETY: as the caller promises.
        unsafe { *argv.add(*p + i) = x };
    };
    let wide = |x: u64| {
        put(0, x as u32);
        put(1, (x >> 32) as u32);
    };
    match t {
        ValType::I32 | ValType::F32 => put(0, s.get_i32() as u32),
        ValType::I64 | ValType::F64 => wide(s.get_i64() as u64),
        ValType::V128 => {
            let x = s.get_v128();
            for i in 0..4 {
                put(i, (x >> (32 * i)) as u32);
            }
        }
        ValType::FUNCREF => match inst.funcref_index_of_raw(s) {
            Some(index) => put(0, index),
            None => return false,
        },
        t if call_refs::is_gc(inst, t) => wide(call_refs::obj_of(inst, t, s) as u64),
        ValType::Ref(_) => wide(inst.host_pointer_of_raw(s) as u64),
    }
    *p += cells_in(inst, t);
    true
}

/// `wasm_runtime_call_wasm` for a resolved function.
///
/// # Safety
/// `argv` must be NULL or hold `argc` cells, with room for the results.
pub unsafe fn call_cells(inst: &ModuleInst, env: usize, func: Func, ty: &FuncType, argc: u32, argv: *mut u32) -> bool {
    let need: usize = ty.params().iter().map(|t| argc_cells(inst, *t)).sum();
    let out: usize = ty.results().iter().map(|t| cells_in(inst, *t)).sum();
    if (argc as usize) < need {
        inst.set_exception(Some(&format!("invalid argument count {argc}, must be no smaller than {need}")));
        return false;
    }
    if argv.is_null() && (need > 0 || out > 0) {
        inst.set_exception(Some("the arguments conversion is failed"));
        return false;
    }
    core::with_slots(ty.params().len().max(ty.results().len()), |slots| {
        let mut p = 0;
        for (s, t) in slots.iter_mut().zip(ty.params()) {
            if p >= argc as usize {
                // Past the cells the caller counted: zero, as in WAMR.
                *s = core::zero(*t);
                p += cells_in(inst, *t);
                continue;
            }
            // SAFETY: the parameter starts below `argc` (an externref at
            // `argc - 1` reads one cell more, as WAMR's does); the caller's
            // cells.
            match unsafe { read_cell(inst, argv, &mut p, *t) } {
                Ok(v) => *s = v,
                Err(e) => {
                    inst.set_exception(Some(e));
                    return false;
                }
            }
        }
        if !call_slots(inst, env, func, slots) {
            return false;
        }
        let mut p = 0;
        for (s, t) in slots.iter().zip(ty.results()) {
            // SAFETY: room for the results (caller).
            if !unsafe { write_cell(inst, argv, &mut p, *t, *s) } {
                inst.set_exception(Some("the result conversion is failed"));
                return false;
            }
        }
        true
    })
}

/// Calls `function` with arguments in `argc` 32-bit cells at `argv`; the
/// results replace the first cells. False, with the exception set, on a
/// trap or a bad argument count; false (logged) for a bad exec env or
/// function, or a function of another instance than the exec env's.
///
/// # Safety
/// `exec_env` and `function` NULL or any pointers; `argv` NULL or `argc`
/// cells with room for the results.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_call_wasm(
    exec_env: wasm_exec_env_t,
    function: wasm_function_inst_t,
    argc: u32,
    argv: *mut u32,
) -> bool {
    let Some((inst, _, func, ty)) = resolve(exec_env, function) else { return false };
    // SAFETY: as the caller promises.
    unsafe { call_cells(inst, exec_env as usize, func, &ty, argc, argv) }
}

/// How many cells WAMR's `parse_args_to_uint32_array` makes of a
/// `wasm_val_t` of kind `kind` (`None` for a kind it cannot pass).
fn kind_cells(kind: u8) -> Option<usize> {
    match kind {
        0 | 2 | 129 => Some(1), // WASM_I32, WASM_F32, WASM_FUNCREF
        1 | 3 | 128 => Some(2), // WASM_I64, WASM_F64, WASM_EXTERNREF
        _ => None,
    }
}

/// A `wasm_val_t` as a slot of type `t`. WAMR lays each argument out in
/// cells by its own kind and the function reads them by its parameter's
/// type, so a value of another kind of the same width passes its bits (an
/// i32 for a funcref, as WAMR's funcref results come back, say).
/// `Err(None)`: a kind of another width (WAMR shifts every later
/// argument), or v128 (WAMR asserts); `Err(Some(exception))`: an unknown
/// function index.
fn from_c(inst: &ModuleInst, v: &wasm_val_t, t: ValType) -> Result<ValRaw, Option<&'static str>> {
    if call_refs::is_gc(inst, t) {
        // WAMR's GC build takes either reference kind as the object.
        if v.kind != kinds::EXTERNREF && v.kind != kinds::FUNCREF {
            return Err(None);
        }
        // SAFETY: a pointer-sized member, any bit pattern.
        return call_refs::slot_of(inst, unsafe { v.of.i64 } as usize, t).map_err(Some);
    }
    if t == ValType::V128 || kind_cells(v.kind) != Some(cells(t)) {
        return Err(None);
    }
    // SAFETY: the union's first 4 or 8 bytes, as many as the kind filled;
    // every bit pattern of the integer members is valid.
    let (low, wide) = unsafe { (v.of.i32 as u32, v.of.i64 as u64) };
    Ok(match t {
        ValType::EXTERNREF => inst.externref_raw(wide as usize),
        ValType::FUNCREF => inst.funcref_raw(low).ok_or(Some("unknown function"))?,
        ValType::V128 | ValType::Ref(_) => return Err(None),
        t => core::num(t, u128::from(wide)).unwrap_or_default(),
    })
}

/// A result slot of type `t` as a `wasm_val_t`: a funcref as its index
/// with the kind `WASM_I32`, as WAMR gives it (`None` for a function of
/// another instance, and for a v128).
fn to_c(inst: &ModuleInst, t: ValType, s: ValRaw) -> Option<wasm_val_t> {
    let mut out = wasm_val_t::ZERO;
    out.kind = valkind(t);
    match t {
        ValType::I32 | ValType::F32 => out.of.i32 = s.get_i32(),
        ValType::I64 | ValType::F64 => out.of.i64 = s.get_i64(),
        ValType::FUNCREF => {
            out.kind = kinds::I32;
            out.of.i32 = inst.funcref_index_of_raw(s)? as i32;
        }
        t if call_refs::is_gc(inst, t) => {
            out.kind = kinds::EXTERNREF;
            out.of.i64 = call_refs::obj_of(inst, t, s) as i64;
        }
        ValType::Ref(_) => out.of.i64 = inst.host_pointer_of_raw(s) as i64,
        ValType::V128 => return None,
    }
    Some(out)
}

/// Calls `function` with `num_args` values at `args`, writing its results
/// to `results`. False (logged, as in WAMR) when the counts or the kinds do
/// not match the function's type; false with the exception set on a trap.
///
/// # Safety
/// `exec_env` and `function` NULL or any pointers; `args` NULL or
/// `num_args` values; `results` NULL or room for `num_results`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_call_wasm_a(
    exec_env: wasm_exec_env_t,
    function: wasm_function_inst_t,
    num_results: u32,
    results: *mut wasm_val_t,
    num_args: u32,
    args: *mut wasm_val_t,
) -> bool {
    let Some((inst, _, func, ty)) = resolve(exec_env, function) else { return false };
    if num_results as usize != ty.results().len() {
        log(1, format_args!("The result value number does not match the function declaration."));
        return false;
    }
    if num_args as usize != ty.params().len() {
        log(1, format_args!("The argument value number does not match the function declaration."));
        return false;
    }
    if (args.is_null() && num_args > 0) || (results.is_null() && num_results > 0) {
        log(1, format_args!("wasm_runtime_call_wasm_a: NULL arguments or results"));
        return false;
    }
    core::with_slots(ty.params().len().max(ty.results().len()), |slots| {
        for (i, (s, t)) in slots.iter_mut().zip(ty.params()).enumerate() {
            // SAFETY: `num_args` values (caller).
            match from_c(inst, unsafe { &*args.add(i) }, *t) {
                Ok(v) => *s = v,
                Err(Some(e)) => {
                    inst.set_exception(Some(e));
                    return false;
                }
                Err(None) => {
                    log(
                        1,
                        format_args!("wasm_runtime_call_wasm_a: argument {i} is not of the parameter's width ({t})"),
                    );
                    return false;
                }
            }
        }
        // SAFETY: room for the results (caller).
        unsafe { finish_slots(inst, exec_env as usize, func, &ty, slots, results) }
    })
}

/// Calls with the parameters in `slots` and writes the results as
/// `wasm_val_t`s.
///
/// # Safety
/// `results` must have room for the function's results.
unsafe fn finish_slots(
    inst: &ModuleInst,
    env: usize,
    func: Func,
    ty: &FuncType,
    slots: &mut [ValRaw],
    results: *mut wasm_val_t,
) -> bool {
    if !call_slots(inst, env, func, slots) {
        return false;
    }
    for (i, (t, s)) in ty.results().iter().zip(slots.iter()).enumerate() {
        let Some(v) = to_c(inst, *t, *s) else {
            inst.set_exception(Some("the result conversion is failed"));
            return false;
        };
        // SAFETY: room for every result (caller).
        unsafe { results.add(i).write(v) };
    }
    true
}

/// `wasm_runtime_call_wasm_v` once its arguments are saved (see
/// `cranewasm::__sys::VaArgs`): five fixed integer-class arguments, then
/// one per parameter.
///
/// # Safety
/// Called by the entry stub only, with what the client passed.
unsafe extern "C" fn call_wasm_v_saved(regs: *const u64, stack: *const u64) -> bool {
    // SAFETY: the stub's saved arguments, five of them fixed.
    let mut va = unsafe { VaArgs::new(regs, stack, 5) };
    // SAFETY: the client passed the five fixed arguments.
    let (exec_env, function, num_results, results, num_args) = unsafe {
        (
            va.fixed(0) as wasm_exec_env_t,
            va.fixed(1) as wasm_function_inst_t,
            va.fixed(2) as u32,
            va.fixed(3) as *mut wasm_val_t,
            va.fixed(4) as u32,
        )
    };
    // SAFETY: the rest of the client's arguments.
    unsafe { call_wasm_va(exec_env, function, num_results, results, num_args, &mut va) }
}

/// The body of `wasm_runtime_call_wasm_v` (and `gc_export.h`'s
/// `wasm_runtime_call_func_ref_v`) once the fixed arguments are read: one
/// variadic argument per parameter follows in `va`.
///
/// # Safety
/// `va` must hold one argument per parameter of `function`, as the
/// client passed them; `results` NULL or room for `num_results`.
pub(crate) unsafe fn call_wasm_va(
    exec_env: wasm_exec_env_t,
    function: wasm_function_inst_t,
    num_results: u32,
    results: *mut wasm_val_t,
    num_args: u32,
    va: &mut VaArgs,
) -> bool {
    let Some((inst, _, func, ty)) = resolve(exec_env, function) else { return false };
    if num_results as usize != ty.results().len() || num_args as usize != ty.params().len() {
        log(1, format_args!("The argument or result number does not match the function declaration."));
        return false;
    }
    if results.is_null() && num_results > 0 {
        return false;
    }
    core::with_slots(ty.params().len().max(ty.results().len()), |slots| {
        for (s, t) in slots.iter_mut().zip(ty.params()) {
            // SAFETY: the client passed one argument per parameter, of the
            // parameter's C type (WAMR's contract).
            *s = unsafe {
                match *t {
                    ValType::I32 => ValRaw::i32(va.int() as i32),
                    ValType::I64 => ValRaw::i64(va.int() as i64),
                    ValType::F32 => ValRaw::f32((va.double() as f32).to_bits()),
                    ValType::F64 => ValRaw::f64(va.double().to_bits()),
                    ValType::EXTERNREF => inst.externref_raw(va.int() as usize),
                    t if call_refs::is_gc(inst, t) => match call_refs::slot_of(inst, va.int() as usize, t) {
                        Ok(v) => v,
                        Err(e) => {
                            inst.set_exception(Some(e));
                            return false;
                        }
                    },
                    ValType::FUNCREF => match inst.funcref_raw(va.int() as u32) {
                        Some(v) => v,
                        None => {
                            inst.set_exception(Some("unknown function"));
                            return false;
                        }
                    },
                    _ => {
                        log(1, format_args!("wasm_runtime_call_wasm_v: a {t} argument cannot be passed"));
                        return false;
                    }
                }
            };
        }
        // SAFETY: room for the results (client).
        unsafe { finish_slots(inst, exec_env as usize, func, &ty, slots, results) }
    })
}

cranewasm::__sys::c_variadic_entry! {
    /// Calls `function` with `num_args` variadic arguments of its parameter
    /// types (i32 as `int32_t`, i64 as `int64_t`, f32 and f64 as `double`,
    /// externref as a pointer, funcref as its index, a GC reference as its
    /// `wasm_obj_t`), writing its results
    /// to `results`.
    ///
    /// Rust cannot define a variadic function, so this is a stub from the
    /// core's `arch` layer that saves the argument registers and hands them
    /// to [`call_wasm_v_saved`]. Declared in the header by hand:
    /// `bool wasm_runtime_call_wasm_v(wasm_exec_env_t, wasm_function_inst_t,
    /// uint32_t num_results, wasm_val_t results[], uint32_t num_args, ...)`.
    ///
    /// # Safety
    /// As for `wasm_runtime_call_wasm_a`, with the arguments passed as above.
    pub fn wasm_runtime_call_wasm_v => call_wasm_v_saved
}

/// Calls element `element_index` of the instance's table 0 with arguments
/// in cells (as [`wasm_runtime_call_wasm`]). WAMR's exceptions for an
/// index past the table ("undefined element") and a null element
/// ("uninitialized element").
///
/// # Safety
/// As for [`wasm_runtime_call_wasm`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_call_indirect(
    exec_env: wasm_exec_env_t,
    element_index: u32,
    argc: u32,
    argv: *mut u32,
) -> bool {
    let Some(env) = self::exec_env(exec_env as usize) else {
        log(1, format_args!("Invalid exec env stack info."));
        return false;
    };
    let Some(inst) = env.instance() else { return false };
    let Some(instance) = inst.instance() else { return false };
    let element = {
        let locked = inst.lock();
        let store = locked.store();
        match instance.table(&*store, 0) {
            Some(t) if element_index < t.size(&*store) => match t.get(&*store, element_index) {
                Some(Val::FuncRef(Some(f))) => Ok(Some((f, f.ty(&*store)))),
                _ => Ok(None),
            },
            _ => Err(()),
        }
    };
    match element {
        Err(()) => {
            inst.set_exception(Some("undefined element"));
            false
        }
        Ok(None) => {
            inst.set_exception(Some("uninitialized element"));
            false
        }
        // SAFETY: as the caller promises.
        Ok(Some((f, ty))) => unsafe { call_cells(inst, exec_env as usize, f, &ty, argc, argv) },
    }
}

/// The call stack of the last trap of the exec env's instance, in WAMR's
/// format: a blank line, one `#NN: 0xOFFSET - NAME` line per frame
/// (`$fINDEX` without a name-section name), a blank line; empty when there
/// are no frames.
fn call_stack(exec_env: wasm_exec_env_t) -> Option<String> {
    let env = self::exec_env(exec_env as usize)?;
    let inst = env.instance()?;
    let frames = inst.frames.lock().unwrap_or_else(|e| e.into_inner());
    if frames.is_empty() {
        return Some(String::new());
    }
    let mut s = String::from("\n");
    for (n, f) in frames.iter().enumerate() {
        let name = f.func_name.clone().unwrap_or_else(|| format!("$f{}", f.func_index));
        let mut line = format!("#{n:02}: 0x{:04x} - {name}\n", f.module_offset);
        if line.len() >= 256 {
            line.truncate(250);
            line.push_str("...\n");
        }
        s.push_str(&line);
    }
    s.push('\n');
    Some(s)
}

/// Prints the call stack of the last trap on stdout.
///
/// # Safety
/// `exec_env` may be NULL or any pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_dump_call_stack(exec_env: wasm_exec_env_t) {
    if let Some(s) = call_stack(exec_env) {
        use std::io::Write;
        let mut out = std::io::stdout().lock();
        let _ = out.write_all(s.as_bytes());
        let _ = out.flush();
    }
}

/// Bytes needed for [`wasm_runtime_dump_call_stack_to_buf`], its NUL
/// included; 0 when there is nothing (or for a bad exec env).
///
/// # Safety
/// `exec_env` may be NULL or any pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_get_call_stack_buf_size(exec_env: wasm_exec_env_t) -> u32 {
    match call_stack(exec_env) {
        Some(s) if !s.is_empty() => s.len() as u32 + 1,
        _ => 0,
    }
}

/// Writes the call stack to `buf` (truncated to `len` with its NUL);
/// returns the bytes written with the NUL, 0 when there is nothing.
///
/// # Safety
/// `exec_env` NULL or any pointer; `buf` NULL or writable for `len` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_dump_call_stack_to_buf(
    exec_env: wasm_exec_env_t,
    buf: *mut c_char,
    len: u32,
) -> u32 {
    let Some(s) = call_stack(exec_env).filter(|s| !s.is_empty()) else { return 0 };
    if buf.is_null() || len == 0 {
        return 0;
    }
    // SAFETY: writable for `len` bytes (caller).
    unsafe { crate::export::set_error_buf(buf, len, &s) };
    (s.len() as u32).min(len - 1) + 1
}
