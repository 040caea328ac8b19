//! Telling Linux perf what compiled code is where: its map file
//! (`/tmp/perf-<pid>.map`, one `START SIZE NAME` line per function, read by
//! `perf report`) or a jitdump file (`jit-<pid>.dump`, records with each
//! function's code, merged into a recording by `perf inject --jit`).
//!
//! Both files belong to the process: every engine with a profiler appends
//! to the same one, under a lock, each module's symbols in one write.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::os::fd::AsRawFd;
use std::sync::Mutex;

use super::module_code::ModuleCode;
use crate::environ::config::Profiler;
use crate::environ::index::FuncIndex;
use crate::environ::module_info::ModuleInfo;

/// One symbol: address, size in bytes, name.
pub type Symbol = (usize, usize, String);

/// The symbols of a module's code image: its functions, named from the
/// name section or `wasm-function[N]`, and its entry trampolines.
pub fn module_symbols(code: &ModuleCode) -> Vec<Symbol> {
    let compiled = &code.compiled;
    let base = compiled.code.base() as usize;
    let mut symbols: Vec<Symbol> = compiled
        .tables
        .funcs
        .iter()
        .map(|(d, loc)| {
            let name = match compiled.lazy {
                // Lazily compiled functions are named as they are compiled.
                Some(_) => "lazy-compile stub".to_string(),
                None => function_name(&code.info, code.info.func_index(d)),
            };
            (base + loc.start as usize, loc.len as usize, name)
        })
        .collect();
    // Trampolines are shared by the functions of a signature; each sits
    // between the end of one item and the start of the next.
    let mut starts: Vec<u32> = compiled.tables.entry_trampolines.values().copied().collect();
    starts.sort_unstable();
    starts.dedup();
    let mut ends: Vec<usize> =
        symbols.iter().map(|(a, _, _)| *a).chain(starts.iter().map(|s| base + *s as usize)).collect();
    ends.push(base + compiled.lazy.as_ref().map_or(compiled.code.bytes().len(), |l| l.laid_out_len()));
    ends.sort_unstable();
    for s in starts {
        let at = base + s as usize;
        let end = ends[ends.partition_point(|e| *e <= at)];
        symbols.push((at, end - at, "host-to-wasm trampoline".to_string()));
    }
    symbols
}

/// The symbol of function `index`: its name from the name section, or
/// `wasm-function[N]`.
pub fn function_name(info: &ModuleInfo, index: FuncIndex) -> String {
    match info.func_names.get(&index) {
        // Both formats end a name at a newline or NUL.
        Some(name) => name.chars().map(|c| if c.is_control() { '?' } else { c }).collect(),
        None => format!("wasm-function[{}]", index.as_u32()),
    }
}

/// Tells `profiler` about `symbols`, which lie in the code `image`.
pub fn register(profiler: Profiler, image: &[u8], symbols: &[Symbol]) {
    // A profiler that cannot be written to must not stop the program: the
    // failure is reported once and profiling stops.
    let result = match profiler {
        Profiler::None => return,
        Profiler::PerfMap => write_perf_map(symbols),
        Profiler::JitDump => write_jitdump(image, symbols),
    };
    if let Err(e) = result {
        static REPORTED: std::sync::Once = std::sync::Once::new();
        REPORTED.call_once(|| eprintln!("cranewasm: cannot write the {profiler:?} profile: {e}"));
    }
}

static PERF_MAP: Mutex<Option<File>> = Mutex::new(None);

fn write_perf_map(symbols: &[Symbol]) -> std::io::Result<()> {
    let mut text = String::new();
    for (addr, size, name) in symbols {
        text += &format!("{addr:x} {size:x} {name}\n");
    }
    let mut file = PERF_MAP.lock().unwrap_or_else(|e| e.into_inner());
    if file.is_none() {
        let path = format!("/tmp/perf-{}.map", std::process::id());
        *file = Some(OpenOptions::new().create(true).append(true).open(path)?);
    }
    file.as_mut().expect("opened").write_all(text.as_bytes())
}

/// The jitdump file and the number of the next code record.
struct JitDump {
    file: File,
    next_index: u64,
}

static JITDUMP: Mutex<Option<JitDump>> = Mutex::new(None);

/// `CLOCK_MONOTONIC` in nanoseconds: the clock of `perf record -k mono`.
fn timestamp() -> u64 {
    let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: writes only the struct we pass.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut t) };
    t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64
}

/// Opens `jit-<pid>.dump` and writes its header. perf finds the file
/// through an executable mapping of it, which stays for the process's
/// life.
fn open_jitdump() -> std::io::Result<JitDump> {
    const MAGIC: u32 = 0x4A69_5444;
    let path = format!("jit-{}.dump", std::process::id());
    let mut file = OpenOptions::new().create(true).truncate(true).read(true).write(true).open(path)?;
    let mut header = Vec::with_capacity(40);
    for v in [MAGIC, 1, 40, super::arch::ELF_MACHINE, 0, std::process::id()] {
        header.extend_from_slice(&v.to_le_bytes());
    }
    header.extend_from_slice(&timestamp().to_le_bytes());
    header.extend_from_slice(&0u64.to_le_bytes());
    file.write_all(&header)?;
    // SAFETY: maps the header page of a file we hold open; the mapping is
    // never accessed, only seen by perf, and deliberately never unmapped.
    let map = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            region::page::size(),
            libc::PROT_READ | libc::PROT_EXEC,
            libc::MAP_PRIVATE,
            file.as_raw_fd(),
            0,
        )
    };
    if map == libc::MAP_FAILED {
        return Err(std::io::Error::last_os_error());
    }
    Ok(JitDump { file, next_index: 0 })
}

fn write_jitdump(image: &[u8], symbols: &[Symbol]) -> std::io::Result<()> {
    const JIT_CODE_LOAD: u32 = 0;
    let mut dump = JITDUMP.lock().unwrap_or_else(|e| e.into_inner());
    if dump.is_none() {
        *dump = Some(open_jitdump()?);
    }
    let dump = dump.as_mut().expect("opened");
    let base = image.as_ptr() as usize;
    let tid = super::os::thread_id() as u32;
    let mut out = Vec::new();
    for (addr, size, name) in symbols {
        let code = &image[addr - base..addr - base + size];
        let total = 16 + 40 + name.len() + 1 + code.len();
        out.extend_from_slice(&JIT_CODE_LOAD.to_le_bytes());
        out.extend_from_slice(&(total as u32).to_le_bytes());
        out.extend_from_slice(&timestamp().to_le_bytes());
        out.extend_from_slice(&std::process::id().to_le_bytes());
        out.extend_from_slice(&tid.to_le_bytes());
        for v in [*addr as u64, *addr as u64, *size as u64, dump.next_index] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(name.as_bytes());
        out.push(0);
        out.extend_from_slice(code);
        dump.next_index += 1;
    }
    dump.file.write_all(&out)
}
