//! Functions WAMR's `libiwasm` exports that its headers do not declare,
//! and that WAMR's own clients link all the same: its Go binding declares
//! `bh_log_set_verbose_level` itself, `product-mini`'s `iwasm` main calls
//! its platform layer (`os_mmap`, `os_thread_create`, ...) and logging
//! (`bh_log`, through `LOG_WARNING`), the `native-stack-overflow` sample
//! asks for `os_thread_get_stack_boundary`. Each behaves as WAMR's (on
//! Linux, x86-64). They stay out of the generated headers, as they are out
//! of WAMR's; `capi/README.md` ("Functions outside the headers") lists
//! them with the clients that link them, and the ones left out with why.
//!
//! The C types are WAMR's: `korp_tid` is a `pthread_t`, `os_file_handle`
//! an `int`, `thread_start_routine_t` a `void *(*)(void *)`.

use std::ffi::{c_char, c_int, c_void};

use cranewasm::__sys::VaArgs;

/// WAMR's `BHT_OK` and `BHT_ERROR`.
const BHT_OK: c_int = 0;
const BHT_ERROR: c_int = -1;
/// WAMR's `MMAP_PROT_*` and `MMAP_MAP_*` flags of `os_mmap`.
const MMAP_PROT_READ: c_int = 1;
const MMAP_PROT_WRITE: c_int = 2;
const MMAP_PROT_EXEC: c_int = 4;
#[cfg_attr(not(all(target_os = "linux", target_arch = "x86_64")), allow(dead_code))]
const MMAP_MAP_32BIT: c_int = 1;
const MMAP_MAP_FIXED: c_int = 2;

/// Sets the level of the library's diagnostics, the one
/// `wasm_runtime_set_log_level` sets ([`crate::diag`]): 0 silences the
/// library, 2 (warnings) is the default, 4 and above show everything.
#[unsafe(no_mangle)]
pub extern "C" fn bh_log_set_verbose_level(level: u32) {
    crate::diag::set_level(level);
}

cranewasm::__sys::c_variadic_entry! {
    /// `bh_log(LogLevel level, const char *file, int line, const char *fmt,
    /// ...)`, what WAMR's `LOG_ERROR`, `LOG_WARNING` and friends call: when
    /// `level` is within the verbose level, prints `[HH:MM:SS:mmm - THREAD]: `,
    /// `FILE, line N, ` if `file` is not NULL, the formatted message and a
    /// newline on stdout, as WAMR does.
    ///
    /// Rust cannot define a variadic function, so this is a stub from the
    /// core's `arch` layer that saves the argument registers and hands them
    /// to [`bh_log_saved`], which passes the variable ones on to the C
    /// library's `vprintf` as a `va_list`.
    ///
    /// # Safety
    /// `file` NULL or NUL-terminated; `fmt` a `printf` format matching the
    /// arguments passed.
    pub fn bh_log => bh_log_saved
}

/// [`bh_log`] once its arguments are saved: four fixed ones, then what
/// `fmt` asks for.
///
/// # Safety
/// Called by the stub only, with what the client passed.
unsafe extern "C" fn bh_log_saved(regs: *const u64, stack: *const u64) -> bool {
    // The C library's.
    unsafe extern "C" {
        fn vprintf(format: *const c_char, ap: *mut c_void) -> c_int;
    }
    // SAFETY: the stub's saved arguments, four of them fixed.
    let va = unsafe { VaArgs::new(regs, stack, 4) };
    // SAFETY: the client passed the four fixed arguments.
    let (level, file, line, fmt) = unsafe {
        (va.fixed(0) as u32, va.fixed(1) as *const c_char, va.fixed(2) as c_int, va.fixed(3) as *const c_char)
    };
    if !crate::diag::enabled(level) || fmt.is_null() {
        return false;
    }
    let t = os_time_get_boot_us();
    let secs = (t / 1_000_000) % (24 * 60 * 60);
    let (h, m, s, ms) = (secs / 3600, secs % 3600 / 60, secs % 60, t % 1_000_000 / 1000);
    // SAFETY: C's printf with formats matching their arguments; `file` and
    // `fmt` as the caller promises, the va_list over what it passed.
    unsafe {
        libc::printf(
            c"[%02u:%02u:%02u:%03u - %lX]: ".as_ptr(),
            h as u32,
            m as u32,
            s as u32,
            ms as u32,
            libc::pthread_self() as u64,
        );
        if !file.is_null() {
            libc::printf(c"%s, line %d, ".as_ptr(), file, line);
        }
        va.with_va_list(|ap| vprintf(fmt, ap));
        libc::printf(c"\n".as_ptr());
    }
    true
}

