//! The compiled-code cache: a module's machine code and metadata in a file
//! that loads without compiling (`Module::serialize`,
//! `Module::deserialize`, `Module::deserialize_file`, `iwasm compile`).
//!
//! Layout (little-endian):
//!
//! ```text
//!  0  magic "\0cwasm\r\n"            header::MAGIC
//!  8  format version u32             header::FORMAT_VERSION
//! 12  0 u32
//! 16  file length u64
//! 24  compatibility: count u32, then (name, value) strings  (header::fingerprint)
//!     metadata: length u32, then the code's metadata and the module's
//!         frozen tables                                     (see `write_metadata`)
//!     wasm-to-host trampolines of the module's function types  (exits.rs)
//!     wasm offset u64, wasm length u64, code offset u64, code length u64
//!     ... the module's binary (its declarations, data segments and names
//!         are read from it again: parsing is fast, compiling is not)
//!     ... the code image, at a multiple of 4096 so that it can be mapped
//!  -8 checksum u64 of everything before it                  (checksum.rs)
//! ```
//!
//! A file is refused, with the reason, when any of these does not hold:
//! magic, format version, length, checksum, every compatibility value (the
//! runtime version, target, CPU features the code needs, code-generation
//! settings), the module's binary, and the metadata's consistency with the
//! binary and the code (counts, offsets within the code, sorted tables).
//!
//! **Trust.** Loading a file runs its machine code. The checks catch
//! damaged, truncated and mismatched files, not forged ones: a file whose
//! checksum was recomputed after changing its code can do anything the
//! process can. Load only files you made or trust, as with wasmtime's
//! `Module::deserialize` (hence `unsafe`). A mapped file must also not be
//! changed or truncated while the module lives.

mod checksum;
mod codec;
mod exits;
pub(crate) mod header;
#[cfg(not(feature = "compiler"))]
mod host;

use std::ops::Range;

use cranelift_entity::PrimaryMap;

use crate::environ::compiled::{CodeTables, FunctionLoc, Handler, ImageReloc, LibCall, ProcessAddress, StackMap};
use crate::environ::error::Result;
use crate::environ::frozen_tables::FrozenRecord;
use crate::environ::trap::TrapCode;
pub use checksum::checksum;
use codec::{damaged, Reader, Writer};
pub use exits::Exits;

/// Alignment of the code in a file for `target` (a triple): the largest
/// page size of its hosts, so that the code can be mapped from the file as
/// it is (arm64 kernels may use 4, 16 or 64 KiB pages; a file whose code
/// is not at a multiple of the running kernel's page size is read
/// instead). The file's target, not the compiling host, decides.
pub fn code_align(target: &str) -> usize {
    if target.starts_with("aarch64") {
        64 << 10
    } else {
        4 << 10
    }
}

/// Whether `bytes` start with a compiled-code file's magic number.
pub fn is_serialized(bytes: &[u8]) -> bool {
    bytes.starts_with(header::MAGIC)
}

/// The compiled-code file of a module: its code image `code`, described
/// by `tables`, its binary `wasm`, the wasm-to-host trampolines of its
/// function types `exits` (type index, code), the frozen tables its code
/// assumed (`frozen`), and the `fingerprint` of the engine that compiled
/// it (`Engine::fingerprint`), which loading compares.
pub fn serialize(
    fingerprint: &[(String, String)],
    tables: &CodeTables,
    exits: &[(u32, Vec<u8>)],
    frozen: &[FrozenRecord],
    wasm: &[u8],
    code: &[u8],
) -> Vec<u8> {
    let mut w = Writer::default();
    w.bytes.extend_from_slice(header::MAGIC);
    w.u32(header::FORMAT_VERSION);
    w.u32(0);
    let length_at = w.bytes.len();
    w.u64(0);
    w.len(fingerprint.len());
    for (k, v) in fingerprint {
        w.str(k);
        w.str(v);
    }
    let mut meta = Writer::default();
    write_metadata(&mut meta, tables, frozen);
    w.len(meta.bytes.len());
    w.bytes.extend_from_slice(&meta.bytes);
    exits::write(&mut w, exits);
    let offsets_at = w.bytes.len();
    w.bytes.resize(offsets_at + 32, 0);
    let wasm_at = w.bytes.len();
    w.bytes.extend_from_slice(wasm);
    let target = fingerprint.iter().find(|(k, _)| k == "target").map_or("", |(_, v)| v.as_str());
    w.align(code_align(target));
    let code_at = w.bytes.len();
    w.bytes.extend_from_slice(code);
    let total = w.bytes.len() + 8;
    w.bytes[length_at..length_at + 8].copy_from_slice(&(total as u64).to_le_bytes());
    for (i, v) in [wasm_at, wasm.len(), code_at, code.len()].into_iter().enumerate() {
        w.bytes[offsets_at + i * 8..offsets_at + i * 8 + 8].copy_from_slice(&(v as u64).to_le_bytes());
    }
    let sum = checksum::checksum(&w.bytes);
    w.u64(sum);
    w.bytes
}

