//! The macOS implementation of the OS layer (see `os/mod.rs`). It compiles
//! (`cargo check --target aarch64-apple-darwin` and `x86_64-apple-darwin`
//! in the test command) but is not tested: no test runs on macOS.

use std::ffi::CStr;
use std::io;
use std::os::fd::{FromRawFd, OwnedFd, RawFd};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Instant;

fn check(ret: libc::c_int) -> io::Result<libc::c_int> {
    if ret < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(ret)
    }
}

/// A new anonymous file, closed on exec: a POSIX shared memory object
/// unlinked at once (macOS has no memfd), so only its descriptor names it.
pub fn memfd(name: &CStr) -> io::Result<OwnedFd> {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    // SAFETY: getpid has no preconditions.
    let pid = unsafe { libc::getpid() };
    let unique = format!("/{}-{pid}-{}\0", name.to_string_lossy(), NEXT.fetch_add(1, Ordering::Relaxed));
    // PSHMNAMLEN: 31 bytes.
    let unique = &unique[unique.len().saturating_sub(31)..];
    let path = CStr::from_bytes_with_nul(unique.as_bytes()).map_err(io::Error::other)?;
    // SAFETY: plain system calls with a NUL-terminated name.
    let fd = unsafe {
        let fd = check(libc::shm_open(path.as_ptr(), libc::O_RDWR | libc::O_CREAT | libc::O_EXCL, 0o600))?;
        libc::shm_unlink(path.as_ptr());
        libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC);
        fd
    };
    // SAFETY: a fresh descriptor that nothing else owns.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// One `kevent` of the user filter on `fd` (ident 0).
fn user_event(fd: RawFd, flags: u16, fflags: u32) -> libc::c_int {
    // SAFETY: a zeroed kevent is valid; one change, no event list.
    unsafe {
        let mut change: libc::kevent = std::mem::zeroed();
        change.filter = libc::EVFILT_USER;
        change.flags = flags;
        change.fflags = fflags;
        libc::kevent(fd, &change, 1, std::ptr::null_mut(), 0, std::ptr::null())
    }
}

/// A descriptor another thread triggers to wake a [`ppoll`] on it: a
/// kqueue with one user event (macOS has no eventfd), which poll sees as
/// readable while the event is pending.
pub fn event() -> io::Result<OwnedFd> {
    // SAFETY: a plain system call.
    let fd = check(unsafe { libc::kqueue() })?;
    // SAFETY: a fresh descriptor that nothing else owns.
    let owned = unsafe { OwnedFd::from_raw_fd(fd) };
    // SAFETY: our descriptor.
    unsafe { libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC) };
    check(user_event(fd, libc::EV_ADD | libc::EV_CLEAR, 0))?;
    Ok(owned)
}

/// Wakes the waits on event `fd`. Async-signal-safe (one system call).
pub fn event_signal(fd: RawFd) {
    user_event(fd, 0, libc::NOTE_TRIGGER);
}

/// Resets event `fd` after a wake-up: takes the pending event, which
/// `EV_CLEAR` then resets.
pub fn event_clear(fd: RawFd) {
    // SAFETY: room for one event; a zero timeout never blocks.
    unsafe {
        let mut out: libc::kevent = std::mem::zeroed();
        let zero = libc::timespec { tv_sec: 0, tv_nsec: 0 };
        libc::kevent(fd, std::ptr::null(), 0, &mut out, 1, &zero);
    }
}

/// `poll(2)` until `deadline` (none: forever), again after a signal
/// (macOS has no `ppoll`; millisecond resolution).
pub fn ppoll(fds: &mut [libc::pollfd], deadline: Option<Instant>) -> io::Result<usize> {
    loop {
        let left = deadline.map(|d| d.saturating_duration_since(Instant::now()));
        let ms = left.map_or(-1, |d| d.as_millis().min(i32::MAX as u128) as libc::c_int);
        // SAFETY: `fds` is a valid array of its length.
        let n = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, ms) };
        if n >= 0 {
            return Ok(n as usize);
        }
        let err = io::Error::last_os_error();
        if err.kind() != io::ErrorKind::Interrupted {
            return Err(err);
        }
    }
}

