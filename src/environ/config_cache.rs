//! The [`Config`] switches of the code cache: a directory of compiled-code
//! files that [`Module::new`](crate::Module::new) looks in before
//! compiling and stores in after (`runtime::code_cache`).

use std::path::{Path, PathBuf};

use super::config::Config;

/// The environment variable that turns the code cache on for engines the C
/// layer makes (`wasm_engine_new`, `wasm_runtime_init` and the others),
/// whose clients (C programs, Python's ctypes binding) have no
/// [`Config`]: its value is the cache directory. Unset or empty, they
/// cache nothing. The Rust API does not read it (see
/// [`Config::cache_dir`]).
pub const CACHE_DIR_ENV: &str = "CRANEWASM_CACHE_DIR";

/// The size a cache directory is kept under unless
/// [`Config::cache_size_limit`] says otherwise: 512 MiB.
pub const DEFAULT_CACHE_SIZE_LIMIT: u64 = 512 << 20;

/// Where the cache is and how large it may grow.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct CacheSettings {
    pub dir: Option<PathBuf>,
    pub size_limit: u64,
    /// Whether a miss stores the module it compiled
    /// ([`Config::cache_store_on_miss`]).
    pub store_on_miss: bool,
}

impl Default for CacheSettings {
    fn default() -> CacheSettings {
        CacheSettings { dir: None, size_limit: DEFAULT_CACHE_SIZE_LIMIT, store_on_miss: true }
    }
}

impl Config {
    /// Keep compiled code in `dir` (made if missing) across runs: `None`,
    /// the default, caches nothing, as wasmtime's cache is off unless
    /// asked for.
    ///
    /// [`Module::new`](crate::Module::new) then names an entry by a hash of
    /// the module's bytes and of the engine (runtime build, target, CPU
    /// features, every setting); it loads an entry it finds, and compiles
    /// and stores one otherwise. An entry that is damaged, truncated, made
    /// for another module or engine, or otherwise refused is compiled again
    /// and replaced, never run. Entries are written to a temporary file
    /// and renamed, so concurrent processes sharing a directory are safe;
    /// the least recently used are deleted when the directory outgrows
    /// [`cache_size_limit`](Self::cache_size_limit). A directory that
    /// cannot be read or written costs nothing but the compile: the module
    /// is made as without a cache (set `CRANEWASM_CACHE_LOG=1` to see hits,
    /// misses and failures on stderr).
    ///
    /// **Trust.** Loading an entry runs its machine code, whose checks
    /// catch accidents, not forgeries (as with
    /// [`Module::deserialize`](crate::Module::deserialize)): use a
    /// directory only you can write.
    ///
    /// **Lazy compilation.** An entry always holds the whole module,
    /// compiled eagerly, and its name does not depend on
    /// [`lazy_compilation`](Self::lazy_compilation) or tiering: a lazy
    /// engine that hits runs fully compiled code at once. A lazy engine's
    /// miss compiles the module a second time, eagerly, for the entry,
    /// unless [`cache_store_on_miss`](Self::cache_store_on_miss) leaves
    /// that to another process.
    pub fn cache_dir(&mut self, dir: Option<PathBuf>) -> &mut Config {
        self.cache.dir = dir;
        self
    }

    /// The directory [`cache_dir`](Self::cache_dir) set.
    pub fn get_cache_dir(&self) -> Option<&Path> {
        self.cache.dir.as_deref()
    }

    /// The size in bytes the cache directory is kept under (default
    /// [`DEFAULT_CACHE_SIZE_LIMIT`]): after a store that takes it above,
    /// the least recently used entries are deleted (an entry used is
    /// touched). The entry just stored stays, even alone above the limit.
    pub fn cache_size_limit(&mut self, bytes: u64) -> &mut Config {
        self.cache.size_limit = bytes;
        self
    }

    /// Whether a miss stores an entry (on by default). Off, a miss
    /// compiles the module as the engine is set and stores nothing, and an
    /// entry that was refused is deleted; filling the cache is left to the
    /// caller, for instance to a background process that loads the module
    /// once more with an engine set the same way but with this on, and
    /// exits. `iwasm` does so: its first run of a module compiles lazily,
    /// while a detached, low-priority `iwasm` compiles the whole module
    /// into the cache for the next run. [`Engine::cache_entry`] says
    /// whether there is an entry now.
    ///
    /// [`Engine::cache_entry`]: crate::Engine::cache_entry
    pub fn cache_store_on_miss(&mut self, on: bool) -> &mut Config {
        self.cache.store_on_miss = on;
        self
    }

    /// Turns the cache on in the directory [`CACHE_DIR_ENV`] names, if it
    /// is set and not empty; otherwise leaves the setting alone. For the
    /// C layer, whose clients have no other way to ask.
    pub fn cache_dir_from_environment(&mut self) -> &mut Config {
        if let Some(dir) = std::env::var_os(CACHE_DIR_ENV).filter(|d| !d.is_empty()) {
            self.cache.dir = Some(PathBuf::from(dir));
        }
        self
    }
}
