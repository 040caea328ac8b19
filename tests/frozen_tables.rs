//! Frozen tables (defined, unexported, never written by their module) and
//! indices of known range: what their code skips must not change what a
//! program observes. Null slots still trap as uninitialized elements,
//! calls of another type still trap as bad signatures, out-of-range
//! indices still trap, in both bounds-check modes; the host can read such
//! a table through `Instance::table` but neither write, grow nor import
//! it; and heap accesses through masked, shifted and narrow-loaded
//! indices reach the same bytes as the plain computation.

use cranewasm::*;

const FROZEN: &str = r#"(module
    (type $t (func (param i32) (result i32)))
    (type $u (func (param i32 i32) (result i32)))
    (table $full 4 4 funcref)
    (table $holes 4 funcref)
    (elem (table $full) (i32.const 0) func $a $b $a $b)
    (elem (table $holes) (i32.const 1) func $a $b)
    (func $a (param i32) (result i32) (i32.add (local.get 0) (i32.const 1)))
    (func $b (param i32) (result i32) (i32.mul (local.get 0) (i32.const 3)))
    (func (export "full") (param i32 i32) (result i32)
        (call_indirect $full (type $t) (local.get 1) (local.get 0)))
    (func (export "full_masked") (param i32 i32) (result i32)
        (call_indirect $full (type $t) (local.get 1) (i32.and (local.get 0) (i32.const 3))))
    (func (export "full_other_type") (param i32) (result i32)
        (call_indirect $full (type $u) (local.get 0) (local.get 0) (local.get 0)))
    (func (export "holes") (param i32 i32) (result i32)
        (call_indirect $holes (type $t) (local.get 1) (local.get 0))))"#;

fn engines() -> Vec<Engine> {
    [BoundsChecks::GuardPages, BoundsChecks::Explicit]
        .into_iter()
        .map(|mode| {
            let mut config = Config::new();
            config.bounds_checks(mode);
            Engine::new(&config).unwrap()
        })
        .collect()
}

/// A store holding an instance of the module `wat`, which imports nothing.
fn instantiate(engine: &Engine, wat: &str) -> (Store<()>, Instance) {
    let module = Module::new(engine, wat).unwrap();
    let mut store = Store::new(engine, ());
    let instance = Instance::new(&mut store, &module, &[]).unwrap();
    (store, instance)
}

/// `instance`'s export `name`, an `(i32, i32) -> i32` function.
fn binary(store: &Store<()>, instance: &Instance, name: &str) -> TypedFunc<(i32, i32), i32> {
    instance.get_func(store, name).unwrap().typed::<(i32, i32), i32>(store).unwrap()
}

fn code(r: Result<i32, TrapError>) -> Option<Trap> {
    r.err().and_then(|t| t.code())
}

#[test]
fn calls_through_frozen_tables_trap_as_before() {
    for engine in engines() {
        let (mut store, instance) = instantiate(&engine, FROZEN);
        let f2 = |store: &Store<()>, name| binary(store, &instance, name);
        let (full, masked, holes) = (f2(&store, "full"), f2(&store, "full_masked"), f2(&store, "holes"));
        let other = instance.get_func(&store, "full_other_type").unwrap().typed::<i32, i32>(&store).unwrap();
        for (i, want) in [(0, 11), (1, 30), (2, 11), (3, 30)] {
            assert_eq!(full.call(&mut store, (i, 10)).unwrap(), want);
            assert_eq!(masked.call(&mut store, (i + 4 * 7, 10)).unwrap(), want);
        }
        assert_eq!(code(full.call(&mut store, (4, 10))), Some(Trap::UndefinedElement));
        assert_eq!(code(full.call(&mut store, (-1, 10))), Some(Trap::UndefinedElement));
        assert_eq!(code(other.call(&mut store, 1)), Some(Trap::BadSignature));
        assert_eq!(holes.call(&mut store, (1, 10)).unwrap(), 11);
        assert_eq!(holes.call(&mut store, (2, 10)).unwrap(), 30);
        for null in [0, 3] {
            // Calls through `$holes` load the code address from the table's
            // array of them; a null slot's is a stub that traps. The trap
            // is reported in the calling function, at its `call_indirect`.
            let trap = holes.call(&mut store, (null, 10)).unwrap_err();
            assert_eq!(trap.code(), Some(Trap::IndirectCallToNull), "slot {null}");
            let first = &trap.frames()[0];
            assert_eq!((first.func_index(), trap.frames().len()), (5, 1), "slot {null}: {:?}", trap.frames());
        }
        assert_eq!(code(holes.call(&mut store, (4, 10))), Some(Trap::UndefinedElement));
        // The store is fine after all those traps.
        assert_eq!(full.call(&mut store, (1, 2)).unwrap(), 6);
    }
}

