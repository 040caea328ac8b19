//! GC's soak test (issue 40): its own test binary, so that nothing else
//! in the process moves its resident memory while it is measured.

use cranewasm::*;

#[path = "support/proc_status.rs"]
mod proc_status;
use proc_status::status_kib;

/// The soak test: 1,000 store lifetimes, each a collection-heavy run cut
/// short by a trap from the host in the middle of it, with the store then
/// dropped. Resident memory stays flat: each store's heap, both spaces,
/// goes with it.
#[test]
fn a_thousand_stores_dropped_mid_run_leave_rss_flat() {
    let engine = Engine::default();
    let module = Module::new(
        &engine,
        r#"(module
          (type $node (struct (field (ref null $node)) (field (ref null $node))))
          (import "host" "tick" (func $tick))
          (func $make (param $d i32) (result (ref null $node))
            (if (result (ref null $node)) (i32.eqz (local.get $d))
              (then (struct.new_default $node))
              (else (struct.new $node (call $make (i32.sub (local.get $d) (i32.const 1)))
                                      (call $make (i32.sub (local.get $d) (i32.const 1)))))))
          (func (export "run")
            (local $keep (ref null $node))
            (local.set $keep (call $make (i32.const 10)))
            (loop $again
              (drop (call $make (i32.const 12)))
              (call $tick)
              (br $again))))"#,
    )
    .unwrap();
    let mut rss_after_warmup = 0;
    for round in 0..1000 {
        let mut store = Store::new(&engine, 0u32);
        store.set_limiter(StoreLimits::builder().gc_heap_size(16 << 20).build());
        // The 30th tick traps: 30 trees of 8,191 nodes, 6 MiB, past the
        // first collection.
        let tick = Func::wrap(&mut store, |mut caller: Caller<'_, u32>| -> Result<(), TrapError> {
            *caller.data_mut() += 1;
            match *caller.data() {
                30 => Err(TrapError::new("enough")),
                _ => Ok(()),
            }
        });
        let instance = Instance::new(&mut store, &module, &[tick.into()]).unwrap();
        let run = instance.get_func(&store, "run").unwrap();
        let e = run.call(&mut store, &[], &mut []).unwrap_err();
        assert!(e.to_string().contains("enough"), "{e}");
        assert!(store.gc_stats().collections >= 1, "{:?}", store.gc_stats());
        drop(store);
        if round == 99 {
            rss_after_warmup = status_kib("VmRSS:");
        }
    }
    let growth = status_kib("VmRSS:").saturating_sub(rss_after_warmup);
    // One store leaked would be 4 MiB or more; 900 of them, gigabytes.
    assert!(growth < 4 << 10, "RSS grew by {growth} KiB over 900 store lifetimes");
}
