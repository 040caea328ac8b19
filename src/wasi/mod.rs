//! WASI preview 1 (`wasi_snapshot_preview1`): what programs built with
//! wasi-libc, wasi-sdk or Rust's `wasm32-wasip1` import.
//!
//! A [`WasiCtx`] (built by [`WasiCtxBuilder`]) holds one guest's arguments,
//! environment, stdio and the directories it may see; it lives in the
//! store's data. [`Linker::define_wasi`] defines the 46 functions, and
//! the 48 more of WAMR's socket extension (`sock`), each a plain host
//! function going through the same exit trampoline as any other, and [`start`] runs a command's `_start` (or a reactor's
//! `_initialize`) and turns `proc_exit(n)` into the exit status `n`.
//!
//! ```
//! use cranewasm::{wasi::{self, WasiCtx, WritePipe}, Engine, Linker, Module, Store};
//! let engine = Engine::default();
//! let module = Module::new(&engine, r#"(module
//!     (import "wasi_snapshot_preview1" "fd_write" (func $w (param i32 i32 i32 i32) (result i32)))
//!     (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
//!     (memory (export "memory") 1)
//!     (data (i32.const 8) "\10\00\00\00\03\00\00\00hi\n")
//!     (func (export "_start") (drop (call $w (i32.const 1) (i32.const 8) (i32.const 1) (i32.const 0)))
//!         (call $exit (i32.const 7))))"#)?;
//! let out = WritePipe::new();
//! let mut store = Store::new(&engine, WasiCtx::builder().stdout(out.clone()).build()?);
//! let mut linker = Linker::new(&engine);
//! linker.define_wasi(&mut store, |ctx: &mut WasiCtx| ctx)?;
//! let instance = linker.instantiate(&mut store, &module)?;
//! assert_eq!(wasi::start(&mut store, &instance)?, 7);
//! assert_eq!(out.contents(), b"hi\n");
//! # Ok::<(), cranewasm::Error>(())
//! ```
//!
//! One file per area: `args_env`, `clocks`, `random`, `fd`, `path`,
//! `poll`, `proc`, `sock` (each function as the WASI specification
//! describes it); the numbers in [`types`], guest memory access in `guest`,
//! the context in `ctx`, pipes in `pipe`; wasi-threads (`thread-spawn`)
//! in [`threads`].

mod args_env;
mod clocks;
mod ctx;
mod fd;
mod guest;
mod path;
mod pipe;
mod poll;
mod proc;
mod random;
mod sock;
pub mod threads;
pub mod types;

pub use ctx::{WasiCtx, WasiCtxBuilder};
use guest::GuestMemory;
pub use pipe::{ReadPipe, WritePipe};
pub use sock::{AddrPoolEntry, AddrPoolError};
pub use types::{Errno, WasiResult};

use crate::environ::error::{Error, Result};
use crate::environ::types::{FuncType, ValType};
use crate::environ::val_raw::ValRaw;
use crate::runtime::caller::Caller;
use crate::runtime::func::Func;
use crate::runtime::instance::Instance;
use crate::runtime::linker::Linker;
use crate::runtime::module::Module;
use crate::runtime::store::{AsContext, AsContextMut, StoreContextMut};
use crate::runtime::typed::WasmTy;
use crate::runtime::vm::blocking::HostCall;
use crate::runtime::vm::interrupt::InterruptState;

/// The module name WASI preview 1 functions are imported from.
pub const MODULE: &str = "wasi_snapshot_preview1";

