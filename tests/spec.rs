//! The WebAssembly spec test suite, run from `../shared/spec`.
//!
//! Every directive of every `.wast` file counts once: it passes, fails, or
//! is skipped because it is listed in [`SKIPS`] or, a whole file of the 3.0
//! suite, in [`skips::FILES`], with a reason. Each file prints one line;
//! each folder then prints its totals, and the run ends with `spec: N
//! passed, N failed, N skipped`. It fails if anything failed, if the counts of a file do not
//! add up to its number of directives, or (in a full run) if a folder holds
//! another number of files than [`FOLDERS`] says or there are fewer than
//! [`MIN_DIRECTIVES`] directives: a suite that shrank is not a suite that
//! passed.
//!
//! `cargo test --release --test spec -- FILTER...` runs the files whose
//! path contains one of the filters; `-v` prints each failure.
//! `CRANEWASM_SPEC_CHILDREN=1` runs each file in a child process of its
//! own and adds up their counts: under qemu 7.2 (`tests/aarch64.sh`) every
//! guest mapping costs the emulator page descriptors it never frees, about
//! 48 MiB per guarded memory, which one process for the whole suite would
//! not survive.

use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use cranewasm::*;
use wast::core::{AbstractHeapType, HeapType, NanPattern, V128Pattern, WastArgCore, WastRetCore};
use wast::parser::{self, ParseBuffer};
use wast::{QuoteWat, Wast, WastArg, WastDirective, WastExecute, WastInvoke, WastRet};

#[path = "support/legacy_try.rs"]
mod legacy_try;
#[path = "support/self_exec.rs"]
mod self_exec;
/// The files of the 3.0 suite that do not pass yet, by feature.
#[path = "spec/skips.rs"]
mod skips;

/// Directives that cannot pass yet: (part of the file path, line or 0 for
/// the whole file, reason). Keep this list short and shrinking.
const SKIPS: &[(&str, u32, &str)] = &[
    ("core/bulk.wast", 221, BULK_221),
    // The same directive in the 3.0 suite's copy of the file.
    ("wasm-3.0/bulk.wast", 221, BULK_221),
];

const BULK_221: &str =
    "expects \"uninitialized element 2\": the reference interpreter names the element here (only here; 1,778 \
     other assertions expect \"uninitialized element\"). Our trap comes from a Cranelift trap code, which carries \
     no operand, so the message cannot name it; WAMR's has no index either. It still traps, as \"uninitialized \
     element\".";

/// The folders of `../shared/spec` that run, and how many `.wast` files
/// each holds.
const FOLDERS: &[(&str, usize)] = &[
    ("core", 147),
    ("proposals/extended-const", 3),
    ("proposals/multi-memory", 48),
    ("proposals/tail-call", 2),
    ("proposals/relaxed-simd", 7),
    ("proposals/threads", 4),
    // WebAssembly 3.0 (see its README): the core, the legacy exception
    // instructions, the custom annotations, and two later proposals.
    ("wasm-3.0", 257),
    ("wasm-3.0/legacy", 4),
    ("wasm-3.0/custom", 3),
    ("wasm-3.0/proposals/custom-page-sizes", 5),
    ("wasm-3.0/proposals/wide-arithmetic", 1),
];

/// Directives in all those files together (56,991 before the 3.0 suite,
/// 122,523 with it, 122,615 once GC's heap let every 3.0 file run).
const MIN_DIRECTIVES: usize = 122_615;

fn spec_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/spec")
}

fn skip_reason(file: &str, line: u32) -> Option<&'static str> {
    SKIPS.iter().find(|(f, l, _)| file.contains(f) && (*l == 0 || *l == line)).map(|(_, _, r)| *r)
}

/// Why a whole file of the 3.0 suite is skipped, if it is: its path must
/// be named exactly, so that a line cannot cover more files than it says.
fn file_skip_reason(file: &str) -> Option<&'static str> {
    skips::FILES.iter().find(|(f, _)| *f == file).map(|(_, r)| *r)
}

#[derive(Default)]
struct Counts {
    passed: usize,
    failed: usize,
    skipped: usize,
}

