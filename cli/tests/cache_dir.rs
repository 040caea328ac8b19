//! The code cache (`Config::cache_dir`, on by default in `iwasm`): a first
//! run compiles lazily while a detached process fills the entry
//! (`cli/src/cache_fill.rs`), and the second run is a hit; damaged, truncated, swapped and foreign entries are
//! refused, the right code runs and the entry is replaced; concurrent
//! processes on one cold directory all run correctly and leave one whole
//! entry, whether each stores its own or one filler stores for all; `--no-cache` writes nothing; an unwritable directory costs only
//! the compile; eviction keeps the directory under its limit, oldest first.
//!
//! Hits and misses are read from `CRANEWASM_CACHE_LOG=1`'s lines on stderr
//! (and, through the API, from the entry's inode and modification time),
//! never from timings. With the log on, a filler writes to the run's
//! stderr, so reading that to its end waits for the filler too.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, SystemTime};

use cranewasm::{Config, Engine, Instance, Module, Store};

/// The value the chain of functions in [`program`] computes from 1.
fn chain_value(functions: u32) -> i32 {
    (0..functions).fold(1i32, |x, i| x.wrapping_mul(3).wrapping_add(i as i32))
}

/// A WASI program that prints `<tag> ok` when a chain of `functions`
/// functions computes what it should (`<tag> bad` otherwise): enough code
/// that compiling it takes a while, and an output that wrong code would
/// not give. Modules with different tags differ.
fn program(tag: char, functions: u32) -> String {
    let mut wat = String::from(
        r#"(module
  (import "wasi_snapshot_preview1" "fd_write" (func $write (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 1)
"#,
    );
    wat += &format!("  (data (i32.const 100) \"{tag} ok\\n\")\n  (data (i32.const 200) \"{tag} bad\\n\")\n");
    for i in 0..functions {
        let step = format!("(i32.add (i32.mul (local.get 0) (i32.const 3)) (i32.const {i}))");
        let body = if i + 1 < functions { format!("(call $f{} {step})", i + 1) } else { step };
        wat += &format!("  (func $f{i} (export \"f{i}\") (param i32) (result i32) {body})\n");
    }
    wat += &format!(
        r#"  (func (export "_start")
    (if (i32.eq (call $f0 (i32.const 1)) (i32.const {}))
      (then (i32.store (i32.const 0) (i32.const 100)) (i32.store (i32.const 4) (i32.const 5)))
      (else (i32.store (i32.const 0) (i32.const 200)) (i32.store (i32.const 4) (i32.const 6))))
    (drop (call $write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 8)))))
"#,
        chain_value(functions)
    );
    wat
}

/// A fresh scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("iwasm-cache-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `wat` compiled to a binary in `dir/<name>.wasm`.
fn module_file(dir: &Path, name: &str, wat: &str) -> PathBuf {
    let path = dir.join(format!("{name}.wasm"));
    std::fs::write(&path, wat::parse_str(wat).unwrap()).unwrap();
    path
}

fn iwasm_command(args: &[&str], module: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_iwasm"));
    cmd.args(args)
        .arg(module)
        .env("CRANEWASM_CACHE_LOG", "1")
        .env_remove("CRANEWASM_CACHE_DIR")
        .env_remove("CRANEWASM_LAZY");
    cmd
}

/// Runs `iwasm ARGS MODULE` with the cache's log on: (stdout, stderr),
/// after checking that it succeeded.
fn iwasm(args: &[&str], module: &Path) -> (String, String) {
    checked(iwasm_command(args, module).output().expect("run iwasm"))
}

fn checked(out: Output) -> (String, String) {
    let (stdout, stderr) =
        (String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned());
    assert!(out.status.success(), "iwasm failed: {:?}\nstdout: {stdout}\nstderr: {stderr}", out.status);
    (stdout, stderr)
}

/// Runs `module` with the cache in `cache`: (stdout, stderr).
fn cached_run(cache: &Path, module: &Path) -> (String, String) {
    iwasm(&["--cache-dir", cache.to_str().unwrap()], module)
}

/// The files of `dir` whose names end with `suffix`.
fn files(dir: &Path, suffix: &str) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = match std::fs::read_dir(dir) {
        Ok(listing) => listing.map(|e| e.unwrap().path()).filter(|p| p.to_str().unwrap().ends_with(suffix)).collect(),
        Err(_) => Vec::new(),
    };
    out.sort();
    out
}