/// Runs `f` on the guest's WASI context and memory, giving the errno to
/// return. The memory is the calling instance's memory 0 — the one WASI
/// programs export as `memory`, or import when they share it — reached
/// without a name lookup (which cost more than the rest of `clock_time_get`);
/// an instance without memory gets an empty one, so every pointer is
/// `EFAULT`.
fn with_ctx<T>(
    caller: &mut Caller<'_, T>,
    view: &impl Fn(&mut T) -> &mut WasiCtx,
    f: impl FnOnce(&mut WasiCtx, &mut GuestMemory<'_>) -> WasiResult,
) -> Errno {
    // A wait in `f` is for this store, which a stop may end
    // (`vm::blocking`), when it can be stopped at all.
    let interrupt = caller.as_context().opaque().interrupt.as_deref().map(|s| s as *const InterruptState);
    // SAFETY: the store keeps its interruption state as long as it lives,
    // which is beyond this host call.
    let _blocking = interrupt.map(|s| HostCall::enter(unsafe { &*s }));
    let memory = caller.default_memory();
    let mut none: [u8; 0] = [];
    let (data, bytes) = match &memory {
        Some(m) => caller.data_and_memory_mut(m),
        None => (caller.data_mut(), &mut none[..]),
    };
    match f(view(data), &mut GuestMemory::new(bytes)) {
        Ok(()) => Errno::Success,
        Err(e) => e,
    }
}

macro_rules! wasi_functions {
    ($($name:ident => $area:ident ($($arg:ident: $t:ty),*);)*) => {
        /// Number of functions [`Linker::define_wasi`] defines.
        pub const FUNCTION_COUNT: usize = 1 + [$(stringify!($name)),*].len();

        /// The type of WASI preview 1's function `name`, if it has one
        /// ([`Linker::define_wasi`] defines them all): what an embedder
        /// resolving imports itself checks an import against.
        pub fn function_type(name: &str) -> Option<FuncType> {
            match name {
                $(stringify!($name) => Some(FuncType::new([$(<$t as WasmTy>::TYPE),*], [ValType::I32])),)*
                "proc_exit" => Some(FuncType::new([ValType::I32], [])),
                _ => None,
            }
        }

        /// Defines the functions `wanted` names. One store type (not any
        /// `AsContextMut`), so that this long function is compiled once per
        /// store data type rather than once per caller's kind of store.
        fn define_all<T: 'static, V>(
            linker: &mut Linker<T>,
            mut store: StoreContextMut<'_, T>,
            view: V,
            wanted: &dyn Fn(&str) -> bool,
        ) -> Result<()>
        where
            V: Fn(&mut T) -> &mut WasiCtx + Copy + Send + Sync + 'static,
        {
            $(if wanted(stringify!($name)) {
                let ty = FuncType::new([$(<$t as WasmTy>::TYPE),*], [ValType::I32]);
                let f = Func::new_raw(store.as_context_mut(), ty, move |mut caller: Caller<'_, T>, slots: &mut [ValRaw]| {
                    #[allow(unused_mut, unused_variables, unused_assignments)]
                    let mut i = 0;
                    $(let $arg = <$t as WasmTy>::from_raw(&slots[i]);
                    #[allow(unused_assignments)]
                    { i += 1; })*
                    let errno = with_ctx(&mut caller, &view, |cx, mem| $area::$name(cx, mem, $($arg),*));
                    slots[0] = ValRaw::i32(errno as i32);
                    Ok(())
                })?;
                linker.define(&store, MODULE, stringify!($name), f)?;
            })*
            // `proc_exit` returns nothing: it ends the call.
            if wanted("proc_exit") {
                let ty = FuncType::new([ValType::I32], []);
                let exit = Func::new_raw(store.as_context_mut(), ty, |_: Caller<'_, T>, slots: &mut [ValRaw]| {
                    Err(proc::proc_exit(slots[0].get_i32() as u32))
                })?;
                linker.define(&store, MODULE, "proc_exit", exit)?;
            }
            Ok(())
        }
    };
}

