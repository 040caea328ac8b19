//! The Linux implementation of the OS layer (see `os/mod.rs`).

use std::ffi::CStr;
use std::io;
use std::os::fd::{FromRawFd, OwnedFd, RawFd};
use std::time::Instant;

/// A new anonymous file (`memfd_create`), closed on exec: memory that can
/// be mapped more than once (a lazy module's code, mapped executable and
/// writable) or copy-on-write (a memory image).
pub fn memfd(name: &CStr) -> io::Result<OwnedFd> {
    // SAFETY: a plain system call with a NUL-terminated name.
    let fd = unsafe { libc::memfd_create(name.as_ptr(), libc::MFD_CLOEXEC) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: a fresh descriptor that nothing else owns.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// A counter another thread writes to wake a [`ppoll`] on it (`eventfd`),
/// non-blocking and closed on exec.
pub fn event() -> io::Result<OwnedFd> {
    // SAFETY: a plain system call.
    let fd = unsafe { libc::eventfd(0, libc::EFD_CLOEXEC | libc::EFD_NONBLOCK) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: a fresh descriptor that nothing else owns.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// Wakes the waits on event `fd`. Async-signal-safe.
pub fn event_signal(fd: RawFd) {
    // SAFETY: writing 8 bytes to an eventfd is its protocol; a closed fd
    // fails harmlessly.
    unsafe { libc::write(fd, (&1u64 as *const u64).cast(), 8) };
}

/// Resets event `fd` after a wake-up.
pub fn event_clear(fd: RawFd) {
    let mut count = 0u64;
    // SAFETY: reads 8 bytes into `count`; non-blocking.
    unsafe { libc::read(fd, (&mut count as *mut u64).cast(), 8) };
}

/// `ppoll(2)` until `deadline` (none: forever), again after a signal.
pub fn ppoll(fds: &mut [libc::pollfd], deadline: Option<Instant>) -> io::Result<usize> {
    loop {
        let left = deadline.map(|d| d.saturating_duration_since(Instant::now()));
        let spec = left.map(|d| libc::timespec { tv_sec: d.as_secs() as libc::time_t, tv_nsec: d.subsec_nanos() as _ });
        let spec_ptr = spec.as_ref().map_or(std::ptr::null(), |s| s as *const libc::timespec);
        // SAFETY: `fds` is a valid array of its length, and the timespec
        // (or null) lives across the call.
        let n = unsafe { libc::ppoll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, spec_ptr, std::ptr::null()) };
        if n >= 0 {
            return Ok(n as usize);
        }
        let err = io::Error::last_os_error();
        if err.kind() != io::ErrorKind::Interrupted {
            return Err(err);
        }
    }
}

/// The kernel's id of the calling thread.
pub fn thread_id() -> i32 {
    // SAFETY: gettid has no preconditions.
    unsafe { libc::gettid() }
}

/// Sends `signal` to thread `tid` of this process. A stale id fails, or
/// reaches a thread of this process that the caller's protocol tolerates.
pub fn signal_thread(tid: i32, signal: libc::c_int) {
    static PID: std::sync::OnceLock<libc::pid_t> = std::sync::OnceLock::new();
    // SAFETY: getpid has no preconditions.
    let pid = *PID.get_or_init(|| unsafe { libc::getpid() });
    // SAFETY: a plain system call.
    unsafe { libc::syscall(libc::SYS_tgkill, pid, tid, signal) };
}

const MEMBARRIER_CMD_PRIVATE_EXPEDITED: libc::c_int = 1 << 3;
const MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED: libc::c_int = 1 << 4;

/// Registers the process for [`process_fence`]; false where the kernel
/// (or valgrind) has no expedited `membarrier`.
pub fn register_process_fence() -> bool {
    // SAFETY: a plain system call.
    unsafe { libc::syscall(libc::SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0 }
}

/// Makes every running thread of the process execute a full fence
/// (after [`register_process_fence`] succeeded).
pub fn process_fence() {
    // SAFETY: a plain system call.
    unsafe { libc::syscall(libc::SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) };
}

const MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE: libc::c_int = 1 << 5;
const MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE: libc::c_int = 1 << 6;

/// Makes every running thread of the process pass a context
/// synchronisation event (on aarch64, the `isb` that discards
/// instructions it fetched before new code was flushed to the point of
/// unification), as code publishing needs on CPUs whose instruction fetch
/// is not coherent with stores. A thread that is not running passes one
/// when it is next scheduled. Without the command (kernels before 4.16,
/// valgrind) nothing is done: code is then only ever written to addresses
/// no thread has run since they were last flushed, so no core holds stale
/// instructions of them, which the architecture does not promise but
/// every implementation gives.
pub fn sync_cores() {
    static REGISTERED: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    // SAFETY: plain system calls.
    let registered = *REGISTERED.get_or_init(|| unsafe {
        libc::syscall(libc::SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE, 0, 0) == 0
    });
    if registered {
        // SAFETY: a plain system call, registered for above.
        unsafe { libc::syscall(libc::SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE, 0, 0) };
    }
}

/// The calling thread's stack: its lowest address, its size and the size
/// of the guard area at its low end (which the lowest address includes).
#[derive(Copy, Clone, Debug)]
pub struct ThreadStack {
    /// The lowest address, the guard area included.
    pub low: usize,
    /// Bytes from `low` to the top of the stack.
    pub size: usize,
    /// Bytes of the guard area at `low`.
    pub guard: usize,
}

/// The bounds of the calling thread's stack, as the C library knows them.
pub fn thread_stack() -> Option<ThreadStack> {
    // SAFETY: plain libc queries on the current thread with owned storage.
    unsafe {
        let mut attr: libc::pthread_attr_t = std::mem::zeroed();
        if libc::pthread_getattr_np(libc::pthread_self(), &mut attr) != 0 {
            return None;
        }
        let mut addr = std::ptr::null_mut();
        let mut size = 0;
        let ok = libc::pthread_attr_getstack(&attr, &mut addr, &mut size) == 0;
        let mut guard = 0;
        libc::pthread_attr_getguardsize(&attr, &mut guard);
        libc::pthread_attr_destroy(&mut attr);
        ok.then_some(ThreadStack { low: addr as usize, size, guard })
    }
}

/// Returns the pages of `base..base + len`, part of a private anonymous
/// read+write mapping, to the kernel, so that they read as zero again;
/// false if it refused.
///
/// # Safety
/// Nothing may use the range's contents any more.
pub unsafe fn zero_pages(base: *mut u8, len: usize) -> bool {
    // SAFETY: the caller's range; MADV_DONTNEED makes a private anonymous
    // mapping's pages read as zero, as a fresh mapping's would.
    unsafe { libc::madvise(base.cast(), len, libc::MADV_DONTNEED) == 0 }
}

/// Asks for the finest timer slack for the calling thread's sleeps (1 ns;
/// the default, 50 us, stretches short sleeps). Failing leaves the default.
pub fn fine_timer_slack() {
    // SAFETY: a plain prctl on this thread.
    unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong) };
}

/// Sets the calling thread's `errno`.
pub fn set_errno(e: libc::c_int) {
    // SAFETY: this thread's errno.
    unsafe { *libc::__errno_location() = e };
}

/// The bytes usable in a block of `malloc`'s (glibc's `malloc_usable_size`).
///
/// # Safety
/// `p` must be null or a live block of this process's `malloc`.
pub unsafe fn malloc_usable_size(p: *mut libc::c_void) -> usize {
    // SAFETY: as the caller promises.
    unsafe { libc::malloc_usable_size(p) }
}

/// Gives the heap's free pages back to the system. A parallel compile
/// frees its IR in the worker threads' arenas, and glibc keeps what a
/// thread's arena freed until that arena is used again, so without this a
/// program run after compiling a large module carries the compiler's peak
/// in its resident memory (Lua: 5 MB).
pub fn return_free_heap() {
    // SAFETY: malloc_trim only walks glibc's own arenas, under their locks.
    unsafe { libc::malloc_trim(0) };
}

/// Consumes `signal` while it is pending for the calling thread, which
/// blocks it.
pub fn drain_signal(signal: libc::c_int) {
    // SAFETY: sigtimedwait with a zero timeout on a set we own.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, signal);
        let zero = libc::timespec { tv_sec: 0, tv_nsec: 0 };
        while libc::sigtimedwait(&set, std::ptr::null_mut(), &zero) == signal {}
    }
}
