//! Where `iwasm` keeps compiled code: the code cache is on by default
//! (`Config::cache_dir`), so that the second run of a module starts
//! without compiling, as wasmtime's command line does with its cache.

use std::path::PathBuf;

use crate::options::Options;

/// The cache directory for `opts`: none with `--no-cache`; else
/// `--cache-dir`, `$CRANEWASM_CACHE_DIR`, `$XDG_CACHE_HOME/cranewasm` or
/// `$HOME/.cache/cranewasm`, the first given. None when no home is known
/// either (the program then runs compiled each time).
pub fn choose(opts: &Options) -> Option<PathBuf> {
    if opts.no_cache {
        return None;
    }
    if let Some(dir) = &opts.cache_dir {
        return Some(dir.clone());
    }
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    if let Some(dir) = var(cranewasm::CACHE_DIR_ENV) {
        return Some(dir);
    }
    cranewasm::Cache::from_default_dir().map(|cache| cache.dir().to_path_buf())
}
