//! The Rust API of WASI: a context built with arguments, environment and
//! in-memory stdio reaches the guest; `proc_exit` ends a call as
//! `Error::Exit`, not a trap; `wasi::start` runs commands and reactors.

use cranewasm::wasi::{self, ReadPipe, WasiCtx, WritePipe};
use cranewasm::{Engine, Error, Instance, Linker, Module, Store};

/// A command that writes its argument strings to stdout and its
/// environment strings to stderr (each NUL-terminated, as the guest gets
/// them), copies up to 64 bytes of stdin to stdout, and exits with argc.
const ECHO: &str = r#"(module
  (import "wasi_snapshot_preview1" "args_sizes_get" (func $args_sizes (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "args_get" (func $args_get (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "environ_sizes_get" (func $env_sizes (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "environ_get" (func $env_get (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_read" (func $read (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_write" (func $write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
  (memory (export "memory") 1)
  ;; 0: argc, 4: args size, 8: envc, 12: env size, 16: iovec, 24: nwritten,
  ;; 1024: pointers, 4096: strings, 8192: stdin buffer
  (func $out (param $fd i32) (param $buf i32) (param $len i32)
    (i32.store (i32.const 16) (local.get $buf))
    (i32.store (i32.const 20) (local.get $len))
    (drop (call $write (local.get $fd) (i32.const 16) (i32.const 1) (i32.const 24))))
  (func (export "_start")
    (drop (call $args_sizes (i32.const 0) (i32.const 4)))
    (drop (call $args_get (i32.const 1024) (i32.const 4096)))
    (call $out (i32.const 1) (i32.const 4096) (i32.load (i32.const 4)))
    (drop (call $env_sizes (i32.const 8) (i32.const 12)))
    (drop (call $env_get (i32.const 1024) (i32.const 4096)))
    (call $out (i32.const 2) (i32.const 4096) (i32.load (i32.const 12)))
    (i32.store (i32.const 16) (i32.const 8192))
    (i32.store (i32.const 20) (i32.const 64))
    (drop (call $read (i32.const 0) (i32.const 16) (i32.const 1) (i32.const 24)))
    (call $out (i32.const 1) (i32.const 8192) (i32.load (i32.const 24)))
    (call $exit (i32.load (i32.const 0)))
    unreachable))"#;

fn setup(wat: &str, ctx: WasiCtx) -> (Store<WasiCtx>, Instance) {
    let engine = Engine::default();
    let module = Module::new(&engine, wat).unwrap();
    let mut store = Store::new(&engine, ctx);
    let mut linker = Linker::new(store.engine());
    linker.define_wasi(&mut store, |c: &mut WasiCtx| c).unwrap();
    let instance = linker.instantiate(&mut store, &module).unwrap();
    (store, instance)
}

#[test]
fn args_env_and_stdio_pipes_reach_the_guest() {
    let (out, err) = (WritePipe::new(), WritePipe::new());
    let ctx = WasiCtx::builder()
        .args(["prog", "one", "two words"])
        .env("A", "1")
        .env("B", "x=y")
        .env("A", "2")
        .stdin(ReadPipe::new("typed input"))
        .stdout(out.clone())
        .stderr(err.clone())
        .build()
        .unwrap();
    let (mut store, instance) = setup(ECHO, ctx);
    assert_eq!(wasi::start(&mut store, &instance).unwrap(), 3, "exit status is argc");
    assert_eq!(out.contents(), b"prog\0one\0two words\0typed input");
    // A later value for the same key replaces the earlier one.
    assert_eq!(err.contents(), b"B=x=y\0A=2\0");
}

#[test]
fn proc_exit_is_an_exit_not_a_trap() {
    let out = WritePipe::new();
    let ctx = WasiCtx::builder().arg("p").stdout(out.clone()).build().unwrap();
    let (mut store, instance) = setup(ECHO, ctx);
    let start = instance.get_func(&store, "_start").unwrap();
    match start.call(&mut store, &[], &mut []) {
        Err(Error::Exit(1)) => {}
        other => panic!("expected Error::Exit(1), got {other:?}"),
    }
    assert!(Error::Exit(1).as_trap().is_none());
    // Through a typed call the trap value carries the status.
    let typed = start.typed::<(), ()>(&store).unwrap();
    let trap = typed.call(&mut store, ()).unwrap_err();
    assert_eq!(trap.exit_code(), Some(1));
    assert!(matches!(Error::from(trap), Error::Exit(1)));
    // The store stays usable: a later run works.
    assert_eq!(wasi::start(&mut store, &instance).unwrap(), 1);
}

#[test]
fn traps_stay_traps_and_reactors_are_initialised() {
    let (mut store, instance) = setup(
        r#"(module (memory (export "memory") 1) (global $g (mut i32) (i32.const 0))
            (func (export "_initialize") (global.set $g (i32.const 5)))
            (func (export "get") (result i32) (global.get $g))
            (func (export "boom") unreachable))"#,
        WasiCtx::builder().build().unwrap(),
    );
    assert_eq!(wasi::start(&mut store, &instance).unwrap(), 0);
    let get = instance.get_func(&store, "get").unwrap().typed::<(), i32>(&store).unwrap();
    assert_eq!(get.call(&mut store, ()).unwrap(), 5, "_initialize ran");
    let boom = instance.get_func(&store, "boom").unwrap();
    match boom.call(&mut store, &[], &mut []) {
        Err(Error::Trap(t)) => assert_eq!(t.message(), "unreachable"),
        other => panic!("expected a trap, got {other:?}"),
    }
    let (mut store, instance) =
        setup(r#"(module (func (export "_start") unreachable))"#, WasiCtx::builder().build().unwrap());
    assert!(matches!(wasi::start(&mut store, &instance), Err(Error::Trap(_))));
}

#[test]
fn define_wasi_defines_all_46_functions() {
    // Preview 1's 46, and the 48 more of WAMR's socket extension, which
    // tests/wasi_sockets.rs checks against wasi_socket_ext.h.
    let engine = Engine::default();
    let mut store = Store::new(&engine, WasiCtx::builder().build().unwrap());
    let mut linker = Linker::new(store.engine());
    linker.define_wasi(&mut store, |c: &mut WasiCtx| c).unwrap();
    assert_eq!(wasi::FUNCTION_COUNT, 46 + 48);
    for name in [
        "args_get",
        "args_sizes_get",
        "environ_get",
        "environ_sizes_get",
        "clock_res_get",
        "clock_time_get",
        "fd_advise",
        "fd_allocate",
        "fd_close",
        "fd_datasync",
        "fd_fdstat_get",
        "fd_fdstat_set_flags",
        "fd_fdstat_set_rights",
        "fd_filestat_get",
        "fd_filestat_set_size",
        "fd_filestat_set_times",
        "fd_pread",
        "fd_prestat_get",
        "fd_prestat_dir_name",
        "fd_pwrite",
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
        "proc_exit",
        "proc_raise",
        "sched_yield",
        "random_get",
        "sock_accept",
        "sock_recv",
        "sock_send",
        "sock_shutdown",
    ] {
        assert!(linker.get(&mut store, wasi::MODULE, name).is_some(), "{name} missing");
    }
}

#[test]
fn define_wasi_for_defines_only_the_imports() {
    let engine = Engine::default();
    let module = Module::new(&engine, ECHO).unwrap();
    let mut store = Store::new(&engine, WasiCtx::builder().build().unwrap());
    let mut linker = Linker::new(store.engine());
    linker.define_wasi_for(&mut store, &module, |c: &mut WasiCtx| c).unwrap();
    assert!(
        linker.get(&mut store, wasi::MODULE, "fd_write").is_some()
            && linker.get(&mut store, wasi::MODULE, "proc_exit").is_some()
    );
    assert!(linker.get(&mut store, wasi::MODULE, "path_open").is_none());
    let instance = linker.instantiate(&mut store, &module).unwrap();
    assert_eq!(wasi::start(&mut store, &instance).unwrap(), 0, "no arguments");
}

#[test]
fn a_missing_preopen_is_a_clear_error() {
    let err = WasiCtx::builder().preopened_dir("/no/such/dir/anywhere", "/").build().err().expect("an error");
    assert!(err.to_string().contains("/no/such/dir/anywhere"), "{err}");
}

/// A guest that waits: `sleep` (a clock subscription of `ns`), `poll_stdin`
/// (stdin readable, or a clock of `ns`) and `read` (up to 16 bytes of
/// stdin, whose count it stores at 264); each returns the errno.
const WAITS: &str = r#"(module
  (import "wasi_snapshot_preview1" "poll_oneoff" (func $poll (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_read" (func $read (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 1)
  ;; A clock subscription at 0 (monotonic, relative); events at 128.
  (func $clock (param $ns i64)
    (i64.store (i32.const 0) (i64.const 7))
    (i32.store8 (i32.const 8) (i32.const 0))
    (i32.store (i32.const 16) (i32.const 1))
    (i64.store (i32.const 24) (local.get $ns)))
  (func (export "sleep") (param $ns i64) (result i32)
    (call $clock (local.get $ns))
    (call $poll (i32.const 0) (i32.const 128) (i32.const 1) (i32.const 120)))
  ;; The clock, then an fd_read subscription of fd 0 at 48.
  (func (export "poll_stdin") (param $ns i64) (result i32)
    (call $clock (local.get $ns))
    (i64.store (i32.const 48) (i64.const 9))
    (i32.store8 (i32.const 56) (i32.const 1))
    (i32.store (i32.const 64) (i32.const 0))
    (call $poll (i32.const 0) (i32.const 128) (i32.const 2) (i32.const 120)))
  (func (export "read") (result i32)
    (i32.store (i32.const 256) (i32.const 512))
    (i32.store (i32.const 260) (i32.const 16))
    (call $read (i32.const 0) (i32.const 256) (i32.const 1) (i32.const 264))))"#;

/// [`WAITS`] with a host pipe as stdin; the pipe's other end.
fn waits_setup() -> (Store<WasiCtx>, Instance, std::io::PipeWriter) {
    let (reader, writer) = std::io::pipe().unwrap();
    let stdin = std::fs::File::from(std::os::fd::OwnedFd::from(reader));
    let ctx = WasiCtx::builder().stdio_file(0, stdin).build().unwrap();
    let (store, instance) = setup(WAITS, ctx);
    (store, instance, writer)
}

/// Calls `name` with `args`, interrupting it from another thread after
/// 100 ms: its error and how long it took.
fn interrupted_call(
    store: &mut Store<WasiCtx>,
    instance: &Instance,
    name: &str,
    args: &[cranewasm::Val],
) -> (Error, std::time::Duration) {
    let handle = store.interrupt_handle();
    let func = instance.get_func(&*store, name).unwrap();
    let stopper = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(100));
        handle.interrupt();
    });
    let start = std::time::Instant::now();
    let mut results = [cranewasm::Val::I32(0)];
    let err = func.call(&mut *store, args, &mut results).expect_err("the wait must be interrupted");
    let took = start.elapsed();
    stopper.join().unwrap();
    (err, took)
}

fn assert_interrupted_wait(err: Error, took: std::time::Duration, what: &str) {
    match &err {
        Error::Trap(t) => assert_eq!(t.code(), Some(cranewasm::Trap::Interrupt), "{what}: {t}"),
        other => panic!("{what}: expected an interrupt, got {other:?}"),
    }
    // It waited for the interrupt (at 100 ms), not for its minute.
    assert!(took >= std::time::Duration::from_millis(90), "{what} returned early: {took:?}");
    assert!(took < std::time::Duration::from_secs(20), "{what} was not woken: {took:?}");
}

#[test]
fn an_interrupt_ends_a_guest_waiting_in_poll_oneoff_or_fd_read() {
    let minute = cranewasm::Val::I64(60_000_000_000);
    let (mut store, instance, writer) = waits_setup();
    let (err, took) = interrupted_call(&mut store, &instance, "sleep", std::slice::from_ref(&minute));
    assert_interrupted_wait(err, took, "a sleep");
    let (err, took) = interrupted_call(&mut store, &instance, "poll_stdin", std::slice::from_ref(&minute));
    assert_interrupted_wait(err, took, "a poll of stdin");
    let (err, took) = interrupted_call(&mut store, &instance, "read", &[]);
    assert_interrupted_wait(err, took, "a read of stdin");
    drop(writer);
}

#[test]
fn interruptible_waits_still_wait_and_read() {
    use std::io::Write;
    let (mut store, instance, mut writer) = waits_setup();
    // An interrupt handle makes the store's waits interruptible ones.
    let _handle = store.interrupt_handle();
    let sleep = instance.get_func(&store, "sleep").unwrap().typed::<i64, i32>(&store).unwrap();
    let start = std::time::Instant::now();
    assert_eq!(sleep.call(&mut store, 50_000_000).unwrap(), 0);
    assert!(start.elapsed() >= std::time::Duration::from_millis(50), "slept {:?}", start.elapsed());
    // A clock of a minute and stdin with data: stdin's event comes at once.
    writer.write_all(b"hello").unwrap();
    let poll = instance.get_func(&store, "poll_stdin").unwrap().typed::<i64, i32>(&store).unwrap();
    assert_eq!(poll.call(&mut store, 60_000_000_000).unwrap(), 0);
    let memory = instance.get_memory(&store, "memory").unwrap();
    let word =
        |store: &Store<WasiCtx>, at: usize| u32::from_le_bytes(memory.data(store)[at..at + 4].try_into().unwrap());
    assert_eq!(word(&store, 120), 1, "one event");
    assert_eq!(u64::from_le_bytes(memory.data(&store)[128..136].try_into().unwrap()), 9, "stdin's event");
    let read = instance.get_func(&store, "read").unwrap().typed::<(), i32>(&store).unwrap();
    assert_eq!(read.call(&mut store, ()).unwrap(), 0);
    assert_eq!(word(&store, 264), 5);
    assert_eq!(&memory.data(&store)[512..517], b"hello");
}