impl Counts {
    fn add(&mut self, other: &Counts) {
        self.passed += other.passed;
        self.failed += other.failed;
        self.skipped += other.skipped;
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with("--")).collect();
    let verbose = args.iter().any(|a| a == "-v");
    let filters: Vec<&String> = args.iter().filter(|a| *a != "-v").collect();
    let children = std::env::var_os("CRANEWASM_SPEC_CHILDREN").is_some_and(|v| v == "1");

    let root = spec_root();
    let mut files: Vec<(&str, PathBuf)> = Vec::new();
    let mut mismatched = Vec::new();
    for (dir, expected) in FOLDERS {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(root.join(dir))
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", root.join(dir).display()))
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "wast"))
            .collect();
        entries.sort();
        if entries.len() != *expected {
            mismatched.push(format!("{dir}: {} .wast files, expected {expected}", entries.len()));
        }
        files.extend(entries.into_iter().map(|p| (*dir, p)));
    }
    // A skip line that names no file of the suite is stale.
    for (file, _) in skips::FILES {
        if !files.iter().any(|(_, p)| p.strip_prefix(&root).is_ok_and(|n| n.display().to_string() == *file)) {
            mismatched.push(format!("tests/spec/skips.rs names {file}, which is not in the suite"));
        }
    }

    let mut total = Counts::default();
    let mut per_folder: Vec<(&str, Counts)> = Vec::new();
    let mut all_directives = 0;
    for (dir, path) in files {
        let name = path.strip_prefix(&root).unwrap().display().to_string();
        if !filters.is_empty() && !filters.iter().any(|f| name.contains(f.as_str())) {
            continue;
        }
        let (counts, directives, failures, skips) = match children {
            true => run_child(&name, verbose),
            false => run_file(&path, &name),
        };
        let status = match counts {
            Counts { failed: 1.., .. } => "FAIL",
            Counts { passed: 0, skipped: 1.., .. } => "skip",
            _ => "ok  ",
        };
        println!("{status} {name}: {} passed, {} failed, {} skipped", counts.passed, counts.failed, counts.skipped);
        // Every skip is shown with its reason, every run.
        for s in &skips {
            println!("       {s}");
        }
        if verbose || counts.failed > 0 {
            for f in failures.iter().take(if verbose { usize::MAX } else { 5 }) {
                println!("       {f}");
            }
        }
        if counts.passed + counts.failed + counts.skipped != directives {
            mismatched.push(format!(
                "{name}: {directives} directives, counted {}",
                counts.passed + counts.failed + counts.skipped
            ));
        }
        total.add(&counts);
        if per_folder.last().is_none_or(|(d, _)| *d != dir) {
            per_folder.push((dir, Counts::default()));
        }
        per_folder.last_mut().unwrap().1.add(&counts);
        all_directives += directives;
    }
    for (dir, c) in &per_folder {
        println!("folder {dir}: {} passed, {} failed, {} skipped", c.passed, c.failed, c.skipped);
    }
    if filters.is_empty() && all_directives < MIN_DIRECTIVES {
        mismatched.push(format!("{all_directives} directives in all, expected at least {MIN_DIRECTIVES}"));
    }
    for m in &mismatched {
        println!("count mismatch: {m}");
    }
    println!(
        "spec: {} passed, {} failed, {} skipped ({all_directives} directives)",
        total.passed, total.failed, total.skipped
    );
    if total.failed > 0 || !mismatched.is_empty() {
        std::process::exit(1);
    }
}

/// Runs file `name` in a child process (see the top of the file): its
/// counts and directives as the child reported them, its output as the
/// failures to show.
fn run_child(name: &str, verbose: bool) -> (Counts, usize, Vec<String>, Vec<String>) {
    let mut cmd = self_exec::self_command();
    cmd.env_remove("CRANEWASM_SPEC_CHILDREN").arg(name);
    if verbose {
        cmd.arg("-v");
    }
    let out = cmd.output().unwrap_or_else(|e| panic!("cannot run the child for {name}: {e}"));
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    // "spec: P passed, F failed, S skipped (D directives)"
    let numbers: Option<Vec<usize>> = stdout.lines().find_map(|l| l.strip_prefix("spec: ")).map(|l| {
        l.split(|c: char| !c.is_ascii_digit()).filter(|w| !w.is_empty()).map(|w| w.parse().unwrap()).collect()
    });
    let lines = |text: &str| text.lines().map(str::to_string).collect::<Vec<_>>();
    match numbers.as_deref() {
        Some(&[passed, failed, skipped, directives]) if out.status.success() || failed > 0 => {
            let counts = Counts { passed, failed, skipped };
            // Its skip reasons, or its failures.
            let shown: Vec<String> =
                stdout.lines().filter(|l| l.starts_with("       ")).map(|l| l.trim().to_string()).collect();
            match failed {
                0 => (counts, directives, Vec::new(), shown),
                _ => (counts, directives, shown, Vec::new()),
            }
        }
        // A crash or no report: the file's directives all count as failed.
        _ => {
            let mut why = lines(&stdout);
            why.extend(lines(&String::from_utf8_lossy(&out.stderr)));
            why.push(format!("the child for {name} ended with {}", out.status));
            (Counts { passed: 0, failed: 1, skipped: 0 }, 1, why, Vec::new())
        }
    }
}

