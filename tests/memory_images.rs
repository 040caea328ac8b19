//! Memories initialised from a copy-on-write image of their data segments
//! (`Config::memory_images`): every instance sees exactly the bytes the
//! segments write, in every bounds-check mode, through writes, growth,
//! `memory.init` and the reuse of reservations by other modules; segments
//! whose effect could differ (an offset from a global, a segment that
//! traps, an imported memory) keep the copying path. Each test also looks
//! in /proc/self/maps to see which path ran, so that a silent fallback to
//! copying cannot pass for the image.

use cranewasm::*;

const KIB: usize = 1024;
/// Where the large segment starts: not page-aligned, so the image span
/// starts below it and holds zeros there.
const AT: usize = 70_000;
const LEN: usize = 20 * KIB;

/// The byte at `i` of the large segment.
fn pattern(i: usize) -> u8 {
    (i * 7 % 251) as u8 + 1
}

fn data_string(len: usize) -> String {
    (0..len).map(|i| format!("\\{:02x}", pattern(i))).collect()
}

/// A module whose memory 0 (4 pages, up to 8) gets a 20 KiB segment at
/// `AT`, a small one overwriting part of it, and a passive one.
fn imaged_module() -> String {
    format!(
        r#"(module
            (memory (export "mem") 4 8)
            (data (i32.const {AT}) "{big}")
            (data (i32.const {over}) "XYZ")
            (data $passive "passive")
            (func (export "store") (param i32 i32) (i32.store8 (local.get 0) (local.get 1)))
            (func (export "load") (param i32) (result i32) (i32.load8_u (local.get 0)))
            (func (export "grow") (param i32) (result i32) (memory.grow (local.get 0)))
            (func (export "init") (param i32) (memory.init $passive (local.get 0) (i32.const 0) (i32.const 7))))"#,
        big = data_string(LEN),
        over = AT + 10,
    )
}

/// What memory 0 of `imaged_module` holds at `i` right after instantiation.
fn expected(i: usize) -> u8 {
    match i {
        _ if (AT + 10..AT + 13).contains(&i) => b"XYZ"[i - AT - 10],
        _ if (AT..AT + LEN).contains(&i) => pattern(i - AT),
        _ => 0,
    }
}

fn engine(images: bool, bounds: BoundsChecks) -> Engine {
    let mut config = Config::new();
    config.memory_images(images).bounds_checks(bounds);
    Engine::new(&config).unwrap()
}

/// Whether the page at `addr` is mapped from a memory image's file.
fn mapped_from_image(addr: *const u8) -> bool {
    let addr = addr as usize;
    let maps = std::fs::read_to_string("/proc/self/maps").unwrap();
    maps.lines().any(|line| {
        let range = line.split_whitespace().next().unwrap();
        let (lo, hi) = range.split_once('-').unwrap();
        let (lo, hi) = (usize::from_str_radix(lo, 16).unwrap(), usize::from_str_radix(hi, 16).unwrap());
        (lo..hi).contains(&addr) && line.contains("cranewasm-memory-image")
    })
}

struct Inst {
    store: Store<()>,
    instance: Instance,
    memory: Memory,
}

impl Inst {
    fn new(engine: &Engine, module: &Module) -> Inst {
        let mut store = Store::new(engine, ());
        let instance = Instance::new(&mut store, module, &[]).unwrap();
        let memory = instance.get_memory(&store, "mem").unwrap();
        Inst { store, instance, memory }
    }

    fn call(&mut self, name: &str, args: &[Val]) -> Option<i32> {
        let f = self.instance.get_func(&self.store, name).unwrap();
        let mut out = [Val::I32(0)];
        let n = f.ty(&self.store).results().len();
        f.call(&mut self.store, args, &mut out[..n]).unwrap();
        out[..n].first().map(|v| v.i32().unwrap())
    }

    fn data(&self) -> &[u8] {
        self.memory.data(&self.store)
    }

    fn assert_initial(&self, pages: usize) {
        let data = self.data();
        assert_eq!(data.len(), pages * 65536);
        if let Some(i) = (0..data.len()).find(|&i| data[i] != expected(i)) {
            panic!("byte {i} is {}, expected {}", data[i], expected(i));
        }
    }
}

#[test]
fn every_mode_sees_exactly_the_segments_through_writes_and_growth() {
    for bounds in [BoundsChecks::GuardPages, BoundsChecks::Explicit] {
        for images in [true, false] {
            let engine = engine(images, bounds);
            let module = Module::new(&engine, imaged_module()).unwrap();
            let mut a = Inst::new(&engine, &module);
            a.assert_initial(4);
            let base = a.memory.data_ptr(&a.store);
            assert_eq!(mapped_from_image(base.wrapping_add(AT)), images, "{bounds:?}, images {images}");

            // Writes (from wasm and from the host) land in this instance only.
            a.call("store", &[Val::I32(AT as i32), Val::I32(0xEE)]);
            a.call("store", &[Val::I32(5), Val::I32(0xDD)]);
            a.memory.data_mut(&mut a.store)[AT + 1] = 0xCC;
            assert_eq!(a.call("load", &[Val::I32(AT as i32)]), Some(0xEE));
            assert_eq!(a.call("load", &[Val::I32(AT as i32 + 1)]), Some(0xCC));
            assert_eq!(a.call("load", &[Val::I32(5)]), Some(0xDD));
            let b = Inst::new(&engine, &module);
            b.assert_initial(4);

            // Growth adds zero pages after the image; memory.init still
            // reads the passive segment.
            assert_eq!(a.call("grow", &[Val::I32(2)]), Some(4));
            assert_eq!(a.data().len(), 6 * 65536);
            assert!(a.data()[4 * 65536..].iter().all(|&b| b == 0));
            assert_eq!(a.data()[AT + 2], expected(AT + 2));
            a.call("init", &[Val::I32(5 * 65536)]);
            assert_eq!(&a.data()[5 * 65536..5 * 65536 + 7], b"passive");
            drop(a);
            drop(b);

            // A new instance after those are gone starts afresh.
            Inst::new(&engine, &module).assert_initial(4);
        }
    }
}

