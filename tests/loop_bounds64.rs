//! Loops over a 64-bit memory whose address is a loop parameter stepped on
//! every iteration: `compile/loop_bounds64.rs` clamps such an address once
//! on entry and masks it on each back edge instead of clamping it at every
//! access. Each loop here runs against a model of wasm's semantics (the
//! address wraps at 2^64; an access traps when any byte is past the
//! length), from entry addresses in bounds, at the end, past 4 GiB and
//! near 2^64, with steps of 0, 1, odd sizes and the largest in bounds:
//! the bytes written before the trap, and the trap, must be the model's.

use cranewasm::*;

const PAGE: u64 = 65536;

/// The loops: each stores `n` times at `p`, `p + s`, ... (bytes of a
/// counter), as clang's strength-reduced wasm64 loops do.
const MODULE: &str = r#"(module
  (memory (export "mem") i64 1 2)
  ;; The sieve's shape: the step is an index accessed before the loop.
  (func $proven (export "proven") (param $p i64) (param $s i64) (param $n i32)
    (drop (i32.load8_u (local.get $s)))
    (if (i32.eqz (local.get $n)) (then (return)))
    (loop $l
      (i32.store8 (local.get $p) (local.get $n))
      (local.set $p (i64.add (local.get $p) (local.get $s)))
      (br_if $l (local.tee $n (i32.sub (local.get $n) (i32.const 1))))))
  ;; matmul's shape: a constant step, two offsets.
  (func $pairs (export "pairs") (param $p i64) (param $s i64) (param $n i32)
    (if (i32.eqz (local.get $n)) (then (return)))
    (loop $l
      (i64.store (local.get $p) (i64.extend_i32_u (local.get $n)))
      (i64.store offset=8 (local.get $p) (i64.extend_i32_u (local.get $n)))
      (local.set $p (i64.add (local.get $p) (i64.const 16)))
      (br_if $l (local.tee $n (i32.sub (local.get $n) (i32.const 1))))))
  ;; A step nothing bounds: left clamped at every access.
  (func $unbounded (export "unbounded") (param $p i64) (param $s i64) (param $n i32)
    (if (i32.eqz (local.get $n)) (then (return)))
    (loop $l
      (i32.store16 offset=3 (local.get $p) (local.get $n))
      (local.set $p (i64.add (local.get $s) (local.get $p)))
      (br_if $l (local.tee $n (i32.sub (local.get $n) (i32.const 1))))))
  ;; The access is not on every path round the loop: left clamped.
  (func $sometimes (export "sometimes") (param $p i64) (param $s i64) (param $n i32)
    (if (i32.eqz (local.get $n)) (then (return)))
    (loop $l
      (if (i32.and (local.get $n) (i32.const 1))
        (then (i32.store8 (local.get $p) (local.get $n))))
      (local.set $p (i64.add (local.get $p) (i64.const 7)))
      (br_if $l (local.tee $n (i32.sub (local.get $n) (i32.const 1))))))
  (func (export "grow") (result i64) (memory.grow (i64.const 1))))"#;

/// What a loop writes: per iteration `k` (counting `n` down to 1), at
/// which addresses and widths, with which value.
fn writes(name: &str, p: u64, s: u64, n: u32) -> Vec<(u64, u64, u64, u64)> {
    let mut out = Vec::new();
    let mut a = p;
    for k in (1..=n).rev() {
        match name {
            "proven" => out.push((a, 0, 1, k as u64)),
            "pairs" => {
                out.push((a, 0, 8, k as u64));
                out.push((a, 8, 8, k as u64));
            }
            "unbounded" => out.push((a, 3, 2, k as u64)),
            "sometimes" => {
                if k & 1 == 1 {
                    out.push((a, 0, 1, k as u64))
                }
            }
            _ => unreachable!(),
        }
        a = a.wrapping_add(match name {
            "pairs" => 16,
            "sometimes" => 7,
            _ => s,
        });
    }
    out
}

