//! Out-of-bounds accesses at the exact edges of memory, for every load and
//! store of every width (scalar, extending, v128 and its lane, splat and
//! zero-extending forms), with static offsets from 0 up to 2^32-1, before
//! and after `memory.grow`, on two memories of different sizes, with guard
//! pages and with explicit bounds checks, for 32-bit memories and for
//! 64-bit ones (memory64: addresses past 2^32 and up to 2^64-1 as well).
//!
//! An access of `w` bytes at effective address `a` (address operand plus
//! offset, computed without wrapping) succeeds exactly when
//! `a + w <= memory size`. Loads must read the right bytes; a trapping store
//! must leave memory untouched.

use cranewasm::*;

/// One memory instruction: its text, how many bytes it touches, and how
/// it is driven.
struct Op {
    name: &'static str,
    width: u64,
    kind: Kind,
}

enum Kind {
    /// A load, its result turned into the v128 the test function returns
    /// by the given operator (none for v128 loads).
    Load(&'static str),
    /// A store of the value the given expression makes.
    Store(&'static str),
}

macro_rules! ops {
    ($($name:literal $width:literal $kind:ident $arg:literal;)*) => {
        &[$(Op { name: $name, width: $width, kind: Kind::$kind($arg) }),*]
    };
}

/// Every memory access instruction. `wrap` turns a result into a v128 (for
/// comparison with the expected bytes); `value` produces the stored value
/// from the v128 `$pattern`.
const OPS: &[Op] = ops! {
    "i32.load" 4 Load "i32x4.splat";
    "i32.load8_s" 1 Load "i32x4.splat";
    "i32.load8_u" 1 Load "i32x4.splat";
    "i32.load16_s" 2 Load "i32x4.splat";
    "i32.load16_u" 2 Load "i32x4.splat";
    "i64.load" 8 Load "i64x2.splat";
    "i64.load8_s" 1 Load "i64x2.splat";
    "i64.load8_u" 1 Load "i64x2.splat";
    "i64.load16_s" 2 Load "i64x2.splat";
    "i64.load16_u" 2 Load "i64x2.splat";
    "i64.load32_s" 4 Load "i64x2.splat";
    "i64.load32_u" 4 Load "i64x2.splat";
    "f32.load" 4 Load "f32x4.splat";
    "f64.load" 8 Load "f64x2.splat";
    "v128.load" 16 Load "";
    "v128.load8x8_s" 8 Load "";
    "v128.load8x8_u" 8 Load "";
    "v128.load16x4_s" 8 Load "";
    "v128.load16x4_u" 8 Load "";
    "v128.load32x2_s" 8 Load "";
    "v128.load32x2_u" 8 Load "";
    "v128.load8_splat" 1 Load "";
    "v128.load16_splat" 2 Load "";
    "v128.load32_splat" 4 Load "";
    "v128.load64_splat" 8 Load "";
    "v128.load32_zero" 4 Load "";
    "v128.load64_zero" 8 Load "";
    "v128.load8_lane" 1 Load "";
    "v128.load16_lane" 2 Load "";
    "v128.load32_lane" 4 Load "";
    "v128.load64_lane" 8 Load "";
    "i32.store" 4 Store "(i32x4.extract_lane 0 (global.get $pattern))";
    "i32.store8" 1 Store "(i32x4.extract_lane 0 (global.get $pattern))";
    "i32.store16" 2 Store "(i32x4.extract_lane 0 (global.get $pattern))";
    "i64.store" 8 Store "(i64x2.extract_lane 0 (global.get $pattern))";
    "i64.store8" 1 Store "(i64x2.extract_lane 0 (global.get $pattern))";
    "i64.store16" 2 Store "(i64x2.extract_lane 0 (global.get $pattern))";
    "i64.store32" 4 Store "(i64x2.extract_lane 0 (global.get $pattern))";
    "f32.store" 4 Store "(f32x4.extract_lane 0 (global.get $pattern))";
    "f64.store" 8 Store "(f64x2.extract_lane 0 (global.get $pattern))";
    "v128.store" 16 Store "(global.get $pattern)";
    "v128.store8_lane" 1 Store "(global.get $pattern)";
    "v128.store16_lane" 2 Store "(global.get $pattern)";
    "v128.store32_lane" 4 Store "(global.get $pattern)";
    "v128.store64_lane" 8 Store "(global.get $pattern)";
};

/// Static offsets tried: small, page-sized, and up to the largest a 32-bit
/// memory allows, where address + offset exceeds 2^32.
const OFFSETS: [u64; 8] = [0, 1, 65535, 65536, 0x7fff_ffff, 0x8000_0000, 0xffff_fff0, 0xffff_ffff];

/// The bytes the pattern global holds (distinct, so a load of the wrong
/// bytes shows).
fn pattern() -> [u8; 16] {
    std::array::from_fn(|i| 0xa0 + i as u8)
}

fn is_lane(name: &str) -> bool {
    name.ends_with("_lane")
}

/// A module with, for each memory and op, an export `<mem>:<op>` taking
/// the address operand; its memories are 64-bit when `is64`.
fn module_text(offset: u64, is64: bool) -> String {
    let at = if is64 { "i64" } else { "i32" };
    let mut funcs = String::new();
    for mem in 0..2 {
        for op in OPS {
            let lane = if is_lane(op.name) { " 0" } else { "" };
            let body = match op.kind {
                Kind::Load(wrap) => {
                    let operand = if is_lane(op.name) { " (global.get $zero_v)" } else { "" };
                    let load = format!("({} {mem} offset={offset}{lane} (local.get 0){operand})", op.name);
                    if wrap.is_empty() {
                        load
                    } else {
                        format!("({wrap} {load})")
                    }
                }
                Kind::Store(value) => {
                    format!("({} {mem} offset={offset}{lane} (local.get 0) {value}) (global.get $zero_v)", op.name)
                }
            };
            funcs.push_str(&format!("(func (export \"{mem}:{}\") (param {at}) (result v128) {body})\n", op.name));
        }
    }
    let p = pattern();
    let bytes: String = p.iter().map(|b| format!(" 0x{b:02x}")).collect();
    format!(
        r#"(module
            (memory (export "m0") {at} 1 4)
            (memory (export "m1") {at} 3 4)
            (global $pattern (mut v128) (v128.const i8x16{bytes}))
            (global $zero_v (mut v128) (v128.const i64x2 0 0))
            (func (export "grow") (param {at}) (result {at}) (memory.grow 0 (local.get 0)))
            {funcs})"#
    )
}

/// What a successful access must return or leave in memory, from the
/// bytes at the effective address.
fn expected_load(op: &Op, at: &[u8]) -> [u8; 16] {
    let w = op.width as usize;
    let le = |n: usize| at[..n].iter().rev().fold(0u64, |x, b| x << 8 | *b as u64);
    let sext = |n: usize| ((le(n) << (64 - 8 * n)) as i64 >> (64 - 8 * n)) as u64;
    let splat = |v: u64, lane: usize| -> [u8; 16] {
        let mut out = [0u8; 16];
        for i in 0..16 / lane {
            out[i * lane..(i + 1) * lane].copy_from_slice(&v.to_le_bytes()[..lane]);
        }
        out
    };
    let name = op.name;
    match name {
        "i32.load" | "f32.load" | "i32.load8_u" | "i32.load16_u" => splat(le(w), 4),
        "i32.load8_s" | "i32.load16_s" => splat(sext(w), 4),
        "i64.load" | "f64.load" | "i64.load8_u" | "i64.load16_u" | "i64.load32_u" => splat(le(w), 8),
        "i64.load8_s" | "i64.load16_s" | "i64.load32_s" => splat(sext(w), 8),
        "v128.load" => at[..16].try_into().unwrap(),
        _ if name.contains('x') => expected_load_widen(op, at.try_into().unwrap()),
        _ if name.ends_with("_splat") => splat(le(w), w),
        _ if name.ends_with("_zero") || is_lane(name) => {
            let mut out = [0u8; 16];
            out[..w].copy_from_slice(&at[..w]);
            out
        }
        _ => unreachable!("{name}"),
    }
}

fn lane_bytes(op: &Op) -> usize {
    // `v128.load8x8_s`: the lane width is the digits after "load".
    let digits: String = op.name["v128.load".len()..].chars().take_while(|c| c.is_ascii_digit()).collect();
    digits.parse::<usize>().unwrap() / 8
}

fn run(engine: &Engine, is64: bool) -> usize {
    let mut checked = 0;
    for offset in OFFSETS {
        let module = Module::new(engine, module_text(offset, is64)).unwrap();
        let mut store = Store::new(engine, ());
        let instance = Instance::new(&mut store, &module, &[]).unwrap();
        let grow = instance.get_func(&store, "grow").unwrap();
        for grown in [false, true] {
            if grown {
                let mut old = [if is64 { Val::I64(0) } else { Val::I32(0) }];
                let delta = if is64 { Val::I64(1) } else { Val::I32(1) };
                grow.call(&mut store, &[delta], &mut old).unwrap();
                assert!(matches!(old[0], Val::I32(1) | Val::I64(1)), "grown from 1 page");
            }
            for mem in 0..2 {
                let memory = instance.get_memory(&store, &format!("m{mem}")).unwrap();
                let size = memory.data_size(&store) as u64;
                // Distinct bytes everywhere near the edges.
                let data = memory.data_mut(&mut store);
                let len = data.len();
                for (i, b) in data.iter_mut().enumerate().skip(len - 64) {
                    *b = i as u8 ^ 0x5a;
                }
                for op in OPS {
                    let f = instance.get_func(&store, &format!("{mem}:{}", op.name)).unwrap();
                    let f32 = (!is64).then(|| f.typed::<i32, V128>(&store).unwrap());
                    let f64 = is64.then(|| f.typed::<i64, V128>(&store).unwrap());
                    // Addresses whose effective address lands at the edges,
                    // past the end, and beyond 2^32 (for 64-bit memories
                    // also past the 4 GiB the guard region covers, and near
                    // 2^64).
                    let mut eas = vec![size - op.width, size - op.width + 1, size, size + 1, u32::MAX as u64 + 1];
                    eas.extend([0, 1, size / 2].into_iter().map(|a| a + offset));
                    let mut addrs: Vec<u64> = Vec::new();
                    if is64 {
                        eas.extend([
                            (1 << 32) - 1,
                            (1 << 32) + 1,
                            1 << 33,
                            (8 << 30) - 1,
                            1 << 63,
                            u64::MAX - op.width + 1,
                        ]);
                        // Operands whose sum with the offset wraps.
                        addrs.extend([u64::MAX, u64::MAX - op.width + 1]);
                    }
                    // Address operands reaching each `ea` with this offset;
                    // a 32-bit memory's operand is an unsigned 32-bit value.
                    let max = if is64 { u64::MAX } else { u32::MAX as u64 };
                    addrs.extend(eas.iter().filter_map(|ea| ea.checked_sub(offset)).filter(|a| *a <= max));
                    for addr in addrs {
                        let ea = addr.checked_add(offset);
                        let in_bounds = ea.and_then(|ea| ea.checked_add(op.width)).is_some_and(|end| end <= size);
                        let ea = ea.unwrap_or(u64::MAX);
                        let before = memory.data(&store).to_vec();
                        let result = match (&f32, &f64) {
                            (Some(f), _) => f.call(&mut store, addr as u32 as i32),
                            (_, Some(f)) => f.call(&mut store, addr as i64),
                            _ => unreachable!(),
                        };
                        let what = format!("{} memory {mem} ({size} bytes) offset {offset} address {addr:#x}", op.name);
                        checked += 1;
                        if !in_bounds {
                            let trap = result.expect_err(&format!("{what} must trap"));
                            assert_eq!(trap.code(), Some(Trap::MemoryOutOfBounds), "{what}");
                            assert!(memory.data(&store) == before.as_slice(), "{what}: a trapping store wrote");
                            continue;
                        }
                        let got = result.unwrap_or_else(|t| panic!("{what} trapped: {t}")).to_le_bytes();
                        let at = &before[ea as usize..];
                        match op.kind {
                            Kind::Load(_) => {
                                let mut at16 = [0u8; 16];
                                let n = at.len().min(16);
                                at16[..n].copy_from_slice(&at[..n]);
                                assert_eq!(got, expected_load(op, &at16), "{what}");
                            }
                            Kind::Store(_) => {
                                let now = memory.data(&store);
                                assert_eq!(
                                    &now[ea as usize..(ea + op.width) as usize],
                                    &pattern()[..op.width as usize],
                                    "{what}"
                                );
                                // Nothing else changed.
                                let mut rest = now.to_vec();
                                rest[ea as usize..(ea + op.width) as usize]
                                    .copy_from_slice(&before[ea as usize..(ea + op.width) as usize]);
                                assert!(rest == before, "{what}: bytes outside the store changed");
                                memory.data_mut(&mut store)[..].copy_from_slice(&before);
                            }
                        }
                    }
                }
            }
        }
    }
    checked
}

/// The widening loads, lane by lane.
fn expected_load_widen(op: &Op, at: &[u8; 16]) -> [u8; 16] {
    let from = lane_bytes(op);
    let signed = op.name.ends_with("_s");
    let mut out = [0u8; 16];
    for i in 0..8 / from {
        let mut v = at[i * from..(i + 1) * from].iter().rev().fold(0u64, |x, b| x << 8 | *b as u64);
        if signed {
            v = ((v << (64 - 8 * from)) as i64 >> (64 - 8 * from)) as u64;
        }
        out[i * 2 * from..(i + 1) * 2 * from].copy_from_slice(&v.to_le_bytes()[..2 * from]);
    }
    out
}

/// The sweep on 32- or 64-bit memories in bounds-check mode `mode`, which
/// must check at least `at_least` accesses.
fn edges(mode: BoundsChecks, is64: bool, at_least: usize) {
    // Chosen, not the default: the default follows CRANEWASM_BOUNDS_CHECKS.
    let mut config = Config::new();
    config.bounds_checks(mode);
    let checked = run(&Engine::new(&config).unwrap(), is64);
    assert!(checked > at_least, "{checked} accesses");
}

#[test]
fn edges_with_guard_pages() {
    edges(BoundsChecks::GuardPages, false, 5000);
}

#[test]
fn edges_with_explicit_checks() {
    edges(BoundsChecks::Explicit, false, 5000);
}

#[test]
fn edges_of_64_bit_memories_with_guard_pages() {
    edges(BoundsChecks::GuardPages, true, 10000);
}

#[test]
fn edges_of_64_bit_memories_with_explicit_checks() {
    edges(BoundsChecks::Explicit, true, 10000);
}

#[test]
fn edges_unoptimised() {
    let mut config = Config::new();
    config.cranelift_optimize(false);
    for mode in [BoundsChecks::GuardPages, BoundsChecks::Explicit] {
        config.bounds_checks(mode);
        run(&Engine::new(&config).unwrap(), false);
        run(&Engine::new(&config).unwrap(), true);
    }
}

#[test]
fn an_empty_memory_traps_on_every_access() {
    for mode in [BoundsChecks::GuardPages, BoundsChecks::Explicit] {
        let mut config = Config::new();
        config.bounds_checks(mode);
        let engine = Engine::new(&config).unwrap();
        let module = Module::new(
            &engine,
            r#"(module (memory 0)
                (func (export "load") (param i32) (result i32) (i32.load8_u (local.get 0)))
                (func (export "store") (param i32) (i64.store offset=0 (local.get 0) (i64.const 1)))
                (func (export "fill") (param i32 i32) (memory.fill (local.get 0) (i32.const 0) (local.get 1))))"#,
        )
        .unwrap();
        let mut store = Store::new(&engine, ());
        let instance = Instance::new(&mut store, &module, &[]).unwrap();
        let load = instance.get_func(&store, "load").unwrap().typed::<i32, i32>(&store).unwrap();
        let st = instance.get_func(&store, "store").unwrap().typed::<i32, ()>(&store).unwrap();
        let fill = instance.get_func(&store, "fill").unwrap().typed::<(i32, i32), ()>(&store).unwrap();
        for addr in [0, 1, 4096, 65535, -1] {
            assert_eq!(load.call(&mut store, addr).unwrap_err().code(), Some(Trap::MemoryOutOfBounds), "{mode:?}");
            assert_eq!(st.call(&mut store, addr).unwrap_err().code(), Some(Trap::MemoryOutOfBounds), "{mode:?}");
        }
        // A zero-length bulk operation at the end (0 here) is in bounds.
        fill.call(&mut store, (0, 0)).unwrap();
        assert_eq!(fill.call(&mut store, (1, 0)).unwrap_err().code(), Some(Trap::MemoryOutOfBounds));
    }
}

