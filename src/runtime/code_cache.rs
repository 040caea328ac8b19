//! The code cache: a directory of compiled-code files that
//! [`Module::new`] looks in before compiling and stores in after
//! ([`Config::cache_dir`](crate::Config::cache_dir)).
//!
//! An entry is `<dir>/<module hash><engine hash>.cwasm`, two 64-bit
//! [`checksum`]s in hex: of the module's binary, and of everything about
//! the engine that its code depends on (this build of the runtime, the
//! fingerprint a compiled-code file records, and every setting). The
//! checksum is not cryptographic, and need not be: a key is only where to
//! look. What is found must pass every check of a compiled-code file
//! (checksum, fingerprint, metadata) and hold the very module binary that
//! was asked for, compared byte for byte; otherwise it is a miss, compiled
//! again and replaced. A collision, a damaged file or one renamed to
//! another key costs a compile, never wrong code.
//!
//! Entries are never changed in place (the loader maps them): a store
//! writes a temporary file in the directory and renames it over the entry,
//! so a reader sees the old file or the new one, and concurrent writers of
//! one key each put a whole file there. An entry that is used is touched
//! (its modification time is its last use), and a store that takes the
//! directory's entries over the size limit deletes the least recently
//! used. Failing to read or write the directory never fails the load.

use std::fs::{self, File};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, SystemTime};

use crate::cache::checksum;
use crate::environ::error::Result;
use crate::runtime::engine::Engine;
use crate::runtime::module::Module;

/// The environment variable that, set to `1`, reports each lookup (hit,
/// miss, refused entry and why) and each failure to store on stderr.
pub const LOG_ENV: &str = "CRANEWASM_CACHE_LOG";

/// What identifies this build of the runtime: a hash of its sources and
/// lock file (build.rs), so that a runtime changed without a new version
/// number never loads code its predecessor compiled.
const BUILD_ID: &str = env!("CRANEWASM_BUILD_ID");

/// How old a temporary file must be before a store deletes it as the
/// leftover of a process that died while writing.
const STALE_TEMP: Duration = Duration::from_secs(3600);

fn log(args: std::fmt::Arguments<'_>) {
    static ON: OnceLock<bool> = OnceLock::new();
    if *ON.get_or_init(|| std::env::var_os(LOG_ENV).is_some_and(|v| v == "1")) {
        eprintln!("cranewasm cache: {args}");
    }
}

/// The module of `wasm` (a binary) for `engine`: from the engine's cache
/// when it has one and the entry is good, from `compile` otherwise (and
/// then stored).
pub(crate) fn load_or_compile(
    engine: &Engine,
    wasm: Box<[u8]>,
    compile: impl FnOnce(Box<[u8]>) -> Result<Module>,
) -> Result<Module> {
    let Some(dir) = engine.config().cache.dir.as_deref() else { return compile(wasm) };
    let name = entry_name(engine, &wasm);
    let path = dir.join(&name);
    let refused = match lookup(engine, &path, &wasm) {
        Ok(Some(module)) => {
            log(format_args!("hit {}", path.display()));
            // Its last use, for eviction; a file we may not touch is still
            // good to run.
            let _ = File::open(&path).and_then(|f| f.set_modified(SystemTime::now()));
            return Ok(module);
        }
        Ok(None) => {
            log(format_args!("miss {}", path.display()));
            false
        }
        Err(why) => {
            log(format_args!("miss {} (entry refused: {why})", path.display()));
            true
        }
    };
    if !engine.config().cache.store_on_miss {
        // Whoever fills the entry looks for a file first: a refused one
        // must go, or it would stay refused on every run. (Should another
        // process have just renamed a good entry over it, deleting that
        // costs one compile.)
        if refused {
            let _ = fs::remove_file(&path);
        }
        log(format_args!("not stored {}: left to the caller", path.display()));
        return compile(wasm);
    }
    let module = compile(wasm)?;
    let bytes = module.serialize()?;
    if bytes.is_empty() {
        log(format_args!("not stored {}: the module has no compiled-code file", path.display()));
        return Ok(module);
    }
    match store(dir, &name, &bytes) {
        Ok(()) => {
            log(format_args!("stored {}", path.display()));
            evict(dir, &name, engine.config().cache.size_limit);
        }
        Err(e) => log(format_args!("not stored {}: {e}", path.display())),
    }
    Ok(module)
}

impl Engine {
    /// Where this engine's code cache keeps the compiled code of the
    /// module `bytes` (binary, or text with the `wat` feature), whether or
    /// not an entry is there now; `None` without
    /// [`Config::cache_dir`](crate::Config::cache_dir). A file there is not
    /// vouched for: [`Module::new`] checks it before running it.
    pub fn cache_entry(&self, bytes: impl AsRef<[u8]>) -> Result<Option<PathBuf>> {
        let Some(dir) = self.config().cache.dir.as_deref() else { return Ok(None) };
        let wasm = crate::runtime::module::to_binary(bytes.as_ref())?;
        Ok(Some(dir.join(entry_name(self, &wasm))))
    }
}

