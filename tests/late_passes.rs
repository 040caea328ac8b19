//! Our passes between Cranelift's optimiser and its code generator
//! (`Config::widen_loads`, `Config::loop_passes`, `Config::address_steps`,
//! `Config::mul_consts`)
//! must not change what a program computes: each case runs with them on
//! and off, in both bounds-check modes, at the edges they reason about
//! (loaded values with the top bit set, counters and compared constants
//! that wrap around, a loop that exits at once, a stepped address past the
//! end of memory).

use cranewasm::*;

const MODULE: &str = r#"(module
    (memory 1)
    (data (i32.const 0) "\f0\ff\ff\ff\ff\80\00\00")
    ;; A loaded i32 used as an i32 and as an address: 0xfffffff0 traps.
    (func (export "deref") (param $q i32) (result i32)
        (local $p i32)
        (local.set $p (i32.load (local.get $q)))
        (i32.add (local.get $p) (i32.load8_u (local.get $p))))
    ;; A loaded byte (0xff) and halfword (0x80ff) used as values and as indices.
    (func (export "narrow") (param $q i32) (result i32)
        (local $b i32) (local $h i32)
        (local.set $b (i32.load8_u (local.get $q)))
        (local.set $h (i32.load16_u offset=4 (local.get $q)))
        (i32.add (i32.add (local.get $b) (local.get $h))
                 (i32.add (i32.load8_u (local.get $b)) (i32.load8_u (local.get $h)))))
    ;; A one-block loop stepping $i before its branch, the old $i live after:
    ;; from $start, stop when the old value equals $stop (wrapping if need be).
    (func (export "scan") (param $start i32) (param $stop i32) (result i32)
        (local $i i32) (local $j i32)
        (local.set $i (local.get $start))
        (loop $next
            (local.set $j (local.get $i))
            (local.set $i (i32.add (local.get $i) (i32.const 1)))
            (br_if $next (i32.ne (local.get $j) (local.get $stop))))
        (i32.add (i32.mul (local.get $j) (i32.const 3)) (local.get $i)))
    ;; The same, stepping down by 7 in 64 bits.
    (func (export "scan64") (param $start i64) (param $stop i64) (result i64)
        (local $i i64) (local $j i64)
        (local.set $i (local.get $start))
        (loop $next
            (local.set $j (local.get $i))
            (local.set $i (i64.sub (local.get $i) (i64.const 7)))
            (br_if $next (i64.gt_s (local.get $j) (local.get $stop))))
        (i64.add (i64.mul (local.get $j) (i64.const 3)) (local.get $i)))
    ;; Counting the old $i against -2 by steps of 2: the test moved to the
    ;; stepped value compares with -2 + 2, which wraps to 0.
    (func (export "wrap") (param $start i32) (result i32)
        (local $i i32) (local $j i32) (local $n i32)
        (local.set $i (local.get $start))
        (loop $next
            (local.set $j (local.get $i))
            (local.set $n (i32.add (local.get $n) (i32.const 1)))
            (local.set $i (i32.add (local.get $i) (i32.const 2)))
            (br_if $next (i32.ne (local.get $j) (i32.const -2))))
        (i32.add (i32.mul (local.get $n) (i32.const 1000)) (local.get $i)))
    ;; A loop's i32 address parameter used as an address: widened to i64.
    (func (export "walk") (param $p i32) (param $n i32) (result i32)
        (local $s i32)
        (loop $next
            (local.set $s (i32.add (i32.mul (local.get $s) (i32.const 3)) (i32.load8_u (local.get $p))))
            (local.set $p (i32.add (local.get $p) (i32.const 4096)))
            (br_if $next (local.tee $n (i32.sub (local.get $n) (i32.const 1)))))
        (local.get $s))
    ;; A loop bound `n & 0x7fe` invariant in the loop, `n` used after it.
    (func (export "pairs") (param $n i32) (result i32)
        (local $k i32) (local $s i32)
        (block $done
            (br_if $done (i32.eqz (i32.and (local.get $n) (i32.const 0x7fe))))
            (loop $next
                (local.set $s (i32.add (local.get $s) (i32.xor (local.get $k) (i32.const 0x55))))
                (local.set $k (i32.add (local.get $k) (i32.const 2)))
                (br_if $next (i32.lt_u (local.get $k) (i32.and (local.get $n) (i32.const 0x7fe))))))
        (i32.add (local.get $s) (local.get $n)))
    ;; Two i64s at $p and $p + 8 per iteration, $p stepped by 16: the second
    ;; address and the step are formed in 64 bits (`address_steps`). The
    ;; second access traps when $p is the memory's last 8 bytes.
    (func (export "unrolled") (param $p i32) (param $n i32) (result i64)
        (local $s i64)
        (loop $next
            (local.set $s (i64.add (local.get $s) (i64.load (local.get $p))))
            (local.set $s (i64.xor (local.get $s) (i64.load (i32.add (local.get $p) (i32.const 8)))))
            (local.set $p (i32.add (local.get $p) (i32.const 16)))
            (br_if $next (local.tee $n (i32.sub (local.get $n) (i32.const 1)))))
        (local.get $s)))"#;