/// The one entry of `dir`.
fn only_entry(dir: &Path) -> PathBuf {
    let entries = files(dir, ".cwasm");
    assert_eq!(entries.len(), 1, "{entries:?}");
    entries.into_iter().next().unwrap()
}

#[test]
fn the_second_run_is_a_hit() {
    let dir = scratch("hit");
    let m = module_file(&dir, "a", &program('A', 50));
    let cache = dir.join("cache");
    let (out, err) = cached_run(&cache, &m);
    assert_eq!(out, "A ok\n");
    let entry = only_entry(&cache);
    let entry_text = entry.to_str().unwrap();
    // The run compiled lazily and left the entry to a filler, which stored
    // it.
    for line in ["miss", "not stored", "filling", "stored"] {
        assert!(err.contains(&format!("cranewasm cache: {line} {entry_text}")), "no {line}: {err}");
    }
    let (out, err) = cached_run(&cache, &m);
    assert_eq!(out, "A ok\n");
    assert_eq!(err.trim(), format!("cranewasm cache: hit {}", entry.display()));
    assert_eq!(only_entry(&cache), entry);
}

/// Damages the entry of a warm cache with `damage`, then checks that the
/// next run prints the right output, says the entry was refused, and
/// leaves a good entry that the run after hits.
fn refused_and_replaced(name: &str, damage: impl Fn(&Path), why: &str) {
    let dir = scratch(name);
    let m = module_file(&dir, "a", &program('A', 50));
    let cache = dir.join("cache");
    cached_run(&cache, &m);
    let entry = only_entry(&cache);
    damage(&entry);
    let damaged = std::fs::read(&entry).unwrap();
    let (out, err) = cached_run(&cache, &m);
    assert_eq!(out, "A ok\n");
    assert!(err.contains("entry refused") && err.contains(why), "{name}: {err}");
    assert!(err.contains("cranewasm cache: stored"), "{name}: {err}");
    assert_ne!(std::fs::read(&entry).unwrap(), damaged, "{name}: the damaged entry stayed");
    let (out, err) = cached_run(&cache, &m);
    assert_eq!(out, "A ok\n");
    assert!(err.starts_with("cranewasm cache: hit"), "{name}: {err}");
}

#[test]
fn a_damaged_entry_is_refused_and_replaced() {
    // Bytes of the code (the code image ends the file, before the 8-byte
    // checksum).
    refused_and_replaced(
        "flip",
        |entry| {
            let mut bytes = std::fs::read(entry).unwrap();
            let at = bytes.len() - 40;
            for b in &mut bytes[at..at + 4] {
                *b ^= 0x5a;
            }
            std::fs::write(entry, bytes).unwrap();
        },
        "checksum",
    );
}

#[test]
fn a_truncated_entry_is_refused_and_replaced() {
    refused_and_replaced(
        "truncate",
        |entry| {
            let len = std::fs::metadata(entry).unwrap().len();
            std::fs::OpenOptions::new().write(true).open(entry).unwrap().set_len(len / 2).unwrap();
        },
        "truncated",
    );
    refused_and_replaced("empty", |entry| std::fs::write(entry, b"").unwrap(), "magic");
}

#[test]
fn an_entry_of_another_module_is_refused_and_replaced() {
    let dir = scratch("swap");
    let (a, b) = (module_file(&dir, "a", &program('A', 50)), module_file(&dir, "b", &program('B', 50)));
    let cache = dir.join("cache");
    cached_run(&cache, &a);
    let entry_a = only_entry(&cache);
    cached_run(&cache, &b);
    let entry_b = files(&cache, ".cwasm").into_iter().find(|e| *e != entry_a).unwrap();
    // A's entry under B's name: a good file, for the wrong module.
    std::fs::rename(&entry_a, &entry_b).unwrap();
    let (out, err) = cached_run(&cache, &b);
    assert_eq!(out, "B ok\n");
    assert!(err.contains("entry refused: it holds another module"), "{err}");
    let (out, err) = cached_run(&cache, &b);
    assert_eq!(out, "B ok\n");
    assert!(err.starts_with("cranewasm cache: hit"), "{err}");
    let (out, err) = cached_run(&cache, &a);
    assert_eq!(out, "A ok\n");
    assert!(err.contains("cranewasm cache: miss") && !err.contains("refused"), "{err}");
}

