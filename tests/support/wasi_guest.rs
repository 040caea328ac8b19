//! A guest that lets a Rust test call any WASI function with arguments of
//! its choosing: a small module whose exports each call one
//! `wasi_snapshot_preview1` import with their own parameters (so the host
//! function sees a real wasm caller and its memory), plus helpers to put
//! strings in that memory and read results back.
#![allow(dead_code, reason = "each test file uses some of the helpers")]

use cranewasm::wasi::{self, Errno, WasiCtx};
use cranewasm::{Engine, Instance, Linker, Memory, Module, Store, Val, ValType};

/// The WASI functions the guest re-exports besides `proc_exit`: those
/// named here and every `sock_*` function (types from
/// [`wasi::function_type`]).
const FUNCS: &[&str] = &[
    "args_get",
    "args_sizes_get",
    "environ_get",
    "environ_sizes_get",
    "clock_res_get",
    "clock_time_get",
    "fd_close",
    "fd_fdstat_get",
    "fd_fdstat_set_flags",
    "fd_fdstat_set_rights",
    "fd_filestat_get",
    "fd_filestat_set_size",
    "fd_pread",
    "fd_prestat_get",
    "fd_prestat_dir_name",
    "fd_read",
    "fd_readdir",
    "fd_renumber",
    "fd_seek",
    "fd_sync",
    "fd_tell",
    "fd_write",
    "path_create_directory",
    "path_filestat_get",
    "path_filestat_set_times",
    "path_link",
    "path_open",
    "path_readlink",
    "path_remove_directory",
    "path_rename",
    "path_symlink",
    "path_unlink_file",
    "poll_oneoff",
    "random_get",
];

/// WAMR's socket extension and preview 1's `sock_*` functions.
pub const SOCK_FUNCS: &[&str] = &[
    "sock_accept",
    "sock_recv",
    "sock_send",
    "sock_shutdown",
    "sock_open",
    "sock_close",
    "sock_bind",
    "sock_connect",
    "sock_listen",
    "sock_recv_from",
    "sock_send_to",
    "sock_addr_local",
    "sock_addr_remote",
    "sock_addr_resolve",
    "sock_get_broadcast",
    "sock_get_ip_multicast_loop",
    "sock_get_ip_multicast_ttl",
    "sock_get_ip_ttl",
    "sock_get_ipv6_only",
    "sock_get_keep_alive",
    "sock_get_linger",
    "sock_get_recv_buf_size",
    "sock_get_recv_timeout",
    "sock_get_reuse_addr",
    "sock_get_reuse_port",
    "sock_get_send_buf_size",
    "sock_get_send_timeout",
    "sock_get_tcp_fastopen_connect",
    "sock_get_tcp_keep_idle",
    "sock_get_tcp_keep_intvl",
    "sock_get_tcp_no_delay",
    "sock_get_tcp_quick_ack",
    "sock_set_broadcast",
    "sock_set_ip_add_membership",
    "sock_set_ip_drop_membership",
    "sock_set_ip_multicast_loop",
    "sock_set_ip_multicast_ttl",
    "sock_set_ip_ttl",
    "sock_set_ipv6_only",
    "sock_set_keep_alive",
    "sock_set_linger",
    "sock_set_recv_buf_size",
    "sock_set_recv_timeout",
    "sock_set_reuse_addr",
    "sock_set_reuse_port",
    "sock_set_send_buf_size",
    "sock_set_send_timeout",
    "sock_set_tcp_fastopen_connect",
    "sock_set_tcp_keep_idle",
    "sock_set_tcp_keep_intvl",
    "sock_set_tcp_no_delay",
    "sock_set_tcp_quick_ack",
];

/// Where scratch data (strings, iovecs, results) goes in guest memory.
pub const SCRATCH: u32 = 1024;
/// Guest memory size: one page.
pub const MEMORY_SIZE: u32 = 65536;

/// Every function the guest re-exports.
fn funcs() -> Vec<&'static str> {
    let socks = SOCK_FUNCS.iter().copied();
    FUNCS.iter().copied().chain(socks).collect()
}

/// The `(param ...)` list of WASI function `name`.
fn params(name: &str) -> String {
    let ty = wasi::function_type(name).unwrap_or_else(|| panic!("no WASI function {name}"));
    ty.params().iter().map(|t| if *t == ValType::I64 { " i64" } else { " i32" }).collect()
}

fn wat() -> String {
    let mut s = String::from("(module\n");
    for name in funcs() {
        let p = params(name);
        s += &format!("(import \"wasi_snapshot_preview1\" \"{name}\" (func ${name} (param{p}) (result i32)))\n");
    }
    s += "(import \"wasi_snapshot_preview1\" \"proc_exit\" (func $proc_exit (param i32)))\n";
    s += "(memory (export \"memory\") 1)\n";
    for name in funcs() {
        let p = params(name);
        let gets: String =
            (0..wasi::function_type(name).unwrap().params().len()).map(|i| format!(" (local.get {i})")).collect();
        s += &format!("(func (export \"{name}\") (param{p}) (result i32) (call ${name}{gets}))\n");
    }
    s += "(func (export \"proc_exit\") (param i32) (call $proc_exit (local.get 0)))\n)";
    s
}

/// One instance of the guest with its own store and context.
pub struct Guest {
    pub store: Store<WasiCtx>,
    pub instance: Instance,
    pub memory: Memory,
    /// Next free byte of the scratch area.
    next: u32,
}