/// The file name of `wasm`'s entry for `engine`.
fn entry_name(engine: &Engine, wasm: &[u8]) -> String {
    // Every setting goes into the key, not only those the fingerprint
    // names (inlining, the passes...): code they shape is correct for any
    // engine, but should not be what an engine set otherwise gets. Left
    // out: the cache's own settings, and how the code is made rather than
    // what it is (an entry is the whole module compiled eagerly, whether
    // the engine compiles lazily, tiers or compiles in parallel), so that
    // `iwasm`'s lazy first run and its eager filler share a key.
    let mut config = engine.config().clone();
    config.cache = Default::default();
    config.lazy_compilation = false;
    config.lazy_env_error = None;
    config.tier = Default::default();
    config.parallel_compilation = true;
    let id = format!("{BUILD_ID}\n{:?}\n{config:?}", engine.fingerprint());
    format!("{:016x}{:016x}.cwasm", checksum(wasm), checksum(id.as_bytes()))
}

/// Whether `name` is an entry's: 32 hex digits and `.cwasm` (eviction
/// deletes nothing else, whatever else the directory holds).
fn is_entry(name: &str) -> bool {
    name.strip_suffix(".cwasm").is_some_and(|key| key.len() == 32 && key.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// Whether `name` is a temporary file of [`store`]'s.
fn is_temp(name: &str) -> bool {
    name.strip_prefix('.')
        .and_then(|n| n.strip_suffix(".tmp"))
        .and_then(|n| n.split_once(".cwasm."))
        .is_some_and(|(key, _)| is_entry(&format!("{key}.cwasm")))
}

/// The module in the entry at `path`, if there is one and it is good and
/// holds `wasm`; `Ok(None)` when there is none, the reason it was refused
/// otherwise.
fn lookup(engine: &Engine, path: &Path, wasm: &[u8]) -> std::result::Result<Option<Module>, String> {
    if !path.is_file() {
        return Ok(None);
    }
    // SAFETY: entries are written whole by `store` and renamed into place,
    // never changed in place, and the directory is the embedder's own
    // (`Config::cache_dir` says to use one only it can write); the file's
    // checks refuse damaged, truncated and foreign files.
    let module = unsafe { Module::deserialize_file(engine, path) }.map_err(|e| e.to_string())?;
    if module.wasm() != wasm {
        return Err("it holds another module (a hash collision, or a renamed file)".into());
    }
    Ok(Some(module))
}

/// Writes `bytes` as the entry `name` in `dir`: into a temporary file of
/// this process's, renamed over the entry.
fn store(dir: &Path, name: &str, bytes: &[u8]) -> std::io::Result<()> {
    static STORES: AtomicU64 = AtomicU64::new(0);
    let mut builder = fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir)?;
    let n = STORES.fetch_add(1, Ordering::Relaxed);
    let temp = dir.join(format!(".{name}.{}.{n}.tmp", std::process::id()));
    let written =
        File::create_new(&temp).and_then(|mut f| f.write_all(bytes)).and_then(|()| fs::rename(&temp, dir.join(name)));
    if written.is_err() {
        let _ = fs::remove_file(&temp);
    }
    written
}

/// Deletes the least recently used entries of `dir` until they take no
/// more than `limit` bytes, sparing `kept` (just stored), and temporary
/// files left by processes that died while writing.
fn evict(dir: &Path, kept: &str, limit: u64) {
    let Ok(listing) = fs::read_dir(dir) else { return };
    let now = SystemTime::now();
    let mut entries: Vec<(SystemTime, u64, PathBuf)> = Vec::new();
    let mut total = 0u64;
    for item in listing.flatten() {
        let name = item.file_name();
        let Some(name) = name.to_str() else { continue };
        let Ok(meta) = item.metadata() else { continue };
        let used = meta.modified().unwrap_or(SystemTime::UNIX_EPOCH);
        if is_temp(name) && now.duration_since(used).is_ok_and(|age| age > STALE_TEMP) {
            let _ = fs::remove_file(item.path());
        } else if is_entry(name) {
            total += meta.len();
            if name != kept {
                entries.push((used, meta.len(), item.path()));
            }
        }
    }
    entries.sort();
    for (_, len, path) in entries {
        if total <= limit {
            break;
        }
        // Another process may have deleted it first: either way it is gone.
        let _ = fs::remove_file(&path);
        log(format_args!("evicted {}", path.display()));
        total -= len;
    }
}

#[cfg(test)]
mod tests {
    use super::{is_entry, is_temp};

    #[test]
    fn only_our_names_are_entries_or_temporaries() {
        let key = "0123456789abcdef0123456789ABCDEF";
        assert!(is_entry(&format!("{key}.cwasm")));
        assert!(!is_entry("lua.cwasm"));
        assert!(!is_entry(&format!("{key}x.cwasm")));
        assert!(!is_entry(&format!("{key}.wasm")));
        assert!(is_temp(&format!(".{key}.cwasm.123.0.tmp")));
        assert!(!is_temp(&format!("{key}.cwasm.123.0.tmp")));
        assert!(!is_temp(".notes.cwasm.1.tmp"));
    }
}
