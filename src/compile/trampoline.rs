//! Per-signature trampolines between the host and compiled code.
//!
//! The host calls wasm, and wasm calls the host, through arrays of
//! [`ValRaw`](crate::ValRaw) slots. Rather than loop over a signature on
//! every call, each signature gets two small compiled functions that move
//! exactly its values between slots and registers:
//!
//! * the **entry** trampoline (host → wasm) has the C convention
//!   `(callee_vmctx, caller_vmctx, code, values)`: it loads the arguments
//!   from `values`, calls `code` with the wasm convention and stores the
//!   results (with their kind bytes) back into `values`;
//! * the **exit** trampoline (wasm → host) has the wasm convention, so it
//!   can sit in a `VMFuncRef` like any wasm function: it spills the
//!   arguments into slots on its own stack frame, records its frame for
//!   backtraces, calls the host function's `host_call` entry, and returns
//!   the results the host left in the slots.

use cranelift_codegen::ir::{
    self, types, AbiParam, Endianness, InstBuilder, MemFlagsData, Signature, StackSlotData, StackSlotKind,
    UserFuncName, Value,
};
use cranelift_codegen::isa::{CallConv, TargetIsa};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};

use super::func_env::{ir_type, wasm_signature, POINTER};
use crate::environ::types::{FuncType, ValType};
use crate::environ::val_raw::ValRaw;
use crate::environ::vmctx::{host_ctx, VMStoreContext};

const SLOT: i32 = std::mem::size_of::<ValRaw>() as i32;

/// Slots are 8-byte aligned (a C `wasm_val_t` array), so v128 accesses
/// must not assume more.
fn slot_flags() -> MemFlagsData {
    MemFlagsData::new().with_notrap().with_endianness(Endianness::Little)
}

/// Offset of value `i`'s payload within a slot array.
fn payload_offset(i: usize, ty: ValType) -> i32 {
    let within = if ty == ValType::V128 { 0 } else { ValRaw::PAYLOAD as i32 };
    i as i32 * SLOT + within
}

fn load_slot(b: &mut FunctionBuilder, base: Value, i: usize, ty: ValType) -> Value {
    b.ins().load(ir_type(ty), slot_flags(), base, payload_offset(i, ty))
}

/// Stores value `i` into its slot, kind byte included (except for v128,
/// which fills the slot).
fn store_slot(b: &mut FunctionBuilder, base: Value, i: usize, ty: ValType, v: Value) {
    if ty != ValType::V128 {
        let kind = b.ins().iconst(types::I8, ValRaw::kind_of(ty) as i64);
        b.ins().store(slot_flags(), kind, base, i as i32 * SLOT);
    }
    b.ins().store(slot_flags(), v, base, payload_offset(i, ty));
}

/// The host→wasm trampoline for signature `ty`.
pub fn entry_trampoline(isa: &dyn TargetIsa, ty: &FuncType, fctx: &mut FunctionBuilderContext) -> ir::Function {
    let mut sig = Signature::new(isa.default_call_conv());
    sig.params.extend([AbiParam::new(POINTER); 4]);
    let mut func = ir::Function::with_name_signature(UserFuncName::default(), sig);
    let mut b = FunctionBuilder::new(&mut func, fctx);
    let block = b.create_block();
    b.append_block_params_for_function_params(block);
    b.switch_to_block(block);
    b.seal_block(block);
    let [callee_vmctx, caller_vmctx, code, values] = b.block_params(block).try_into().expect("four params");

    let mut args = vec![callee_vmctx, caller_vmctx];
    for (i, p) in ty.params().iter().enumerate() {
        args.push(load_slot(&mut b, values, i, *p));
    }
    let wasm_sig = b.import_signature(wasm_signature(ty));
    let call = b.ins().call_indirect(wasm_sig, code, &args);
    let results = b.inst_results(call).to_vec();
    for (i, (r, t)) in results.into_iter().zip(ty.results()).enumerate() {
        store_slot(&mut b, values, i, *t, r);
    }
    b.ins().return_(&[]);
    b.finalize(isa.frontend_config());
    func
}