wasi_functions! {
    args_get => args_env(argv: u32, argv_buf: u32);
    args_sizes_get => args_env(argc_out: u32, size_out: u32);
    environ_get => args_env(environ: u32, environ_buf: u32);
    environ_sizes_get => args_env(count_out: u32, size_out: u32);
    clock_res_get => clocks(id: u32, out: u32);
    clock_time_get => clocks(id: u32, precision: u64, out: u32);
    fd_advise => fd(fd: u32, offset: u64, len: u64, advice: u32);
    fd_allocate => fd(fd: u32, offset: u64, len: u64);
    fd_close => fd(fd: u32);
    fd_datasync => fd(fd: u32);
    fd_fdstat_get => fd(fd: u32, out: u32);
    fd_fdstat_set_flags => fd(fd: u32, flags: u32);
    fd_fdstat_set_rights => fd(fd: u32, base: u64, inheriting: u64);
    fd_filestat_get => fd(fd: u32, out: u32);
    fd_filestat_set_size => fd(fd: u32, size: u64);
    fd_filestat_set_times => fd(fd: u32, atim: u64, mtim: u64, flags: u32);
    fd_pread => fd(fd: u32, iovs: u32, n: u32, offset: u64, out: u32);
    fd_prestat_get => fd(fd: u32, out: u32);
    fd_prestat_dir_name => fd(fd: u32, path: u32, len: u32);
    fd_pwrite => fd(fd: u32, iovs: u32, n: u32, offset: u64, out: u32);
    fd_read => fd(fd: u32, iovs: u32, n: u32, out: u32);
    fd_readdir => fd(fd: u32, buf: u32, buf_len: u32, cookie: u64, out: u32);
    fd_renumber => fd(from: u32, to: u32);
    fd_seek => fd(fd: u32, offset: i64, whence: u32, out: u32);
    fd_sync => fd(fd: u32);
    fd_tell => fd(fd: u32, out: u32);
    fd_write => fd(fd: u32, iovs: u32, n: u32, out: u32);
    path_create_directory => path(fd: u32, path: u32, len: u32);
    path_filestat_get => path(fd: u32, flags: u32, path: u32, len: u32, out: u32);
    path_filestat_set_times => path(fd: u32, flags: u32, path: u32, len: u32, atim: u64, mtim: u64, fst: u32);
    path_link => path(old_fd: u32, old_flags: u32, old_path: u32, old_len: u32, new_fd: u32, new_path: u32, new_len: u32);
    path_open => path(fd: u32, dirflags: u32, path: u32, len: u32, oflags: u32, base: u64, inheriting: u64, fdflags: u32, out: u32);
    path_readlink => path(fd: u32, path: u32, len: u32, buf: u32, buf_len: u32, out: u32);
    path_remove_directory => path(fd: u32, path: u32, len: u32);
    path_rename => path(fd: u32, old_path: u32, old_len: u32, new_fd: u32, new_path: u32, new_len: u32);
    path_symlink => path(old_path: u32, old_len: u32, fd: u32, new_path: u32, new_len: u32);
    path_unlink_file => path(fd: u32, path: u32, len: u32);
    poll_oneoff => poll(subs: u32, events: u32, n: u32, out: u32);
    proc_raise => proc(sig: u32);
    sched_yield => proc();
    random_get => random(buf: u32, len: u32);
    sock_accept => sock(fd: u32, flags: u32, out: u32);
    sock_recv => sock(fd: u32, iovs: u32, n: u32, flags: u32, nread_out: u32, roflags_out: u32);
    sock_send => sock(fd: u32, iovs: u32, n: u32, flags: u32, out: u32);
    sock_shutdown => sock(fd: u32, how: u32);
    // WAMR's socket extension (`wasi_socket_ext.h`).
    sock_open => sock(poolfd: u32, af: u32, socktype: u32, out: u32);
    sock_close => sock(fd: u32);
    sock_bind => sock(fd: u32, addr: u32);
    sock_connect => sock(fd: u32, addr: u32);
    sock_listen => sock(fd: u32, backlog: u32);
    sock_recv_from => sock(fd: u32, iovs: u32, n: u32, flags: u32, addr: u32, nread_out: u32);
    sock_send_to => sock(fd: u32, iovs: u32, n: u32, flags: u32, addr: u32, out: u32);
    sock_addr_local => sock(fd: u32, out: u32);
    sock_addr_remote => sock(fd: u32, out: u32);
    sock_addr_resolve => sock(host: u32, service: u32, hints: u32, info: u32, info_len: u32, found_out: u32);
    sock_get_broadcast => sock(fd: u32, out: u32);
    sock_get_ip_multicast_loop => sock(fd: u32, ipv6: u32, out: u32);
    sock_get_ip_multicast_ttl => sock(fd: u32, out: u32);
    sock_get_ip_ttl => sock(fd: u32, out: u32);
    sock_get_ipv6_only => sock(fd: u32, out: u32);
    sock_get_keep_alive => sock(fd: u32, out: u32);
    sock_get_linger => sock(fd: u32, on_out: u32, secs_out: u32);
    sock_get_recv_buf_size => sock(fd: u32, out: u32);
    sock_get_recv_timeout => sock(fd: u32, out: u32);
    sock_get_reuse_addr => sock(fd: u32, out: u32);
    sock_get_reuse_port => sock(fd: u32, out: u32);
    sock_get_send_buf_size => sock(fd: u32, out: u32);
    sock_get_send_timeout => sock(fd: u32, out: u32);
    sock_get_tcp_fastopen_connect => sock(fd: u32, out: u32);
    sock_get_tcp_keep_idle => sock(fd: u32, out: u32);
    sock_get_tcp_keep_intvl => sock(fd: u32, out: u32);
    sock_get_tcp_no_delay => sock(fd: u32, out: u32);
    sock_get_tcp_quick_ack => sock(fd: u32, out: u32);
    sock_set_broadcast => sock(fd: u32, on: u32);
    sock_set_ip_add_membership => sock(fd: u32, group: u32, iface: u32);
    sock_set_ip_drop_membership => sock(fd: u32, group: u32, iface: u32);
    sock_set_ip_multicast_loop => sock(fd: u32, ipv6: u32, on: u32);
    sock_set_ip_multicast_ttl => sock(fd: u32, ttl: u32);
    sock_set_ip_ttl => sock(fd: u32, ttl: u32);
    sock_set_ipv6_only => sock(fd: u32, on: u32);
    sock_set_keep_alive => sock(fd: u32, on: u32);
    sock_set_linger => sock(fd: u32, on: u32, secs: u32);
    sock_set_recv_buf_size => sock(fd: u32, size: u32);
    sock_set_recv_timeout => sock(fd: u32, micros: u64);
    sock_set_reuse_addr => sock(fd: u32, on: u32);
    sock_set_reuse_port => sock(fd: u32, on: u32);
    sock_set_send_buf_size => sock(fd: u32, size: u32);
    sock_set_send_timeout => sock(fd: u32, micros: u64);
    sock_set_tcp_fastopen_connect => sock(fd: u32, on: u32);
    sock_set_tcp_keep_idle => sock(fd: u32, secs: u32);
    sock_set_tcp_keep_intvl => sock(fd: u32, secs: u32);
    sock_set_tcp_no_delay => sock(fd: u32, on: u32);
    sock_set_tcp_quick_ack => sock(fd: u32, on: u32);
}

