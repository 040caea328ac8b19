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
use cranewasm::{AsContextMut, Func, FuncType, Trap, V128, Val, ValRaw, ValType};

use crate::core::kinds::{self, valkind};

use crate::c_api::val::wasm_val_t;
use crate::export::exec_env::exec_env;
use crate::export::instance::ModuleInst;
use crate::export::lookup::func_inst;
use crate::export::runtime::log;
use crate::export::types::*;

/// Value slots kept on the stack for calls.
const INLINE: usize = 16;

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

/// How many cells WAMR's `argc` counts for a value of type `t`: an
/// externref as one (see the module documentation).
fn argc_cells(t: ValType) -> usize {
    match t {
        ValType::EXTERNREF => 1,
        t => cells(t),
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
    call: impl FnOnce(&mut cranewasm::Store<crate::export::instance::InstData>) -> Result<(), Trap>,
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

/// A core call error as a trap.
fn as_trap(e: cranewasm::Error) -> Trap {
    match e {
        cranewasm::Error::Trap(t) | cranewasm::Error::Exception(t) => t,
        cranewasm::Error::Exit(code) => Trap::exit(code),
        e => Trap::new(e.to_string()),
    }
}

/// Calls `func` with `params`, returning its results (`None`: failed, the
/// exception set).
pub fn call_vals(inst: &ModuleInst, env: usize, func: Func, ty: &FuncType, params: &[Val]) -> Option<Vec<Val>> {
    let mut results: Vec<Val> = ty.results().iter().map(|t| Val::default_for(*t)).collect();
    let ok = run(inst, env, |store| func.call(store, params, &mut results).map_err(as_trap));
    ok.then_some(results)
}

/// Calls a function without references over raw slots holding its
/// parameters (and then its results).
fn call_slots(inst: &ModuleInst, env: usize, func: Func, slots: &mut [ValRaw]) -> bool {
    run(inst, env, |store| {
        let mut cx = store.as_context_mut();
        // SAFETY: the caller filled the slots from the function's type,
        // with room for its results; no references.
        unsafe { func.call_raw(cx.opaque(), slots.as_mut_ptr()) }
    })
}

/// A number as a raw slot.
pub fn num_to_raw(v: &Val) -> ValRaw {
    match *v {
        Val::I32(x) => ValRaw::i32(x),
        Val::I64(x) => ValRaw::i64(x),
        Val::F32(b) => ValRaw::f32(b),
        Val::F64(b) => ValRaw::f64(b),
        Val::V128(x) => ValRaw::v128(x.as_u128()),
        // References never take the raw path.
        Val::FuncRef(_) | Val::ExternRef(_) => ValRaw::default(),
    }
}

/// A raw slot holding a number of type `t` as a value.
pub fn raw_to_num(r: ValRaw, t: ValType) -> Val {
    match t {
        ValType::I32 => Val::I32(r.get_i32()),
        ValType::I64 => Val::I64(r.get_i64()),
        ValType::F32 => Val::F32(r.get_f32()),
        ValType::F64 => Val::F64(r.get_f64()),
        ValType::V128 => Val::V128(V128(r.get_v128())),
        ValType::Ref(_) => Val::default_for(t),
    }
}

fn has_refs(ty: &FuncType) -> bool {
    ty.params().iter().chain(ty.results()).any(|t| t.is_ref())
}

/// Reads a value of type `t` from cells at `argv[*p..]`; the exception
/// for a value cells cannot stand for (an unknown function index).
///
/// # Safety
/// `argv` must hold the cells.
unsafe fn read_cell(inst: &ModuleInst, argv: *const u32, p: &mut usize, t: ValType) -> Result<Val, &'static str> {
    // SAFETY: as the caller promises.
    let c = |i: usize| unsafe { *argv.add(*p + i) };
    let w = |lo: u32, hi: u32| u64::from(lo) | (u64::from(hi) << 32);
    let v = match t {
        ValType::I32 => Val::I32(c(0) as i32),
        ValType::F32 => Val::F32(c(0)),
        ValType::I64 => Val::I64(w(c(0), c(1)) as i64),
        ValType::F64 => Val::F64(w(c(0), c(1))),
        ValType::V128 => Val::V128(V128(u128::from(w(c(0), c(1))) | (u128::from(w(c(2), c(3))) << 64))),
        ValType::EXTERNREF => inst.externref_val(w(c(0), c(1)) as usize),
        ValType::FUNCREF => inst.funcref_val(c(0)).ok_or("unknown function")?,
        ValType::Ref(_) => return Err("a reference of a type the C API cannot pass"),
    };
    *p += cells(t);
    Ok(v)
}

/// Writes value `v` into cells at `argv[*p..]`; false for a value cells
/// cannot hold (a function of another instance).
///
/// # Safety
/// `argv` must have room for the cells.
unsafe fn write_cell(inst: &ModuleInst, argv: *mut u32, p: &mut usize, v: &Val) -> bool {
    let put = |i: usize, x: u32| {
        // SAFETY: as the caller promises.
        unsafe { *argv.add(*p + i) = x };
    };
    let n = match *v {
        Val::I32(x) => {
            put(0, x as u32);
            1
        }
        Val::F32(b) => {
            put(0, b);
            1
        }
        Val::I64(x) => {
            put(0, x as u32);
            put(1, (x as u64 >> 32) as u32);
            2
        }
        Val::F64(b) => {
            put(0, b as u32);
            put(1, (b >> 32) as u32);
            2
        }
        Val::V128(x) => {
            let x = x.as_u128();
            for i in 0..4 {
                put(i, (x >> (32 * i)) as u32);
            }
            4
        }
        Val::ExternRef(_) => {
            let ptr = inst.host_pointer_of(v) as u64;
            put(0, ptr as u32);
            put(1, (ptr >> 32) as u32);
            2
        }
        Val::FuncRef(_) => match inst.funcref_index(v) {
            Some(index) => {
                put(0, index);
                1
            }
            None => return false,
        },
    };
    *p += n;
    true
}

/// `wasm_runtime_call_wasm` for a resolved function.
///
/// # Safety
/// `argv` must be NULL or hold `argc` cells, with room for the results.
pub unsafe fn call_cells(inst: &ModuleInst, env: usize, func: Func, ty: &FuncType, argc: u32, argv: *mut u32) -> bool {
    let need: usize = ty.params().iter().map(|t| argc_cells(*t)).sum();
    let out: usize = ty.results().iter().map(|t| cells(*t)).sum();
    if (argc as usize) < need {
        inst.set_exception(Some(&format!("invalid argument count {argc}, must be no smaller than {need}")));
        return false;
    }
    if argv.is_null() && (need > 0 || out > 0) {
        inst.set_exception(Some("the arguments conversion is failed"));
        return false;
    }
    if !has_refs(ty) && ty.params().len().max(ty.results().len()) <= INLINE {
        let mut slots = [ValRaw::default(); INLINE];
        let mut p = 0;
        for (s, t) in slots.iter_mut().zip(ty.params()) {
            // SAFETY: `argc >= need` cells (caller); without references
            // the two counts are the same.
            let v = unsafe { read_cell(inst, argv, &mut p, *t) }.expect("numbers always convert");
            *s = num_to_raw(&v);
        }
        if !call_slots(inst, env, func, &mut slots) {
            return false;
        }
        let mut p = 0;
        for (s, t) in slots.iter().zip(ty.results()) {
            // SAFETY: room for the results (caller).
            unsafe { write_cell(inst, argv, &mut p, &raw_to_num(*s, *t)) };
        }
        return true;
    }
    let mut p = 0;
    let mut params = Vec::with_capacity(ty.params().len());
    for t in ty.params() {
        if p >= argc as usize {
            // Past the cells the caller counted: zero, as in WAMR.
            params.push(Val::default_for(*t));
            p += cells(*t);
            continue;
        }
        // SAFETY: the parameter starts below `argc` (an externref at
        // `argc - 1` reads one cell more, as WAMR's does); the caller's
        // cells.
        match unsafe { read_cell(inst, argv, &mut p, *t) } {
            Ok(v) => params.push(v),
            Err(e) => {
                inst.set_exception(Some(e));
                return false;
            }
        }
    }
    let Some(results) = call_vals(inst, env, func, ty, &params) else { return false };
    let mut p = 0;
    for r in &results {
        // SAFETY: room for the results (caller).
        if !unsafe { write_cell(inst, argv, &mut p, r) } {
            inst.set_exception(Some("the result conversion is failed"));
            return false;
        }
    }
    true
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

/// A `wasm_val_t` as a value of type `t`. WAMR lays each argument out in
/// cells by its own kind and the function reads them by its parameter's
/// type, so a value of another kind of the same width passes its bits (an
/// i32 for a funcref, as WAMR's funcref results come back, say).
/// `Err(None)`: a kind of another width (WAMR shifts every later
/// argument), or v128 (WAMR asserts); `Err(Some(exception))`: an unknown
/// function index.
fn from_c(inst: &ModuleInst, v: &wasm_val_t, t: ValType) -> Result<Val, Option<&'static str>> {
    if t == ValType::V128 || kind_cells(v.kind) != Some(cells(t)) {
        return Err(None);
    }
    // SAFETY: the union's first 4 or 8 bytes, as many as the kind filled;
    // every bit pattern of the integer members is valid.
    let (low, wide) = unsafe { (v.of.i32 as u32, v.of.i64 as u64) };
    Ok(match t {
        ValType::I32 => Val::I32(low as i32),
        ValType::F32 => Val::F32(low),
        ValType::I64 => Val::I64(wide as i64),
        ValType::F64 => Val::F64(wide),
        ValType::EXTERNREF => inst.externref_val(wide as usize),
        ValType::FUNCREF => inst.funcref_val(low).ok_or(Some("unknown function"))?,
        ValType::V128 | ValType::Ref(_) => return Err(None),
    })
}

/// A value as a `wasm_val_t`: a funcref as its index with the kind
/// `WASM_I32`, as WAMR gives it (`None` for a function of another
/// instance).
fn to_c(inst: &ModuleInst, v: &Val) -> Option<wasm_val_t> {
    let mut out = wasm_val_t::ZERO;
    out.kind = valkind(v.ty());
    match *v {
        Val::I32(x) => out.of.i32 = x,
        Val::I64(x) => out.of.i64 = x,
        Val::F32(b) => out.of.f32 = f32::from_bits(b),
        Val::F64(b) => out.of.f64 = f64::from_bits(b),
        Val::ExternRef(_) => out.of.i64 = inst.host_pointer_of(v) as i64,
        Val::FuncRef(_) => {
            out.kind = kinds::I32;
            out.of.i32 = inst.funcref_index(v)? as i32;
        }
        Val::V128(_) => return None,
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
    let mut params = Vec::with_capacity(ty.params().len());
    for (i, t) in ty.params().iter().enumerate() {
        // SAFETY: `num_args` values (caller).
        match from_c(inst, unsafe { &*args.add(i) }, *t) {
            Ok(v) => params.push(v),
            Err(Some(e)) => {
                inst.set_exception(Some(e));
                return false;
            }
            Err(None) => {
                log(1, format_args!("wasm_runtime_call_wasm_a: argument {i} is not of the parameter's width ({t})"));
                return false;
            }
        }
    }
    // SAFETY: the exec env was resolved above.
    unsafe { finish_vals(inst, exec_env as usize, func, &ty, &params, results) }
}

/// Calls with `params` and writes the results as `wasm_val_t`s.
///
/// # Safety
/// `results` must have room for the function's results.
unsafe fn finish_vals(
    inst: &ModuleInst,
    env: usize,
    func: Func,
    ty: &FuncType,
    params: &[Val],
    results: *mut wasm_val_t,
) -> bool {
    let Some(out) = call_vals(inst, env, func, ty, params) else { return false };
    for (i, r) in out.iter().enumerate() {
        let Some(v) = to_c(inst, r) else {
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
    let Some((inst, _, func, ty)) = resolve(exec_env, function) else { return false };
    if num_results as usize != ty.results().len() || num_args as usize != ty.params().len() {
        log(1, format_args!("The argument or result number does not match the function declaration."));
        return false;
    }
    if results.is_null() && num_results > 0 {
        return false;
    }
    let mut params = Vec::with_capacity(ty.params().len());
    for t in ty.params() {
        // SAFETY: the client passed one argument per parameter, of the
        // parameter's C type (WAMR's contract).
        let v = unsafe {
            match *t {
                ValType::I32 => Val::I32(va.int() as i32),
                ValType::I64 => Val::I64(va.int() as i64),
                ValType::F32 => Val::f32(va.double() as f32),
                ValType::F64 => Val::f64(va.double()),
                ValType::EXTERNREF => inst.externref_val(va.int() as usize),
                ValType::FUNCREF => match inst.funcref_val(va.int() as u32) {
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
        params.push(v);
    }
    // SAFETY: room for the results (client).
    unsafe { finish_vals(inst, exec_env as usize, func, &ty, &params, results) }
}

cranewasm::__sys::c_variadic_entry! {
    /// Calls `function` with `num_args` variadic arguments of its parameter
    /// types (i32 as `int32_t`, i64 as `int64_t`, f32 and f64 as `double`,
    /// externref as a pointer, funcref as its index), writing its results
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