#[test]
fn a_reused_reservation_holds_zeros_where_an_image_was() {
    // One reservation in the pool, so the second instance gets the first's.
    let mut config = Config::new();
    config.memory_images(true).bounds_checks(BoundsChecks::GuardPages).memory_pool_capacity(1);
    let engine = Engine::new(&config).unwrap();
    let module = Module::new(&engine, imaged_module()).unwrap();
    let empty = Module::new(&engine, r#"(module (memory (export "mem") 4))"#).unwrap();
    for _ in 0..3 {
        let mut a = Inst::new(&engine, &module);
        a.memory.data_mut(&mut a.store)[AT + 100] = 0xAB;
        let base = a.memory.data_ptr(&a.store);
        assert!(mapped_from_image(base.wrapping_add(AT)));
        drop(a);
        let b = Inst::new(&engine, &empty);
        assert_eq!(b.memory.data_ptr(&b.store), base, "the pool handed the reservation on");
        assert!(!mapped_from_image(base.wrapping_add(AT)), "the image is unmapped on release");
        assert!(b.data().iter().all(|&x| x == 0), "a reused reservation must read as zero");
    }
}

#[test]
fn segments_whose_effect_could_differ_are_copied_with_the_spec_order() {
    let engine = engine(true, BoundsChecks::GuardPages);
    let big = data_string(LEN);

    // An offset from an imported global: copied, at the offset given.
    let module = Module::new(
        &engine,
        format!(
            r#"(module (global (import "env" "at") i32) (memory (export "mem") 1)
                (data (global.get 0) "{big}"))"#
        ),
    )
    .unwrap();
    let mut store = Store::new(&engine, ());
    let at = Global::new(&mut store, GlobalType::new(ValType::I32, Mutability::Const), Val::I32(100)).unwrap();
    let instance = Instance::new(&mut store, &module, &[at.into()]).unwrap();
    let memory = instance.get_memory(&store, "mem").unwrap();
    assert_eq!(memory.data(&store)[100..100 + LEN], (0..LEN).map(pattern).collect::<Vec<_>>()[..]);
    assert!(!mapped_from_image(memory.data_ptr(&store)));

    // An imported memory: the segments go into it, visible to its owner.
    let module =
        Module::new(&engine, format!(r#"(module (import "env" "mem" (memory 1)) (data (i32.const 8) "{big}"))"#))
            .unwrap();
    let mut store = Store::new(&engine, ());
    let memory = Memory::new(&mut store, MemoryType::new(1, None)).unwrap();
    Instance::new(&mut store, &module, &[memory.into()]).unwrap();
    assert_eq!(memory.data(&store)[8], pattern(0));
    assert_eq!(memory.data(&store)[7], 0);

    // A segment past the end traps; earlier segments into an imported
    // memory stay written, as the spec says.
    let module = Module::new(
        &engine,
        format!(
            r#"(module (import "env" "mem" (memory 1)) (memory 1)
                (data (memory 0) (i32.const 0) "{big}")
                (data (memory 1) (i32.const 0) "{big}")
                (data (memory 1) (i32.const 65530) "{big}"))"#
        ),
    )
    .unwrap();
    let mut store = Store::new(&engine, ());
    let memory = Memory::new(&mut store, MemoryType::new(1, None)).unwrap();
    let err = Instance::new(&mut store, &module, &[memory.into()]).unwrap_err();
    assert!(err.to_string().contains("out of bounds"), "{err}");
    assert_eq!(memory.data(&store)[..LEN], (0..LEN).map(pattern).collect::<Vec<_>>()[..]);
}

#[test]
fn a_large_memory_with_megabytes_of_data() {
    // 64 MiB of memory, 1 MiB of data in 16 segments across it.
    let segments: String =
        (0..16).map(|k| format!(r#"(data (i32.const {}) "{}")"#, (k * 4) << 20, data_string(64 * KIB))).collect();
    let wat = format!(r#"(module (memory (export "mem") 1024) {segments})"#);
    for images in [true, false] {
        let engine = engine(images, BoundsChecks::GuardPages);
        let module = Module::new(&engine, &wat).unwrap();
        for _ in 0..2 {
            let mut a = Inst::new(&engine, &module);
            for k in 0..16 {
                let at = (k * 4) << 20;
                assert_eq!(a.data()[at..at + 64 * KIB], (0..64 * KIB).map(pattern).collect::<Vec<_>>()[..]);
                assert_eq!(a.data()[at + 64 * KIB], 0);
            }
            assert_eq!(mapped_from_image(a.memory.data_ptr(&a.store)), images);
            a.memory.data_mut(&mut a.store)[0] = 0; // dirty one page
        }
    }
}
