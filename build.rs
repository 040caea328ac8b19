//! Names this build of the runtime for the code cache (`src/runtime/code_cache.rs`):
//! a hash of the sources and the lock file, so that code compiled by one
//! build is never loaded by another that generates different code under
//! the same version number (as a developer's builds do).

use std::hash::{DefaultHasher, Hasher};
use std::path::Path;

fn hash_tree(dir: &Path, h: &mut DefaultHasher) {
    let Ok(listing) = std::fs::read_dir(dir) else { return };
    let mut paths: Vec<_> = listing.flatten().map(|e| e.path()).collect();
    paths.sort();
    for path in paths {
        if path.is_dir() {
            hash_tree(&path, h);
        } else if let Ok(bytes) = std::fs::read(&path) {
            h.write(path.to_string_lossy().as_bytes());
            h.write(&bytes);
        }
    }
}

fn main() {
    let mut h = DefaultHasher::new();
    // Relative paths: the same sources hash the same wherever they are.
    hash_tree(Path::new("src"), &mut h);
    for file in ["Cargo.toml", "Cargo.lock"] {
        if let Ok(bytes) = std::fs::read(file) {
            h.write(&bytes);
        }
    }
    println!("cargo:rustc-env=CRANEWASM_BUILD_ID={:016x}", h.finish());
    println!("cargo:rerun-if-changed=src");
    println!("cargo:rerun-if-changed=Cargo.toml");
    println!("cargo:rerun-if-changed=Cargo.lock");
}