/// The calling thread's Mach port, which [`signal_thread`] maps back to
/// its pthread.
pub fn thread_id() -> i32 {
    // SAFETY: plain queries of the calling thread.
    unsafe { libc::pthread_mach_thread_np(libc::pthread_self()) as i32 }
}

/// Sends `signal` to thread `tid` of this process (`pthread_kill`).
pub fn signal_thread(tid: i32, signal: libc::c_int) {
    // SAFETY: a Mach port of a thread of this process maps to its pthread,
    // or to null for a thread that ended.
    unsafe {
        let thread = libc::pthread_from_mach_thread_np(tid as libc::mach_port_t);
        if thread != 0 {
            libc::pthread_kill(thread, signal);
        }
    }
}

/// No process-wide fence here: callers fence on both sides instead.
pub fn register_process_fence() -> bool {
    false
}

/// Never called: [`register_process_fence`] says there is none.
pub fn process_fence() {
    std::sync::atomic::fence(Ordering::SeqCst);
}

/// No cross-core instruction synchronisation call exists on macOS; its
/// kernel's code-signing JIT rules (`MAP_JIT`) are not supported either.
pub fn sync_cores() {}

/// The calling thread's stack, as the C library knows it.
#[derive(Copy, Clone, Debug)]
pub struct ThreadStack {
    /// The lowest address, the guard area included.
    pub low: usize,
    /// Bytes from `low` to the top of the stack.
    pub size: usize,
    /// Bytes of the guard area at `low`.
    pub guard: usize,
}

/// The bounds of the calling thread's stack (its top and size; the guard
/// is below the reported size).
pub fn thread_stack() -> Option<ThreadStack> {
    // SAFETY: plain queries of the calling thread.
    unsafe {
        let me = libc::pthread_self();
        let top = libc::pthread_get_stackaddr_np(me) as usize;
        let size = libc::pthread_get_stacksize_np(me);
        Some(ThreadStack { low: top.checked_sub(size)?, size, guard: 0 })
    }
}

/// Returns the pages of `base..base + len`, part of a private anonymous
/// read+write mapping, so that they read as zero again: macOS's
/// `MADV_DONTNEED` keeps their contents, so the range is mapped anew.
///
/// # Safety
/// Nothing may use the range's contents any more.
pub unsafe fn zero_pages(base: *mut u8, len: usize) -> bool {
    // SAFETY: replaces the caller's range by fresh zero pages, in place.
    unsafe {
        let prot = libc::PROT_READ | libc::PROT_WRITE;
        let flags = libc::MAP_PRIVATE | libc::MAP_ANON | libc::MAP_FIXED;
        libc::mmap(base.cast(), len, prot, flags, -1, 0) == base.cast()
    }
}

/// No timer slack to set on macOS.
pub fn fine_timer_slack() {}

/// Sets the calling thread's `errno`.
pub fn set_errno(e: libc::c_int) {
    // SAFETY: this thread's errno.
    unsafe { *libc::__error() = e };
}

/// The bytes usable in a block of `malloc`'s (Darwin's `malloc_size`).
///
/// # Safety
/// `p` must be null or a live block of this process's `malloc`.
pub unsafe fn malloc_usable_size(p: *mut libc::c_void) -> usize {
    // SAFETY: as the caller promises.
    unsafe { libc::malloc_size(p) }
}

/// Gives the heap's free pages back to the system: nothing to do, since
/// Darwin's allocator returns the free pages of its large blocks itself.
pub fn return_free_heap() {}

/// Consumes `signal` while it is pending for the calling thread, which
/// blocks it (no `sigtimedwait` here: `sigwait` returns at once for a
/// pending signal).
pub fn drain_signal(signal: libc::c_int) {
    // SAFETY: signal-set queries on sets we own; sigwait only runs when
    // the signal is pending, so it does not block.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, signal);
        loop {
            let mut pending: libc::sigset_t = std::mem::zeroed();
            if libc::sigpending(&mut pending) != 0 || libc::sigismember(&pending, signal) != 1 {
                return;
            }
            let mut got = 0;
            libc::sigwait(&set, &mut got);
        }
    }
}