/// Runs the model: the memory after the call, and whether it trapped.
fn model(name: &str, size: u64, p: u64, s: u64, n: u32) -> (Vec<u8>, bool) {
    let mut mem = vec![0u8; size as usize];
    if name == "proven" && s as u128 + 1 > size as u128 {
        return (mem, true);
    }
    for (addr, offset, width, value) in writes(name, p, s, n) {
        let start = addr as u128 + offset as u128;
        if start + width as u128 > size as u128 {
            return (mem, true);
        }
        let bytes = value.to_le_bytes();
        mem[start as usize..][..width as usize].copy_from_slice(&bytes[..width as usize]);
    }
    (mem, false)
}

fn check(mode: BoundsChecks, loop_passes: bool) {
    let mut config = Config::new();
    config.bounds_checks(mode).loop_passes(loop_passes);
    let engine = Engine::new(&config).unwrap();
    let module = Module::new(&engine, MODULE).unwrap();
    let past_4gib = [1 << 32, (1 << 32) + 5, (1 << 33) - 1, 1 << 33, 1 << 40, u64::MAX - 7, u64::MAX];
    let mut entries = vec![0, 1, 17, PAGE - 16, PAGE - 9, PAGE - 8, PAGE - 1, PAGE, PAGE + 1, 2 * PAGE - 1];
    entries.extend(past_4gib);
    entries.extend([(1 << 32) - 1, (1 << 32) - 8]);
    let steps = [0, 1, 3, 16, 4093, PAGE - 1, PAGE, PAGE + 1, (1 << 32) - 1, 1 << 32, u64::MAX];
    for grown in [false, true] {
        for name in ["proven", "pairs", "unbounded", "sometimes"] {
            for &p in &entries {
                for &s in &steps {
                    for n in [1, 2, 5, 40] {
                        let mut store = Store::new(&engine, ());
                        let instance = Instance::new(&mut store, &module, &[]).unwrap();
                        if grown {
                            let grow = instance.get_func(&store, "grow").unwrap().typed::<(), i64>(&store).unwrap();
                            assert_eq!(grow.call(&mut store, ()).unwrap(), 1);
                        }
                        let size = if grown { 2 * PAGE } else { PAGE };
                        let f = instance.get_func(&store, name).unwrap().typed::<(i64, i64, i32), ()>(&store).unwrap();
                        let result = f.call(&mut store, (p as i64, s as i64, n as i32));
                        let (expected, traps) = model(name, size, p, s, n);
                        let what =
                            format!("{name}(p={p:#x}, s={s:#x}, n={n}) {mode:?} passes={loop_passes} size={size}");
                        match result {
                            Ok(()) => assert!(!traps, "{what}: returned, the model traps"),
                            Err(e) => {
                                assert!(traps, "{what}: trapped ({e}), the model does not");
                                assert_eq!(e.code(), Some(Trap::MemoryOutOfBounds), "{what}");
                            }
                        }
                        let mem = instance.get_memory(&store, "mem").unwrap();
                        assert!(mem.data(&store) == &expected[..], "{what}: memory differs from the model");
                    }
                }
            }
        }
    }
}

#[test]
fn stepped_loop_addresses_with_guard_pages() {
    check(BoundsChecks::GuardPages, true);
}

#[test]
fn stepped_loop_addresses_without_the_pass() {
    check(BoundsChecks::GuardPages, false);
}

#[test]
fn stepped_loop_addresses_with_explicit_checks() {
    check(BoundsChecks::Explicit, true);
}

/// The loops above are the ones the pass is for: it rewrites the first
/// two (a mask below 8 GiB on the back edge) and leaves the other two.
#[test]
fn the_pass_rewrites_the_loops_it_can_prove() {
    let mut config = Config::new();
    config.bounds_checks(BoundsChecks::GuardPages);
    let text = Module::code_text(&Engine::new(&config).unwrap(), MODULE).unwrap();
    let functions: Vec<&str> = text.split(";; function ").skip(1).collect();
    for (name, rewritten) in [("proven", true), ("pairs", true), ("unbounded", false), ("sometimes", false)] {
        let code = functions.iter().find(|f| f.contains(&format!("${name}"))).expect(name);
        let ir = code.split(";; machine code").next().unwrap();
        assert_eq!(ir.contains("0x0001_ffff_ffff"), rewritten, "{name}:\n{ir}");
    }
}