/// The core suite is WebAssembly 2.0 exactly (some of its tests check that
/// later proposals are rejected); each proposal's folder runs with that
/// proposal on. The threads proposal's files predate reference types (they
/// expect a second table to be invalid), so that folder runs without them.
fn config_for(name: &str) -> Config {
    if name.starts_with("wasm-3.0/") {
        return config_for_3_0(name);
    }
    let mut config = Config::new();
    config
        // 3.0's; 2.0 files check that these instructions are malformed.
        .wasm_function_references(false)
        .wasm_exceptions(false)
        .wasm_legacy_exceptions(false)
        .wasm_tail_call(name.contains("tail-call"))
        .wasm_extended_const(name.contains("extended-const"))
        .wasm_multi_memory(name.contains("multi-memory"))
        .wasm_relaxed_simd(name.contains("relaxed-simd"))
        .wasm_threads(name.contains("threads"))
        .wasm_reference_types(!name.contains("threads"))
        // 3.0's; 2.0 files check that 64-bit limits are malformed.
        .wasm_memory64(false);
    config
}

/// The 3.0 suite runs with all of 3.0 on; each proposal folder with its
/// proposal on as well.
fn config_for_3_0(name: &str) -> Config {
    let mut config = Config::new();
    // Threads are not part of 3.0.
    config
        .wasm_threads(false)
        .wasm_wide_arithmetic(name.contains("/wide-arithmetic/"))
        .wasm_custom_page_sizes(name.contains("/custom-page-sizes/"));
    config
}

/// Runs one file: its counts, its number of directives, failure notes and
/// skip notes.
fn run_file(path: &Path, name: &str) -> (Counts, usize, Vec<String>, Vec<String>) {
    let mut text = std::fs::read_to_string(path).unwrap();
    if name.contains("/legacy/") {
        text = legacy_try::unfold(&text);
    }
    let mut lexer = wast::lexer::Lexer::new(&text);
    // names.wast exports names with bidirectional-override characters.
    lexer.allow_confusing_unicode(true);
    // A file that does not even parse counts as one directive: failed, or
    // skipped when it is listed.
    let unparsed = |what: String| match file_skip_reason(name) {
        Some(reason) => (
            Counts { skipped: 1, ..Counts::default() },
            1,
            vec![],
            vec![format!("skipped file (it does not parse: {what}): {reason}")],
        ),
        None => (Counts { failed: 1, ..Counts::default() }, 1, vec![what], vec![]),
    };
    let buf = match ParseBuffer::new_with_lexer(lexer) {
        Ok(b) => b,
        Err(e) => return unparsed(format!("lexing: {e}")),
    };
    let wast = match parser::parse::<Wast>(&buf) {
        Ok(w) => w,
        Err(e) => return unparsed(format!("parsing: {e}")),
    };
    let directives = wast.directives.len();
    let mut counts = Counts::default();
    let mut failures = Vec::new();
    let mut skips = Vec::new();
    if let Some(reason) = file_skip_reason(name) {
        counts.skipped = directives;
        skips.push(format!("skipped file: {reason}"));
        return (counts, directives, failures, skips);
    }
    let mut runner = Runner::new(&config_for(name));
    for directive in wast.directives {
        let (line, _) = directive.span().linecol_in(&text);
        let line = line as u32 + 1;
        if let Some(reason) = skip_reason(name, line) {
            counts.skipped += 1;
            skips.push(format!("skipped line {line}: {reason}"));
            continue;
        }
        let result = catch_unwind(AssertUnwindSafe(|| runner.run(directive)));
        match result {
            Ok(Ok(())) => counts.passed += 1,
            Ok(Err(e)) => {
                counts.failed += 1;
                failures.push(format!("line {line}: {e}"));
            }
            Err(p) => {
                counts.failed += 1;
                let msg =
                    p.downcast_ref::<String>().cloned().or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()));
                failures.push(format!("line {line}: panic: {}", msg.unwrap_or_default()));
            }
        }
    }
    (counts, directives, failures, skips)
}

