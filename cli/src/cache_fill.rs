//! `iwasm`'s first run of a module: compile lazily, and fill the code
//! cache from a detached process.
//!
//! With the cache on, a miss used to compile the whole module before the
//! program started, so that the entry could be stored: the first run paid
//! for every function, most of which a short run never calls. Now the run
//! that misses compiles lazily (functions as they are first called, hot
//! ones optimised later: `Config::lazy_compilation`, tiering) and stores
//! nothing (`Config::cache_store_on_miss`). It starts this program again
//! with the same arguments and [`FILL_ENV`] set, in a new process group
//! with no terminal and at the lowest CPU priority: that process compiles
//! the whole module eagerly, stores the entry through the same cache code
//! (a temporary file renamed into place), and exits without running
//! anything. The next run hits.
//!
//! The filler's engine differs from the run's only in how code is made
//! (eagerly), which the entry's name leaves out, so both name the same
//! entry. A lock file (`.<entry>.fill.tmp`, a temporary file to the cache,
//! deleted by eviction when stale) keeps concurrent first runs from
//! compiling the module once each; a filler that finds the entry present
//! once it holds the lock does nothing.
//!
//! `CRANEWASM_LAZY=0` keeps the old way (the miss compiles eagerly and
//! stores in the run); `--no-cache` compiles eagerly and stores nothing.
//! With `CRANEWASM_CACHE_LOG=1` the filler logs to the run's stderr, so
//! whoever reads it to its end (a test) also sees the store.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, SystemTime};

use cranewasm::{Config, Engine, Module};

/// Set (to `1`) in the environment of the filler process.
pub const FILL_ENV: &str = "CRANEWASM_CACHE_FILL";

/// How old a filler's lock must be before another filler takes it over,
/// as left by a filler that died.
const STALE_LOCK: Duration = Duration::from_secs(600);

/// Whether this process is a filler.
pub fn is_filler() -> bool {
    std::env::var_os(FILL_ENV).is_some_and(|v| v == "1")
}

/// Sets `config` up for a first run that compiles lazily and leaves the
/// entry to a filler; false (and `config` unchanged) when there is no
/// cache, or `CRANEWASM_LAZY` is set to anything but `1`: `0` asks for
/// eager compilation, and any other value is an error that the engine
/// reports (setting lazy compilation here would hide it).
pub fn lazy_first_run(config: &mut Config) -> bool {
    // A runtime-only `iwasm` compiles nothing: it runs compiled files.
    if !cfg!(feature = "compiler") || config.get_cache_dir().is_none() {
        return false;
    }
    match std::env::var_os(cranewasm::LAZY_ENV) {
        None => {
            config.lazy_compilation(true);
        }
        Some(v) if v == "1" => {}
        Some(_) => return false,
    }
    config.cache_store_on_miss(false);
    true
}

/// Starts a filler when the run just loaded `bytes` (a WebAssembly
/// module, not a compiled file) and the cache has no entry for it.
pub fn fill_after_miss(engine: &Engine, bytes: &[u8]) {
    if Module::is_serialized(bytes) {
        return;
    }
    let Ok(Some(entry)) = engine.cache_entry(bytes) else { return };
    if entry.is_file() {
        return;
    }
    let Ok(program) = std::env::current_exe() else { return };
    let log = std::env::var_os(cranewasm::CACHE_LOG_ENV).is_some_and(|v| v == "1");
    let mut cmd = Command::new(program);
    cmd.args(std::env::args_os().skip(1))
        .env(FILL_ENV, "1")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(if log { Stdio::inherit() } else { Stdio::null() });
    // Its own process group: a terminal's ^C to the program does not
    // cut the filler short.
    std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
    // Never waited for: it outlives this process, which init then reaps.
    match cmd.spawn() {
        Ok(child) if log => eprintln!("cranewasm cache: filling {} in process {}", entry.display(), child.id()),
        Ok(_) => {}
        Err(e) if log => eprintln!("cranewasm cache: no filler for {}: {e}", entry.display()),
        Err(_) => {}
    }
}

/// The filler: compiles the module `bytes` into the cache with `config`
/// (the run's, made eager), unless another filler is at it or has done
/// it.
pub fn fill(mut config: Config, bytes: Vec<u8>) -> ExitCode {
    // SAFETY: plain system call on this process.
    unsafe { libc::setpriority(libc::PRIO_PROCESS, 0, 19) };
    config.lazy_compilation(false).cache_store_on_miss(true);
    let Ok(engine) = Engine::new(&config) else { return ExitCode::FAILURE };
    let Ok(Some(entry)) = engine.cache_entry(&bytes) else { return ExitCode::FAILURE };
    let lock = Lock::take(&entry);
    if entry.is_file() {
        return ExitCode::SUCCESS;
    }
    // Stores the entry (and logs why not, if it cannot).
    let loaded = Module::new(&engine, bytes);
    drop(lock);
    if loaded.is_ok() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// A filler's claim on an entry, released when dropped.
struct Lock(Option<PathBuf>);

impl Lock {
    /// Takes the lock of `entry`; when another live filler holds it,
    /// exits the process. When no lock can be made (the directory cannot
    /// be written), goes on without one: the store will fail and say so.
    fn take(entry: &Path) -> Lock {
        let name = entry.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        let path = entry.with_file_name(format!(".{name}.fill.tmp"));
        if let Some(dir) = entry.parent() {
            let mut builder = std::fs::DirBuilder::new();
            std::os::unix::fs::DirBuilderExt::mode(builder.recursive(true), 0o700);
            let _ = builder.create(dir);
        }
        for _ in 0..2 {
            match File::create_new(&path) {
                Ok(_) => return Lock(Some(path)),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    let age = std::fs::metadata(&path)
                        .and_then(|m| m.modified())
                        .ok()
                        .and_then(|t| SystemTime::now().duration_since(t).ok());
                    match age {
                        Some(age) if age > STALE_LOCK => {
                            let _ = std::fs::remove_file(&path);
                        }
                        // Held, or deleted just now by its holder: either
                        // way someone is filling or has filled.
                        _ => std::process::exit(0),
                    }
                }
                Err(_) => return Lock(None),
            }
        }
        std::process::exit(0)
    }
}

impl Drop for Lock {
    fn drop(&mut self) {
        if let Some(path) = &self.0 {
            let _ = std::fs::remove_file(path);
        }
    }
}
