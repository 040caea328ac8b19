//! Compiled code as plain data: what the compiler hands the runtime, what
//! the compiled-code cache writes and reads, and how the pieces are linked.
//!
//! The compiler (`compile/`) produces machine code and these tables, and
//! never maps memory; the runtime copies (or maps) the code into
//! executable pages and writes this process's addresses into it. The same
//! tables are what the cache serializes, so a module loaded from a file
//! and one compiled in the process are described alike.

use cranelift_entity::PrimaryMap;

use super::error::{Error, Result};
use super::index::{DefinedFuncIndex, FuncIndex};
use super::trap::TrapCode;

/// A helper that compiled code calls by absolute address: floating-point
/// rounding and fused multiply-add, which Cranelift calls on hosts without
/// the instructions (SSE4.1 rounding, FMA).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum LibCall {
    CeilF32,
    CeilF64,
    FloorF32,
    FloorF64,
    TruncF32,
    TruncF64,
    NearestF32,
    NearestF64,
    FmaF32,
    FmaF64,
}

impl LibCall {
    /// Every helper, in a fixed order: a helper's position is its number
    /// in serialized modules.
    pub const ALL: [LibCall; 10] = [
        LibCall::CeilF32,
        LibCall::CeilF64,
        LibCall::FloorF32,
        LibCall::FloorF64,
        LibCall::TruncF32,
        LibCall::TruncF64,
        LibCall::NearestF32,
        LibCall::NearestF64,
        LibCall::FmaF32,
        LibCall::FmaF64,
    ];
}

/// An address that differs from process to process, which compiled code
/// holds as a 64-bit constant.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ProcessAddress {
    /// A floating-point helper.
    LibCall(LibCall),
}

/// A place in a module's code image holding a [`ProcessAddress`]: filled
/// in when the module is loaded, whether compiled in this process or read
/// from the compiled-code cache.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ImageReloc {
    /// Offset of the 8 bytes in the image.
    pub offset: u32,
    pub target: ProcessAddress,
}

/// Location of a function in a module's code image.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct FunctionLoc {
    pub start: u32,
    pub len: u32,
}

/// How a relocation in one function's code is written.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RelocKind {
    /// A 32-bit offset from the relocation's own address (x86-64 `call`
    /// and RIP-relative operands).
    PcRel32,
    /// An absolute 64-bit address.
    Abs8,
    /// An aarch64 `bl`: a 26-bit word offset in the instruction's low bits.
    Arm64Call,
}

/// What a relocation in one function's code points at.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RelocTarget {
    /// A function of the same module (a direct call).
    Func(FuncIndex),
    /// An address of this process.
    Process(ProcessAddress),
}

/// One relocation in a function's code, before linking.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct FuncReloc {
    /// Offset in the function's code.
    pub offset: u32,
    pub kind: RelocKind,
    pub target: RelocTarget,
    pub addend: i64,
}

/// The machine code of one function (or trampoline), before linking.
#[derive(Clone, Debug, Default)]
pub struct FunctionCode {
    pub body: Vec<u8>,
    /// Alignment the code needs, in bytes.
    pub alignment: u32,
    pub relocs: Vec<FuncReloc>,
    /// Trap sites: offset of the trapping instruction and its trap.
    pub traps: Vec<(u32, TrapCode)>,
    /// `(code offset, wasm byte offset)` at which each source range starts.
    pub srclocs: Vec<(u32, u32)>,
    /// Exception handlers: see [`Handler`].
    pub handlers: Vec<Handler>,
    /// GC roots at call sites: see [`StackMap`].
    pub stack_maps: Vec<StackMap>,
}

/// A call site with an exception handler (a `try_call`): the offset of
/// its return address, of its handler, and the size of its frame below the
/// frame pointer at the call, from which the handler's stack pointer comes.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Handler {
    pub ret: u32,
    pub handler: u32,
    pub frame_offset: u32,
}

impl Handler {
    /// The same handler `start` bytes further into the code.
    pub fn moved(self, start: u32) -> Handler {
        Handler { ret: self.ret + start, handler: self.handler + start, frame_offset: self.frame_offset }
    }
}