struct Runner {
    engine: Engine,
    store: Store<()>,
    linker: Linker<()>,
    current: Option<Instance>,
    named: HashMap<String, Instance>,
    definitions: HashMap<String, Compiled>,
    /// Each instance's exported functions by function index, to tell which
    /// function a `(ref.func N)` result names.
    func_exports: HashMap<Instance, Vec<(u32, String)>>,
}

/// A compiled module and its exported functions by function index.
#[derive(Clone)]
struct Compiled {
    module: Module,
    func_exports: Vec<(u32, String)>,
}

type Outcome = Result<(), String>;

impl Runner {
    fn new(config: &Config) -> Runner {
        let engine = Engine::new(config).unwrap();
        let mut store = Store::new(&engine, ());
        let mut linker = Linker::new(&engine);
        // A wast script may register a second module under a name.
        linker.allow_shadowing(true);
        define_spectest(&mut store, &mut linker);
        Runner {
            engine,
            store,
            linker,
            current: None,
            named: HashMap::new(),
            definitions: HashMap::new(),
            func_exports: HashMap::new(),
        }
    }

    fn compile(&self, module: &mut QuoteWat) -> Result<Compiled, String> {
        let bytes = module.encode().map_err(|e| format!("encoding: {e}"))?;
        let module = Module::new(&self.engine, &bytes).map_err(|e| e.to_string())?;
        Ok(Compiled { module, func_exports: func_exports(&bytes) })
    }

    fn instantiate(&mut self, compiled: &Compiled, name: Option<String>) -> Result<Instance, Error> {
        let instance = self.linker.instantiate(&mut self.store, &compiled.module)?;
        self.func_exports.insert(instance, compiled.func_exports.clone());
        self.current = Some(instance);
        if let Some(name) = name {
            self.named.insert(name, instance);
        }
        Ok(instance)
    }

    fn instance(&self, id: Option<wast::token::Id>) -> Result<Instance, String> {
        match id {
            Some(id) => self.named.get(id.name()).copied().ok_or_else(|| format!("no instance {}", id.name())),
            None => self.current.ok_or_else(|| "no current instance".to_string()),
        }
    }