/// What each export gives, as the text of its result or its trap.
fn results(engine: &Engine) -> Vec<String> {
    let module = Module::new(engine, MODULE).unwrap();
    let mut store = Store::new(engine, ());
    let instance = Instance::new(&mut store, &module, &[]).unwrap();
    let mut out = Vec::new();
    let mut call = |name: &str, args: &[Val]| {
        let f = instance.get_func(&store, name).unwrap();
        let mut result = [Val::I64(0)];
        let shown = match f.call(&mut store, args, &mut result) {
            Ok(()) => format!("{:?}", result[0]),
            Err(e) => format!("trap {:?}", e.as_trap().and_then(|t| t.code())),
        };
        out.push(format!("{name}{args:?} = {shown}"));
    };
    call("deref", &[Val::I32(0)]);
    call("deref", &[Val::I32(4)]);
    call("narrow", &[Val::I32(0)]);
    call("narrow", &[Val::I32(4)]);
    for (start, stop) in [(0, 5), (5, 5), (-3, 2), (-1, -1)] {
        call("scan", &[Val::I32(start), Val::I32(stop)]);
    }
    for (start, stop) in [(100, 0), (0, 0), (i64::MIN + 3, i64::MIN + 100), (-20, -1000)] {
        call("scan64", &[Val::I64(start), Val::I64(stop)]);
    }
    for start in [-10, -2] {
        call("wrap", &[Val::I32(start)]);
    }
    for (p, n) in [(0, 16), (0, 17), (5, 3), (-8192, 3), (-4096, 2)] {
        call("walk", &[Val::I32(p), Val::I32(n)]);
    }
    for n in [0, 1, 2, 3, 100, 0x7ff, -1, 0x12345] {
        call("pairs", &[Val::I32(n)]);
    }
    for (p, n) in [(0, 2), (65536 - 32, 2), (65536 - 24, 2), (65536 - 8, 1), (-8, 1), (-16, 1)] {
        call("unrolled", &[Val::I32(p), Val::I32(n)]);
    }
    out
}

fn engine(mode: BoundsChecks, passes: bool) -> Engine {
    let mut config = Config::new();
    config.bounds_checks(mode).widen_loads(passes).loop_passes(passes).address_steps(passes).mul_consts(passes);
    Engine::new(&config).unwrap()
}

#[test]
fn late_passes_change_no_result() {
    for mode in [BoundsChecks::GuardPages, BoundsChecks::Explicit] {
        let with = results(&engine(mode, true));
        let without = results(&engine(mode, false));
        assert_eq!(with, without, "{mode:?}");
        // Spot checks that the cases reach their edges.
        assert!(with[0].contains("trap Some(MemoryOutOfBounds)"), "{}", with[0]);
        assert_eq!(with[4], "scan[I32(0), I32(5)] = I32(21)");
        assert_eq!(with[6], "scan[I32(-3), I32(2)] = I32(9)");
        assert_eq!(with[7], "scan[I32(-1), I32(-1)] = I32(-3)");
        assert_eq!(with[12], "wrap[I32(-10)] = I32(5000)");
        assert_eq!(with[13], "wrap[I32(-2)] = I32(1000)");
        // Only address 0 (0xf0) of the 16 is non-zero: 0xf0 * 3^15.
        let walked = 0xf0u32.wrapping_mul(3u32.pow(15)) as i32;
        assert_eq!(with[14], format!("walk[I32(0), I32(16)] = I32({walked})"));
        assert!(with[15].ends_with("trap Some(MemoryOutOfBounds)"), "{}", with[15]);
        assert!(with[17].ends_with("trap Some(MemoryOutOfBounds)"), "{}", with[17]);
        // The data's two i64s (0x80ffffffff_fffffff0 read as 0xfffffff0,
        // 0x80ff) and zeros; then the last 16 bytes read, the last 8 not.
        assert_eq!(with[27], format!("unrolled[I32(0), I32(2)] = I64({})", 0xffff_fff0_i64 | (0x80ff << 32)));
        assert_eq!(with[28], "unrolled[I32(65504), I32(2)] = I64(0)");
        for trapped in &with[29..] {
            assert!(trapped.ends_with("trap Some(MemoryOutOfBounds)"), "{trapped}");
        }
    }
}

