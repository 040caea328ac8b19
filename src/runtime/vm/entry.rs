//! Entering compiled code from the host, and turning what comes back into
//! results or traps with backtraces.

use super::code_registry;
use super::interrupt;
use super::signals;
use super::stack;
use super::store::StoreOpaque;
use super::stored::Stored;
use super::thread;
use super::unwind::{self, UnwindReason, Unwound};
use crate::environ::trap::{FrameInfo, Trap, TrapCode};
use crate::environ::val_raw::ValRaw;
use crate::environ::vmctx::{VMFuncRef, VMStoreContext};

/// Calls `func` from the host through its `array_call` entry, with
/// arguments and results in `values`. Panics when `func` is not of `store`.
///
/// # Safety
/// `values` must hold `max(params, results)` slots matching the function's
/// signature, references in them belonging to `store`.
// Called only by `Func::call_raw` (everything else calls through that), so
// that this and `enter_wasm` inline into it: one more call level, or two
// callers keeping `enter_wasm` out of line, cost 1 ns of a typed call's 12.
#[inline]
pub(crate) unsafe fn call(store: &mut StoreOpaque, func: Stored<VMFuncRef>, values: *mut ValRaw) -> Result<(), Trap> {
    // SAFETY: `func` belongs to `store` (checked by `get`), so its funcref
    // and VMContext are live; `values` holds its slots (caller), and the
    // closure owns nothing with a destructor.
    unsafe {
        let f: *const VMFuncRef = func.get(store);
        enter_wasm(store, || ((*f).array_call)((*f).vmctx, std::ptr::null_mut(), (*f).wasm_call, values))
    }
}

/// Runs `body`, which calls compiled code of `store`, with the stack limit
/// set and traps caught.
///
/// # Safety
/// `body` must only call into code of `store` and must not own values with
/// destructors (see [`unwind::catch_traps`]).
#[inline]
pub(crate) unsafe fn enter_wasm(store: *mut StoreOpaque, body: impl FnOnce()) -> Result<(), Trap> {
    // SAFETY: `store` is live and `body` only runs its code and owns nothing
    // with a destructor (caller); the thread state is this thread's.
    unsafe {
        let thread = thread::state();
        let vm: *mut VMStoreContext = &mut *(*store).vm;
        // The first entry on a store sets the limit; re-entries (host
        // functions calling back into wasm) share it, so recursion through
        // the host is bounded too, unless the host used up the room below it
        // before calling back in (a WAMR native consuming stack of its own,
        // say): that call gets room of its own, as an outermost one would,
        // never past the thread's floor, and the shared limit comes back
        // with its return.
        let outermost = (*store).active_calls == 0;
        let mut outer_limit = None;
        // The frames of the host call a nested entry runs in: the exit
        // trampolines of this call overwrite the record, and a trap of that
        // host call after this one returns must find its own frames.
        let exit_fp = (!outermost).then(|| (*vm).last_exit_fp);
        if outermost {
            // A plain load: a caller that skipped claiming cannot run on a
            // store another thread has claimed (see `StoreClaim`).
            if (*store).claim.held_by_another(thread::token_of(thread)) {
                return Err(Trap::new(crate::environ::error::STORE_BUSY));
            }
            signals::ensure_alt_stack(thread);
            (*store).publish_stack_limit(stack::limit_from_here(thread, (*store).max_wasm_stack));
        } else if let Some(limit) = stack::nested_limit(thread, (*store).vm.stack_limit, (*store).max_wasm_stack) {
            outer_limit = Some((*store).vm.stack_limit);
            (*store).publish_stack_limit(limit);
        }
        // Only stores with an interrupt handle pay for interruption.
        let entered = interrupt::of_store(vm)
            .map(|i| interrupt::enter(i, outermost, thread, || (*store).engine().epoch_counter()));
        let result = if let Some((_, Some(code))) = entered {
            Err(Unwound { reason: UnwindReason::Wasm(code), pcs: Vec::new() })
        } else {
            (*store).active_calls += 1;
            let result = unwind::catch_traps(thread, vm, body);
            (*store).active_calls -= 1;
            result
        };
        if let Some((e, _)) = entered {
            interrupt::leave(interrupt::of_store(vm).expect("entered"), e, || trap_code(&result));
        }
        if let Some(limit) = outer_limit {
            (*store).publish_stack_limit(limit);
        }
        if let Some(fp) = exit_fp {
            (*vm).last_exit_fp = fp;
        }
        // The limit stays set after the call: every entry sets it before any
        // compiled code runs, and leaving it avoids rewriting every
        // instance's copy twice per call.
        if outermost && !(*store).deferred_frees.is_empty() {
            for index in std::mem::take(&mut (*store).deferred_frees) {
                super::instance::try_free(&mut *store, index);
            }
        }
        match result {
            Ok(()) => Ok(()),
            Err(Unwound { reason, pcs }) => Err(match reason {
                UnwindReason::Wasm(code) => Trap::from_code(code).with_frames(symbolize(&pcs, false)),
                // Recorded from the exit trampoline's frame: every pc is a
                // return address, the first one's included.
                UnwindReason::Host(trap) => trap.with_frames(symbolize(&pcs, true)),
                UnwindReason::Panic(payload) => std::panic::resume_unwind(payload),
            }),
        }
    }
}