/// The handler of the call whose return address is at `ret` in
/// `handlers` (sorted by return address): its offset and frame size.
pub fn handler_at(handlers: &[Handler], ret: u32) -> Option<(u32, u32)> {
    let i = handlers.binary_search_by_key(&ret, |h| h.ret).ok()?;
    Some((handlers[i].handler, handlers[i].frame_offset))
}

/// The GC roots of a call site (issue 40): where its frame keeps the
/// values that may be heap objects while the call runs. `ret` is the
/// offset of the call's return address; the frame's stack pointer at the
/// call is its frame pointer minus `span`, and each slot is that many bytes
/// above the stack pointer, holding one reference word.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StackMap {
    pub ret: u32,
    pub span: u32,
    pub slots: Box<[u32]>,
}

impl StackMap {
    /// The same stack map `start` bytes further into the code.
    pub fn moved(&self, start: u32) -> StackMap {
        StackMap { ret: self.ret + start, ..self.clone() }
    }
}

/// The stack map of the call whose return address is at `ret` in
/// `maps` (sorted by return address).
pub fn stack_map_at(maps: &[StackMap], ret: u32) -> Option<&StackMap> {
    let i = maps.binary_search_by_key(&ret, |m| m.ret).ok()?;
    Some(&maps[i])
}

/// The tables that describe a module's linked code image (all offsets are
/// in the image).
#[derive(Clone, Debug, Default)]
pub struct CodeTables {
    pub funcs: PrimaryMap<DefinedFuncIndex, FunctionLoc>,
    /// Offset of the entry trampoline of each defined function's signature.
    pub entry_trampolines: PrimaryMap<DefinedFuncIndex, u32>,
    /// Trap sites, sorted by code offset.
    pub traps: Vec<(u32, TrapCode)>,
    /// Source locations, sorted by code offset.
    pub srclocs: Vec<(u32, u32)>,
    /// Exception handlers, sorted by return address.
    pub handlers: Vec<Handler>,
    /// GC stack maps, sorted by return address.
    pub stack_maps: Vec<StackMap>,
    /// The addresses of the process to write into the image.
    pub relocs: Vec<ImageReloc>,
}

/// A module's code, linked: the functions and entry trampolines in one
/// image whose direct calls are resolved, and the process addresses still
/// to write (see [`CodeTables::relocs`]).
#[derive(Clone, Debug, Default)]
pub struct CompiledImage {
    pub image: Vec<u8>,
    pub tables: CodeTables,
}

impl CodeTables {
    /// The trap recorded for the instruction at `offset`, if it is a trap
    /// site.
    pub fn trap_at(&self, offset: u32) -> Option<TrapCode> {
        trap_at(&self.traps, offset)
    }

    /// The defined function whose code holds `offset`, and the wasm
    /// offsets of the source location there: empty if there is none, one
    /// for code of that function, several (outermost call site first) for
    /// code inlined into it.
    pub fn frame_at(&self, offset: u32) -> Option<(DefinedFuncIndex, Vec<u32>)> {
        let (d, _) = self.funcs.iter().find(|(_, f)| f.start <= offset && offset < f.start + f.len)?;
        Some((d, source_chain(&self.srclocs, offset)))
    }
}

/// The trap of the site at `offset` in `traps` (sorted by offset).
pub fn trap_at(traps: &[(u32, TrapCode)], offset: u32) -> Option<TrapCode> {
    traps.binary_search_by_key(&offset, |(o, _)| *o).ok().map(|i| traps[i].1)
}

/// The wasm offsets of the source range holding code `offset` in
/// `srclocs` (sorted by code offset): the entries that start where the
/// last one at or before `offset` starts, which are one inline chain.
pub fn source_chain(srclocs: &[(u32, u32)], offset: u32) -> Vec<u32> {
    let end = srclocs.partition_point(|(o, _)| *o <= offset);
    let Some(&(at, _)) = end.checked_sub(1).map(|i| &srclocs[i]) else { return Vec::new() };
    let start = srclocs[..end].iter().rposition(|(o, _)| *o != at).map_or(0, |p| p + 1);
    srclocs[start..end].iter().map(|&(_, l)| l).collect()
}

