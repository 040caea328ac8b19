//! The live-object table: every object the C API hands out is a cell of
//! one slab, so any pointer a client passes in can be recognised as ours
//! (and alive) without being read as one of our objects.
//!
//! Bindings pass pointers the library never handed out (a ctypes
//! `wasm_func_t()` the binding allocated itself, zero bytes long), and
//! pointers to objects already deleted. Reading such a pointer as a header
//! is a read out of bounds or of freed memory. So a C handle is not the
//! object's own address but the address of a [`Cell`] in a region this
//! module reserves once and never unmaps: a pointer outside the region, or
//! not on a cell boundary, is not ours, and a cell says whether it holds a
//! live object and of which kind. Checking costs a subtraction, two
//! compares and one load from our own memory, with no lock (measured in
//! `capi/README.md`).
//!
//! Cells are reused in first-in, first-out order and only once
//! [`QUARANTINE`] freed cells are waiting, so a handle used after its
//! delete finds its cell free, not reused, unless that many objects were
//! deleted in between. Allocating and freeing take a lock; looking up does
//! not.
//!
//! The first word of a cell is the object's *public* word: what a client
//! may read through the handle. Only modules have one (`wasm_module_t` is a
//! pointer typedef, and clients read `*module`).

use std::collections::VecDeque;
use std::ffi::c_void;
use std::ptr::{self, NonNull};
use std::sync::Mutex;
use std::sync::atomic::{AtomicPtr, AtomicU32, AtomicUsize, Ordering};

/// Bytes per cell (a power of two, so that a boundary is a mask test).
const CELL: usize = 32;
/// Address space reserved for cells: room for 2^25 live objects. It costs
/// nothing until used; it is committed [`COMMIT_STEP`] bytes at a time.
const RESERVE: usize = 1 << 30;
const COMMIT_STEP: usize = 1 << 16;
/// Freed cells wait this long (in frees) before they are reused.
const QUARANTINE: usize = 1 << 14;

/// What a cell holds. `Free` is zero: committed memory starts free.
#[repr(u32)]
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    Free = 0,
    Engine,
    Store,
    Module,
    Instance,
    Func,
    Global,
    Table,
    Memory,
    TrapError,
    Foreign,
    Frame,
    ValType,
    FuncType,
    GlobalType,
    TableType,
    MemoryType,
    ImportType,
    ExportType,
    // The objects of wasm_export.h (see `crate::export`).
    /// A `wasm_module_t` of `wasm_export.h` (`WASMModuleCommon *`).
    RtModule,
    /// A `wasm_module_inst_t`.
    ModuleInst,
    /// A `wasm_exec_env_t`.
    ExecEnv,
    /// A `wasm_function_inst_t`.
    FuncInst,
    /// A `wasm_memory_inst_t`.
    MemoryInst,
    /// A `wasm_func_type_t`, `wasm_table_type_t`, `wasm_global_type_t` or
    /// `wasm_memory_type_t` of a module's imports and exports.
    RtType,
    /// A `struct InstantiationArgs2 *`.
    InstArgs,
    /// A `cranewasm_tag_t` (`crate::ext::exceptions`).
    Tag,
    /// A `wasm_defined_type_t` of `gc_export.h` (`crate::export::gc`).
    DefinedType,
    /// A `wasm_obj_t` of `gc_export.h` that is not an i31: a function,
    /// externref or anyref object (`crate::export::gc`).
    GcObj,
    /// A GC reference of `wasm_c_api.h` (a `wasm_ref_t`: see
    /// `crate::c_api::anyref`).
    AnyRef,
}

impl Kind {
    /// This kind as a member of a kind set.
    pub const fn bit(self) -> u32 {
        1 << self as u32
    }
}

/// The set of every kind of object (not `Free`): for asking whether a
/// pointer is a live object at all, or why not.
pub(crate) const ANY_KIND: u32 = !Kind::Free.bit();

