//! Profiling: with `Config::profiler` (or `CRANEWASM_PROFILE`), perf
//! learns the name and place of every compiled function. The perf map's
//! ranges must cover each module's code, name for name; and `perf record`
//! with `perf report` (and, for jitdump, `perf inject --jit`) must
//! attribute the samples of a hot loop to its wasm function by name. A
//! `perf` that cannot record fails the test unless
//! `CRANEWASM_TEST_WITHOUT_PERF` is set.

use std::path::{Path, PathBuf};
use std::process::Command;

use cranewasm::*;

const GUEST: &str = r#"(module $prof
    (func $hot_inner_loop (param i32) (result i32)
        (local i32)
        (loop (local.set 1 (i32.add (local.get 1) (i32.mul (local.get 0) (local.get 1))))
              (local.set 0 (i32.sub (local.get 0) (i32.const 1)))
              (br_if 0 (local.get 0)))
        (local.get 1))
    (func $rarely_called (result i32) (i32.const 1))
    (func (export "run") (param i32) (result i32)
        (i32.add (call $hot_inner_loop (local.get 0)) (call $rarely_called)))
    (func (export "other") (param i64) (result i64) (local.get 0)))"#;

/// The executable mappings of this process, as address ranges.
fn executable_mappings() -> Vec<(usize, usize)> {
    std::fs::read_to_string("/proc/self/maps")
        .unwrap()
        .lines()
        .filter(|l| l.split_whitespace().nth(1).is_some_and(|p| p.contains('x')))
        .map(|l| {
            let (a, b) = l.split_whitespace().next().unwrap().split_once('-').unwrap();
            (usize::from_str_radix(a, 16).unwrap(), usize::from_str_radix(b, 16).unwrap())
        })
        .collect()
}

/// The perf map's entries whose names are among `names`.
fn map_entries(names: &[&str]) -> Vec<(usize, usize, String)> {
    let map = std::fs::read_to_string(format!("/tmp/perf-{}.map", std::process::id())).unwrap();
    map.lines()
        .filter_map(|l| {
            let mut parts = l.splitn(3, ' ');
            let addr = usize::from_str_radix(parts.next()?, 16).ok()?;
            let size = usize::from_str_radix(parts.next()?, 16).ok()?;
            let name = parts.next()?.to_string();
            names.contains(&name.as_str()).then_some((addr, size, name))
        })
        .collect()
}

#[test]
fn the_perf_map_covers_every_function_by_name() {
    let mut config = Config::new();
    config.profiler(Profiler::PerfMap);
    let engine = Engine::new(&config).unwrap();
    let module = Module::new(&engine, GUEST).unwrap();
    // Also a module loaded from the cache, and the trampolines.
    // SAFETY: bytes this test just serialized.
    let again = unsafe { Module::deserialize(&engine, &module.serialize().unwrap()) }.unwrap();
    let mut store = Store::new(&engine, ());
    let instance = Instance::new(&mut store, &again, &[]).unwrap();
    let run = instance.get_func(&store, "run").unwrap().typed::<i32, i32>(&store).unwrap();
    run.call(&mut store, 10).unwrap();
    let host = Func::wrap(&mut store, |x: i64| x);
    let _ = host;

    let names = ["hot_inner_loop", "rarely_called", "wasm-function[2]", "wasm-function[3]", "host-to-wasm trampoline"];
    let entries = map_entries(&names);
    let exec = executable_mappings();
    // Each module: 4 functions, 2 trampolines (two signatures), twice.
    for name in &names[..4] {
        assert_eq!(entries.iter().filter(|e| e.2 == *name).count(), 2, "{name}: {entries:?}");
    }
    assert!(entries.iter().filter(|e| e.2 == "host-to-wasm trampoline").count() >= 4);
    for (addr, size, name) in &entries {
        assert!(*size > 0, "{name}");
        assert!(exec.iter().any(|(lo, hi)| lo <= addr && addr + size <= *hi), "{name} at {addr:#x} is not code");
    }
    // Within an image the entries tile the code: sorted, they neither
    // overlap nor leave more than alignment padding between them.
    let mut sorted = entries.clone();
    sorted.sort();
    let images: Vec<_> = sorted.chunk_by(|a, b| b.0 - (a.0 + a.1) < 64).collect();
    assert!(images.len() >= 2, "{sorted:?}");
    for image in images {
        for pair in image.windows(2) {
            assert!(pair[0].0 + pair[0].1 <= pair[1].0, "{pair:?} overlap");
        }
    }
    let _ = std::fs::remove_file(format!("/tmp/perf-{}.map", std::process::id()));
}

const CHILD: &str = "CRANEWASM_TEST_PROFILE_CHILD";