    fn run(&mut self, directive: WastDirective) -> Outcome {
        match directive {
            WastDirective::Module(mut m) => {
                let name = m.name().map(|n| n.name().to_string());
                let module = self.compile(&mut m)?;
                self.instantiate(&module, name).map(|_| ()).map_err(|e| e.to_string())
            }
            WastDirective::ModuleDefinition(mut m) => {
                let name = m.name().map(|n| n.name().to_string());
                let module = self.compile(&mut m)?;
                if let Some(name) = name {
                    self.definitions.insert(name, module);
                }
                Ok(())
            }
            WastDirective::ModuleInstance { instance, module, .. } => {
                let def = module.ok_or("module instance without a module")?;
                let m = self.definitions.get(def.name()).cloned().ok_or("unknown module definition")?;
                self.instantiate(&m, instance.map(|i| i.name().to_string())).map(|_| ()).map_err(|e| e.to_string())
            }
            WastDirective::Register { name, module, .. } => {
                let instance = self.instance(module)?;
                self.linker.instance(&self.store, name, instance).map_err(|e| e.to_string())?;
                Ok(())
            }
            WastDirective::Invoke(invoke) => self.invoke(&invoke).map(|_| ()).map_err(|e| e.to_string()),
            WastDirective::AssertReturn { exec, results, .. } => {
                // The instance whose functions a `(ref.func N)` names.
                let source = match &exec {
                    WastExecute::Invoke(invoke) => self.instance(invoke.module).ok(),
                    WastExecute::Get { module, .. } => self.instance(*module).ok(),
                    WastExecute::Wat(_) => None,
                };
                let actual = self.execute(exec).map_err(|e| format!("unexpected error: {e}"))?;
                if actual.len() != results.len() {
                    return Err(format!("expected {} results, got {}", results.len(), actual.len()));
                }
                for (i, (a, e)) in actual.iter().zip(&results).enumerate() {
                    let WastRet::Core(e) = e else { return Err("component value".into()) };
                    self.matches(source, a, e)
                        .map_err(|why| format!("result {i}: expected {e:?}, got {a:?}: {why}"))?;
                }
                Ok(())
            }
            WastDirective::AssertTrap { exec, message, .. } => match self.execute(exec) {
                Ok(v) => Err(format!("expected trap \"{message}\", got {v:?}")),
                Err(Error::Trap(t)) if trap_matches(t.message(), message) => Ok(()),
                Err(e) => Err(format!("expected trap \"{message}\", got {e}")),
            },
            WastDirective::AssertExhaustion { call, message, .. } => match self.invoke(&call) {
                Ok(v) => Err(format!("expected exhaustion, got {v:?}")),
                Err(Error::Trap(t)) if t.code() == Some(Trap::StackOverflow) && trap_matches(t.message(), message) => {
                    Ok(())
                }
                Err(e) => Err(format!("expected \"{message}\", got {e}")),
            },
            // An invalid module is well-formed text that fails validation:
            // text that does not even encode is a broken test, not a pass.
            WastDirective::AssertInvalid { mut module, message, .. } => match module.encode() {
                Err(e) => Err(format!(
                    "expected a module that fails validation (\"{message}\"), but the text does not encode: {e}"
                )),
                Ok(bytes) => self.expect_module_error(&bytes, message),
            },
            WastDirective::AssertMalformed { mut module, message, .. } => match module.encode() {
                // The text parser already rejects it: malformed text.
                Err(_) => Ok(()),
                Ok(bytes) => self.expect_module_error(&bytes, message),
            },
            // A malformed or invalid custom annotation or section (the
            // custom/ folder) is not an error of the module: the spec makes
            // errors in custom sections non-fatal, for engines to ignore
            // what they do not use. So either the text parser refuses the
            // annotation, or the module the text encodes to must load.
            WastDirective::AssertMalformedCustom { mut module, message, .. }
            | WastDirective::AssertInvalidCustom { mut module, message, .. } => match module.encode() {
                Err(_) => Ok(()),
                Ok(bytes) => match Module::new(&self.engine, &bytes) {
                    Ok(_) => Ok(()),
                    Err(e) => Err(format!("a bad custom section (\"{message}\") must not fail the module, got {e}")),
                },
            },
            WastDirective::AssertUnlinkable { module, message, .. } => {
                let module = self.compile(&mut QuoteWat::Wat(module))?.module;
                match self.linker.instantiate(&mut self.store, &module) {
                    Ok(_) => Err(format!("expected link error \"{message}\"")),
                    Err(Error::Link(_)) => Ok(()),
                    Err(e) => Err(format!("expected link error \"{message}\", got {e}")),
                }
            }
            WastDirective::AssertException { exec, .. } => match self.execute(exec) {
                Ok(v) => Err(format!("expected an exception, got {v:?}")),
                Err(Error::Exception(_)) => Ok(()),
                Err(e) => Err(format!("expected an exception, got {e}")),
            },
            other => Err(format!("unsupported directive {other:?}")),
        }
    }

    fn expect_module_error(&self, bytes: &[u8], message: &str) -> Outcome {
        match Module::new(&self.engine, bytes) {
            Ok(_) => Err(format!("expected a module error \"{message}\", but it compiled")),
            Err(Error::Invalid { .. }) => Ok(()),
            Err(e) => Err(format!("expected a module error \"{message}\", got {e}")),
        }
    }

    fn execute(&mut self, exec: WastExecute) -> Result<Vec<Val>, Error> {
        match exec {
            WastExecute::Invoke(invoke) => self.invoke(&invoke),
            WastExecute::Wat(wat) => {
                let module = self.compile(&mut QuoteWat::Wat(wat)).map_err(Error::Usage)?;
                self.instantiate(&module, None).map(|_| Vec::new())
            }
            WastExecute::Get { module, global, .. } => {
                let instance = self.instance(module).map_err(Error::Usage)?;
                let g = instance
                    .get_global(&self.store, global)
                    .ok_or_else(|| Error::Usage(format!("no global {global}")))?;
                Ok(vec![g.get(&self.store)])
            }
        }
    }

