//! Everything of the runtime that knows the CPU: assembly (the jump buffer
//! of traps, the null-call stub, the lazy-compilation trampoline and stub
//! bytes, the entry of C variadic functions), the registers of a signal
//! context, instruction-cache maintenance, and valgrind's client request.
//!
//! A port to another CPU implements the same items in a sibling file;
//! nothing outside `arch/` names a register.

#[cfg(target_arch = "x86_64")]
mod x86_64;
#[cfg(target_arch = "x86_64")]
pub use x86_64::*;

#[cfg(target_arch = "aarch64")]
mod aarch64;
#[cfg(target_arch = "aarch64")]
pub use aarch64::*;

#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
compile_error!("cranewasm's runtime is implemented for x86-64 and aarch64 only (src/runtime/vm/arch)");