/// WAMR's `b_memcpy_s` (what its `bh_memcpy_s` macro calls): copies `n`
/// bytes into a buffer of `s1max`; -1 without copying for a NULL
/// destination, -1 after zeroing the destination for a NULL source or a
/// copy that does not fit; 0 otherwise (a copy of 0 bytes always).
///
/// # Safety
/// `s1` NULL or writable for `s1max` bytes; `s2` NULL or readable for `n`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn b_memcpy_s(s1: *mut c_void, s1max: u32, s2: *const c_void, n: u32) -> c_int {
    if n == 0 {
        return 0;
    }
    if s1.is_null() {
        return -1;
    }
    if s2.is_null() || n > s1max {
        // SAFETY: `s1max` writable bytes (caller).
        unsafe { std::ptr::write_bytes(s1.cast::<u8>(), 0, s1max as usize) };
        return -1;
    }
    // SAFETY: `n <= s1max` bytes each way (caller); memcpy's contract.
    unsafe { libc::memcpy(s1, s2, n as usize) };
    0
}

/// WAMR's `os_mmap`: `size` rounded up to whole pages of private
/// anonymous memory (`file` is passed to mmap as WAMR does, and ignored
/// for anonymous memory), with `prot`'s `MMAP_PROT_*` rights and the
/// `MMAP_MAP_32BIT` / `MMAP_MAP_FIXED` flags, at `hint` if possible;
/// retried on `EAGAIN`/`ENOMEM` up to five times. NULL, with WAMR's line
/// on stdout, on failure. (WAMR maps requests over 2 MiB one huge page
/// larger to align them for transparent huge pages; this does not.)
///
/// # Safety
/// `hint` is passed to mmap: with `MMAP_MAP_FIXED`, whatever is mapped
/// there is replaced, as with mmap.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn os_mmap(
    hint: *mut c_void,
    size: usize,
    prot: c_int,
    flags: c_int,
    file: c_int,
) -> *mut c_void {
    let page = page_size();
    let Some(request) = size.checked_add(page - 1).map(|s| s & !(page - 1)) else {
        c_line("mmap failed: request size overflow due to paging\n");
        return std::ptr::null_mut();
    };
    if request as u64 > 16 * u64::from(u32::MAX) {
        c_line("mmap failed: for memory64 at most 64G is allowed\n");
        return std::ptr::null_mut();
    }
    let mut map_prot = libc::PROT_NONE;
    for (ours, theirs) in
        [(MMAP_PROT_READ, libc::PROT_READ), (MMAP_PROT_WRITE, libc::PROT_WRITE), (MMAP_PROT_EXEC, libc::PROT_EXEC)]
    {
        if prot & ours != 0 {
            map_prot |= theirs;
        }
    }
    let mut map_flags = libc::MAP_ANONYMOUS | libc::MAP_PRIVATE;
    // As WAMR: only x86-64 Linux has MAP_32BIT; elsewhere it is ignored.
    #[cfg(all(target_os = "linux", target_arch = "x86_64"))]
    if flags & MMAP_MAP_32BIT != 0 {
        map_flags |= libc::MAP_32BIT;
    }
    if flags & MMAP_MAP_FIXED != 0 {
        map_flags |= libc::MAP_FIXED;
    }
    let mut tries = 0;
    loop {
        // SAFETY: an anonymous mapping; `hint` as the caller promises.
        let p = unsafe { libc::mmap(hint, request, map_prot, map_flags, file, 0) };
        if p != libc::MAP_FAILED {
            return p;
        }
        let errno = std::io::Error::last_os_error().raw_os_error().unwrap_or(0);
        if errno == libc::EINTR {
            continue;
        }
        tries += 1;
        if (errno != libc::EAGAIN && errno != libc::ENOMEM) || tries == 5 {
            let line = format!(
                "mmap failed with errno: {errno}, hint: {hint:p}, size: {request}, prot: {map_prot}, flags: {map_flags}\n"
            );
            c_line(&line);
            return std::ptr::null_mut();
        }
    }
}

/// WAMR's `os_munmap`: unmaps `size` rounded up to whole pages at `addr`
/// (NULL: nothing); a failure is reported on stdout, as WAMR does.
///
/// # Safety
/// The range must be a mapping the caller owns (from `os_mmap`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn os_munmap(addr: *mut c_void, size: usize) {
    if addr.is_null() {
        return;
    }
    let page = page_size();
    let request = size.saturating_add(page - 1) & !(page - 1);
    // SAFETY: the caller's mapping.
    if unsafe { libc::munmap(addr, request) } != 0 {
        let errno = std::io::Error::last_os_error().raw_os_error().unwrap_or(0);
        c_line(&format!("os_munmap error addr:{addr:p}, size:0x{request:x}, errno:{errno}\n"));
    }
}

