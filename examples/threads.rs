//! Several threads, each with its own store and instance, counting in one
//! shared memory with atomics (wasmtime's `threads` example, with a
//! shared memory as its `threads` proposal counterpart).

use cranewasm::*;

const COUNTER: &str = r#"(module
  (import "env" "memory" (memory 1 1 shared))
  (func (export "add") (param $n i32)
    (loop $again
      (drop (i32.atomic.rmw.add (i32.const 0) (i32.const 1)))
      (br_if $again (local.tee $n (i32.sub (local.get $n) (i32.const 1)))))))"#;

const THREADS: usize = 4;
const PER_THREAD: i32 = 10_000;

fn main() -> Result<()> {
    let engine = Engine::default();
    let module = Module::new(&engine, COUNTER)?;
    let memory = SharedMemory::new(&engine, MemoryType::shared(1, 1))?;

    let workers: Vec<_> = (0..THREADS)
        .map(|_| {
            let (engine, module, memory) = (engine.clone(), module.clone(), memory.clone());
            std::thread::spawn(move || -> Result<()> {
                let mut store = Store::new(&engine, ());
                let mut linker = Linker::new(&engine);
                let memory = memory.to_memory(&mut store)?;
                linker.define(&store, "env", "memory", memory)?;
                let instance = linker.instantiate(&mut store, &module)?;
                instance.get_typed_func::<i32, ()>(&mut store, "add")?.call(&mut store, PER_THREAD)?;
                Ok(())
            })
        })
        .collect();
    for worker in workers {
        worker.join().expect("worker panicked")?;
    }
    // SAFETY: every thread has joined; nothing writes the memory now.
    let bytes: Vec<u8> = memory.data()[..4].iter().map(|b| unsafe { *b.get() }).collect();
    let total = i32::from_le_bytes(bytes.try_into().unwrap());
    println!("{THREADS} threads counted to {total}");
    assert_eq!(total, THREADS as i32 * PER_THREAD);
    Ok(())
}