    fn invoke(&mut self, invoke: &WastInvoke) -> Result<Vec<Val>, Error> {
        let instance = self.instance(invoke.module).map_err(Error::Usage)?;
        let func = instance
            .get_func(&self.store, invoke.name)
            .ok_or_else(|| Error::Usage(format!("no function {}", invoke.name)))?;
        let args = invoke.args.iter().map(|a| self.arg(a)).collect::<Result<Vec<_>, _>>()?;
        let ty = func.ty(&self.store);
        let mut results: Vec<Val> = ty.results().iter().map(|t| Val::default_for(*t)).collect();
        func.call(&mut self.store, &args, &mut results)?;
        Ok(results)
    }

    fn arg(&mut self, arg: &WastArg) -> Result<Val, Error> {
        let WastArg::Core(arg) = arg else { return Err(Error::Usage("component argument".into())) };
        Ok(match arg {
            WastArgCore::I32(v) => Val::I32(*v),
            WastArgCore::I64(v) => Val::I64(*v),
            WastArgCore::F32(v) => Val::F32(v.bits),
            WastArgCore::F64(v) => Val::F64(v.bits),
            WastArgCore::V128(v) => Val::V128(V128(u128::from_le_bytes(v.to_le_bytes()))),
            WastArgCore::RefNull(wast::core::HeapType::Abstract { ty: wast::core::AbstractHeapType::Func, .. }) => {
                Val::FuncRef(None)
            }
            WastArgCore::RefNull(wast::core::HeapType::Abstract {
                ty: wast::core::AbstractHeapType::Exn | wast::core::AbstractHeapType::NoExn,
                ..
            }) => Val::ExnRef(None),
            WastArgCore::RefNull(wast::core::HeapType::Abstract {
                ty: wast::core::AbstractHeapType::Extern | wast::core::AbstractHeapType::NoExtern,
                ..
            }) => Val::ExternRef(None),
            // The `any` hierarchy's nulls (and a concrete type's, which
            // the spec files use only for GC types).
            WastArgCore::RefNull(_) => Val::AnyRef(None),
            WastArgCore::RefExtern(n) => Val::ExternRef(Some(ExternRef::new(&mut self.store, *n))),
            // Host data in the `any` hierarchy: an externref made internal.
            WastArgCore::RefHost(n) => Val::AnyRef(Some(AnyRef::convert_extern(ExternRef::new(&mut self.store, *n)))),
        })
    }

