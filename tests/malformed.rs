//! Malformed and invalid modules give errors, never panics: truncated and
//! mutated copies of real modules, and hand-made hostile headers.

use cranewasm::*;

/// Real modules exercising most sections: types, imports, functions,
/// tables, memories, globals, exports, start, elements, data, names.
fn corpus() -> Vec<Vec<u8>> {
    let texts = [
        r#"(module $m
            (type $t (func (param i32) (result i32)))
            (import "env" "f" (func $f (type $t)))
            (import "env" "m" (memory 1 2))
            (import "env" "g" (global $g i64))
            (table 4 funcref)
            (global $h (mut f64) (f64.const 1.5))
            (func $id (type $t) local.get 0)
            (func (export "run") (param i32) (result i32)
                (local i64 f32)
                (block (result i32)
                    (loop
                        (br_if 1 (local.get 0) (i32.eqz (local.get 0)))
                        drop
                        (local.set 0 (i32.sub (local.get 0) (i32.const 1)))
                        (br 0))
                    (i32.const 0))
                (call_indirect (type $t) (i32.const 0)))
            (elem (i32.const 0) $id $f)
            (data (i32.const 8) "hello")
            (func $init)
            (start $init))"#,
        r#"(module
            (memory 1)
            (func (export "copy") (param i32 i32 i32) (memory.copy (local.get 0) (local.get 1) (local.get 2)))
            (func (export "sel") (param externref i32) (result externref)
                (select (result externref) (local.get 0) (ref.null extern) (local.get 1)))
            (func (result i32 i64) i32.const 1 i64.const 2)
            (data "passive"))"#,
        r#"(module (func (export "f") (param f64) (result i64)
            (i64.trunc_sat_f64_s (f64.mul (local.get 0) (f64.const 3)))))"#,
    ];
    texts.iter().map(|t| wat::parse_str(t).unwrap()).collect()
}

/// A small deterministic generator, so failures reproduce.
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

fn check(engine: &Engine, bytes: &[u8]) -> bool {
    let compiled = Module::new(engine, bytes);
    let validated = Module::validate(engine, bytes);
    // Validation and compilation agree on what is a module.
    assert_eq!(compiled.is_ok(), validated.is_ok(), "validate and new disagree on {bytes:02x?}");
    if let Err(e) = compiled {
        assert!(matches!(e, Error::Invalid { .. }), "unexpected error kind: {e}");
        return false;
    }
    true
}

/// Offsets where a section ends: a module cut there may still be valid
/// (without its trailing sections); cut anywhere else it cannot be.
fn section_ends(module: &[u8]) -> Vec<usize> {
    let mut ends = vec![8];
    let mut at = 8;
    while at < module.len() {
        let (mut size, mut shift, mut i) = (0usize, 0, at + 1);
        loop {
            let b = module[i];
            size |= ((b & 0x7f) as usize) << shift;
            shift += 7;
            i += 1;
            if b & 0x80 == 0 {
                break;
            }
        }
        at = i + size;
        ends.push(at);
    }
    ends
}

#[test]
fn truncations_are_errors_unless_at_a_section_end() {
    let engine = Engine::default();
    for module in corpus() {
        assert!(check(&engine, &module));
        let ends = section_ends(&module);
        let mut rejected = 0;
        for len in 0..module.len() {
            if check(&engine, &module[..len]) {
                assert!(ends.contains(&len), "prefix of {len} bytes accepted mid-section");
            } else {
                rejected += 1;
            }
        }
        assert!(rejected >= module.len() - ends.len());
    }
}

#[test]
fn mutations_never_panic() {
    let engine = Engine::default();
    let mut rng = XorShift(0x9e37_79b9_7f4a_7c15);
    let mut accepted = 0;
    let mut rejected = 0;
    for module in corpus() {
        for _ in 0..600 {
            let mut bytes = module.clone();
            for _ in 0..1 + rng.next() % 4 {
                let i = (rng.next() as usize) % bytes.len();
                match rng.next() % 4 {
                    0 => bytes[i] = rng.next() as u8,
                    1 => bytes[i] ^= 1 << (rng.next() % 8),
                    2 => {
                        bytes.insert(i, rng.next() as u8);
                    }
                    _ => {
                        bytes.remove(i);
                    }
                }
                if bytes.is_empty() {
                    break;
                }
            }
            if check(&engine, &bytes) {
                accepted += 1;
            } else {
                rejected += 1;
            }
        }
    }
    assert!(rejected > accepted, "mutations should mostly break modules ({accepted} accepted)");
}

#[test]
fn hostile_headers_are_rejected_without_allocating_their_claims() {
    let engine = Engine::default();
    let header = b"\0asm\x01\0\0\0".to_vec();
    let cases: Vec<Vec<u8>> = vec![
        vec![],
        b"\0asm".to_vec(),
        b"\0asm\x02\0\0\0".to_vec(),
        b"garbage that is not wasm".to_vec(),
        // Type section claiming 2^32-1 entries.
        [header.clone(), vec![0x01, 0x05, 0xff, 0xff, 0xff, 0xff, 0x0f]].concat(),
        // Function section claiming 2^32-1 entries.
        [header.clone(), vec![0x03, 0x05, 0xff, 0xff, 0xff, 0xff, 0x0f]].concat(),
        // A section whose size runs past the end.
        [header.clone(), vec![0x01, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x00]].concat(),
        // Code section with a body claiming 2^32-1 locals.
        [
            header.clone(),
            vec![0x01, 0x04, 0x01, 0x60, 0x00, 0x00],
            vec![0x03, 0x02, 0x01, 0x00],
            vec![0x0a, 0x0a, 0x01, 0x08, 0x01, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x7f, 0x0b],
        ]
        .concat(),
        // Memory with a minimum beyond 4 GiB worth of pages.
        [header.clone(), vec![0x05, 0x04, 0x01, 0x00, 0x81, 0x80, 0x04]].concat(),
    ];
    for case in cases {
        assert!(!check(&engine, &case), "accepted {case:02x?}");
    }
}