#[test]
fn the_host_reads_but_never_writes_a_frozen_table() {
    let engine = Engine::default();
    let module = Module::new(&engine, FROZEN).unwrap();
    let mut store = Store::new(&engine, ());
    let instance = Instance::new(&mut store, &module, &[]).unwrap();
    let table = instance.table(&store, 1).unwrap();
    assert_eq!(table.size(&store), 4);
    assert!(matches!(table.get(&store, 0), Some(Val::FuncRef(None))));
    assert!(matches!(table.get(&store, 1), Some(Val::FuncRef(Some(_)))));
    let f = instance.get_func(&store, "full").unwrap();
    let err = table.set(&mut store, 0, Val::FuncRef(Some(f))).unwrap_err();
    assert!(err.to_string().contains("read-only"), "{err}");
    let err = table.grow(&mut store, 1, Val::FuncRef(None)).unwrap_err();
    assert!(err.to_string().contains("read-only"), "{err}");
    assert_eq!(table.size(&store), 4);
    assert!(matches!(table.get(&store, 0), Some(Val::FuncRef(None))), "unchanged");

    // Nor can another module get it as an import (its code could write it).
    let writer = Module::new(
        &engine,
        r#"(module (import "m" "t" (table 4 funcref))
            (func (export "clear") (table.set 0 (i32.const 1) (ref.null func))))"#,
    )
    .unwrap();
    let err = Instance::new(&mut store, &writer, &[table.into()]).unwrap_err();
    assert!(err.to_string().contains("read-only"), "{err}");

    // A table its module writes is not frozen: the host may write it too.
    let written = Module::new(
        &engine,
        r#"(module (table 2 funcref) (func $f) (elem declare func $f)
            (func (export "set") (table.set 0 (i32.const 0) (ref.func $f))))"#,
    )
    .unwrap();
    let instance = Instance::new(&mut store, &written, &[]).unwrap();
    let table = instance.table(&store, 0).unwrap();
    table.set(&mut store, 1, Val::FuncRef(Some(f))).unwrap();
    assert_eq!(table.grow(&mut store, 1, Val::FuncRef(None)).unwrap(), 2);
}

