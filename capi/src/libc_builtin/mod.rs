//! WAMR's builtin libc (`libc-builtin`, on in WAMR's default build): the C
//! library functions that modules built against WAMR's
//! `libc-builtin-sysroot` import from `env` — `printf` and its family over
//! wasm `va_list`s ([`printf`]), the string and memory functions
//! ([`string`]), allocation, conversions, `ctype`, exits and clocks
//! ([`stdlib`]), WAMR's lib-pthread ([`pthread`]) — and the globals `global.NaN` and `global.Infinity`.
//!
//! They are natives like any other ([`crate::export::natives`]), with
//! WAMR's signature strings, so their pointer arguments are checked
//! against the calling instance's memory before they run, and they check
//! the rest as WAMR's do (a destination's length, a `va_list`'s end). An
//! import resolves to one of them only when no registered native has its
//! name. A failed check sets WAMR's exception, which makes the call trap.

use std::ffi::{CStr, c_void};
use std::sync::OnceLock;

use crate::core::natives::Native;
use crate::export::instance::{ModuleInst, inst};
use crate::export::types::*;

pub mod printf;
pub mod pthread;
pub mod stdlib;
pub mod string;

/// WAMR's table: name, function, signature.
fn table() -> &'static [Native] {
    static TABLE: OnceLock<Vec<Native>> = OnceLock::new();
    TABLE.get_or_init(|| {
        use printf::*;
        use pthread::*;
        use stdlib::*;
        use string::*;
        let f = |name: &str, func: *const (), sig: &CStr| Native {
            module: "env".into(),
            name: name.into(),
            func: func as usize,
            signature: Some(sig.to_owned()),
            attachment: 0,
            raw: false,
        };
        let mut t = vec![
            f("printf", printf_wrapper as *const (), c"($*)i"),
            f("sprintf", sprintf_wrapper as *const (), c"($$*)i"),
            f("snprintf", snprintf_wrapper as *const (), c"(*~$*)i"),
            f("vprintf", printf_wrapper as *const (), c"($*)i"),
            f("vsprintf", sprintf_wrapper as *const (), c"($$*)i"),
            f("vsnprintf", snprintf_wrapper as *const (), c"(*~$*)i"),
            f("puts", puts_wrapper as *const (), c"($)i"),
            f("putchar", putchar_wrapper as *const (), c"(i)i"),
            f("memcmp", memcmp_wrapper as *const (), c"(**~)i"),
            f("memcpy", memcpy_wrapper as *const (), c"(**~)i"),
            f("memmove", memmove_wrapper as *const (), c"(**~)i"),
            f("memset", memset_wrapper as *const (), c"(*ii)i"),
            f("strchr", strchr_wrapper as *const (), c"($i)i"),
            f("strcmp", strcmp_wrapper as *const (), c"($$)i"),
            f("strcpy", strcpy_wrapper as *const (), c"(*$)i"),
            f("strlen", strlen_wrapper as *const (), c"($)i"),
            f("strncmp", strncmp_wrapper as *const (), c"(**~)i"),
            f("strncpy", strncpy_wrapper as *const (), c"(**~)i"),
            f("malloc", malloc_wrapper as *const (), c"(i)i"),
            f("realloc", realloc_wrapper as *const (), c"(ii)i"),
            f("calloc", calloc_wrapper as *const (), c"(ii)i"),
            f("strdup", strdup_wrapper as *const (), c"($)i"),
            // clang may introduce __strdup
            f("_strdup", strdup_wrapper as *const (), c"($)i"),
            f("free", free_wrapper as *const (), c"(*)"),
            f("atoi", atoi_wrapper as *const (), c"($)i"),
            f("exit", exit_wrapper as *const (), c"(i)"),
            f("strtol", strtol_wrapper as *const (), c"($*i)i"),
            f("strtoul", strtoul_wrapper as *const (), c"($*i)i"),
            f("memchr", memchr_wrapper as *const (), c"(*ii)i"),
            f("strncasecmp", strncasecmp_wrapper as *const (), c"($$i)i"),
            f("strspn", strspn_wrapper as *const (), c"($$)i"),
            f("strcspn", strcspn_wrapper as *const (), c"($$)i"),
            f("strstr", strstr_wrapper as *const (), c"($$)i"),
            f("isupper", isupper_wrapper as *const (), c"(i)i"),
            f("isalpha", isalpha_wrapper as *const (), c"(i)i"),
            f("isspace", isspace_wrapper as *const (), c"(i)i"),
            f("isgraph", isgraph_wrapper as *const (), c"(i)i"),
            f("isprint", isprint_wrapper as *const (), c"(i)i"),
            f("isdigit", isdigit_wrapper as *const (), c"(i)i"),
            f("isxdigit", isxdigit_wrapper as *const (), c"(i)i"),
            f("tolower", tolower_wrapper as *const (), c"(i)i"),
            f("toupper", toupper_wrapper as *const (), c"(i)i"),
            f("isalnum", isalnum_wrapper as *const (), c"(i)i"),
            f("emscripten_memcpy_big", memcpy_wrapper as *const (), c"(**~)i"),
            f("abort", abort_wrapper as *const (), c"(i)"),
            f("abortStackOverflow", abort_stack_overflow_wrapper as *const (), c"(i)"),
            f("nullFunc_X", null_func_x_wrapper as *const (), c"(i)"),
            f("__cxa_allocate_exception", cxa_allocate_exception_wrapper as *const (), c"(i)i"),
            f("__cxa_begin_catch", cxa_begin_catch_wrapper as *const (), c"(*)"),
            f("__cxa_throw", cxa_throw_wrapper as *const (), c"(**i)"),
            f("clock_gettime", clock_gettime_wrapper as *const (), c"(i*)i"),
            f("clock", clock_wrapper as *const (), c"()I"),
            f("pthread_create", pthread_create_wrapper as *const (), c"(**ii)i"),
            f("pthread_join", pthread_join_wrapper as *const (), c"(ii)i"),
            f("pthread_detach", pthread_detach_wrapper as *const (), c"(i)i"),
            f("pthread_self", pthread_self_wrapper as *const (), c"()i"),
            f("__pthread_self", pthread_self_wrapper as *const (), c"()i"),
            f("pthread_mutex_init", pthread_mutex_init_wrapper as *const (), c"(**)i"),
            f("pthread_mutex_lock", pthread_mutex_lock_wrapper as *const (), c"(*)i"),
            f("pthread_mutex_unlock", pthread_mutex_unlock_wrapper as *const (), c"(*)i"),
            f("pthread_mutex_destroy", pthread_mutex_destroy_wrapper as *const (), c"(*)i"),
            f("pthread_cond_init", pthread_cond_init_wrapper as *const (), c"(**)i"),
            f("pthread_cond_wait", pthread_cond_wait_wrapper as *const (), c"(**)i"),
            f("pthread_cond_signal", pthread_cond_signal_wrapper as *const (), c"(*)i"),
            f("pthread_cond_broadcast", pthread_cond_signal_wrapper as *const (), c"(*)i"),
            f("pthread_cond_destroy", pthread_cond_destroy_wrapper as *const (), c"(*)i"),
            f("sem_open", sem_open_wrapper as *const (), c"($iii)i"),
            f("sem_close", sem_close_wrapper as *const (), c"(i)i"),
            f("sem_wait", sem_wait_wrapper as *const (), c"(i)i"),
            f("sem_trywait", sem_trywait_wrapper as *const (), c"(i)i"),
            f("sem_post", sem_post_wrapper as *const (), c"(i)i"),
            f("sem_getvalue", sem_getvalue_wrapper as *const (), c"(i*)i"),
            f("sem_unlink", sem_unlink_wrapper as *const (), c"($)i"),
        ];
        t.sort_by(|a, b| a.name.cmp(&b.name));
        t
    })
}

/// The builtin native `(module, name)`, if there is one.
pub fn find(module: &str, name: &str) -> Option<Native> {
    if module != "env" {
        return None;
    }
    let t = table();
    t.binary_search_by(|n| n.name.as_str().cmp(name)).ok().map(|i| t[i].clone())
}

/// The value of the builtin global `(module, name)`: WAMR's
/// `global.NaN` and `global.Infinity` (f64 constants).
pub fn global(module: &str, name: &str) -> Option<f64> {
    match (module, name) {
        ("global", "NaN") => Some(f64::from_bits(0x7FF8000000000000)),
        ("global", "Infinity") => Some(f64::INFINITY),
        _ => None,
    }
}

/// The instance a builtin native runs for.
fn instance<'a>(exec_env: wasm_exec_env_t) -> Option<&'a ModuleInst> {
    // SAFETY: a native's exec env is live while it runs.
    let h = unsafe { crate::export::exec_env::wasm_runtime_get_module_inst(exec_env) };
    // SAFETY: a handle, checked.
    unsafe { inst(h) }
}

/// A native pointer as `*mut c_void`, for the comparisons of checks.
fn addr(p: *const u8) -> *mut c_void {
    p.cast_mut().cast()
}