/// An argument: i32 or i64.
#[derive(Clone, Copy)]
pub enum A {
    I(u32),
    L(u64),
}

impl Guest {
    pub fn new(ctx: WasiCtx) -> Guest {
        let engine = Engine::default();
        let module = Module::new(&engine, wat()).expect("guest module");
        let mut store = Store::new(&engine, ctx);
        let mut linker = Linker::new(store.engine());
        linker.define_wasi(&mut store, |c: &mut WasiCtx| c).expect("define_wasi");
        let instance = linker.instantiate(&mut store, &module).expect("instantiate");
        let memory = instance.get_memory(&store, "memory").expect("memory");
        Guest { store, instance, memory, next: SCRATCH }
    }

    /// Calls WASI function `name`, returning its errno.
    pub fn call(&mut self, name: &str, args: &[A]) -> Errno {
        self.try_call(name, args).unwrap_or_else(|e| panic!("{name} trapped: {e}"))
    }

    /// Calls WASI function `name`: its errno, or how the call failed.
    pub fn try_call(&mut self, name: &str, args: &[A]) -> Result<Errno, cranewasm::Error> {
        let f = self.instance.get_func(&self.store, name).unwrap_or_else(|| panic!("no export {name}"));
        let params: Vec<Val> = args
            .iter()
            .map(|a| match a {
                A::I(v) => Val::I32(*v as i32),
                A::L(v) => Val::I64(*v as i64),
            })
            .collect();
        let mut out = [Val::I32(0)];
        f.call(&mut self.store, &params, &mut out)?;
        Ok(errno(out[0].i32().unwrap() as u16))
    }

    /// Copies `bytes` into scratch memory; their address.
    pub fn put(&mut self, bytes: &[u8]) -> u32 {
        let at = self.next;
        self.memory.write(&mut self.store, at as usize, bytes).expect("scratch space");
        self.next += (bytes.len() as u32 + 7) & !7;
        at
    }

    /// Room for `n` bytes of results in scratch memory, zeroed.
    pub fn alloc(&mut self, n: u32) -> u32 {
        self.put(&vec![0; n as usize])
    }

    /// Forgets scratch allocations (their bytes stay).
    pub fn reset(&mut self) {
        self.next = SCRATCH;
    }

    pub fn read(&self, at: u32, n: u32) -> Vec<u8> {
        let mut buf = vec![0; n as usize];
        self.memory.read(&self.store, at as usize, &mut buf).expect("in bounds");
        buf
    }

    pub fn u32_at(&self, at: u32) -> u32 {
        u32::from_le_bytes(self.read(at, 4).try_into().unwrap())
    }

    pub fn u64_at(&self, at: u32) -> u64 {
        u64::from_le_bytes(self.read(at, 8).try_into().unwrap())
    }

    /// `path_open(dir, dirflags, path, oflags, base, inheriting, fdflags)`:
    /// the new fd or the errno.
    #[allow(clippy::too_many_arguments)]
    pub fn open(
        &mut self,
        dir: u32,
        dirflags: u32,
        path: &str,
        oflags: u16,
        base: u64,
        inheriting: u64,
        fdflags: u32,
    ) -> Result<u32, Errno> {
        let p = self.put(path.as_bytes());
        let out = self.alloc(4);
        let e = self.call(
            "path_open",
            &[
                A::I(dir),
                A::I(dirflags),
                A::I(p),
                A::I(path.len() as u32),
                A::I(oflags.into()),
                A::L(base),
                A::L(inheriting),
                A::I(fdflags),
                A::I(out),
            ],
        );
        self.reset();
        if e == Errno::Success {
            Ok(self.u32_at(out))
        } else {
            Err(e)
        }
    }

    /// A path function of the form `f(fd, path, len)`.
    pub fn path_call(&mut self, name: &str, fd: u32, path: &str) -> Errno {
        let p = self.put(path.as_bytes());
        let e = self.call(name, &[A::I(fd), A::I(p), A::I(path.len() as u32)]);
        self.reset();
        e
    }

    /// Reads up to `n` bytes from `fd`.
    pub fn read_fd(&mut self, fd: u32, n: u32) -> Result<Vec<u8>, Errno> {
        let buf = self.alloc(n);
        let iov = self.put(&[buf.to_le_bytes(), n.to_le_bytes()].concat());
        let out = self.alloc(4);
        let e = self.call("fd_read", &[A::I(fd), A::I(iov), A::I(1), A::I(out)]);
        self.reset();
        if e != Errno::Success {
            return Err(e);
        }
        let got = self.u32_at(out);
        Ok(self.read(buf, got))
    }

    /// Writes `data` to `fd`; the count written.
    pub fn write_fd(&mut self, fd: u32, data: &[u8]) -> Result<u32, Errno> {
        let buf = self.put(data);
        let iov = self.put(&[buf.to_le_bytes(), (data.len() as u32).to_le_bytes()].concat());
        let out = self.alloc(4);
        let e = self.call("fd_write", &[A::I(fd), A::I(iov), A::I(1), A::I(out)]);
        self.reset();
        if e != Errno::Success {
            return Err(e);
        }
        Ok(self.u32_at(out))
    }
}

/// The errno with number `n`.
pub fn errno(n: u16) -> Errno {
    Errno::from_u16(n).unwrap_or_else(|| panic!("errno {n} out of range"))
}
