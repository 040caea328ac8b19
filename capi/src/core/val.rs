//! `wasm_val_t`, the value both C headers pass (`wasm_func_call`,
//! `wasm_runtime_call_wasm_a`, globals...): a kind byte, padding, and the
//! payload at offset 8, the layout of the core's `ValRaw`, which is what
//! lets calls pass C arrays straight through. How references and v128
//! values sit in it is each header's (see `c_api/val.rs`).

use cranewasm::ValType;

use crate::core::kinds;
use crate::wasm_ref_t;

/// `wasm_valkind_t`: `WASM_I32` (0) .. `WASM_V128` (4), `WASM_EXTERNREF`
/// (128), `WASM_FUNCREF` (129).
pub type wasm_valkind_t = u8;

/// The payload of a [`wasm_val_t`].
#[repr(C)]
#[derive(Copy, Clone)]
pub union wasm_val_union {
    pub i32: i32,
    pub i64: i64,
    pub f32: f32,
    pub f64: f64,
    pub r#ref: *mut wasm_ref_t,
}

/// A value: a kind byte, padding, and the payload at offset 8.
#[repr(C)]
#[derive(Copy, Clone)]
pub struct wasm_val_t {
    pub kind: wasm_valkind_t,
    pub _paddings: [u8; 7],
    pub of: wasm_val_union,
}

const _: () = assert!(std::mem::size_of::<wasm_val_t>() == std::mem::size_of::<cranewasm::ValRaw>());

impl wasm_val_t {
    /// An `i32` zero: what result slots start as.
    pub const ZERO: wasm_val_t = wasm_val_t { kind: 0, _paddings: [0; 7], of: wasm_val_union { i64: 0 } };

    pub fn new(kind: ValType, of: wasm_val_union) -> wasm_val_t {
        wasm_val_t { kind: kinds::valkind(kind), _paddings: [0; 7], of }
    }

    /// The host pointer or function object of a reference value.
    pub fn ref_ptr(&self) -> *mut wasm_ref_t {
        // SAFETY: every bit pattern is a valid pointer value.
        unsafe { self.of.r#ref }
    }
}