/// `address_steps` relies on memories stopping 64 KiB short of 4 GiB: one
/// declared smaller grows to 65535 pages and no further, and one declared
/// with 65536 pages has them (its module is compiled without the pass).
#[test]
fn memories_stop_64_kib_short_of_4_gib() {
    for mode in [BoundsChecks::GuardPages, BoundsChecks::Explicit] {
        let engine = engine(mode, true);
        let mut store = Store::new(&engine, ());
        let grows = Module::new(&engine, "(module (memory (export \"m\") 1))").unwrap();
        let memory = Instance::new(&mut store, &grows, &[]).unwrap().get_memory(&store, "m").unwrap();
        assert_eq!(memory.max_size(&store), 65535, "{mode:?}");
        assert_eq!(memory.grow(&mut store, 65534).unwrap(), 1, "{mode:?}");
        assert!(memory.grow(&mut store, 1).is_err(), "{mode:?}: grew to 4 GiB");
        assert_eq!(memory.size(&store), 65535);
        let full = Module::new(
            &engine,
            "(module (memory (export \"m\") 65536) (func (export \"last\") (result i32) (i32.load (i32.const -4))))",
        )
        .unwrap();
        let instance = Instance::new(&mut store, &full, &[]).unwrap();
        let memory = instance.get_memory(&store, "m").unwrap();
        assert_eq!((memory.size(&store), memory.max_size(&store)), (65536, 65536), "{mode:?}");
        let last = instance.get_func(&store, "last").unwrap().typed::<(), i32>(&store).unwrap();
        assert_eq!(last.call(&mut store, ()).unwrap(), 0);
    }
}

/// Every constant `mul_consts` rewrites (and a few it leaves alone), in
/// both widths, gives the wrapping product, also at the edges of the
/// factors; and a product used as an address (24-byte elements) reads
/// the element's bytes, or traps past the memory.
#[test]
fn multiplications_by_constants_keep_their_products() {
    const CONSTANTS: [u64; 22] =
        [3, 5, 6, 7, 9, 10, 12, 15, 17, 20, 24, 25, 27, 31, 45, 56, 63, 65, 81, 0x7fff_ffff, 0x8000_0001, 0xffff_ffff];
    const WIDE: [u64; 3] = [0x8000_0000_0000_0001, 0x7fff_ffff_ffff_ffff, (1 << 40) + 1];
    let mut wat = String::from("(module (memory 1) (data (i32.const 48) \"\\2a\\00\\00\\00\")\n");
    for c in CONSTANTS {
        wat +=
            &format!("(func (export \"i32_{c}\") (param i32) (result i32) (i32.mul (local.get 0) (i32.const {c})))\n");
    }
    for c in CONSTANTS.iter().chain(&WIDE) {
        wat +=
            &format!("(func (export \"i64_{c}\") (param i64) (result i64) (i64.mul (i64.const {c}) (local.get 0)))\n");
    }
    wat += "(func (export \"node\") (param i32) (result i32) (i32.load (i32.mul (local.get 0) (i32.const 24)))))";
    let xs: [u64; 8] = [0, 1, 2, 0x7fff_ffff, 0x8000_0000, 0xffff_ffff, 0x1234_5678_9abc_def1, u64::MAX];
    for mode in [BoundsChecks::GuardPages, BoundsChecks::Explicit] {
        for on in [true, false] {
            let mut config = Config::new();
            config.bounds_checks(mode).mul_consts(on);
            let engine = Engine::new(&config).unwrap();
            let module = Module::new(&engine, &wat).unwrap();
            let mut store = Store::new(&engine, ());
            let instance = Instance::new(&mut store, &module, &[]).unwrap();
            for c in CONSTANTS {
                let f = instance.get_func(&store, &format!("i32_{c}")).unwrap().typed::<i32, i32>(&store).unwrap();
                for x in xs {
                    let want = (x as u32).wrapping_mul(c as u32) as i32;
                    assert_eq!(f.call(&mut store, x as i32).unwrap(), want, "{x:#x} * {c} (i32, {mode:?}, {on})");
                }
            }
            for c in CONSTANTS.iter().chain(&WIDE) {
                let f = instance.get_func(&store, &format!("i64_{c}")).unwrap().typed::<i64, i64>(&store).unwrap();
                for x in xs {
                    let want = x.wrapping_mul(*c) as i64;
                    assert_eq!(f.call(&mut store, x as i64).unwrap(), want, "{x:#x} * {c} (i64, {mode:?}, {on})");
                }
            }
            let node = instance.get_func(&store, "node").unwrap().typed::<i32, i32>(&store).unwrap();
            assert_eq!(node.call(&mut store, 2).unwrap(), 42);
            assert_eq!(node.call(&mut store, 65536 / 24 - 1).unwrap(), 0);
            // 2731 * 24 is 65544, past the page; 0x0aaa_aaab * 24 wraps to 8.
            let trap = node.call(&mut store, 65536 / 24 + 1).unwrap_err();
            assert_eq!(trap.code(), Some(Trap::MemoryOutOfBounds), "{mode:?}");
            assert_eq!(node.call(&mut store, 0x0aaa_aaab).unwrap(), 0, "{mode:?}");
        }
    }
}