    /// Whether `actual`, returned by a function of `source`, is what
    /// `expected` describes; if not, why.
    fn matches(&self, source: Option<Instance>, actual: &Val, expected: &WastRetCore) -> Outcome {
        let check = |ok: bool, why: &str| if ok { Ok(()) } else { Err(why.to_string()) };
        match (actual, expected) {
            // Relaxed operators may return any one of several results.
            (a, WastRetCore::Either(cases)) => {
                check(cases.iter().any(|e| self.matches(source, a, e).is_ok()), "none of the cases")
            }
            (Val::I32(a), WastRetCore::I32(e)) => check(a == e, "another value"),
            (Val::I64(a), WastRetCore::I64(e)) => check(a == e, "another value"),
            (Val::F32(a), WastRetCore::F32(e)) => check(f32_matches(*a, e), "another value"),
            (Val::F64(a), WastRetCore::F64(e)) => check(f64_matches(*a, e), "another value"),
            (Val::V128(a), WastRetCore::V128(e)) => check(v128_matches(a.0, e), "another value"),
            (Val::FuncRef(f), WastRetCore::RefNull(ty)) => {
                check(f.is_none(), "not null")?;
                check(null_type_is(ty, AbstractHeapType::Func), "a null of another type")
            }
            (Val::ExternRef(r), WastRetCore::RefNull(ty)) => {
                check(r.is_none(), "not null")?;
                check(null_type_is(ty, AbstractHeapType::Extern), "a null of another type")
            }
            (Val::ExnRef(r), WastRetCore::RefNull(ty)) => {
                check(r.is_none(), "not null")?;
                check(null_type_is(ty, AbstractHeapType::Exn), "a null of another type")
            }
            (Val::AnyRef(r), WastRetCore::RefNull(ty)) => {
                check(r.is_none(), "not null")?;
                check(null_type_is(ty, AbstractHeapType::Any), "a null of another type")
            }
            (
                Val::AnyRef(None),
                WastRetCore::RefI31
                | WastRetCore::RefEq
                | WastRetCore::RefAny
                | WastRetCore::RefStruct
                | WastRetCore::RefArray,
            ) => Err("null".into()),
            (Val::AnyRef(Some(a)), WastRetCore::RefStruct) => {
                check(a.as_object().is_some_and(|o| !o.is_array()), "not a struct")
            }
            (Val::AnyRef(Some(a)), WastRetCore::RefArray) => {
                check(a.as_object().is_some_and(|o| o.is_array()), "not an array")
            }
            (Val::AnyRef(Some(a)), WastRetCore::RefI31) => check(a.as_i31().is_some(), "not an i31"),
            (Val::AnyRef(Some(a)), WastRetCore::RefEq) => check(a.is_eq(), "not an eqref"),
            (Val::AnyRef(Some(_)), WastRetCore::RefAny) => Ok(()),
            (Val::AnyRef(r), WastRetCore::RefHost(n)) => match r {
                None => Err("null".into()),
                Some(a) => {
                    let data = ExternRef::convert_any(*a).data(&self.store).downcast_ref::<u32>().copied();
                    check(data == Some(*n), "another host value")
                }
            },
            (Val::FuncRef(None), WastRetCore::RefFunc(_)) => Err("null".into()),
            (Val::FuncRef(Some(_)), WastRetCore::RefFunc(None)) => Ok(()),
            (Val::FuncRef(Some(f)), WastRetCore::RefFunc(Some(index))) => self.is_function(source, *f, index),
            (Val::ExternRef(r), WastRetCore::RefExtern(e)) => match (r, e) {
                (None, _) => Err("null".into()),
                (Some(_), None) => Ok(()),
                (Some(r), Some(n)) => check(r.data(&self.store).downcast_ref::<u32>() == Some(n), "another host value"),
            },
            _ => Err("another type".into()),
        }
    }

    /// Whether `func` is function `index` of `source`. Only exported
    /// functions can be told apart from outside; a result naming another
    /// one fails rather than passing unchecked.
    fn is_function(&self, source: Option<Instance>, func: Func, index: &wast::token::Index) -> Outcome {
        let wast::token::Index::Num(n, _) = index else { return Err(format!("cannot resolve {index:?}")) };
        let instance = source.ok_or("no instance to resolve the function index in")?;
        let names = self.func_exports.get(&instance).map(Vec::as_slice).unwrap_or_default();
        let mut candidates = names.iter().filter(|(i, _)| i == n).peekable();
        if candidates.peek().is_none() {
            return Err(format!("function {n} is not exported, so it cannot be identified"));
        }
        let same = candidates.any(|(_, name)| instance.get_func(&self.store, name) == Some(func));
        if same {
            Ok(())
        } else {
            Err(format!("another function than {n}"))
        }
    }
}

/// A null reference of the type `ty` names (any null when it names none).
fn null_type_is(ty: &Option<wast::core::HeapType>, top: AbstractHeapType) -> bool {
    use AbstractHeapType as T;
    match ty {
        None => true,
        Some(HeapType::Abstract { ty, .. }) => match top {
            T::Func => matches!(ty, T::Func | T::NoFunc),
            T::Extern => matches!(ty, T::Extern | T::NoExtern),
            T::Exn => matches!(ty, T::Exn | T::NoExn),
            T::Any => matches!(ty, T::Any | T::Eq | T::I31 | T::Struct | T::Array | T::None),
            _ => false,
        },
        Some(_) => false,
    }
}

/// Exported functions of a module's bytes, by function index.
fn func_exports(bytes: &[u8]) -> Vec<(u32, String)> {
    let mut out = Vec::new();
    for payload in wasmparser::Parser::new(0).parse_all(bytes) {
        if let Ok(wasmparser::Payload::ExportSection(reader)) = payload {
            for export in reader.into_iter().flatten() {
                if export.kind == wasmparser::ExternalKind::Func {
                    out.push((export.index, export.name.to_string()));
                }
            }
        }
    }
    out
}