/// Run under perf by the tests below: spends half a second or so in
/// `hot_inner_loop`.
#[test]
#[ignore = "run in a child process under perf"]
fn child_runs_the_hot_loop() {
    if std::env::var(CHILD).is_err() {
        return;
    }
    // Without inlining: a profiler attributes samples by function ranges,
    // so a loop inlined into `run` would be counted as `run`'s.
    let mut config = Config::new();
    config.cranelift_inlining(false);
    let engine = Engine::new(&config).unwrap();
    let module = Module::new(&engine, GUEST).unwrap();
    let mut store = Store::new(&engine, ());
    let instance = Instance::new(&mut store, &module, &[]).unwrap();
    let run = instance.get_func(&store, "run").unwrap().typed::<i32, i32>(&store).unwrap();
    println!("result {}", run.call(&mut store, 600_000_000).unwrap());
    println!("child pid {}", std::process::id());
}

/// Why `perf record` cannot be used here, if it cannot.
fn perf_unusable(dir: &Path) -> Option<String> {
    let out = Command::new("perf")
        .args(["record", "-q", "-e", "cpu-clock", "-o"])
        .arg(dir.join("probe.data"))
        .arg("true")
        .output();
    match out {
        Err(e) => Some(format!("perf is not installed ({e})")),
        Ok(o) if !o.status.success() => Some(format!("perf record fails: {}", String::from_utf8_lossy(&o.stderr))),
        Ok(_) => None,
    }
}

/// Records the child under perf with `profile` and returns `perf report`'s
/// share (percent) of samples in `hot_inner_loop`.
fn hot_share(profile: &str, dir: &Path) -> f64 {
    let data = dir.join("perf.data");
    let mut record = Command::new("perf");
    record.args(["record", "-q", "-e", "cpu-clock"]);
    if profile == "jitdump" {
        record.args(["-k", "mono"]);
    }
    let out = record
        .arg("-o")
        .arg(&data)
        .arg(std::env::current_exe().unwrap())
        .args(["--exact", "child_runs_the_hot_loop", "--ignored", "--nocapture"])
        .env(CHILD, "1")
        .env(PROFILER_ENV, profile)
        .current_dir(dir)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    let pid = stdout.lines().find_map(|l| l.strip_prefix("child pid ")).expect("the child's pid");
    let report_input = if profile == "jitdump" {
        let injected = dir.join("perf.jit.data");
        let o =
            Command::new("perf").args(["inject", "--jit", "-i"]).arg(&data).arg("-o").arg(&injected).output().unwrap();
        assert!(o.status.success(), "perf inject: {}", String::from_utf8_lossy(&o.stderr));
        injected
    } else {
        data
    };
    let o =
        Command::new("perf").args(["report", "--stdio", "--sort", "sym", "-i"]).arg(&report_input).output().unwrap();
    let report = String::from_utf8_lossy(&o.stdout);
    // The map is perf's to read, and read now: it may go.
    let _ = std::fs::remove_file(format!("/tmp/perf-{pid}.map"));
    let line = report.lines().find(|l| l.contains("hot_inner_loop")).unwrap_or_else(|| panic!("{profile}: {report}"));
    line.trim().split('%').next().unwrap().trim().parse().unwrap()
}

fn scratch_dir(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("profiling-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Set (to anything) to let the test below pass on a machine where `perf
/// record` cannot run, checking only the perf map. `tests/run-all.sh`
/// installs perf and never sets it.
const NO_PERF_OPT_OUT: &str = "CRANEWASM_TEST_WITHOUT_PERF";

#[test]
fn perf_attributes_samples_to_named_wasm_functions() {
    let dir = scratch_dir("perf");
    if let Some(why) = perf_unusable(&dir) {
        assert!(
            std::env::var_os(NO_PERF_OPT_OUT).is_some(),
            "{why}\n(set {NO_PERF_OPT_OUT}=1 to check only the perf map on a machine without a usable perf)"
        );
        // The map test above checks what perf would read.
        eprintln!("{NO_PERF_OPT_OUT} is set and {why}: NOT CHECKED, only the perf map's coverage is");
        return;
    }
    for profile in ["perfmap", "jitdump"] {
        let share = hot_share(profile, &dir);
        println!("{profile}: {share}% of samples in hot_inner_loop");
        assert!(share > 50.0, "{profile}: {share}%");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_unknown_profiler_in_the_environment_is_an_error() {
    if let Ok(value) = std::env::var(CHILD) {
        if value == "engine" {
            println!("engine: {:?}", Engine::new(&Config::default()).map(|_| ()).map_err(|e| e.to_string()));
        }
        return;
    }
    let out = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "an_unknown_profiler_in_the_environment_is_an_error", "--nocapture"])
        .env(CHILD, "engine")
        .env(PROFILER_ENV, "vtune")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout
            .contains(r#"engine: Err("CRANEWASM_PROFILE=\"vtune\": expected \"perfmap\" or \"jitdump\" or \"none\"")"#),
        "{stdout}"
    );
}