/// How to drop, copy and compare the object in a cell: one table per Rust
/// type, so that `wasm_ref_copy` and friends need not know every type.
pub struct VTable {
    /// Frees an object its cell (at the given address) let go of.
    pub destroy: unsafe fn(*mut (), usize),
    /// Registers a new object for the same thing; NULL if there is none.
    pub duplicate: unsafe fn(*const ()) -> *mut Cell,
    /// Compares two objects of the type.
    pub same: unsafe fn(*const (), *const ()) -> bool,
}

/// One entry of the table.
#[repr(C, align(32))]
pub struct Cell {
    /// The public word (see the module documentation).
    public: AtomicPtr<c_void>,
    /// The boxed object.
    obj: AtomicPtr<()>,
    vtable: AtomicPtr<VTable>,
    /// A [`Kind`]; `Free` when the cell holds nothing.
    kind: AtomicU32,
    /// Set when the object was freed for the client by something else than
    /// its own destroy call (its owner, its store, the runtime's end): a
    /// later use of the handle is one of the orders WAMR accepts, refused
    /// without a word (see [`Miss::Retired`]). Cleared when the cell is
    /// reused.
    retired: AtomicU32,
}

const _: () = assert!(std::mem::size_of::<Cell>() == CELL);

/// Where the cells are: what a lookup reads before it reads a cell. One
/// static, so that a lookup finds both words through one address.
struct Region {
    /// Start of the reserved region (0 until the first object is made).
    base: AtomicUsize,
    /// Bytes of the region handed out as cells so far; lookups look no
    /// further. Published with release ordering after `base` and after the
    /// memory is committed.
    used: AtomicUsize,
}

static REGION: Region = Region { base: AtomicUsize::new(0), used: AtomicUsize::new(0) };

struct Slab {
    /// Cells handed out so far (the next fresh cell's index).
    next: usize,
    /// Bytes committed.
    committed: usize,
    /// Freed cells, oldest first.
    free: VecDeque<usize>,
}

static SLAB: Mutex<Slab> = Mutex::new(Slab { next: 0, committed: 0, free: VecDeque::new() });

fn slab() -> std::sync::MutexGuard<'static, Slab> {
    SLAB.lock().unwrap_or_else(|e| e.into_inner())
}

/// The cell at address `p`, if `p` is one of ours (live or not). Reads
/// nothing at `p`.
#[inline(always)]
pub fn cell_at(p: usize) -> Option<&'static Cell> {
    let used = REGION.used.load(Ordering::Acquire);
    let offset = p.wrapping_sub(REGION.base.load(Ordering::Relaxed));
    if offset >= used || !offset.is_multiple_of(CELL) {
        return None;
    }
    // SAFETY: `p` is a cell boundary below `used`: committed memory of the
    // region, which is never unmapped, and only ever accessed atomically.
    Some(unsafe { &*(p as *const Cell) })
}

/// Why [`live`] found no object.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Miss {
    /// Not a live object: NULL, never handed out, or deleted by its own
    /// destroy call.
    NotLive,
    /// An object freed for the client by its owner, its store or the end
    /// of the runtime: the client may still name it in a destroy call
    /// (WAMR's bindings destroy an exec env after its instance, say).
    Retired,
    /// A live object of another kind.
    OtherKind,
}

/// The object of the live cell at `p` if its kind is in `kinds` (a set of
/// [`Kind::bit`]s).
#[inline(always)]
pub fn live(p: usize, kinds: u32) -> Result<NonNull<()>, Miss> {
    let cell = cell_at(p).ok_or(Miss::NotLive)?;
    let kind = cell.kind.load(Ordering::Acquire);
    // No set holds `Free`, so one test answers for the common case.
    if kinds & (1 << (kind % 32)) != 0 {
        // Never NULL in a live cell, unless a delete on another thread
        // races with this lookup (which the API forbids).
        return NonNull::new(cell.obj.load(Ordering::Relaxed)).ok_or(Miss::NotLive);
    }
    Err(match kind {
        0 if cell.retired.load(Ordering::Relaxed) != 0 => Miss::Retired,
        0 => Miss::NotLive,
        _ => Miss::OtherKind,
    })
}