/// The wasm→host trampoline for signature `ty`.
pub fn exit_trampoline(isa: &dyn TargetIsa, ty: &FuncType, fctx: &mut FunctionBuilderContext) -> ir::Function {
    let mut func = ir::Function::with_name_signature(UserFuncName::default(), wasm_signature(ty));
    let mut b = FunctionBuilder::new(&mut func, fctx);
    let block = b.create_block();
    b.append_block_params_for_function_params(block);
    b.switch_to_block(block);
    b.seal_block(block);
    let params = b.block_params(block).to_vec();
    let (host_ctx_ptr, caller_vmctx) = (params[0], params[1]);

    let slots = ty.params().len().max(ty.results().len()).max(1) as u32;
    let slot = b.create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, slots * SLOT as u32, 4));
    let values = b.ins().stack_addr(POINTER, slot, 0);
    for (i, (p, v)) in ty.params().iter().zip(&params[2..]).enumerate() {
        store_slot(&mut b, values, i, *p, *v);
    }

    // Leave a frame pointer where a trap raised by the host can start its
    // backtrace from.
    let trusted = MemFlagsData::trusted();
    let store = b.ins().load(POINTER, trusted, host_ctx_ptr, host_ctx::STORE);
    let fp = b.ins().get_frame_pointer(POINTER);
    b.ins().store(trusted, fp, store, VMStoreContext::LAST_EXIT_FP);

    let mut host_sig = Signature::new(isa.default_call_conv());
    host_sig.params.extend([AbiParam::new(POINTER); 3]);
    let host_sig = b.import_signature(host_sig);
    let host_call = b.ins().load(POINTER, trusted, host_ctx_ptr, host_ctx::HOST_CALL);
    b.ins().call_indirect(host_sig, host_call, &[host_ctx_ptr, caller_vmctx, values]);

    let results: Vec<Value> = ty.results().iter().enumerate().map(|(i, r)| load_slot(&mut b, values, i, *r)).collect();
    b.ins().return_(&results);
    b.finalize(isa.frontend_config());
    debug_assert_eq!(func.signature.call_conv, CallConv::Tail);
    func
}

/// The host→C trampoline for a C function of parameters `(first,
/// params...)`, plus one pointer per result after the first, returning
/// `results[0]` (WAMR's native calling convention). The trampoline has the
/// C convention `(func, first, values)`: it loads the parameters from
/// `values`, passes pointers to the payloads of slots `1..` for the further
/// results, calls `func` and stores the first result (and every result's
/// kind byte) back into `values`.
pub fn native_trampoline(
    isa: &dyn TargetIsa,
    params: &[ValType],
    results: &[ValType],
    fctx: &mut FunctionBuilderContext,
) -> ir::Function {
    let mut sig = Signature::new(isa.default_call_conv());
    sig.params.extend([AbiParam::new(POINTER); 3]);
    let mut func = ir::Function::with_name_signature(UserFuncName::default(), sig);
    let mut b = FunctionBuilder::new(&mut func, fctx);
    let block = b.create_block();
    b.append_block_params_for_function_params(block);
    b.switch_to_block(block);
    b.seal_block(block);
    let [callee, first, values] = b.block_params(block).try_into().expect("three params");

    let mut native = Signature::new(isa.default_call_conv());
    native.params.push(AbiParam::new(POINTER));
    let mut args = vec![first];
    for (i, p) in params.iter().enumerate() {
        native.params.push(AbiParam::new(ir_type(*p)));
        args.push(load_slot(&mut b, values, i, *p));
    }
    for (i, r) in results.iter().enumerate().skip(1) {
        native.params.push(AbiParam::new(POINTER));
        args.push(b.ins().iadd_imm_u(values, payload_offset(i, *r) as i64));
    }
    if let Some(r) = results.first() {
        native.returns.push(AbiParam::new(ir_type(*r)));
    }
    let native = b.import_signature(native);
    let call = b.ins().call_indirect(native, callee, &args);
    if let (Some(r), Some(&v)) = (results.first(), b.inst_results(call).first()) {
        store_slot(&mut b, values, 0, *r, v);
    }
    for (i, r) in results.iter().enumerate().skip(1) {
        if *r != ValType::V128 {
            let kind = b.ins().iconst(types::I8, ValRaw::kind_of(*r) as i64);
            b.ins().store(slot_flags(), kind, values, i as i32 * SLOT);
        }
    }
    b.ins().return_(&[]);
    b.finalize(isa.frontend_config());
    func
}