/// A memory64 address bounded by 4 GiB by its definition is not checked
/// (see `compile/func_env/bounds64.rs`): past the length it must still
/// trap, in both bounds-check modes, and read right within it.
#[test]
fn bounded_64_bit_addresses_past_the_length_trap() {
    for mode in [BoundsChecks::GuardPages, BoundsChecks::Explicit] {
        let mut config = Config::new();
        config.bounds_checks(mode);
        let engine = Engine::new(&config).unwrap();
        let module = Module::new(
            &engine,
            r#"(module (memory i64 1)
                (data (i64.const 1020) "\2a")
                (func (export "at") (param i32 i32) (result i32)
                    (i32.load8_u (i64.add (i64.const 1024)
                        (i64.shl (i64.extend_i32_u (i32.and (local.get 0) (i32.const 255)))
                                 (i64.extend_i32_u (i32.and (local.get 1) (i32.const 31)))))))
                (func (export "static") (param i32) (result i32)
                    (i32.load8_u (i64.add (i64.const 1020) (i64.extend_i32_u (local.get 0)))))
                (func (export "at24") (param i32) (result i32)
                    (i32.load8_u (i64.add (i64.const 1024)
                        (i64.shl (i64.extend_i32_u (i32.and (local.get 0) (i32.const 255))) (i64.const 24))))))"#,
        )
        .unwrap();
        let mut store = Store::new(&engine, ());
        let instance = Instance::new(&mut store, &module, &[]).unwrap();
        let at = instance.get_func(&store, "at").unwrap().typed::<(i32, i32), i32>(&store).unwrap();
        assert_eq!(at.call(&mut store, (0, 0)).unwrap(), 0, "{mode:?}");
        // The shift is by a variable: this one is checked, and in bounds.
        assert_eq!(at.call(&mut store, (255, 4)).unwrap(), 0, "{mode:?}");
        for (x, k) in [(255, 8), (64, 10), (255, 24), (1, 31), (255, 31)] {
            let trap = at.call(&mut store, (x, k)).unwrap_err();
            assert_eq!(trap.code(), Some(Trap::MemoryOutOfBounds), "{mode:?} {x} << {k}");
        }
        // A static array and an unsigned index: at most 4 GiB + 1019, so
        // not checked under guard pages either.
        let stat = instance.get_func(&store, "static").unwrap().typed::<i32, i32>(&store).unwrap();
        assert_eq!(stat.call(&mut store, 0).unwrap(), 42, "{mode:?}");
        assert_eq!(stat.call(&mut store, 65535 - 1020).unwrap(), 0, "{mode:?}");
        for x in [65536 - 1020, 65536, 1 << 30, i32::MAX, -1] {
            let trap = stat.call(&mut store, x).unwrap_err();
            assert_eq!(trap.code(), Some(Trap::MemoryOutOfBounds), "{mode:?} static array at {x}");
        }
        // A constant shift: bounded by 255 << 24 + 1024 < 4 GiB, so not
        // checked under guard pages, and past the length from 1 on.
        let at24 = instance.get_func(&store, "at24").unwrap().typed::<i32, i32>(&store).unwrap();
        assert_eq!(at24.call(&mut store, 0).unwrap(), 0, "{mode:?}");
        for x in [1, 128, 255, -1] {
            let trap = at24.call(&mut store, x).unwrap_err();
            assert_eq!(trap.code(), Some(Trap::MemoryOutOfBounds), "{mode:?} {x} << 24");
        }
    }
}
