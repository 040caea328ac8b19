//! The WASI hot path allocates nothing: a guest loop of `fd_write` (16
//! bytes to an in-memory pipe) and `clock_time_get` runs with the number
//! of heap allocations on this thread counted, and it must be zero.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use cranewasm::wasi::{WasiCtx, WritePipe};
use cranewasm::{Engine, Linker, Module, Store};

struct Counting;

thread_local! {
    static ALLOCS: Cell<Option<u64>> = const { Cell::new(None) };
}

// SAFETY: every call is forwarded unchanged to the system allocator; the
// counting beside it neither allocates nor unwinds.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = ALLOCS.try_with(|c| c.set(c.get().map(|n| n + 1)));
        // SAFETY: the caller's contract is the system allocator's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as for `alloc`.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let _ = ALLOCS.try_with(|c| c.set(c.get().map(|n| n + 1)));
        // SAFETY: as for `alloc`.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Heap allocations made on this thread by `f`.
fn allocations(f: impl FnOnce()) -> u64 {
    ALLOCS.with(|c| c.set(Some(0)));
    f();
    ALLOCS.with(|c| c.replace(None)).unwrap()
}

const LOOP: &str = r#"(module
  (import "wasi_snapshot_preview1" "fd_write" (func $write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "clock_time_get" (func $now (param i32 i64 i32) (result i32)))
  (memory (export "memory") 1)
  (data (i32.const 16) "\20\00\00\00\10\00\00\00")
  (data (i32.const 32) "sixteen bytes!!\n")
  (func (export "run") (param $n i32) (result i32)
    (local $err i32)
    (loop $l
      (local.set $err (i32.or (local.get $err)
        (call $write (i32.const 1) (i32.const 16) (i32.const 1) (i32.const 8))))
      (local.set $err (i32.or (local.get $err) (call $now (i32.const 1) (i64.const 0) (i32.const 0))))
      (br_if $l (local.tee $n (i32.sub (local.get $n) (i32.const 1)))))
    (local.get $err)))"#;

#[test]
fn fd_write_to_a_pipe_and_clock_time_get_do_not_allocate() {
    let out = WritePipe::new();
    let engine = Engine::default();
    let module = Module::new(&engine, LOOP).unwrap();
    let mut store = Store::new(&engine, WasiCtx::builder().stdout(out.clone()).build().unwrap());
    let mut linker = Linker::new(store.engine());
    linker.define_wasi(&mut store, |c: &mut WasiCtx| c).unwrap();
    let instance = linker.instantiate(&mut store, &module).unwrap();
    let run = instance.get_func(&store, "run").unwrap().typed::<i32, i32>(&store).unwrap();
    // Warm up: the pipe's buffer reaches its size, then is emptied (its
    // capacity stays).
    assert_eq!(run.call(&mut store, 1000).unwrap(), 0);
    assert_eq!(out.len(), 16_000);
    out.clear();
    // The counter sees allocations at all.
    assert_eq!(allocations(|| drop(std::hint::black_box(Vec::<u8>::with_capacity(8)))), 1);
    let n = allocations(|| assert_eq!(run.call(&mut store, 1000).unwrap(), 0));
    assert_eq!(n, 0, "{n} allocations in 1000 fd_write + clock_time_get calls");
    assert_eq!(out.len(), 16_000);
    assert_eq!(&out.contents()[..16], b"sixteen bytes!!\n");
}
