//! Frames of a trap's backtrace.
//!
//! A frame records the function index and byte offsets the core found.
//! `wasm_frame_instance` is NULL: the core locates frames by module code,
//! which all instances of a module share, so it cannot tell which instance
//! a frame ran in.

use std::ptr;

use cranewasm::FrameInfo;

use crate::c_api::store::StoreObj;
use crate::handle::Kind;
use crate::object::{self, Header, Object, c_object, get};
use crate::*;

/// What a `wasm_frame_t *` points at.
#[repr(C)]
pub struct FrameObj {
    header: Header,
    func_index: u32,
    func_offset: usize,
    module_offset: usize,
}

// SAFETY: frame cells hold `FrameObj`s; no handle names them by header.
unsafe impl Object for FrameObj {
    fn kind(&self) -> Kind {
        Kind::Frame
    }
    fn header(&mut self) -> Option<&mut Header> {
        Some(&mut self.header)
    }
    fn duplicate(&self) -> Option<FrameObj> {
        Some(FrameObj { header: Header::new(self.header.store), ..*self })
    }
}

c_object! {
    /// A frame of a trap's backtrace.
    wasm_frame_t: FrameObj [Frame];
    delete: wasm_frame_delete;
    copy: wasm_frame_copy;
}

/// Registers a frame object for `f` in `store`.
///
/// # Safety
/// `store` must be live.
pub unsafe fn new_frame(store: *mut StoreObj, f: &FrameInfo) -> *mut wasm_frame_t {
    object::new(FrameObj {
        header: Header::new(store),
        func_index: f.func_index,
        func_offset: f.func_offset,
        module_offset: f.module_offset,
    })
}

/// The frame's instance: always NULL (see the module documentation).
///
/// # Safety
/// `f` may be any pointer; it is not used.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_frame_instance(_f: Option<&wasm_frame_t>) -> *mut wasm_instance_t {
    ptr::null_mut()
}

/// Index of the frame's function in its module's function index space.
///
/// # Safety
/// `f` may be NULL or any pointer: anything but a live frame counts as
/// NULL (0). No other thread may delete it meanwhile.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_frame_func_index(f: Option<&wasm_frame_t>) -> u32 {
    // SAFETY: the client keeps the threading rule above.
    unsafe { get::<wasm_frame_t>(f) }.map_or(0, |f| f.func_index)
}

/// Byte offset of the instruction from the start of its function body.
///
/// # Safety
/// As for [`wasm_frame_func_index`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_frame_func_offset(f: Option<&wasm_frame_t>) -> usize {
    // SAFETY: the client keeps the threading rule above.
    unsafe { get::<wasm_frame_t>(f) }.map_or(0, |f| f.func_offset)
}

/// Byte offset of the instruction from the start of the module binary.
///
/// # Safety
/// As for [`wasm_frame_func_index`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_frame_module_offset(f: Option<&wasm_frame_t>) -> usize {
    // SAFETY: the client keeps the threading rule above.
    unsafe { get::<wasm_frame_t>(f) }.map_or(0, |f| f.module_offset)
}
