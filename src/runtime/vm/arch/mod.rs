//! Everything of the runtime that knows the CPU: assembly (the jump buffer
//! of traps, the null-call stub, the lazy-compilation trampoline and stub
//! bytes, the entry of C variadic functions), the registers of a signal
//! context, instruction-cache maintenance, and valgrind's client request.
//!
//! A port to another CPU implements the same items in a sibling file;
//! nothing outside `arch/` names a register.

#[cfg(target_arch = "x86_64")]
#[macro_use]
mod x86_64;
#[cfg(target_arch = "x86_64")]
pub use x86_64::*;

#[cfg(target_arch = "aarch64")]
#[macro_use]
mod aarch64;
#[cfg(target_arch = "aarch64")]
pub use aarch64::*;

#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
compile_error!("cranewasm's runtime is implemented for x86-64 and aarch64 only (src/runtime/vm/arch)");

// The builtins that may collect garbage, entered so that the collector
// finds the wasm frames that called them.
gc_exit_entry!(gc_alloc_entry => super::gc::libcalls::gc_alloc, (size: u64) -> u32);
gc_exit_entry!(gc_box_entry => super::gc::libcalls::gc_box, (p: usize) -> usize);
gc_exit_entry!(array_new_data_entry => super::gc::libcalls::array_new_data, (t: u32, data: u32, src: u32, len: u32) -> usize);
gc_exit_entry!(array_new_elem_entry => super::gc::libcalls::array_new_elem, (t: u32, elem: u32, src: u32, len: u32) -> usize);