/// The object of the live cell at `p` (NULL if there is none).
pub fn object_of(p: usize) -> *const () {
    live(p, ANY_KIND).map_or(ptr::null(), |o| o.as_ptr().cast_const())
}

impl Cell {
    /// The kind of object in this cell (`Free` when none).
    pub fn kind(&self) -> u32 {
        self.kind.load(Ordering::Acquire)
    }

    /// The object's table of operations, if the cell is live.
    pub fn vtable(&self) -> Option<&'static VTable> {
        if self.kind() == 0 {
            return None;
        }
        // SAFETY: a live cell's vtable pointer is a `&'static VTable`.
        unsafe { self.vtable.load(Ordering::Relaxed).as_ref() }
    }
}

/// Commits the next step of the region, reserving it first if needed.
fn grow(s: &mut Slab) -> bool {
    let mut base = REGION.base.load(Ordering::Relaxed);
    if base == 0 {
        // SAFETY: a fresh anonymous mapping, no existing memory involved.
        let p = unsafe {
            libc::mmap(
                ptr::null_mut(),
                RESERVE,
                libc::PROT_NONE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                -1,
                0,
            )
        };
        if p == libc::MAP_FAILED {
            return false;
        }
        base = p as usize;
        REGION.base.store(base, Ordering::Relaxed);
    }
    if s.committed + COMMIT_STEP > RESERVE {
        return false;
    }
    // SAFETY: the range lies within our reservation, past what is in use.
    let ok = unsafe {
        libc::mprotect((base + s.committed) as *mut c_void, COMMIT_STEP, libc::PROT_READ | libc::PROT_WRITE) == 0
    };
    if ok {
        s.committed += COMMIT_STEP;
    }
    ok
}

/// Puts a boxed object in a cell and returns the cell: the C handle. NULL
/// (`None`) only when the address space for cells is exhausted; the
/// caller then still owns `obj`.
pub fn alloc(kind: Kind, obj: NonNull<()>, vtable: &'static VTable, public: *const c_void) -> Option<NonNull<Cell>> {
    let mut s = slab();
    let index = if s.free.len() > QUARANTINE {
        s.free.pop_front()?
    } else {
        if (s.next + 1) * CELL > s.committed && !grow(&mut s) {
            crate::log(format_args!("out of address space for C objects"));
            return None;
        }
        s.next += 1;
        s.next - 1
    };
    let addr = REGION.base.load(Ordering::Relaxed) + index * CELL;
    // SAFETY: `addr` is a committed cell boundary of the region; the lock
    // makes this thread the only writer.
    let cell = unsafe { &*(addr as *const Cell) };
    cell.public.store(public.cast_mut(), Ordering::Relaxed);
    cell.obj.store(obj.as_ptr(), Ordering::Relaxed);
    cell.vtable.store(ptr::from_ref(vtable).cast_mut(), Ordering::Relaxed);
    cell.retired.store(0, Ordering::Relaxed);
    cell.kind.store(kind as u32, Ordering::Release);
    REGION.used.fetch_max(s.next * CELL, Ordering::Release);
    NonNull::new(addr as *mut Cell)
}

