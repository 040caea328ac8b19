//! `Config::thread_dispatch` copies an interpreter's dispatch block (a
//! small block ending in a wide `br_table`) into every block that jumps to
//! it, and repairs SSA form for what the block defined. It must not change
//! what the interpreter computes: a bytecode interpreter in wasm runs
//! programs with the pass on and off, and the results must agree. The
//! handlers use the dispatch block's loaded word (a value the copies
//! redefine), pass some state back unchanged (a parameter passed on to
//! itself), change other state (integer and float), branch (so copies
//! meet in shared code) and leave the loop from inside a handler.

use cranewasm::*;

/// Instructions are 32-bit words: opcode in the low 4 bits, an immediate
/// in the upper 24. State: `pc` (a byte address), `acc`, `x`, `f` (f64).
const INTERPRETER: &str = r#"(module
    (memory (export "memory") 1)
    (func (export "run") (param $pc i32) (param $fuel i32) (result i64)
        (local $ins i32) (local $acc i32) (local $x i32) (local $f f64)
        (loop $next
            (local.set $ins (i32.load (local.get $pc)))
            (block $halt (block $d (block $op9 (block $op8 (block $op7 (block $op6 (block $op5
            (block $op4 (block $op3 (block $op2 (block $op1 (block $op0
                (br_table $op0 $op1 $op2 $op3 $op4 $op5 $op6 $op7 $op8 $op9 $halt $d
                    (i32.and (local.get $ins) (i32.const 15))))
            ;; 0: acc += imm
            (local.set $acc (i32.add (local.get $acc) (i32.shr_u (local.get $ins) (i32.const 8))))
            (local.set $pc (i32.add (local.get $pc) (i32.const 4)))
            (br $next))
            ;; 1: acc *= 3 (x, f and ins untouched: passed on as they are)
            (local.set $acc (i32.mul (local.get $acc) (i32.const 3)))
            (local.set $pc (i32.add (local.get $pc) (i32.const 4)))
            (br $next))
            ;; 2: acc ^= pc
            (local.set $acc (i32.xor (local.get $acc) (local.get $pc)))
            (local.set $pc (i32.add (local.get $pc) (i32.const 4)))
            (br $next))
            ;; 3: if acc is odd, jump to the immediate (a byte address), else go on
            (if (i32.and (local.get $acc) (i32.const 1))
                (then (local.set $pc (i32.shr_u (local.get $ins) (i32.const 8))))
                (else (local.set $pc (i32.add (local.get $pc) (i32.const 4)))))
            (br $next))
            ;; 4: x += acc
            (local.set $x (i32.add (local.get $x) (local.get $acc)))
            (local.set $pc (i32.add (local.get $pc) (i32.const 4)))
            (br $next))
            ;; 5: acc -= x, with fuel spent here only
            (local.set $acc (i32.sub (local.get $acc) (local.get $x)))
            (local.set $fuel (i32.sub (local.get $fuel) (i32.const 1)))
            (br_if $halt (i32.eqz (local.get $fuel)))
            (local.set $pc (i32.add (local.get $pc) (i32.const 4)))
            (br $next))
            ;; 6: f += acc
            (local.set $f (f64.add (local.get $f) (f64.convert_i32_s (local.get $acc))))
            (local.set $pc (i32.add (local.get $pc) (i32.const 4)))
            (br $next))
            ;; 7: f *= 0.5, acc += the word itself
            (local.set $f (f64.mul (local.get $f) (f64.const 0.5)))
            (local.set $acc (i32.add (local.get $acc) (local.get $ins)))
            (local.set $pc (i32.add (local.get $pc) (i32.const 4)))
            (br $next))
            ;; 8: jump back to 0 unless fuel is out
            (local.set $fuel (i32.sub (local.get $fuel) (i32.const 1)))
            (br_if $halt (i32.le_s (local.get $fuel) (i32.const 0)))
            (local.set $pc (i32.const 0))
            (br $next))
            ;; 9: a shared tail: both arms rejoin before the next dispatch
            (if (i32.gt_u (local.get $x) (local.get $acc))
                (then (local.set $x (i32.rotl (local.get $x) (i32.const 5))))
                (else (local.set $acc (i32.rotr (local.get $acc) (i32.const 3)))))
            (local.set $acc (i32.add (local.get $acc) (local.get $ins)))
            (local.set $pc (i32.add (local.get $pc) (i32.const 4)))
            (br $next))
            ;; 11..15: unknown opcode: trap
            (unreachable)))
        ;; 10 (or fuel out): the result mixes all of the state
        (i64.add
            (i64.add (i64.extend_i32_u (local.get $acc)) (i64.shl (i64.extend_i32_u (local.get $x)) (i64.const 32)))
            (i64.add (i64.trunc_sat_f64_s (local.get $f)) (i64.extend_i32_u (local.get $pc))))))"#;

/// Assembles `(opcode, immediate)` pairs into words at address 0.
fn program(ops: &[(u32, u32)]) -> Vec<u8> {
    ops.iter().flat_map(|&(op, imm)| ((imm << 8) | op).to_le_bytes()).collect()
}

/// Runs each program with `engine` and returns what each run gave.
fn results(engine: &Engine, programs: &[Vec<u8>]) -> Vec<String> {
    let module = Module::new(engine, INTERPRETER).unwrap();
    let mut out = Vec::new();
    for code in programs {
        let mut store = Store::new(engine, ());
        let instance = Instance::new(&mut store, &module, &[]).unwrap();
        let memory = instance.get_memory(&store, "memory").unwrap();
        memory.write(&mut store, 0, code).unwrap();
        let run = instance.get_func(&store, "run").unwrap();
        let mut result = [Val::I64(0)];
        let text = match run.call(&mut store, &[Val::I32(0), Val::I32(1000)], &mut result) {
            Ok(()) => format!("{:?}", result[0]),
            Err(e) => format!("error {e}"),
        };
        out.push(text);
    }
    out
}

fn engine(thread_dispatch: bool) -> Engine {
    let mut config = Config::new();
    config.thread_dispatch(thread_dispatch);
    Engine::new(&config).unwrap()
}

#[test]
fn copied_dispatch_changes_no_result() {
    let programs = vec![
        // Straight-line, then halt.
        program(&[(0, 5), (1, 0), (2, 0), (4, 0), (6, 0), (7, 0), (10, 0)]),
        // A loop through the conditional jump and the shared tail, ended by fuel.
        program(&[(0, 7), (9, 0), (4, 0), (5, 0), (6, 0), (3, 0), (1, 0), (8, 0)]),
        // Every opcode, looping back to 0 until fuel runs out.
        program(&[(0, 1), (1, 0), (2, 0), (3, 28), (4, 0), (6, 0), (7, 0), (9, 0), (5, 0), (8, 0)]),
        // An unknown opcode traps.
        program(&[(0, 1), (12, 0)]),
        // Running off the memory's end traps.
        program(&[(3, 0xfffc), (0, 1), (0, 1), (0, 1), (3, 65536)]),
    ];
    let with = results(&engine(true), &programs);
    let without = results(&engine(false), &programs);
    assert_eq!(with, without);
    assert!(with[3].contains("unreachable"), "{}", with[3]);
    assert!(with[4].contains("out of bounds"), "{}", with[4]);
    assert!(with.iter().filter(|r| r.starts_with("I64")).count() == 3, "{with:?}");
}
