//! wasi-threads through the Rust API: a pthreads-style program (threads
//! spawned with `thread-spawn`, a mutex built from compare-exchange and
//! wait/notify, a join by counting down) whose threads share one memory and
//! one WASI fd table; thread ids and the thread limit; and a spawned
//! thread's `proc_exit` or trap ending the program through `on_exit`, and
//! ending it without ending the process: the first thread's `_start`,
//! parked in `memory.atomic.wait` forever, returns with the program's end
//! ([`WasiThreads::start`]), and a `_start` that returns stops the threads
//! still waiting.
//!
//! apt's wasi-libc has no `wasm32-wasip1-threads` target (its libpthread is
//! an empty archive), so the pthreads program is the text below: what
//! wasi-libc's `pthread_create`, `pthread_mutex_lock` and `pthread_join`
//! come down to.

use std::sync::mpsc;
use std::time::Duration;

use cranewasm::wasi::threads::{ProgramExit, WasiThreads};
use cranewasm::wasi::{self, WasiCtx, WritePipe};
use cranewasm::{Engine, Module, Store};

/// 4 threads × 10,000 increments of a counter under a mutex; thread 0
/// also closes fd 2, which the main thread then finds closed.
const PTHREADS: &str = r#"(module
  (import "env" "memory" (memory 1 1 shared))
  (import "wasi" "thread-spawn" (func $spawn (param i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_close" (func $fd_close (param i32) (result i32)))
  (import "wasi_snapshot_preview1" "proc_exit" (func $proc_exit (param i32)))
  ;; 0: mutex  4: counter  8: threads running  16..32: tids  128: "thread\n"
  (data (i32.const 128) "thread\n")
  (func $lock
    (loop $retry
      (if (i32.atomic.rmw.cmpxchg (i32.const 0) (i32.const 0) (i32.const 1))
        (then
          (drop (memory.atomic.wait32 (i32.const 0) (i32.const 1) (i64.const -1)))
          (br $retry)))))
  (func $unlock
    (i32.atomic.store (i32.const 0) (i32.const 0))
    (drop (memory.atomic.notify (i32.const 0) (i32.const 1))))
  (func $say (param $fd i32) (param $slot i32) (result i32)
    (local $iov i32)
    (local.set $iov (i32.add (i32.const 256) (i32.mul (local.get $slot) (i32.const 16))))
    (i32.store (local.get $iov) (i32.const 128))
    (i32.store offset=4 (local.get $iov) (i32.const 7))
    (call $fd_write (local.get $fd) (local.get $iov) (i32.const 1) (i32.add (local.get $iov) (i32.const 8))))
  (func (export "wasi_thread_start") (param $tid i32) (param $arg i32) (local $i i32)
    (local.set $i (i32.const 10000))
    (loop $l
      (call $lock)
      (i32.store (i32.const 4) (i32.add (i32.load (i32.const 4)) (i32.const 1)))
      (call $unlock)
      (br_if $l (local.tee $i (i32.sub (local.get $i) (i32.const 1)))))
    (drop (call $say (i32.const 1) (local.get $arg)))
    (if (i32.eqz (local.get $arg)) (then (drop (call $fd_close (i32.const 2)))))
    (drop (i32.atomic.rmw.sub (i32.const 8) (i32.const 1)))
    (drop (memory.atomic.notify (i32.const 8) (i32.const 1))))
  (func (export "_start") (local $i i32) (local $n i32) (local $tid i32)
    (i32.atomic.store (i32.const 8) (i32.const 4))
    (loop $s
      (local.set $tid (call $spawn (local.get $i)))
      (if (i32.le_s (local.get $tid) (i32.const 0)) (then unreachable))
      (i32.store offset=16 (i32.shl (local.get $i) (i32.const 2)) (local.get $tid))
      (br_if $s (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (i32.const 4))))
    (loop $join
      (local.set $n (i32.atomic.load (i32.const 8)))
      (if (local.get $n)
        (then (drop (memory.atomic.wait32 (i32.const 8) (local.get $n) (i64.const -1))) (br $join))))
    (if (i32.ne (i32.load (i32.const 4)) (i32.const 40000)) (then (call $proc_exit (i32.const 100))))
    ;; fd 2 was closed by thread 0: EBADF (8) is the exit status.
    (call $proc_exit (call $say (i32.const 2) (i32.const 8)))))"#;

/// A program over `text` whose WASI output goes to `out`, with its
/// spawned threads' ends reported to `exits`.
fn program(
    text: &str,
    out: &WritePipe,
    max_threads: u32,
) -> (WasiThreads<WasiCtx>, Store<WasiCtx>, mpsc::Receiver<ProgramExit>) {
    let engine = Engine::default();
    let module = Module::new(&engine, text).unwrap();
    let (tx, exits) = mpsc::channel();
    let tx = std::sync::Mutex::new(tx);
    let threads = WasiThreads::new(&module, WasiCtx::share, |store, linker| {
        linker.define_wasi(store, |cx: &mut WasiCtx| cx)?;
        Ok(())
    })
    .max_threads(max_threads)
    .on_exit(move |exit| tx.lock().unwrap().send(exit).unwrap())
    .build()
    .unwrap();
    let ctx = WasiCtx::builder().stdout(out.clone()).build().unwrap();
    (threads, Store::new(&engine, ctx), exits)
}

fn word(threads: &WasiThreads<WasiCtx>, at: usize) -> i32 {
    let data = threads.memory().data();
    // SAFETY: the program's threads have all finished with these bytes.
    i32::from_le_bytes(std::array::from_fn(|i| unsafe { *data[at + i].get() }))
}

#[test]
fn a_pthreads_program_shares_memory_and_fds() {
    let out = WritePipe::new();
    let (threads, mut store, exits) = program(PTHREADS, &out, 4);
    let instance = threads.instantiate(&mut store).unwrap();
    assert_eq!(wasi::start(&mut store, &instance).unwrap(), 8, "the counter was exact, and fd 2 closed for all");
    assert_eq!(out.contents(), b"thread\n".repeat(4), "every thread wrote to the one stdout");
    assert_eq!(word(&threads, 4), 40_000);
    let mut tids: Vec<i32> = (0..4).map(|i| word(&threads, 16 + 4 * i)).collect();
    tids.sort();
    assert_eq!(tids, [1, 2, 3, 4], "distinct ids from 1");
    // The threads finish just after their last notify.
    for _ in 0..200 {
        if threads.live_threads() == 0 {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(threads.live_threads(), 0);
    assert!(exits.try_recv().is_err(), "no thread ended the program");
}

/// A wasi-threads module whose threads run `body` (with `$arg` their
/// start argument), with the functions `rest` besides.
fn threads_module(body: &str, rest: &str) -> String {
    format!(
        r#"(module
          (import "env" "memory" (memory 1 1 shared))
          (import "wasi" "thread-spawn" (func $spawn (param i32) (result i32)))
          (import "wasi_snapshot_preview1" "proc_exit" (func $proc_exit (param i32)))
          (func (export "wasi_thread_start") (param $tid i32) (param $arg i32) {body})
          {rest})"#
    )
}

/// Spawns a thread running `body` (`spawn`), waits on word 0 (`wait`) and
/// releases the waiters (`release`).
fn spawner(body: &str) -> String {
    threads_module(
        body,
        r#"(func (export "spawn") (param i32) (result i32) (call $spawn (local.get 0)))
          (func (export "wait") (param i64) (result i32)
            (memory.atomic.wait32 (i32.const 0) (i32.const 0) (local.get 0)))
          (func (export "release") (i32.atomic.store (i32.const 0) (i32.const 1))
            (drop (memory.atomic.notify (i32.const 0) (i32.const 100))))"#,
    )
}

#[test]
fn a_thread_that_exits_or_traps_ends_the_program() {
    let out = WritePipe::new();
    for (body, expect) in [("(call $proc_exit (local.get $arg))", "exit 7"), ("(unreachable)", "trap unreachable")] {
        let (threads, mut store, exits) = program(&spawner(body), &out, 4);
        let instance = threads.instantiate(&mut store).unwrap();
        let spawn = instance.get_func(&store, "spawn").unwrap().typed::<i32, i32>(&store).unwrap();
        // The thread may end the program before `spawn` is back: the
        // first thread's call is then stopped.
        match spawn.call(&mut store, 7) {
            Ok(tid) => assert_eq!(tid, 1),
            Err(e) => assert!(e.to_string().contains("terminated by user"), "{e}"),
        }
        let got = match exits.recv_timeout(Duration::from_secs(20)).unwrap() {
            ProgramExit::Exit(code) => format!("exit {code}"),
            ProgramExit::Trap(trap) => format!("trap {}", trap.message()),
        };
        assert_eq!(got, expect);
    }
}

/// A program whose `_start` spawns a thread running `body`, then waits
/// on word 0 forever (or, with `wait` false, returns).
fn main_and_thread(body: &str, wait: bool) -> String {
    let wait = if wait { "(drop (memory.atomic.wait32 (i32.const 0) (i32.const 0) (i64.const -1)))" } else { "" };
    let start = format!(
        r#"(func (export "_start")
            (if (i32.le_s (call $spawn (i32.const 7)) (i32.const 0)) (then unreachable))
            {wait})"#
    );
    threads_module(body, &start)
}

#[test]
fn a_thread_ending_the_program_wakes_the_waiting_main_thread() {
    let out = WritePipe::new();
    // proc_exit: `start` gives the status, as for the main thread's own.
    let (threads, mut store, exits) = program(&main_and_thread("(call $proc_exit (local.get $arg))", true), &out, 4);
    let instance = threads.instantiate(&mut store).unwrap();
    assert_eq!(threads.start(&mut store, &instance).unwrap(), 7);
    assert!(matches!(threads.exit(), Some(ProgramExit::Exit(7))));
    // on_exit runs on the ending thread once the others were stopped.
    assert!(matches!(exits.recv_timeout(Duration::from_secs(20)), Ok(ProgramExit::Exit(7))), "on_exit heard of it");
    // A trap: `start` fails with it.
    let (threads, mut store, _exits) = program(&main_and_thread("(unreachable)", true), &out, 4);
    let instance = threads.instantiate(&mut store).unwrap();
    match threads.start(&mut store, &instance) {
        Err(cranewasm::Error::Trap(trap)) => assert_eq!(trap.message(), "unreachable"),
        other => panic!("expected the thread's trap, got {other:?}"),
    }
    assert!(matches!(threads.exit(), Some(ProgramExit::Trap(_))));
}

#[test]
fn a_returning_start_stops_the_threads() {
    let out = WritePipe::new();
    let body = "(drop (memory.atomic.wait32 (i32.const 0) (i32.const 0) (i64.const -1)))";
    let (threads, mut store, exits) = program(&main_and_thread(body, false), &out, 4);
    let instance = threads.instantiate(&mut store).unwrap();
    assert_eq!(threads.start(&mut store, &instance).unwrap(), 0);
    assert!(matches!(threads.exit(), Some(ProgramExit::Exit(0))));
    // The thread was parked forever: only the stop ends it.
    for _ in 0..500 {
        if threads.live_threads() == 0 {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(threads.live_threads(), 0, "the waiting thread was stopped");
    assert!(exits.try_recv().is_err(), "the stopped thread did not end the program again");
}

#[test]
fn spawns_past_the_limit_fail() {
    let out = WritePipe::new();
    // The thread waits until released, holding its place.
    let body = "(drop (memory.atomic.wait32 (i32.const 0) (i32.const 0) (i64.const -1)))";
    let (threads, mut store, exits) = program(&spawner(body), &out, 2);
    let instance = threads.instantiate(&mut store).unwrap();
    let spawn = instance.get_func(&store, "spawn").unwrap().typed::<i32, i32>(&store).unwrap();
    assert_eq!(spawn.call(&mut store, 0).unwrap(), 1);
    assert_eq!(spawn.call(&mut store, 0).unwrap(), 2);
    assert_eq!(spawn.call(&mut store, 0).unwrap(), -6, "EAGAIN past 2 live threads");
    assert_eq!(threads.live_threads(), 2);
    let release = instance.get_func(&store, "release").unwrap().typed::<(), ()>(&store).unwrap();
    release.call(&mut store, ()).unwrap();
    for _ in 0..200 {
        if threads.live_threads() == 0 {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(threads.live_threads(), 0, "released threads end");
    // Room again; ids keep counting.
    assert_eq!(spawn.call(&mut store, 0).unwrap(), 3);
    assert!(exits.try_recv().is_err());
}

#[test]
fn a_program_must_import_one_shared_memory() {
    let engine = Engine::default();
    for text in [
        r#"(module (import "wasi" "thread-spawn" (func (param i32) (result i32))) (memory 1 1 shared))"#,
        r#"(module (import "env" "memory" (memory 1 1)))"#,
    ] {
        let module = Module::new(&engine, text).unwrap();
        let built = WasiThreads::<WasiCtx>::new(&module, WasiCtx::share, |_, _| Ok(())).build();
        assert!(built.is_err());
    }
}