impl<T: 'static> Linker<T> {
    /// Defines the functions of `wasi_snapshot_preview1` in `store`, working
    /// on the [`WasiCtx`] that `view` finds in the store's data.
    pub fn define_wasi(
        &mut self,
        mut store: impl AsContextMut<Data = T>,
        view: impl Fn(&mut T) -> &mut WasiCtx + Copy + Send + Sync + 'static,
    ) -> Result<&mut Linker<T>> {
        define_all(self, store.as_context_mut(), view, &|_| true)?;
        Ok(self)
    }

    /// As [`define_wasi`](Self::define_wasi), but only the functions that
    /// `module` imports: each distinct signature costs an exit trampoline
    /// to compile, which a short-lived program (a command line run) notices.
    pub fn define_wasi_for(
        &mut self,
        mut store: impl AsContextMut<Data = T>,
        module: &Module,
        view: impl Fn(&mut T) -> &mut WasiCtx + Copy + Send + Sync + 'static,
    ) -> Result<&mut Linker<T>> {
        let imported: Vec<String> = module.imports().filter(|i| i.module == MODULE).map(|i| i.name).collect();
        define_all(self, store.as_context_mut(), view, &|name| imported.iter().any(|i| i == name))?;
        Ok(self)
    }
}

/// Runs a WASI program: a command's `_start`, whose exit status is 0 when
/// it returns and `n` when it calls `proc_exit(n)`; or a reactor's
/// `_initialize` (status 0), after which its exports may be called. A
/// module with neither is left as it is (status 0). A trap is an
/// [`Error::Trap`].
pub fn start(mut store: impl AsContextMut, instance: &Instance) -> Result<i32> {
    let entry = instance.get_func(&mut store, "_start").or_else(|| instance.get_func(&mut store, "_initialize"));
    let Some(entry) = entry else { return Ok(0) };
    match entry.call(&mut store, &[], &mut []) {
        Ok(()) => Ok(0),
        Err(Error::Exit(code)) => Ok(code),
        Err(e) => Err(e),
    }
}
