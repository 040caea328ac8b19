//! Helpers for the tests that build C programs against the library.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The repository root.
pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").canonicalize().expect("repository root")
}

/// The project's shared material, beside the repository.
pub fn shared() -> PathBuf {
    repo().join("../shared")
}

/// The directory of the `libiwasm.so` built with this test (the test
/// binary lives in its `deps/`).
pub fn lib_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("test executable");
    let dir = exe.parent().and_then(Path::parent).expect("target/<profile>").to_path_buf();
    assert!(dir.join("libiwasm.so").exists(), "{} has no libiwasm.so", dir.display());
    dir
}

/// A scratch directory for this test's files.
pub fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::create_dir_all(&dir).expect("scratch directory");
    dir
}

/// Runs a command, failing the test with its output if it cannot start.
pub fn run(cmd: &mut Command) -> Output {
    cmd.output().unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"))
}

/// Compiles C sources with the system `cc` into `exe`, with `include` on
/// the include path and, if `link` is set, linked against our library.
pub fn compile(sources: &[&Path], include: &Path, exe: &Path, link: bool, extra: &[&str]) {
    let mut cmd = Command::new("cc");
    cmd.args(["-std=c11", "-g", "-o"]).arg(exe).arg("-I").arg(include).args(sources).args(extra);
    if link {
        let lib = lib_dir();
        cmd.arg("-L").arg(&lib).arg("-liwasm").arg(format!("-Wl,-rpath,{}", lib.display()));
    }
    let out = run(&mut cmd);
    assert!(
        out.status.success(),
        "cc failed for {exe:?}:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The 284 functions of the API, from the shared list.
pub fn api_symbols() -> Vec<String> {
    let text = std::fs::read_to_string(shared().join("capi-symbols.txt")).expect("shared/capi-symbols.txt");
    text.lines().map(str::trim).filter(|l| !l.is_empty()).map(String::from).collect()
}

/// The 173 functions of `wasm_export.h`, from the shared list.
pub fn export_symbols() -> Vec<String> {
    let text = std::fs::read_to_string(shared().join("export-symbols.txt")).expect("shared/export-symbols.txt");
    text.lines().map(str::trim).filter(|l| !l.is_empty()).map(String::from).collect()
}

/// The 63 functions of WAMR's `gc_export.h`, from the shared list.
pub fn gc_export_symbols() -> Vec<String> {
    let text = std::fs::read_to_string(shared().join("gc-export-symbols.txt")).expect("shared/gc-export-symbols.txt");
    text.lines().map(str::trim).filter(|l| !l.is_empty()).map(String::from).collect()
}

/// The functions of `gc_export.h` not exported yet: none since the
/// struct and array objects came with the GC heap (issue 40). The list
/// stays for a function that waits for a later stage: a stub that
/// pretends would be worse than a link error.
pub const GC_PENDING_NEEDS_HEAP: [&str; 0] = [];

/// The functions the library exports outside the headers, as WAMR's
/// `libiwasm` does, for the clients that link them (`capi/README.md`,
/// "Functions outside the headers"; `capi/src/export/undeclared.rs`).
pub fn undeclared_symbols() -> Vec<String> {
    [
        "bh_log_set_verbose_level",
        "bh_log",
        "b_memcpy_s",
        "os_mmap",
        "os_munmap",
        "os_thread_create",
        "os_thread_join",
        "os_usleep",
        "os_time_get_boot_us",
        "os_thread_get_stack_boundary",
    ]
    .map(String::from)
    .to_vec()
}

/// A raw pointer as the typed (nullable reference) argument the exported
/// functions take for objects: the C types are zero-sized, so any pointer
/// is a valid reference to one.
pub fn hm<'a, T>(p: *mut T) -> Option<&'a mut T> {
    // SAFETY: see above; the functions check the pointer themselves.
    unsafe { p.as_mut() }
}

/// [`hm`] for `const` arguments.
pub fn hc<'a, T>(p: *const T) -> Option<&'a T> {
    // SAFETY: as for `m`.
    unsafe { p.as_ref() }
}

/// A declaration of the header: name and parameter types.
pub struct Decl {
    pub name: String,
    pub params: Vec<String>,
}

/// The `WASM_API_EXTERN` declarations of a header, macros and comments
/// left out.
pub fn declarations(header: &str) -> Vec<Decl> {
    declarations_marked(header, "WASM_API_EXTERN")
}

/// The declarations of a header that start with `marker`
/// (`WASM_RUNTIME_API_EXTERN` in `wasm_export.h`), macros and comments
/// left out; a variadic function's `...` is not a parameter.
pub fn declarations_marked(header: &str, marker: &str) -> Vec<Decl> {
    let mut code = String::new();
    let mut continued = false;
    for line in header.lines() {
        let t = line.trim_start();
        let directive = continued || t.starts_with('#');
        continued = directive && t.ends_with('\\');
        if !directive && !t.starts_with("//") {
            code.push_str(line);
            code.push('\n');
        }
    }
    let mut decls = Vec::new();
    for piece in code.split(marker).skip(1) {
        let decl = piece.split(';').next().expect("a declaration ends with ;");
        let open = decl.find('(').expect("a function declaration");
        let name = decl[..open].split(|c: char| !c.is_alphanumeric() && c != '_').rfind(|s| !s.is_empty());
        let inner = &decl[open + 1..decl.rfind(')').expect("closing parenthesis")];
        let mut params = Vec::new();
        let (mut depth, mut current) = (0, String::new());
        for c in inner.chars() {
            match c {
                '(' => depth += 1,
                ')' => depth -= 1,
                ',' if depth == 0 => {
                    params.push(std::mem::take(&mut current));
                    continue;
                }
                _ => {}
            }
            current.push(c);
        }
        if !current.trim().is_empty() && current.trim() != "void" && current.trim() != "..." {
            params.push(current);
        }
        let params = params.into_iter().map(|p| p.split_whitespace().collect::<Vec<_>>().join(" ")).collect();
        decls.push(Decl { name: name.expect("a function name").to_string(), params });
    }
    decls
}

/// Writes a generated sweep program `name.c` (against our headers) and
/// builds it, linked with the library.
pub fn sweep_build(name: &str, c: &str) -> PathBuf {
    let dir = scratch(name);
    let source = dir.join(format!("{name}.c"));
    std::fs::write(&source, c).expect("write the sweep");
    let exe = dir.join(name);
    compile(&[&source], &repo().join("include"), &exe, true, &["-Wno-deprecated-declarations"]);
    exe
}

/// Fails unless a sweep program exited normally after printing "swept".
pub fn sweep_check(out: Output, how: &str) {
    assert!(
        out.status.success() && String::from_utf8_lossy(&out.stdout).contains("swept"),
        "the sweep failed {how} ({}):\n{}{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Runs a sweep program plainly, then under valgrind (unless `VALGRIND=0`,
/// announced), where any invalid access fails it. Leaks are not the point
/// (a sweep leaves what its calls made to the process). Nothing is
/// suppressed.
pub fn sweep_run(exe: &Path, what: &str) {
    sweep_check(run(&mut Command::new(exe)), "plainly");
    if std::env::var("VALGRIND").is_ok_and(|v| v == "0") {
        eprintln!("{what}: the valgrind run is SKIPPED (VALGRIND=0)");
        return;
    }
    let mut vg = Command::new("valgrind");
    vg.args(["-q", "--smc-check=all-non-file", "--leak-check=no", "--error-exitcode=1"]).arg(exe);
    let out = vg.output().unwrap_or_else(|e| panic!("cannot run valgrind (install it, or set VALGRIND=0): {e}"));
    sweep_check(out, "under valgrind");
}

/// The body of a foreign sweep's `main`: `argv` set to `argv`, the
/// runtime and the module `wat` made, `make(dead); kill(dead);
/// make(live);` (the program's prelude defines them), then three passes
/// calling every function of `decls` twice (scalars 0, then 1) with
/// `arg(index, param, scalar)` for each argument, each call written by
/// `call(name, args)` and followed by `done()`; the caller appends its
/// checks of the live objects.
pub fn foreign_sweep_main(
    argv: &str,
    decls: &[Decl],
    arg: impl Fn(usize, &str, u32) -> String,
    call: impl Fn(&str, &[String]) -> String,
) -> String {
    use std::fmt::Write;
    let mut c = format!(
        "int main(void) {{\n  int pass;\n  uint32_t argv[2] = {{ {argv} }};\n  if (!wasm_runtime_init()) return 6;\n  \
         if (!cranewasm_wat2wasm(wat, sizeof wat - 1, &bin)) return 7;\n  make(dead);\n  kill(dead);\n  make(live);\n"
    );
    c.push_str("  for (pass = 0; pass < 3; pass++) {\n");
    for scalar in [0, 1] {
        for d in decls {
            let args: Vec<String> = d.params.iter().enumerate().map(|(i, p)| arg(i, p, scalar)).collect();
            writeln!(c, "    {}; done();", call(&d.name, &args)).unwrap();
        }
    }
    c.push_str("  }\n");
    c
}