/// Every access computes its address from a bounded index in one of the
/// shapes `ranges.rs` widens; the same addresses computed from an opaque
/// value (a parameter the optimiser cannot see through) give the answer
/// the narrowed ones must match.
#[test]
fn heap_accesses_through_bounded_indices_read_the_same_bytes() {
    let wat = r#"(module
        (memory (export "mem") 4)
        (func (export "masked") (param i32) (result i32)
            (i32.load offset=16 (i32.shl (i32.and (local.get 0) (i32.const 0xff)) (i32.const 2))))
        (func (export "byte") (param i32) (result i32)
            (i32.load (i32.add (i32.shl (i32.load8_u (local.get 0)) (i32.const 3)) (i32.const 1024))))
        (func (export "half") (param i32) (result i32)
            (i32.load16_u offset=4 (i32.add (i32.shl (i32.load16_u (local.get 0)) (i32.const 1)) (i32.const 512))))
        (func (export "shr") (param i32) (result i32)
            (i32.load (i32.add (i32.shl (i32.shr_u (local.get 0) (i32.const 20)) (i32.const 2)) (i32.const 8))))
        (func (export "crc") (param i32) (result i32)
            (i32.load offset=1024
                (i32.shl (i32.xor (i32.and (local.get 0) (i32.const 255)) (i32.load8_u (i32.const 77))) (i32.const 2))))
        (func (export "plain") (param i32) (result i32) (i32.load (local.get 0)))
        (func (export "plain16") (param i32) (result i32) (i32.load16_u (local.get 0))))"#;
    for engine in engines() {
        let module = Module::new(&engine, wat).unwrap();
        let mut store = Store::new(&engine, ());
        let instance = Instance::new(&mut store, &module, &[]).unwrap();
        let memory = instance.get_memory(&store, "mem").unwrap();
        let bytes: Vec<u8> = (0..4 * 65536u32).map(|i| (i.wrapping_mul(2654435761) >> 13) as u8).collect();
        memory.write(&mut store, 0, &bytes).unwrap();
        let f = |store: &Store<()>, name| instance.get_func(store, name).unwrap().typed::<i32, i32>(store).unwrap();
        let (masked, byte, half, shr, plain, plain16) = (
            f(&store, "masked"),
            f(&store, "byte"),
            f(&store, "half"),
            f(&store, "shr"),
            f(&store, "plain"),
            f(&store, "plain16"),
        );
        for x in [0i32, 1, 7, 255, 256, 1000, 0x7fff_ffff, -1, -256, 12345, 65535, 65534] {
            let m = ((x as u32 & 0xff) << 2) + 16;
            assert_eq!(masked.call(&mut store, x).unwrap(), plain.call(&mut store, m as i32).unwrap(), "masked {x}");
            let at = x as u32 % 65536;
            let b = u32::from(bytes[at as usize]) * 8 + 1024;
            assert_eq!(
                byte.call(&mut store, at as i32).unwrap(),
                plain.call(&mut store, b as i32).unwrap(),
                "byte {x}"
            );
            let at = at.min(65534);
            let h = plain16.call(&mut store, at as i32).unwrap() as u32 * 2 + 512 + 4;
            assert_eq!(
                half.call(&mut store, at as i32).unwrap(),
                plain16.call(&mut store, h as i32).unwrap(),
                "half {x}"
            );
            let c = (((x as u32 & 0xff) ^ u32::from(bytes[77])) << 2) + 1024;
            let crc = f(&store, "crc");
            assert_eq!(crc.call(&mut store, x).unwrap(), plain.call(&mut store, c as i32).unwrap(), "crc {x}");
            let s = ((x as u32 >> 20) << 2) + 8;
            assert_eq!(shr.call(&mut store, x).unwrap(), plain.call(&mut store, s as i32).unwrap(), "shr {x}");
        }
        // Past the end still traps.
        assert_eq!(code(byte.call(&mut store, 4 * 65536)), Some(Trap::MemoryOutOfBounds));
    }
}

