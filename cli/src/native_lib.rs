//! `--native-lib=FILE.so`: natives from a shared library, as WAMR's iwasm
//! loads them. The library exports `get_native_lib(char **module_name,
//! NativeSymbol **symbols)` returning the number of symbols, and may export
//! `init_native_lib` (0 on success) and `deinit_native_lib`. A library that
//! cannot be loaded or registered is skipped with WAMR's warning.

use std::ffi::{c_char, c_int, c_void, CString};

use capi::export::natives::{wasm_runtime_register_natives, wasm_runtime_unregister_natives};
use capi::export::types::NativeSymbol;

type GetNativeLib = unsafe extern "C" fn(*mut *mut c_char, *mut *mut NativeSymbol) -> u32;
type InitNativeLib = unsafe extern "C" fn() -> c_int;
type DeinitNativeLib = unsafe extern "C" fn();

/// A loaded and registered native library.
pub struct NativeLib {
    handle: *mut c_void,
    module_name: *mut c_char,
    symbols: *mut NativeSymbol,
    deinit: Option<DeinitNativeLib>,
}

/// The symbol `name` of the library, if it has one.
fn symbol(handle: *mut c_void, name: &std::ffi::CStr) -> *mut c_void {
    // SAFETY: a handle from dlopen and a NUL-terminated name.
    unsafe { libc::dlsym(handle, name.as_ptr()) }
}

/// The last dlerror message.
fn dl_error() -> String {
    // SAFETY: dlerror returns NULL or a NUL-terminated message.
    let e = unsafe { libc::dlerror() };
    if e.is_null() {
        return String::new();
    }
    // SAFETY: NUL-terminated (above).
    unsafe { std::ffi::CStr::from_ptr(e) }.to_string_lossy().into_owned()
}

/// Loads `path` and registers its natives; `None` (with WAMR's warning) if
/// it cannot be.
pub fn load(path: &str) -> Option<NativeLib> {
    let warn = |m: String| eprintln!("{m}");
    let c = CString::new(path).ok()?;
    // SAFETY: loading a library the user named, as WAMR's iwasm does.
    let mut handle = unsafe { libc::dlopen(c.as_ptr(), libc::RTLD_NOW | libc::RTLD_GLOBAL) };
    if handle.is_null() {
        // SAFETY: as above.
        handle = unsafe { libc::dlopen(c.as_ptr(), libc::RTLD_LAZY) };
    }
    if handle.is_null() {
        warn(format!("warning: failed to load native library {path}. {}", dl_error()));
        return None;
    }
    let close = || {
        // SAFETY: our handle, closed once.
        unsafe { libc::dlclose(handle) };
    };
    let get = symbol(handle, c"get_native_lib");
    if get.is_null() {
        warn(format!("warning: failed to lookup `get_native_lib` function from native lib {path}"));
        close();
        return None;
    }
    // SAFETY: the library's functions have the types WAMR documents.
    let (get, init, deinit) = unsafe {
        (
            std::mem::transmute::<*mut c_void, GetNativeLib>(get),
            std::mem::transmute::<*mut c_void, Option<InitNativeLib>>(symbol(handle, c"init_native_lib")),
            std::mem::transmute::<*mut c_void, Option<DeinitNativeLib>>(symbol(handle, c"deinit_native_lib")),
        )
    };
    if let Some(init) = init {
        // SAFETY: as above.
        let ret = unsafe { init() };
        if ret != 0 {
            warn(format!("warning: `init_native_lib` function from native lib {path} failed with {ret}"));
            close();
            return None;
        }
    }
    let (mut module_name, mut symbols) = (std::ptr::null_mut(), std::ptr::null_mut());
    // SAFETY: as above, with out pointers of ours.
    let n = unsafe { get(&mut module_name, &mut symbols) };
    // SAFETY: the library's name and array, valid while it is loaded.
    let ok = n > 0
        && !module_name.is_null()
        && !symbols.is_null()
        && unsafe { wasm_runtime_register_natives(module_name, symbols, n) };
    if !ok {
        warn(format!("warning: failed to register native lib {path}"));
        if let Some(d) = deinit {
            // SAFETY: as above.
            unsafe { d() };
        }
        close();
        return None;
    }
    Some(NativeLib { handle, module_name, symbols, deinit })
}

impl Drop for NativeLib {
    fn drop(&mut self) {
        // SAFETY: what `load` registered; then the library's own cleanup
        // and close, as WAMR's iwasm does at exit.
        unsafe {
            if !wasm_runtime_unregister_natives(self.module_name, self.symbols) {
                eprintln!("warning: failed to unregister native lib {:p}", self.handle);
                return;
            }
            if let Some(d) = self.deinit {
                d();
            }
            libc::dlclose(self.handle);
        }
    }
}
