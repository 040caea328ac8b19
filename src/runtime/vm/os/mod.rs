//! What the runtime needs of the operating system beyond POSIX: anonymous
//! files that can be mapped twice (memfd), a wakeable wait (eventfd and
//! ppoll), signalling one thread (tgkill), process-wide fences
//! (membarrier), cross-core instruction synchronisation, zeroing pages
//! for reuse, the bounds of a thread's stack, and timer slack.
//!
//! Every Linux-only call of the runtime is here, so that a port names what
//! it must provide; the rest of the runtime uses portable POSIX through
//! `libc` (mmap, mprotect, sigaction, pthread).

#[cfg(target_os = "linux")]
mod linux;
#[cfg(target_os = "linux")]
pub use linux::*;

// Compiled, not tested (see its header).
#[cfg(target_os = "macos")]
mod macos;
#[cfg(target_os = "macos")]
pub use macos::*;

#[cfg(not(any(target_os = "linux", target_os = "macos")))]
compile_error!("cranewasm's runtime has an OS layer for Linux (and, untested, macOS) only (src/runtime/vm/os)");
