//! Frames of a trap's backtrace.
//!
//! A frame records the function index and byte offsets the core found.
//! `wasm_frame_instance` is NULL: the core locates frames by module code,
//! which all instances of a module share, so it cannot tell which instance
//! a frame ran in.

use std::ptr;

use cranewasm::FrameInfo;

use crate::object::{impl_object, register, release, Header, ObjKind};
use crate::store::StoreObj;
use crate::*;

/// What a `wasm_frame_t *` points at.
#[repr(C)]
pub struct FrameObj {
    pub header: Header,
    func_index: u32,
    func_offset: usize,
    module_offset: usize,
}

impl_object!(FrameObj);

/// Registers a frame object for `f` in `store`.
///
/// # Safety
/// `store` must be live.
pub unsafe fn new_frame(store: *mut StoreObj, f: &FrameInfo) -> *mut wasm_frame_t {
    let obj = FrameObj {
        header: Header::new(ObjKind::Frame, store),
        func_index: f.func_index,
        func_offset: f.func_offset,
        module_offset: f.module_offset,
    };
    register(obj).cast()
}

unsafe fn obj<'a>(f: *const wasm_frame_t) -> Option<&'a FrameObj> {
    f.cast::<FrameObj>().as_ref()
}

#[no_mangle]
pub unsafe extern "C" fn wasm_frame_copy(f: *const wasm_frame_t) -> *mut wasm_frame_t {
    let Some(f) = obj(f) else { return ptr::null_mut() };
    let copy = FrameObj {
        header: Header::new(ObjKind::Frame, f.header.store),
        func_index: f.func_index,
        func_offset: f.func_offset,
        module_offset: f.module_offset,
    };
    register(copy).cast()
}

#[no_mangle]
pub unsafe extern "C" fn wasm_frame_delete(f: *mut wasm_frame_t) {
    release(f.cast())
}

/// The frame's instance: always NULL (see the module documentation).
#[no_mangle]
pub unsafe extern "C" fn wasm_frame_instance(_f: *const wasm_frame_t) -> *mut wasm_instance_t {
    ptr::null_mut()
}

/// Index of the frame's function in its module's function index space.
#[no_mangle]
pub unsafe extern "C" fn wasm_frame_func_index(f: *const wasm_frame_t) -> u32 {
    obj(f).map_or(0, |f| f.func_index)
}

/// Byte offset of the instruction from the start of its function body.
#[no_mangle]
pub unsafe extern "C" fn wasm_frame_func_offset(f: *const wasm_frame_t) -> usize {
    obj(f).map_or(0, |f| f.func_offset)
}

/// Byte offset of the instruction from the start of the module binary.
#[no_mangle]
pub unsafe extern "C" fn wasm_frame_module_offset(f: *const wasm_frame_t) -> usize {
    obj(f).map_or(0, |f| f.module_offset)
}