/// A frozen table of the module's own functions of several types (as
/// Lua's is): calls keep the signature check. The right type calls,
/// another type traps as a bad signature, a null slot as an uninitialized
/// element (whatever the call's type), an index past the end as an
/// undefined one; in both bounds-check modes, with the trap reported in
/// the calling function.
#[test]
fn a_frozen_table_of_several_types_checks_each_call() {
    let wat = r#"(module
        (type $t (func (param i32) (result i32)))
        (type $u (func (param i32 i32) (result i32)))
        (table $mixed 5 funcref)
        (elem (table $mixed) (i32.const 1) func $a $two $b)
        (func $a (param i32) (result i32) (i32.add (local.get 0) (i32.const 1)))
        (func $b (param i32) (result i32) (i32.mul (local.get 0) (i32.const 3)))
        (func $two (param i32 i32) (result i32) (i32.sub (local.get 0) (local.get 1)))
        (func (export "t") (param i32 i32) (result i32)
            (call_indirect $mixed (type $t) (local.get 1) (local.get 0)))
        (func (export "u") (param i32 i32) (result i32)
            (call_indirect $mixed (type $u) (local.get 1) (i32.const 4) (local.get 0))))"#;
    for engine in engines() {
        let (mut store, instance) = instantiate(&engine, wat);
        let (t, u) = (binary(&store, &instance, "t"), binary(&store, &instance, "u"));
        assert_eq!(t.call(&mut store, (1, 10)).unwrap(), 11);
        assert_eq!(t.call(&mut store, (3, 10)).unwrap(), 30);
        assert_eq!(u.call(&mut store, (2, 10)).unwrap(), 6);
        for (call, slot, want, func_index) in [
            (t, 2, Trap::BadSignature, 3),
            (u, 1, Trap::BadSignature, 4),
            (u, 3, Trap::BadSignature, 4),
            (t, 0, Trap::IndirectCallToNull, 3),
            (u, 4, Trap::IndirectCallToNull, 4),
            (t, 5, Trap::UndefinedElement, 3),
            (u, -1, Trap::UndefinedElement, 4),
        ] {
            let trap = call.call(&mut store, (slot, 10)).unwrap_err();
            assert_eq!(trap.code(), Some(want), "slot {slot}");
            assert_eq!(trap.frames().first().map(|f| f.func_index()), Some(func_index), "slot {slot}");
        }
        assert_eq!(t.call(&mut store, (1, 1)).unwrap(), 2, "the store is fine after the traps");
    }
}

/// A failed instantiation keeps the segments applied before the failure:
/// here one puts `$f` in the host's table, the next fails (out of bounds),
/// so the segment that would fill the frozen table never runs. `$f`, still
/// callable from the host's table, must meet the hole as a trap.
#[test]
fn a_frozen_table_left_unfilled_by_a_failed_instantiation_still_traps() {
    for engine in engines() {
        let module = Module::new(
            &engine,
            r#"(module
                (import "host" "t" (table 1 funcref))
                (type $t (func (result i32)))
                (table $frozen 1 1 funcref)
                (elem (table 0) (i32.const 0) func $f)
                (elem (table 0) (i32.const 1) func $g)
                (elem (table $frozen) (i32.const 0) func $g)
                (func $f (result i32) (call_indirect $frozen (type $t) (i32.const 0)))
                (func $g (result i32) (i32.const 7)))"#,
        )
        .unwrap();
        let mut store = Store::new(&engine, ());
        let host_table = Table::new(&mut store, TableType::new(RefType::FUNCREF, 1, None), Val::FuncRef(None)).unwrap();
        let err = Instance::new(&mut store, &module, &[host_table.into()]).unwrap_err();
        assert!(err.to_string().contains("out of bounds table access"), "{err}");
        let Some(Val::FuncRef(Some(f))) = host_table.get(&store, 0) else { panic!("the first segment was applied") };
        let trap = f.typed::<(), i32>(&store).unwrap().call(&mut store, ()).unwrap_err();
        assert_eq!(trap.code(), Some(Trap::IndirectCallToNull));
    }
}

/// A frozen table of this module's own functions calls them with the
/// caller's VMContext instead of loading theirs; one holding an imported
/// function must still call it with its own instance's: here `$get`
/// reads the exporting instance's global (42), `$own` the importer's (7).
#[test]
fn an_imported_function_in_a_frozen_table_runs_in_its_own_instance() {
    for engine in engines() {
        let mut store = Store::new(&engine, ());
        let exporter = Module::new(
            &engine,
            r#"(module (global $g i32 (i32.const 42)) (memory 1)
                (func (export "get") (result i32) (i32.add (global.get $g) (i32.load (i32.const 0)))))"#,
        )
        .unwrap();
        let exporter = Instance::new(&mut store, &exporter, &[]).unwrap();
        let get = exporter.get_func(&store, "get").unwrap();
        let importer = Module::new(
            &engine,
            r#"(module
                (import "m" "get" (func $get (result i32)))
                (type $t (func (result i32)))
                (global $g i32 (i32.const 7))
                (memory 1) (data (i32.const 0) "\64")
                (table 2 2 funcref)
                (elem (i32.const 0) func $get $own)
                (func $own (result i32) (i32.add (global.get $g) (i32.load (i32.const 0))))
                (func (export "call") (param i32) (result i32) (call_indirect (type $t) (local.get 0))))"#,
        )
        .unwrap();
        let importer = Instance::new(&mut store, &importer, &[get.into()]).unwrap();
        let call = importer.get_func(&store, "call").unwrap().typed::<i32, i32>(&store).unwrap();
        assert_eq!(call.call(&mut store, 0).unwrap(), 42);
        assert_eq!(call.call(&mut store, 1).unwrap(), 107);
    }
}

