//! The `iwasm` binary as a user (or WAMR's test adapters) runs it: exit
//! statuses, WAMR's output for traps and `-f` results, clear messages for
//! bad options, and WASI arguments, environment and directories.

use std::path::PathBuf;
use std::process::{Command, Output};

fn iwasm(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_iwasm")).args(args).output().expect("run iwasm")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A scratch file `name` holding `text`, in a directory of its own.
fn file(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("iwasm-cli-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

const WASI: &str = r#"
  (import "wasi_snapshot_preview1" "args_sizes_get" (func $args_sizes (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "args_get" (func $args_get (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "environ_sizes_get" (func $env_sizes (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "environ_get" (func $env_get (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_write" (func $write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_prestat_dir_name" (func $pname (param i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
  (memory (export "memory") 1)
  (func $out (param $buf i32) (param $len i32)
    (i32.store (i32.const 16) (local.get $buf))
    (i32.store (i32.const 20) (local.get $len))
    (drop (call $write (i32.const 1) (i32.const 16) (i32.const 1) (i32.const 24))))"#;

#[test]
fn version_and_help() {
    let o = iwasm(&["--version"]);
    assert!(o.status.success());
    let first = stdout(&o).lines().next().unwrap().to_string();
    assert_eq!(first, format!("iwasm {}", env!("CARGO_PKG_VERSION")));
    let o = iwasm(&["--help"]);
    assert_eq!(o.status.code(), Some(1), "WAMR's print_help returns 1");
    assert!(stdout(&o).starts_with("Usage: iwasm [-options] wasm_file [args...]"));
}

#[test]
fn bad_options_get_a_clear_message() {
    for (args, message) in [
        (&["--bogus", "x.wasm"][..], "unknown option --bogus"),
        (&["--repl", "x.wasm"], "--repl is not supported"),
        (&["--env", "NOEQUALS", "x.wasm"], "expect \"key=value\""),
        (&["--map-dir=/only", "x.wasm"], "GUEST::HOST"),
        (&["-f"], "-f needs a function name"),
        (&[], "no module file given"),
    ] {
        let o = iwasm(args);
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        assert!(stderr(&o).contains(message), "{args:?}: {}", stderr(&o));
    }
    let o = iwasm(&["--interp", "/no/such.wasm"]);
    assert!(stderr(&o).contains("--interp ignored"), "{}", stderr(&o));
}

#[test]
fn load_failures_exit_255_like_wamr() {
    let o = iwasm(&["/no/such/file.wasm"]);
    assert_eq!(o.status.code(), Some(255));
    assert!(stdout(&o).contains("/no/such/file.wasm"));
    let bad = file("bad.wasm", "\0asm\x01\0\0\0\x7f");
    let o = iwasm(&[bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(255));
    assert!(stdout(&o).starts_with("WASM module load failed: "), "{}", stdout(&o));
}

#[test]
fn the_address_pool_reaches_the_guest_and_bad_entries_fail_as_in_wamr() {
    // A UDP connect to 127.0.0.1:9 (which sends nothing); its errno is the
    // exit status (EACCES is 2).
    let m = file(
        "pool.wat",
        r#"(module
  (import "wasi_snapshot_preview1" "sock_open" (func $open (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "sock_connect" (func $connect (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
  (memory (export "memory") 1)
  (data (i32.const 64) "\00\00\00\00\7f\00\00\01\09\00")
  (func (export "_start")
    (drop (call $open (i32.const -1) (i32.const 0) (i32.const 0) (i32.const 0)))
    (call $exit (call $connect (i32.load (i32.const 0)) (i32.const 64)))))"#,
    );
    let m = m.to_str().unwrap();
    assert_eq!(iwasm(&[m]).status.code(), Some(2), "no pool: EACCES");
    assert_eq!(iwasm(&["--addr-pool=10.0.0.0/8,::1/128", m]).status.code(), Some(2), "outside the pool");
    assert_eq!(iwasm(&["--addr-pool=127.0.0.1/32", m]).status.code(), Some(0), "inside");
    let o = iwasm(&["--addr-pool=127.0.0.1", m]);
    assert_eq!(o.status.code(), Some(255), "WAMR's instantiation failure");
    assert!(
        stdout(&o).contains("Invalid address pool entry: 127.0.0.1, must be in the format of ADDRESS/MASK"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn traps_print_an_exception_and_exit_1() {
    let m = file("trap.wat", r#"(module (func (export "_start") (drop (i32.div_s (i32.const 1) (i32.const 0)))))"#);
    let o = iwasm(&[m.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(stdout(&o), "Exception: integer divide by zero\n");
    // An import nobody provides links, and traps only when called.
    let m = file(
        "unlinked.wat",
        r#"(module (import "env" "missing" (func $m)) (func (export "_start")) (func (export "call") (call $m)))"#,
    );
    assert_eq!(iwasm(&[m.to_str().unwrap()]).status.code(), Some(0));
    let o = iwasm(&["-f", "call", m.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(stdout(&o), "Exception: failed to call unlinked import function (env, missing)\n");
}

#[test]
fn exit_status_is_the_guests() {
    let m = file("exit.wat", &format!("(module {WASI} (func (export \"_start\") (call $exit (i32.const 42))))"));
    assert_eq!(iwasm(&[m.to_str().unwrap()]).status.code(), Some(42));
    let m = file("ret.wat", r#"(module (func (export "_start")))"#);
    assert_eq!(iwasm(&[m.to_str().unwrap()]).status.code(), Some(0));
    let m = file("noentry.wat", r#"(module (func (export "f")))"#);
    let o = iwasm(&[m.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).starts_with("Exception: lookup the entry point symbol"), "{}", stdout(&o));
}

#[test]
fn function_calls_parse_and_print_like_wamr() {
    let m = file(
        "funcs.wat",
        r#"(module
            (func (export "add") (param i32 i32) (result i32) (i32.add (local.get 0) (local.get 1)))
            (func (export "wide") (param i64 f32 f64) (result i64 f32 f64)
                (local.get 0) (local.get 1) (local.get 2))
            (func (export "none")))"#,
    );
    let m = m.to_str().unwrap();
    let o = iwasm(&["-f", "add", m, "2", "0x28"]);
    assert_eq!((o.status.code(), stdout(&o).as_str()), (Some(0), "0x2a:i32\n"));
    let o = iwasm(&["--function", "wide", m, "-1", "1.5", "0.1"]);
    assert_eq!(stdout(&o), "0xffffffffffffffff:i64,1.5:f32,0.1:f64\n");
    assert_eq!(stdout(&iwasm(&["-f", "none", m])), "\n");
    for (args, message) in [
        (&["-f", "add", m, "1"][..], "Exception: invalid input argument count\n"),
        (&["-f", "nosuch", m], "Exception: lookup function nosuch failed\n"),
        (&["-f", "add", m, "1", "x1"], "Exception: invalid input argument 1: x1\n"),
    ] {
        let o = iwasm(args);
        assert_eq!((o.status.code(), stdout(&o).as_str()), (Some(1), message), "{args:?}");
    }
}

#[test]
fn args_env_and_dirs_reach_the_guest() {
    let m = file(
        "echo.wat",
        &format!(
            r#"(module {WASI}
            (func (export "_start")
              (drop (call $args_sizes (i32.const 0) (i32.const 4)))
              (drop (call $args_get (i32.const 1024) (i32.const 4096)))
              (call $out (i32.const 4096) (i32.load (i32.const 4)))
              (drop (call $env_sizes (i32.const 8) (i32.const 12)))
              (drop (call $env_get (i32.const 1024) (i32.const 4096)))
              (call $out (i32.const 4096) (i32.load (i32.const 12)))
              (drop (call $pname (i32.const 3) (i32.const 8192) (i32.const 64)))
              (call $out (i32.const 8192) (i32.const 5))))"#
        ),
    );
    let m = m.to_str().unwrap();
    let dir = std::env::temp_dir();
    let map = format!("/data::{}", dir.display());
    let o = iwasm(&["--env", "A=1", "--env=B=2", &format!("--map-dir={map}"), m, "x", "--not-an-option"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), format!("{m}\0x\0--not-an-option\0A=1\0B=2\0/data"));
    // `--dir` gives the directory under its own name (five bytes here).
    let o = iwasm(&["--dir", "/tmp/", m]);
    assert!(stdout(&o).ends_with("\0/tmp/"), "{}", stdout(&o));
}

#[test]
fn native_libs_provide_imports() {
    // A library that cannot be loaded is skipped with WAMR's warning.
    let o = iwasm(&["--native-lib=/no/such/lib.so", "/no/such.wasm"]);
    assert_eq!(o.status.code(), Some(255));
    assert!(stderr(&o).contains("warning: failed to load native library /no/such/lib.so"), "{}", stderr(&o));
    let nine: Vec<String> = (0..9).map(|i| format!("--native-lib=l{i}.so")).collect();
    let mut args: Vec<&str> = nine.iter().map(String::as_str).collect();
    args.push("x.wasm");
    let o = iwasm(&args);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("Only allow max native lib number 8"), "{}", stderr(&o));

    // A real one, built here as WAMR's samples/native-lib builds its own.
    let include = concat!(env!("CARGO_MANIFEST_DIR"), "/../include");
    let src = file(
        "natives.c",
        r#"#include "wasm_export.h"
        #include <stdio.h>
        static int add(wasm_exec_env_t env, int a, int b) { return a + b; }
        static void greet(wasm_exec_env_t env, const char *who) { printf("hello %s\n", who); fflush(stdout); }
        static NativeSymbol syms[] = { { "add", add, "(ii)i", NULL }, { "greet", greet, "($)", NULL } };
        static int inited;
        int init_native_lib(void) { inited = 1; return 0; }
        uint32_t get_native_lib(char **name, NativeSymbol **s) { *name = "env"; *s = syms; return inited ? 2 : 0; }"#,
    );
    let lib = src.with_extension("so");
    // tests/run-all.sh installs gcc, so a library that does not build is
    // this test failing, never a reason to skip its half.
    let built = Command::new("cc")
        .args([
            "-shared",
            "-fPIC",
            "-Wall",
            "-Werror",
            "-I",
            include,
            "-o",
            lib.to_str().unwrap(),
            src.to_str().unwrap(),
        ])
        .output()
        .expect("run cc (tests/run-all.sh installs gcc)");
    assert!(built.status.success(), "natives.c did not build:\n{}", String::from_utf8_lossy(&built.stderr));
    let m = file(
        "usenative.wat",
        r#"(module (import "env" "add" (func $add (param i32 i32) (result i32)))
            (import "env" "greet" (func $greet (param i32)))
            (memory (export "memory") 1) (data (i32.const 64) "world\00")
            (func (export "sum") (param i32 i32) (result i32) (call $add (local.get 0) (local.get 1)))
            (func (export "hi") (call $greet (i32.const 64))))"#,
    );
    let native = format!("--native-lib={}", lib.display());
    let o = iwasm(&[&native, "-f", "sum", m.to_str().unwrap(), "40", "2"]);
    assert_eq!((o.status.code(), stdout(&o).as_str()), (Some(0), "0x2a:i32\n"), "{}", stderr(&o));
    let o = iwasm(&[&native, "-f", "hi", m.to_str().unwrap()]);
    assert_eq!((o.status.code(), stdout(&o).as_str()), (Some(0), "hello world\n\n"), "{}", stderr(&o));
}

#[test]
fn module_path_finds_sub_modules() {
    let dir = std::env::temp_dir().join(format!("iwasm-cli-{}-mm", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let lib = wat::parse_str(r#"(module (func (export "seven") (result i32) (i32.const 7)))"#).unwrap();
    std::fs::write(dir.join("mylib.wasm"), lib).unwrap();
    let m = file(
        "main.wat",
        r#"(module (import "mylib" "seven" (func $s (result i32)))
            (func (export "get") (result i32) (call $s)))"#,
    );
    let path = format!("--module-path={}", dir.display());
    let o = iwasm(&[&path, "-f", "get", m.to_str().unwrap()]);
    assert_eq!((o.status.code(), stdout(&o).as_str()), (Some(0), "0x7:i32\n"), "{}", stderr(&o));
    // Without the path the import stays unlinked and traps when called.
    let o = iwasm(&["-f", "get", m.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(stdout(&o), "Exception: failed to call unlinked import function (mylib, seven)\n");
}

#[test]
fn a_trap_prints_the_named_call_stack_on_stderr() {
    let m = file(
        "stack.wat",
        r#"(module
            (func $inner (unreachable))
            (func $outer (call $inner))
            (func (export "_start") (call $outer)))"#,
    );
    let o = iwasm(&[m.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    // stdout is WAMR's, unchanged.
    assert_eq!(stdout(&o), "Exception: unreachable\n");
    let err = stderr(&o);
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 5, "{lines:?}");
    assert_eq!((lines[0], lines[4]), ("", ""));
    assert!(lines[1].starts_with("#00: 0x") && lines[1].ends_with(" - inner"), "{lines:?}");
    assert!(lines[2].starts_with("#01: 0x") && lines[2].ends_with(" - outer"), "{lines:?}");
    // The export has no name in the name section: WAMR prints its index.
    assert!(lines[3].starts_with("#02: 0x") && lines[3].ends_with(" - $f2"), "{lines:?}");
}

#[test]
fn compile_writes_a_file_that_runs_without_compiling() {
    let m = file(
        "compiled.wat",
        &format!(
            r#"(module {WASI}
            (data (i32.const 100) "compiled\n")
            (func (export "_start") (call $out (i32.const 100) (i32.const 9)))
            (func (export "add") (param i32 i32) (result i32) (i32.add (local.get 0) (local.get 1))))"#
        ),
    );
    let out = m.with_extension("cwasm");
    let o = iwasm(&["compile", m.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let bytes = std::fs::read(&out).unwrap();
    assert!(bytes.starts_with(b"\0cwasm\r\n"));
    let out = out.to_str().unwrap();
    let o = iwasm(&[out]);
    assert_eq!((o.status.code(), stdout(&o).as_str()), (Some(0), "compiled\n"), "{}", stderr(&o));
    let o = iwasm(&["-f", "add", out, "40", "2"]);
    assert_eq!(stdout(&o), "0x2a:i32\n");

    // A damaged file is refused with the reason, not run.
    let mut damaged = bytes.clone();
    let middle = damaged.len() / 2;
    damaged[middle] ^= 1;
    let bad = file("damaged.cwasm", "");
    std::fs::write(&bad, damaged).unwrap();
    let o = iwasm(&[bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(255));
    assert!(stdout(&o).starts_with("WASM module load failed: "), "{}", stdout(&o));
    assert!(stdout(&o).contains("checksum"), "{}", stdout(&o));

    let o = iwasm(&["compile", "/no/such.wasm", "-o", out]);
    assert_eq!(o.status.code(), Some(255));
    assert!(stderr(&o).contains("/no/such.wasm"), "{}", stderr(&o));
}

#[test]
fn timeout_terminates_the_program_as_wamr_does() {
    let m = file("forever.wat", r#"(module (func (export "_start") (loop br 0)))"#);
    let start = std::time::Instant::now();
    let o = iwasm(&["--timeout=200", m.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(stdout(&o), "Exception: terminated by user\n");
    assert!(start.elapsed() < std::time::Duration::from_secs(10));
    assert!(start.elapsed() >= std::time::Duration::from_millis(200));
}

#[test]
fn max_threads_limits_wasi_thread_spawn() {
    // The first spawned thread waits forever, so a second spawn needs room
    // for two: the program exits 7 when it is refused (-EAGAIN), 0 when not.
    let m = file(
        "two_threads.wat",
        r#"(module
            (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
            (import "wasi" "thread-spawn" (func $spawn (param i32) (result i32)))
            (import "env" "memory" (memory 1 1 shared))
            (func (export "wasi_thread_start") (param i32 i32)
                (drop (memory.atomic.wait32 (i32.const 0) (i32.const 0) (i64.const -1))))
            (func (export "_start")
                (drop (call $spawn (i32.const 0)))
                (call $exit (select (i32.const 7) (i32.const 0)
                    (i32.lt_s (call $spawn (i32.const 0)) (i32.const 0))))))"#,
    );
    let one = iwasm(&["--max-threads=1", m.to_str().unwrap()]);
    assert_eq!(one.status.code(), Some(7), "{}", stderr(&one));
    assert!(stderr(&one).contains("maximum number of threads exceeded"), "{}", stderr(&one));
    let two = iwasm(&["--max-threads=2", m.to_str().unwrap()]);
    assert_eq!(two.status.code(), Some(0), "{}", stderr(&two));
}

#[test]
fn enable_linux_perf_writes_the_perf_map() {
    let m = file("perf.wat", r#"(module (func $named_for_perf) (func (export "_start") (call $named_for_perf)))"#);
    let run = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_iwasm")).args(args).arg(&m).spawn().expect("run iwasm");
        let pid = out.id();
        let status = out.wait_with_output().unwrap().status;
        assert!(status.success());
        let path = format!("/tmp/perf-{pid}.map");
        let map = std::fs::read_to_string(&path).ok();
        let _ = std::fs::remove_file(&path);
        map
    };
    let map = run(&["--enable-linux-perf"]).expect("iwasm --enable-linux-perf wrote no perf map");
    let names: Vec<&str> = map.lines().filter_map(|l| l.splitn(3, ' ').nth(2)).collect();
    assert!(names.contains(&"named_for_perf"), "{map}");
    assert_eq!(run(&[]), None, "a perf map without the option");
}