/// Our trap message must be the spec's, or start with it (and go on with
/// detail); containing it somewhere, or being a part of it, is not enough.
fn trap_matches(actual: &str, expected: &str) -> bool {
    actual.starts_with(expected)
}

fn f32_matches(bits: u32, e: &NanPattern<wast::token::F32>) -> bool {
    match e {
        NanPattern::CanonicalNan => bits & 0x7fff_ffff == 0x7fc0_0000,
        NanPattern::ArithmeticNan => bits & 0x7fc0_0000 == 0x7fc0_0000,
        NanPattern::Value(v) => bits == v.bits,
    }
}

fn f64_matches(bits: u64, e: &NanPattern<wast::token::F64>) -> bool {
    match e {
        NanPattern::CanonicalNan => bits & 0x7fff_ffff_ffff_ffff == 0x7ff8_0000_0000_0000,
        NanPattern::ArithmeticNan => bits & 0x7ff8_0000_0000_0000 == 0x7ff8_0000_0000_0000,
        NanPattern::Value(v) => bits == v.bits,
    }
}

fn v128_matches(v: u128, e: &V128Pattern) -> bool {
    let b = v.to_le_bytes();
    match e {
        V128Pattern::I8x16(l) => l.iter().enumerate().all(|(i, x)| b[i] == *x as u8),
        V128Pattern::I16x8(l) => l.iter().enumerate().all(|(i, x)| i16::from_le_bytes([b[2 * i], b[2 * i + 1]]) == *x),
        V128Pattern::I32x4(l) => {
            l.iter().enumerate().all(|(i, x)| i32::from_le_bytes(b[4 * i..4 * i + 4].try_into().unwrap()) == *x)
        }
        V128Pattern::I64x2(l) => {
            l.iter().enumerate().all(|(i, x)| i64::from_le_bytes(b[8 * i..8 * i + 8].try_into().unwrap()) == *x)
        }
        V128Pattern::F32x4(l) => l
            .iter()
            .enumerate()
            .all(|(i, p)| f32_matches(u32::from_le_bytes(b[4 * i..4 * i + 4].try_into().unwrap()), p)),
        V128Pattern::F64x2(l) => l
            .iter()
            .enumerate()
            .all(|(i, p)| f64_matches(u64::from_le_bytes(b[8 * i..8 * i + 8].try_into().unwrap()), p)),
    }
}

/// The `spectest` module every spec script may import from.
fn define_spectest(store: &mut Store<()>, linker: &mut Linker<()>) {
    use ValType::*;
    let prints: [(&str, &[ValType]); 7] = [
        ("print", &[]),
        ("print_i32", &[I32]),
        ("print_i64", &[I64]),
        ("print_f32", &[F32]),
        ("print_f64", &[F64]),
        ("print_i32_f32", &[I32, F32]),
        ("print_f64_f64", &[F64, F64]),
    ];
    for (name, params) in prints {
        let f = Func::new(&mut *store, FuncType::new(params.iter().copied(), []), |_, _, _| Ok(()));
        linker.define(&*store, "spectest", name, f).unwrap();
    }
    let globals = [
        ("global_i32", Val::I32(666)),
        ("global_i64", Val::I64(666)),
        ("global_f32", Val::f32(666.6)),
        ("global_f64", Val::f64(666.6)),
    ];
    for (name, v) in globals {
        let g = Global::new(&mut *store, GlobalType::new(v.ty(), Mutability::Const), v).unwrap();
        linker.define(&*store, "spectest", name, g).unwrap();
    }
    let table = Table::new(&mut *store, TableType::new(RefType::FUNCREF, 10, Some(20)), Val::FuncRef(None)).unwrap();
    linker.define(&*store, "spectest", "table", table).unwrap();
    let table64 =
        Table::new(&mut *store, TableType::new64(RefType::FUNCREF, 10, Some(20)), Val::FuncRef(None)).unwrap();
    linker.define(&*store, "spectest", "table64", table64).unwrap();
    let memory = Memory::new(&mut *store, MemoryType::new(1, Some(2))).unwrap();
    linker.define(&*store, "spectest", "memory", memory).unwrap();
    let shared = SharedMemory::new(store.engine(), MemoryType::shared(1, 2)).unwrap();
    let shared = shared.to_memory(&mut *store).unwrap();
    linker.define(&*store, "spectest", "shared_memory", shared).unwrap();
}