/// A compiled-code file records the frozen tables its code assumed, and
/// loading it uses them without scanning the bodies again: the loaded
/// module's tables are frozen as the compiled one's (the host cannot
/// write them), its calls through them behave the same, and a table its
/// module writes stays writable.
#[test]
fn a_deserialized_module_keeps_its_frozen_tables() {
    let engine = Engine::default();
    let bytes = Module::new(&engine, FROZEN).unwrap().serialize().unwrap();
    // SAFETY: bytes `serialize` just made.
    let module = unsafe { Module::deserialize(&engine, &bytes) }.unwrap();
    let mut store = Store::new(&engine, ());
    let instance = Instance::new(&mut store, &module, &[]).unwrap();
    let full = binary(&store, &instance, "full");
    let holes = binary(&store, &instance, "holes");
    assert_eq!(full.call(&mut store, (1, 10)).unwrap(), 30);
    assert_eq!(code(full.call(&mut store, (4, 10))), Some(Trap::UndefinedElement));
    assert_eq!(code(holes.call(&mut store, (0, 10))), Some(Trap::IndirectCallToNull));
    let f = instance.get_func(&store, "full").unwrap();
    for t in [0, 1] {
        let table = instance.table(&store, t).unwrap();
        let err = table.set(&mut store, 0, Val::FuncRef(Some(f))).unwrap_err();
        assert!(err.to_string().contains("read-only"), "table {t}: {err}");
    }

    let written = r#"(module (table 2 funcref) (func $f) (elem declare func $f)
        (func (export "set") (table.set 0 (i32.const 0) (ref.func $f))))"#;
    let bytes = Module::new(&engine, written).unwrap().serialize().unwrap();
    // SAFETY: as above.
    let module = unsafe { Module::deserialize(&engine, &bytes) }.unwrap();
    let instance = Instance::new(&mut store, &module, &[]).unwrap();
    instance.table(&store, 0).unwrap().set(&mut store, 1, Val::FuncRef(Some(f))).unwrap();
}

/// A frozen table whose functions' type refers to another type (a typed
/// function reference): the module's types hold canonical ids by the time
/// it is serialized, and the file still records and reloads the table.
#[test]
fn a_frozen_table_of_a_type_with_a_typed_reference_survives_serializing() {
    let wat = r#"(module
        (type $t (func (result i32)))
        (type $u (func (param (ref null $t)) (result i32)))
        (table $tab 2 2 funcref)
        (elem (table $tab) (i32.const 0) func $a $a)
        (func $a (type $u) (i32.const 7))
        (func (export "call") (param i32) (result i32)
            (call_indirect $tab (type $u) (ref.null $t) (local.get 0))))"#;
    let engine = Engine::default();
    let bytes = Module::new(&engine, wat).unwrap().serialize().unwrap();
    // SAFETY: bytes `serialize` just made.
    let module = unsafe { Module::deserialize(&engine, &bytes) }.unwrap();
    let mut store = Store::new(&engine, ());
    let instance = Instance::new(&mut store, &module, &[]).unwrap();
    let call = instance.get_func(&store, "call").unwrap().typed::<i32, i32>(&store).unwrap();
    assert_eq!(call.call(&mut store, 1).unwrap(), 7);
    assert_eq!(code(call.call(&mut store, 2)), Some(Trap::UndefinedElement));
    let table = instance.table(&store, 0).unwrap();
    let err = table.set(&mut store, 0, Val::FuncRef(None)).unwrap_err();
    assert!(err.to_string().contains("read-only"), "{err}");
}