/// What `os_thread_create` hands its new thread.
struct Start {
    start: unsafe extern "C" fn(*mut c_void) -> *mut c_void,
    arg: *mut c_void,
}

/// The body of a thread of `os_thread_create`: as WAMR's wrapper, it
/// initialises the thread's environment (so it may call into wasm), runs
/// the routine and returns NULL whatever it returned.
extern "C" fn thread_body(p: *mut c_void) -> *mut c_void {
    // SAFETY: the box `os_thread_create` leaked for this thread.
    let Start { start, arg } = *unsafe { Box::from_raw(p.cast::<Start>()) };
    crate::export::threads::mark_thread_inited();
    // SAFETY: the client's routine, called as its type says.
    unsafe { start(arg) };
    std::ptr::null_mut()
}

/// WAMR's `os_thread_create`: a joinable thread of `stack_size` bytes of
/// stack running `start(arg)`, with its environment initialised; its id
/// in `*tid`. 0, or -1 (WAMR's line on stdout for a stack size the system
/// refuses).
///
/// # Safety
/// `tid` writable; `start` callable from another thread with `arg`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn os_thread_create(
    tid: *mut libc::pthread_t,
    start: Option<unsafe extern "C" fn(*mut c_void) -> *mut c_void>,
    arg: *mut c_void,
    stack_size: u32,
) -> c_int {
    let Some(start) = start else { return BHT_ERROR };
    if tid.is_null() || stack_size == 0 {
        return BHT_ERROR;
    }
    // SAFETY: attribute calls on a local attribute object, destroyed
    // below; the thread gets a leaked box it takes back.
    unsafe {
        let mut attr: libc::pthread_attr_t = std::mem::zeroed();
        libc::pthread_attr_init(&mut attr);
        libc::pthread_attr_setdetachstate(&mut attr, libc::PTHREAD_CREATE_JOINABLE);
        if libc::pthread_attr_setstacksize(&mut attr, stack_size as usize) != 0 {
            c_line(&format!(
                "Invalid thread stack size {stack_size}. Min stack size on Linux = {}\n",
                libc::PTHREAD_STACK_MIN
            ));
            libc::pthread_attr_destroy(&mut attr);
            return BHT_ERROR;
        }
        let start = Box::into_raw(Box::new(Start { start, arg })).cast::<c_void>();
        let ok = libc::pthread_create(tid, &attr, thread_body, start) == 0;
        libc::pthread_attr_destroy(&mut attr);
        if !ok {
            drop(Box::from_raw(start.cast::<Start>()));
            return BHT_ERROR;
        }
    }
    BHT_OK
}

/// WAMR's `os_thread_join`: `pthread_join`'s result (0 on success); the
/// value stored is NULL for threads of `os_thread_create`.
///
/// # Safety
/// `tid` a joinable thread not joined yet; `value` NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn os_thread_join(tid: libc::pthread_t, value: *mut *mut c_void) -> c_int {
    // SAFETY: as the caller promises.
    unsafe { libc::pthread_join(tid, value) }
}

/// WAMR's `os_usleep`: sleeps `usec` microseconds; 0, or -1 if
/// interrupted.
#[unsafe(no_mangle)]
pub extern "C" fn os_usleep(usec: u32) -> c_int {
    let ts = libc::timespec { tv_sec: (usec / 1_000_000) as libc::time_t, tv_nsec: (usec % 1_000_000 * 1000) as _ };
    // SAFETY: a request of ours, no remainder wanted.
    if unsafe { libc::nanosleep(&ts, std::ptr::null_mut()) } == 0 { 0 } else { -1 }
}

/// WAMR's `os_time_get_boot_us`: microseconds on the monotonic clock (0
/// if it cannot be read).
#[unsafe(no_mangle)]
pub extern "C" fn os_time_get_boot_us() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: writes the local.
    if unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) } != 0 {
        return 0;
    }
    ts.tv_sec as u64 * 1_000_000 + ts.tv_nsec as u64 / 1000
}

/// WAMR's `os_thread_get_stack_boundary`: the lowest address of the
/// calling thread's stack that code may use, as WAMR computes it (see
/// [`stack_boundary`](crate::export::threads::stack_boundary)); its
/// guard pages and margins lie above it.
#[unsafe(no_mangle)]
pub extern "C" fn os_thread_get_stack_boundary() -> *mut u8 {
    crate::export::threads::stack_boundary() as *mut u8
}

/// The system's page size.
fn page_size() -> usize {
    // SAFETY: a plain query.
    (unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).max(4096) as usize
}

/// A line on C's stdout, where WAMR's `os_printf` writes.
fn c_line(s: &str) {
    crate::export::c_print(s.as_bytes());
}