/// Empties a live cell whose kind is in `kinds`, for the caller to destroy
/// what it held (outside the lock: destroying an object may free others).
/// `None` when `p` is not such a cell, so two deletes of one handle free
/// the object once. `retired`: the object goes for the client, not by its
/// own destroy call (see [`Miss::Retired`]).
pub fn take(p: usize, kinds: u32, retired: bool) -> Option<(NonNull<()>, &'static VTable)> {
    let cell = cell_at(p)?;
    let mut s = slab();
    let kind = cell.kind.load(Ordering::Relaxed);
    if kind == 0 || kinds & (1 << kind) == 0 {
        return None;
    }
    cell.retired.store(u32::from(retired), Ordering::Relaxed);
    cell.kind.store(0, Ordering::Release);
    let obj = NonNull::new(cell.obj.swap(ptr::null_mut(), Ordering::Relaxed))?;
    // SAFETY: a live cell's vtable pointer is a `&'static VTable`.
    let vtable = unsafe { &*cell.vtable.load(Ordering::Relaxed) };
    cell.public.store(ptr::null_mut(), Ordering::Relaxed);
    s.free.push_back((p - REGION.base.load(Ordering::Relaxed)) / CELL);
    Some((obj, vtable))
}

/// The handles of the live objects whose kind is in `kinds`, oldest cell
/// first: what the end of the runtime frees for the client.
pub fn live_cells(kinds: u32) -> Vec<usize> {
    let _s = slab();
    let (base, used) = (REGION.base.load(Ordering::Relaxed), REGION.used.load(Ordering::Acquire));
    (0..used / CELL)
        .map(|i| base + i * CELL)
        .filter(|&p| cell_at(p).is_some_and(|c| kinds & (1 << (c.kind() % 32)) != 0 && c.kind() != 0))
        .collect()
}

/// Writes a line on stderr the first time a pointer that is not a live
/// object of this library is refused: later ones are refused silently.
#[cold]
#[inline(never)]
pub fn refused(what: &str) {
    use std::sync::atomic::AtomicBool;
    static SAID: AtomicBool = AtomicBool::new(false);
    // A warning: not said (and still to say) while warnings are silenced.
    if crate::diag::enabled(crate::diag::WARNING) && !SAID.swap(true, Ordering::Relaxed) {
        crate::diag::line(
            crate::diag::WARNING,
            format_args!(
                "ignored a pointer that is not a live {what} of this library (deleted, or never handed out); \
             further ones are ignored silently"
            ),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    static NOOP: VTable = VTable { destroy: |_, _| {}, duplicate: |_| ptr::null_mut(), same: |_, _| false };

    #[test]
    fn foreign_addresses_are_not_cells() {
        let local = 0u64;
        assert_eq!(live(0, u32::MAX), Err(Miss::NotLive));
        assert_eq!(live(ptr::from_ref(&local) as usize, u32::MAX), Err(Miss::NotLive));
        let obj = NonNull::<u64>::dangling().cast();
        let cell = alloc(Kind::Func, obj, &NOOP, ptr::null()).expect("a cell");
        let p = cell.as_ptr() as usize;
        assert_eq!(live(p, Kind::Func.bit()), Ok(obj));
        assert_eq!(live(p, Kind::Global.bit()), Err(Miss::OtherKind));
        assert_eq!(live(p + 8, u32::MAX), Err(Miss::NotLive), "inside a cell");
        assert!(take(p, Kind::Global.bit(), false).is_none(), "not freed as another kind");
        assert!(take(p, Kind::Func.bit(), false).is_some());
        assert!(take(p, Kind::Func.bit(), false).is_none(), "freed once");
        assert_eq!(live(p, ANY_KIND), Err(Miss::NotLive), "freed");
    }

    #[test]
    fn retired_cells_say_so_until_reused() {
        let obj = NonNull::<u64>::dangling().cast();
        let p = alloc(Kind::Func, obj, &NOOP, ptr::null()).expect("a cell").as_ptr() as usize;
        assert!(live_cells(Kind::Func.bit()).contains(&p));
        assert!(take(p, Kind::Func.bit(), true).is_some());
        assert_eq!(live(p, ANY_KIND), Err(Miss::Retired), "freed for the client");
        assert!(!live_cells(Kind::Func.bit()).contains(&p));
    }
}