/// The code's tables: functions, entry trampolines, trap sites, source
/// locations and the relocations to redo in this process; then the
/// frozen tables.
fn write_metadata(w: &mut Writer, c: &CodeTables, frozen: &[FrozenRecord]) {
    w.len(c.funcs.len());
    for (d, loc) in c.funcs.iter() {
        w.u32(loc.start);
        w.u32(loc.len);
        w.u32(c.entry_trampolines[d]);
    }
    w.len(c.traps.len());
    for (offset, code) in &c.traps {
        w.u32(*offset);
        w.u8(TrapCode::ALL.iter().position(|t| t == code).expect("every code is listed") as u8);
    }
    w.len(c.srclocs.len());
    for (code, wasm) in &c.srclocs {
        w.u32(*code);
        w.u32(*wasm);
    }
    w.len(c.handlers.len());
    for h in &c.handlers {
        w.u32(h.ret);
        w.u32(h.handler);
        w.u32(h.frame_offset);
    }
    w.len(c.stack_maps.len());
    for m in &c.stack_maps {
        w.u32(m.ret);
        w.u32(m.span);
        w.len(m.slots.len());
        m.slots.iter().for_each(|slot| w.u32(*slot));
    }
    w.len(c.relocs.len());
    for r in &c.relocs {
        w.u32(r.offset);
        let (kind, index) = match r.target {
            ProcessAddress::LibCall(l) => (0, LibCall::ALL.iter().position(|x| *x == l).expect("listed") as u32),
        };
        w.u8(kind);
        w.u32(index);
    }
    w.len(frozen.len());
    for f in frozen {
        w.u32(f.table);
        w.u32(f.shared_type.map_or(u32::MAX, |t| t));
        w.u8(u8::from(f.full) | u8::from(f.own_functions) << 1);
    }
}

/// The tables of [`write_metadata`], checked against each other and
/// against a code image of `code_len` bytes (a relocation's target is
/// checked when it is applied).
fn read_metadata(bytes: &[u8], code_len: usize) -> Result<(CodeTables, Vec<FrozenRecord>)> {
    let mut r = Reader::new(bytes, 0, "metadata");
    let in_code = |offset: u32, len: u32, what: &str| match (offset as usize).checked_add(len as usize) {
        Some(end) if end <= code_len => Ok(()),
        _ => Err(damaged(format_args!("a {what} lies outside the code"))),
    };
    let mut funcs = PrimaryMap::new();
    let mut entry_trampolines = PrimaryMap::new();
    for _ in 0..r.count(12)? {
        let loc = FunctionLoc { start: r.u32()?, len: r.u32()? };
        let trampoline = r.u32()?;
        in_code(loc.start, loc.len, "function")?;
        in_code(trampoline, 1, "trampoline")?;
        funcs.push(loc);
        entry_trampolines.push(trampoline);
    }
    let mut traps = Vec::new();
    for _ in 0..r.count(5)? {
        let offset = r.u32()?;
        let code = *TrapCode::ALL.get(r.u8()? as usize).ok_or_else(|| damaged("a trap code is unknown"))?;
        in_code(offset, 1, "trap site")?;
        traps.push((offset, code));
    }
    let mut srclocs = Vec::new();
    for _ in 0..r.count(8)? {
        let loc = (r.u32()?, r.u32()?);
        in_code(loc.0, 0, "source location")?;
        srclocs.push(loc);
    }
    let mut handlers = Vec::new();
    for _ in 0..r.count(12)? {
        let h = Handler { ret: r.u32()?, handler: r.u32()?, frame_offset: r.u32()? };
        in_code(h.ret, 0, "call site")?;
        in_code(h.handler, 1, "exception handler")?;
        handlers.push(h);
    }
    let mut stack_maps = Vec::new();
    for _ in 0..r.count(12)? {
        let (ret, span) = (r.u32()?, r.u32()?);
        in_code(ret, 0, "call site")?;
        let mut slots = Vec::new();
        for _ in 0..r.count(4)? {
            let slot = r.u32()?;
            // The collector writes these slots: each must lie in its frame.
            if slot.checked_add(8).is_none_or(|end| end > span) {
                return Err(damaged("a stack map slot lies outside its frame"));
            }
            slots.push(slot);
        }
        stack_maps.push(StackMap { ret, span, slots: slots.into() });
    }
    let mut relocs = Vec::new();
    for _ in 0..r.count(9)? {
        let offset = r.u32()?;
        let target = match (r.u8()?, r.u32()?) {
            (0, l) => {
                ProcessAddress::LibCall(*LibCall::ALL.get(l as usize).ok_or_else(|| damaged("a helper is unknown"))?)
            }
            _ => return Err(damaged("a relocation is of an unknown kind")),
        };
        in_code(offset, 8, "relocation")?;
        relocs.push(ImageReloc { offset, target });
    }
    // (Checked against the module when it is parsed: `from_records`.)
    let mut frozen = Vec::new();
    for _ in 0..r.count(9)? {
        let (table, shared_type, facts) = (r.u32()?, r.u32()?, r.u8()?);
        if facts > 3 {
            return Err(damaged("a frozen table's facts are unknown"));
        }
        let shared_type = (shared_type != u32::MAX).then_some(shared_type);
        frozen.push(FrozenRecord { table, shared_type, full: facts & 1 != 0, own_functions: facts & 2 != 0 });
    }
    r.finish()?;
    // Lookups binary-search these.
    if !traps.is_sorted_by_key(|t| t.0)
        || !srclocs.is_sorted_by_key(|s| s.0)
        || !handlers.is_sorted_by_key(|h| h.ret)
        || !stack_maps.is_sorted_by_key(|m| m.ret)
    {
        return Err(damaged("its trap or source tables are out of order"));
    }
    Ok((CodeTables { funcs, entry_trampolines, traps, srclocs, handlers, stack_maps, relocs }, frozen))
}