/// Resolves the direct calls in `body`, the code of a function placed at
/// `func_start` in an image where defined function `d` starts at
/// `callee(d)`, and adds its relocations to process addresses to `out`
/// (at image offsets). `defined` maps a function index to its defined
/// index: direct calls only ever target defined functions, since imports
/// are called through the VMContext.
pub fn resolve_relocs(
    body: &mut [u8],
    func_start: u32,
    relocs: &[FuncReloc],
    defined: &dyn Fn(FuncIndex) -> Option<DefinedFuncIndex>,
    callee: &dyn Fn(DefinedFuncIndex) -> u32,
    out: &mut Vec<ImageReloc>,
) -> Result<()> {
    let refuse = |what: std::fmt::Arguments<'_>| Error::unsupported(format_args!("relocation {what}"), None);
    for r in relocs {
        let at = (func_start + r.offset) as usize;
        let field = r.offset as usize;
        match (r.kind, r.target) {
            (RelocKind::PcRel32, RelocTarget::Func(f)) => {
                let d = defined(f).ok_or_else(|| refuse(format_args!("to import {f:?}")))?;
                let delta = callee(d) as i64 + r.addend - at as i64;
                let delta = i32::try_from(delta).map_err(|_| Error::unsupported("code image too large", None))?;
                body[field..field + 4].copy_from_slice(&delta.to_le_bytes());
            }
            (RelocKind::Arm64Call, RelocTarget::Func(f)) => {
                let d = defined(f).ok_or_else(|| refuse(format_args!("to import {f:?}")))?;
                let delta = callee(d) as i64 + r.addend - at as i64;
                // `bl` reaches ±128 MiB in words.
                if delta % 4 != 0 || !(-(1 << 27)..1 << 27).contains(&delta) {
                    return Err(Error::unsupported("code image too large for aarch64 calls", None));
                }
                let insn = u32::from_le_bytes(body[field..field + 4].try_into().expect("4 bytes"));
                let insn = (insn & !0x03ff_ffff) | ((delta >> 2) as u32 & 0x03ff_ffff);
                body[field..field + 4].copy_from_slice(&insn.to_le_bytes());
            }
            (RelocKind::Abs8, RelocTarget::Process(target)) if r.addend == 0 => {
                out.push(ImageReloc { offset: at as u32, target });
            }
            (kind, target) => return Err(refuse(format_args!("{kind:?} to {target:?}"))),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use cranelift_entity::EntityRef;

    #[test]
    fn direct_calls_resolve_relative_to_their_site() {
        let mut body = vec![0u8; 12];
        let relocs = [
            FuncReloc { offset: 1, kind: RelocKind::PcRel32, target: RelocTarget::Func(FuncIndex::new(3)), addend: -4 },
            FuncReloc {
                offset: 4,
                kind: RelocKind::Abs8,
                target: RelocTarget::Process(ProcessAddress::LibCall(LibCall::FmaF64)),
                addend: 0,
            },
        ];
        let mut out = Vec::new();
        let defined = |f: FuncIndex| f.index().checked_sub(1).map(DefinedFuncIndex::new);
        resolve_relocs(&mut body, 0x100, &relocs, &defined, &|d| 0x40 * d.index() as u32, &mut out).unwrap();
        // Callee 3 is defined function 2, at 0x80: 0x80 - 4 - 0x101.
        assert_eq!(i32::from_le_bytes(body[1..5].try_into().unwrap()), 0x80 - 4 - 0x101);
        assert_eq!(out, [ImageReloc { offset: 0x104, target: ProcessAddress::LibCall(LibCall::FmaF64) }]);
        let import = [FuncReloc { target: RelocTarget::Func(FuncIndex::new(0)), ..relocs[0] }];
        assert!(resolve_relocs(&mut body, 0, &import, &defined, &|_| 0, &mut out).is_err());
    }

    #[test]
    fn aarch64_calls_keep_the_opcode() {
        let mut body = 0x9400_0000u32.to_le_bytes().to_vec();
        let relocs = [FuncReloc {
            offset: 0,
            kind: RelocKind::Arm64Call,
            target: RelocTarget::Func(FuncIndex::new(0)),
            addend: 0,
        }];
        let defined = |f: FuncIndex| Some(DefinedFuncIndex::new(f.index()));
        resolve_relocs(&mut body, 0x20, &relocs, &defined, &|_| 0x10, &mut Vec::new()).unwrap();
        assert_eq!(u32::from_le_bytes(body[..4].try_into().unwrap()), 0x9400_0000 | (-4i32 as u32 & 0x03ff_ffff));
    }
}