#[test]
fn an_entry_of_another_engine_is_refused_and_replaced() {
    let dir = scratch("foreign");
    let m = module_file(&dir, "a", &program('A', 50));
    let cache = dir.join("cache");
    // Code compiled with explicit bounds checks: another engine, another key.
    let run = |bounds: &str| {
        let mut cmd = iwasm_command(&["--cache-dir", cache.to_str().unwrap()], &m);
        checked(cmd.env("CRANEWASM_BOUNDS_CHECKS", bounds).output().unwrap())
    };
    assert_eq!(run("explicit").0, "A ok\n");
    let foreign = only_entry(&cache);
    assert_eq!(run("guard-pages").0, "A ok\n");
    let ours = files(&cache, ".cwasm").into_iter().find(|e| *e != foreign).expect("a second entry");
    std::fs::copy(&foreign, &ours).unwrap();
    let (out, err) = run("guard-pages");
    assert_eq!(out, "A ok\n");
    assert!(err.contains("compiled module refused: it was compiled with bounds checks = explicit"), "{err}");
    assert!(run("guard-pages").1.starts_with("cranewasm cache: hit"));
}

/// Eight runs of one module started together on a cold cache, with the
/// environment `env`: each prints the right output and none sees a
/// partial entry; the cache is left with one entry and no temporary file,
/// which the next run hits. Returns how many runs (or their fillers)
/// stored the entry.
fn eight_at_once(name: &str, env: &[(&str, &str)]) -> usize {
    let dir = scratch(name);
    // Large enough that the compiles overlap.
    let m = module_file(&dir, "big", &program('C', 1500));
    let cache = dir.join("cache");
    let children: Vec<_> = (0..8)
        .map(|_| {
            iwasm_command(&["--cache-dir", cache.to_str().unwrap()], &m)
                .envs(env.iter().copied())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let mut stores = 0;
    for child in children {
        let (out, err) = checked(child.wait_with_output().unwrap());
        assert_eq!(out, "C ok\n", "{err}");
        assert!(!err.contains("refused"), "a run saw a partial entry: {err}");
        stores += err.matches("cranewasm cache: stored").count();
    }
    only_entry(&cache);
    assert_eq!(files(&cache, ".tmp"), Vec::<PathBuf>::new());
    let (out, err) = cached_run(&cache, &m);
    assert_eq!(out, "C ok\n");
    assert!(err.starts_with("cranewasm cache: hit"), "{err}");
    stores
}

#[test]
fn eight_concurrent_runs_on_a_cold_cache() {
    // Each run compiles eagerly and stores: concurrent writers of one key.
    let stores = eight_at_once("concurrent", &[("CRANEWASM_LAZY", "0")]);
    // Otherwise the runs did not overlap, and this tested nothing.
    assert!(stores >= 2, "only {stores} of the 8 runs compiled and stored");
    // The default: the runs compile lazily, their fillers share a lock, and
    // one of them compiles and stores.
    assert_eq!(eight_at_once("concurrent-fill", &[]), 1);
}

#[test]
fn without_lazy_compilation_the_run_stores_the_entry_itself() {
    let dir = scratch("eager");
    let m = module_file(&dir, "a", &program('A', 20));
    let cache = dir.join("cache");
    let mut cmd = iwasm_command(&["--cache-dir", cache.to_str().unwrap()], &m);
    let (out, err) = checked(cmd.env("CRANEWASM_LAZY", "0").output().unwrap());
    assert_eq!(out, "A ok\n");
    assert!(err.contains("cranewasm cache: stored") && !err.contains("filling"), "{err}");
    assert!(cached_run(&cache, &m).1.starts_with("cranewasm cache: hit"));
}

#[test]
fn the_filler_outlives_the_run() {
    let dir = scratch("detached");
    let m = module_file(&dir, "a", &program('A', 300));
    let cache = dir.join("cache");
    // No log: the filler's output goes nowhere and nothing waits for it.
    let out = Command::new(env!("CARGO_BIN_EXE_iwasm"))
        .args(["--cache-dir", cache.to_str().unwrap()])
        .arg(&m)
        .env_remove("CRANEWASM_CACHE_LOG")
        .env_remove("CRANEWASM_LAZY")
        .output()
        .unwrap();
    assert_eq!(checked(out), ("A ok\n".to_string(), String::new()));
    // The entry appears once the filler is done (or it never does).
    let deadline = std::time::Instant::now() + Duration::from_secs(120);
    while files(&cache, ".cwasm").is_empty() || !files(&cache, ".fill.tmp").is_empty() {
        assert!(std::time::Instant::now() < deadline, "no entry: {:?}", files(&cache, ""));
        std::thread::sleep(Duration::from_millis(20));
    }
    only_entry(&cache);
    assert!(cached_run(&cache, &m).1.starts_with("cranewasm cache: hit"));
}

#[test]
fn no_cache_writes_nothing() {
    let dir = scratch("off");
    let m = module_file(&dir, "a", &program('A', 5));
    let cache = dir.join("cache");
    let (out, err) = iwasm(&["--no-cache", "--cache-dir", cache.to_str().unwrap()], &m);
    assert_eq!(out, "A ok\n");
    assert_eq!(err, "");
    let mut env_only = iwasm_command(&["--no-cache"], &m);
    let (out, err) = checked(env_only.env("CRANEWASM_CACHE_DIR", &cache).output().unwrap());
    assert_eq!(out, "A ok\n");
    assert_eq!(err, "");
    assert!(!cache.exists());
}

#[test]
fn the_default_directory_and_the_environment() {
    let dir = scratch("default");
    let m = module_file(&dir, "a", &program('A', 5));
    let home = dir.join("home");
    let run = |vars: &[(&str, &Path)]| {
        let mut cmd = iwasm_command(&[], &m);
        cmd.env_remove("XDG_CACHE_HOME").env("HOME", &home);
        for (k, v) in vars {
            cmd.env(k, v);
        }
        let (out, _) = checked(cmd.output().unwrap());
        assert_eq!(out, "A ok\n");
    };
    run(&[]);
    only_entry(&home.join(".cache/cranewasm"));
    run(&[("XDG_CACHE_HOME", &dir.join("xdg"))]);
    only_entry(&dir.join("xdg/cranewasm"));
    run(&[("XDG_CACHE_HOME", &dir.join("xdg")), ("CRANEWASM_CACHE_DIR", &dir.join("env"))]);
    only_entry(&dir.join("env"));
}

#[test]
fn an_unwritable_cache_directory_still_runs() {
    let dir = scratch("unwritable");
    let m = module_file(&dir, "a", &program('A', 5));
    // Under a regular file: no directory can be made there, even by root.
    let file = dir.join("file");
    std::fs::write(&file, b"not a directory").unwrap();
    let cache = file.join("cache");
    for _ in 0..2 {
        let (out, err) = cached_run(&cache, &m);
        assert_eq!(out, "A ok\n");
        assert!(err.contains("not stored"), "{err}");
    }
    assert_eq!(std::fs::read(&file).unwrap(), b"not a directory");
    // Without the log, nothing is said.
    let out = Command::new(env!("CARGO_BIN_EXE_iwasm"))
        .args(["--cache-dir", cache.to_str().unwrap()])
        .arg(&m)
        .env_remove("CRANEWASM_CACHE_LOG")
        .output()
        .unwrap();
    let (out, err) = checked(out);
    assert_eq!((out.as_str(), err.as_str()), ("A ok\n", ""));
}

/// The chain's value from a module made by `Module::new` in `engine`.
fn api_value(engine: &Engine, wat: &str) -> i32 {
    let module = Module::new(engine, wat).unwrap();
    let mut store = Store::new(engine, ());
    let write = cranewasm::Func::wrap(&mut store, |_: i32, _: i32, _: i32, _: i32| 0i32);
    let instance = Instance::new(&mut store, &module, &[write.into()]).unwrap();
    let f0 = instance.get_func(&store, "f0").unwrap().typed::<i32, i32>(&store).unwrap();
    f0.call(&mut store, 1).unwrap()
}

fn set_mtime(path: &Path, t: SystemTime) {
    std::fs::File::open(path).unwrap().set_modified(t).unwrap();
}

#[test]
fn api_hits_touch_and_eviction_keeps_the_limit() {
    use std::os::unix::fs::MetadataExt;
    let dir = scratch("api").join("cache");
    let mut config = Config::new();
    config.cache_dir(Some(dir.clone()));
    let engine = Engine::new(&config).unwrap();
    let (a, b, c) = (program('A', 40), program('B', 40), program('C', 40));
    assert_eq!(api_value(&engine, &a), chain_value(40));
    let entry_a = only_entry(&dir);
    let inode = std::fs::metadata(&entry_a).unwrap().ino();
    let long_ago = SystemTime::now() - Duration::from_secs(86400);
    set_mtime(&entry_a, long_ago);
    // A hit: the same file (a miss would rename a new one in), touched.
    assert_eq!(api_value(&engine, &a), chain_value(40));
    let meta = std::fs::metadata(&entry_a).unwrap();
    assert_eq!(meta.ino(), inode);
    assert!(meta.modified().unwrap() > long_ago + Duration::from_secs(3600));
    // Off by default: a plain engine neither reads nor writes the cache.
    assert_eq!(Config::new().get_cache_dir(), None);
    assert_eq!(api_value(&Engine::default(), &b), chain_value(40));
    assert_eq!(files(&dir, ".cwasm").len(), 1);

    // Room for two entries: storing a third evicts the least recently used.
    let size = meta.len();
    let mut config = config.clone();
    config.cache_size_limit(size * 5 / 2);
    let engine = Engine::new(&config).unwrap();
    assert_eq!(api_value(&engine, &b), chain_value(40));
    let entry_b = files(&dir, ".cwasm").into_iter().find(|e| *e != entry_a).unwrap();
    // A used last: B is the one to go.
    set_mtime(&entry_b, long_ago);
    set_mtime(&entry_a, SystemTime::now() - Duration::from_secs(60));
    // Not entries: never deleted, nor counted (but a stale temporary is).
    let notes = dir.join("notes.txt");
    std::fs::write(&notes, vec![0u8; size as usize * 4]).unwrap();
    let key = entry_a.file_name().unwrap().to_str().unwrap();
    let (stale, fresh) = (dir.join(format!(".{key}.1.0.tmp")), dir.join(format!(".{key}.2.0.tmp")));
    std::fs::write(&stale, b"x").unwrap();
    std::fs::write(&fresh, b"x").unwrap();
    set_mtime(&stale, long_ago);
    assert_eq!(api_value(&engine, &c), chain_value(40));
    let left = files(&dir, ".cwasm");
    assert_eq!(left.len(), 2, "{left:?}");
    assert!(left.contains(&entry_a) && !left.contains(&entry_b), "{left:?}");
    assert!(notes.exists() && fresh.exists() && !stale.exists());
    // A limit below one entry keeps the entry just stored, alone.
    config.cache_size_limit(1);
    let engine = Engine::new(&config).unwrap();
    assert_eq!(api_value(&engine, &b), chain_value(40));
    assert_eq!(files(&dir, ".cwasm"), vec![entry_b]);
}

#[test]
fn api_store_on_miss_off_leaves_the_entry_to_the_caller() {
    let dir = scratch("api-leave").join("cache");
    let wat = program('A', 10);
    let mut config = Config::new();
    config.cache_dir(Some(dir.clone())).lazy_compilation(true).cache_store_on_miss(false);
    let lazy = Engine::new(&config).unwrap();
    let entry = lazy.cache_entry(&wat).unwrap().expect("a cache is set");
    assert_eq!(api_value(&lazy, &wat), chain_value(10));
    assert!(!entry.exists(), "a miss stored an entry");
    // An eager engine that stores names the same entry: the name leaves
    // out how code is made.
    let mut config = config.clone();
    config.lazy_compilation(false).cache_store_on_miss(true);
    let eager = Engine::new(&config).unwrap();
    assert_eq!(eager.cache_entry(&wat).unwrap().as_ref(), Some(&entry));
    assert_eq!(api_value(&eager, &wat), chain_value(10));
    assert_eq!(only_entry(&dir), entry);
    // ... which the lazy engine hits (the file is not replaced) ...
    use std::os::unix::fs::MetadataExt;
    let inode = std::fs::metadata(&entry).unwrap().ino();
    assert_eq!(api_value(&lazy, &wat), chain_value(10));
    assert_eq!(std::fs::metadata(&entry).unwrap().ino(), inode);
    // ... and, once damaged, refuses and deletes for the caller to fill.
    std::fs::write(&entry, b"damaged").unwrap();
    assert_eq!(api_value(&lazy, &wat), chain_value(10));
    assert!(!entry.exists(), "the refused entry stayed");
    // No cache, no entry.
    assert_eq!(Engine::default().cache_entry(&wat).unwrap(), None);
}