/// Where the parts of a checked file are.
pub struct Parts {
    /// The tables of its code image.
    pub tables: CodeTables,
    /// The module's binary.
    pub wasm: Range<usize>,
    /// The code image, at a multiple of [`code_align`] in the file.
    pub code: Range<usize>,
    /// The wasm-to-host trampolines (their code's range is in the file).
    pub exits: Exits,
    /// The frozen tables the code assumes.
    pub frozen: Vec<FrozenRecord>,
}

/// Checks a whole file (header, checksum, compatibility with the engine
/// whose fingerprint is `fingerprint`, metadata) and says where its parts
/// are.
pub fn check(bytes: &[u8], fingerprint: &[(String, String)]) -> Result<Parts> {
    if bytes.starts_with(b"\0asm") {
        return Err(damaged("it is a WebAssembly binary, not a compiled module: compile it with Module::new"));
    }
    if bytes.len() < 32 || &bytes[..8] != header::MAGIC {
        return Err(damaged("it is not a cranewasm compiled module (no magic number)"));
    }
    let (body, sum) = bytes.split_at(bytes.len() - 8);
    let mut r = Reader::new(body, 8, "header");
    let version = r.u32()?;
    if version != header::FORMAT_VERSION {
        return Err(damaged(format_args!(
            "its format version is {version}, this runtime reads version {}: compile the module again",
            header::FORMAT_VERSION
        )));
    }
    r.u32()?;
    let length = r.u64()?;
    if length != bytes.len() as u64 {
        let actual = bytes.len();
        return Err(damaged(format_args!("it should be {length} bytes long but is {actual}: truncated or extended")));
    }
    if checksum::checksum(body) != u64::from_le_bytes(sum.try_into().expect("8 bytes")) {
        return Err(damaged("its checksum does not match: the file is damaged"));
    }
    let mut recorded = Vec::new();
    for _ in 0..r.count(8)? {
        recorded.push((r.str()?.to_string(), r.str()?.to_string()));
    }
    header::check_target(&recorded, fingerprint)?;
    #[cfg(not(feature = "compiler"))]
    let recorded = host::check(recorded)?;
    header::check(&recorded, fingerprint)?;
    let meta_len = r.count(1)?;
    let meta = r.bytes(meta_len)?;
    let exits = exits::read(&mut r, body.as_ptr())?;
    let mut field = || -> Result<usize> { usize::try_from(r.u64()?).map_err(|_| damaged("an offset is out of range")) };
    let (wasm_at, wasm_len, code_at, code_len) = (field()?, field()?, field()?, field()?);
    let range = |at: usize, len: usize, what: &str| match at.checked_add(len) {
        Some(end) if end <= body.len() => Ok(at..end),
        _ => Err(damaged(format_args!("its {what} lies outside the file"))),
    };
    let wasm = range(wasm_at, wasm_len, "module binary")?;
    let code = range(code_at, code_len, "code")?;
    let (tables, frozen) = read_metadata(meta, code.len())?;
    Ok(Parts { tables, wasm, code, exits, frozen })
}