/// The trap code a call ended with, if it trapped with one (from compiled
/// code, a builtin, or the stop check after a host function).
#[cold]
fn trap_code(result: &Result<(), Unwound>) -> Option<TrapCode> {
    match result {
        Err(Unwound { reason: UnwindReason::Wasm(code), .. }) => Some(*code),
        Err(Unwound { reason: UnwindReason::Host(trap), .. }) => trap.code(),
        _ => None,
    }
}

/// Wasm frames for the recorded program counters. The first is where the
/// trap happened (unless `all_returns`); the others are return addresses,
/// looked up one byte back so they fall inside their call instruction.
/// Code inlined into its caller has several source locations at one code
/// offset, outermost first (see `compile::inline`): one frame each,
/// innermost first, each named by the function whose body holds its
/// offset.
fn symbolize(pcs: &[usize], all_returns: bool) -> Vec<FrameInfo> {
    let mut frames = Vec::new();
    for (i, &pc) in pcs.iter().enumerate() {
        let pc = if i == 0 && !all_returns { pc } else { pc - 1 };
        let Some(code) = code_registry::lookup(pc) else { continue };
        let offset = (pc - code.compiled.code.range().start) as u32;
        let Some((defined, chain)) = code.compiled.frame_at(offset) else { continue };
        let defined = defined.as_u32() as usize;
        let frame = |defined: usize, module_offset: usize| {
            let func_index = (code.info.num_imported_funcs + defined) as u32;
            let func = crate::environ::index::FuncIndex::from_u32(func_index);
            FrameInfo {
                func_index,
                func_name: code.info.func_names.get(&func).cloned(),
                func_offset: module_offset.saturating_sub(code.body_offsets[defined] as usize),
                module_offset,
                instance: None,
            }
        };
        if chain.is_empty() {
            frames.push(frame(defined, code.body_offsets[defined] as usize));
        }
        for (k, &module_offset) in chain.iter().enumerate().rev() {
            // The outermost location is in the function the pc is in; an
            // inlined one in the function whose body holds it.
            let owner = match k {
                0 => defined,
                _ => code.body_offsets.partition_point(|b| *b <= module_offset).saturating_sub(1),
            };
            frames.push(frame(owner, module_offset as usize));
        }
    }
    frames
}

/// Unwinds out of a host function with the trap it returned, recording the
/// wasm frames that called it (found from the exit trampoline's frame).
///
/// # Safety
/// Must be called from a host function's shim that owns nothing with a
/// destructor, while wasm of `store` is running on this thread.
pub(crate) unsafe fn raise_host_trap(store: &StoreOpaque, trap: Trap) -> ! {
    // SAFETY: called from a host function's shim owning nothing with a
    // destructor while wasm of `store` runs on this thread (caller).
    unsafe {
        // An exception the host function passes on is thrown to its wasm
        // caller, which may catch it.
        if let Some(exn) = trap.exception() {
            // The jump to the handler runs no destructors: the trap's
            // message would leak.
            drop(trap);
            super::exception::throw_from(exn, store.vm.last_exit_fp);
        }
        if let Some(state) = unwind::current() {
            state.record_frames(0, store.vm.last_exit_fp, code_registry::is_wasm_pc);
        }
        unwind::raise(UnwindReason::Host(trap))
    }
}
