//! The command line, parsed the way WAMR's `iwasm` parses it
//! (`product-mini/platforms/posix/main.c`): options first, each starting
//! with `-`, then the module file, then the program's own arguments.
//!
//! Hand-written rather than clap: the grammar is WAMR's, not a
//! conventional one (`--env=K=V` and `--env K=V`, `--map-dir=GUEST::HOST`,
//! `-v=3`, everything after the file belongs to the guest), a derive would
//! fight it, and the binary starts faster without one.

use std::path::PathBuf;

/// What the user asked for.
#[derive(Debug, Default)]
pub struct Options {
    /// The module (binary or text).
    pub file: PathBuf,
    /// The program's arguments, its name (the file as given) first.
    pub args: Vec<String>,
    /// Environment variables, `KEY=VALUE`.
    pub env: Vec<(String, String)>,
    /// Preopened directories: (guest name, host path).
    pub dirs: Vec<(String, PathBuf)>,
    /// `-f NAME`: call this export with `args[1..]` instead of `_start`.
    pub function: Option<String>,
    /// `--stack-size=N`: most native stack wasm may use, in bytes.
    pub stack_size: Option<usize>,
    /// `--max-threads=N`: most wasi-threads threads alive at once.
    pub max_threads: Option<u32>,
    /// `--heap-size=N`: the host-managed app heap (`wasm_runtime_module_malloc`,
    /// the builtin libc's `malloc`), 0 by default as in WAMR's WASI build.
    pub heap_size: u32,
    /// `--native-lib=FILE`: shared libraries with natives (up to 8).
    pub native_libs: Vec<String>,
    /// `--module-path=DIR`: where modules imported from are read.
    pub module_path: Option<PathBuf>,
    /// `--timeout=MS`: stop the program after this many milliseconds.
    pub timeout_ms: Option<u64>,
    /// `--enable-linux-perf`: write perf's map of the compiled functions
    /// (`/tmp/perf-<pid>.map`), as WAMR's iwasm does.
    pub linux_perf: bool,
    /// `--addr-pool=A/M,...`: the addresses sockets may use (up to 8).
    pub addr_pool: Vec<String>,
    /// `--allow-resolve=NAME`: the names that may be looked up (up to 8).
    pub allow_resolve: Vec<String>,
    /// `--no-cache`: compile every time, store nothing.
    pub no_cache: bool,
    /// `--cache-dir=DIR`: the code cache's directory (see `cache_dir.rs`).
    pub cache_dir: Option<PathBuf>,
    /// Warnings about options accepted but without effect here.
    pub notes: Vec<String>,
}

/// What the command line asks for.
#[derive(Debug, PartialEq, Eq)]
pub enum Action {
    Run,
    Help,
    Version,
    /// `iwasm compile IN -o OUT`: write IN's compiled code to OUT, which
    /// `iwasm OUT` then runs without compiling; with `--target T`, code
    /// for target T (a triple), which the iwasm of T runs.
    Compile {
        input: PathBuf,
        output: PathBuf,
        target: Option<String>,
    },
}

/// Options WAMR tunes its own interpreter or JITs with: accepted, with a
/// note, since cranewasm always compiles with Cranelift.
const TUNING: &[&str] =
    &["--interp", "--fast-jit", "--llvm-jit", "--multi-tier-jit", "--enable-segue", "--disable-bounds-checks"];
const TUNING_VALUE: &[&str] =
    &["--jit-codecache-size=", "--llvm-jit-size-level=", "--llvm-jit-opt-level=", "--gc-heap-size=", "--enable-segue="];
/// WAMR features this runtime does not have: refused with a message.
/// (`-g`: WAMR's debugger server; `--gen-prof-file`: its LLVM PGO output;
/// `--repl`: its interactive loop.)
const UNSUPPORTED: &[&str] = &["--repl", "-g=", "--gen-prof-file="];
/// WAMR's limits on `--addr-pool` entries and `--allow-resolve` names.
const MAX_POOL: usize = 8;

/// Parses `argv` (without the program name).
pub fn parse(argv: &[String]) -> Result<(Action, Options), String> {
    if argv.first().map(String::as_str) == Some("compile") {
        return parse_compile(&argv[1..]).map(|a| (a, Options::default()));
    }
    let mut o = Options::default();
    let mut i = 0;
    while i < argv.len() && argv[i].starts_with('-') {
        let arg = argv[i].as_str();
        // The value of an option given as `--opt VALUE`.
        let mut next = |what: &str| -> Result<String, String> {
            i += 1;
            argv.get(i).cloned().ok_or_else(|| format!("{arg} needs {what}"))
        };
        match arg {
            "-h" | "--help" => return Ok((Action::Help, o)),
            "--version" => return Ok((Action::Version, o)),
            "--" => {
                i += 1;
                break;
            }
            "-f" | "--function" | "--invoke" => o.function = Some(next("a function name")?),
            "--env" => add_env(&mut o, &next("KEY=VALUE")?)?,
            "--dir" => add_dir(&mut o, &next("a directory")?),
            "--map-dir" => add_map_dir(&mut o, &next("GUEST::HOST")?)?,
            "--enable-linux-perf" => o.linux_perf = true,
            "--no-cache" => o.no_cache = true,
            "--cache-dir" => o.cache_dir = Some(PathBuf::from(next("a directory")?)),
            _ if TUNING.contains(&arg) || TUNING_VALUE.iter().any(|p| arg.starts_with(p)) => {
                o.notes.push(format!("{arg} ignored: cranewasm always compiles with Cranelift"));
            }
            _ if arg.starts_with("-v=") => {
                o.notes.push(format!("{arg} ignored: cranewasm has no log levels"));
            }
            _ if UNSUPPORTED.iter().any(|p| arg == *p || (p.ends_with('=') && arg.starts_with(p))) => {
                let name = arg.split('=').next().unwrap_or(arg);
                return Err(format!("{name} is not supported by this iwasm (cranewasm)"));
            }
            _ => {
                if let Some(v) = arg.strip_prefix("--env=") {
                    add_env(&mut o, v)?;
                } else if let Some(v) = arg.strip_prefix("--dir=") {
                    add_dir(&mut o, v);
                } else if let Some(v) = arg.strip_prefix("--map-dir=") {
                    add_map_dir(&mut o, v)?;
                } else if let Some(v) = arg.strip_prefix("--function=").or_else(|| arg.strip_prefix("--invoke=")) {
                    o.function = Some(v.to_string());
                } else if let Some(v) = arg.strip_prefix("--stack-size=") {
                    o.stack_size = Some(size(arg, v)?);
                } else if let Some(v) = arg.strip_prefix("--max-threads=") {
                    o.max_threads = Some(v.parse().map_err(|_| format!("{arg}: not a number of threads"))?);
                } else if let Some(v) = arg.strip_prefix("--timeout=") {
                    o.timeout_ms = Some(v.parse().map_err(|_| format!("{arg}: not a number of milliseconds"))?);
                } else if let Some(v) = arg.strip_prefix("--heap-size=") {
                    o.heap_size = u32::try_from(size(arg, v)?).map_err(|_| format!("{arg}: too large"))?;
                } else if let Some(v) = arg.strip_prefix("--native-lib=") {
                    if v.is_empty() {
                        return Err("--native-lib= needs a file name".into());
                    }
                    if o.native_libs.len() >= 8 {
                        return Err("Only allow max native lib number 8".into());
                    }
                    o.native_libs.push(v.to_string());
                } else if let Some(v) = arg.strip_prefix("--cache-dir=") {
                    if v.is_empty() {
                        return Err("--cache-dir= needs a directory".into());
                    }
                    o.cache_dir = Some(PathBuf::from(v));
                } else if let Some(v) = arg.strip_prefix("--module-path=") {
                    o.module_path = Some(PathBuf::from(v));
                } else if let Some(v) = arg.strip_prefix("--addr-pool=") {
                    add_addr_pool(&mut o, v)?;
                } else if let Some(v) = arg.strip_prefix("--allow-resolve=") {
                    if v.is_empty() {
                        return Err("--allow-resolve= needs a domain name".into());
                    }
                    if o.allow_resolve.len() >= MAX_POOL {
                        return Err(format!("Only allow max ns lookup number {MAX_POOL}"));
                    }
                    o.allow_resolve.push(v.to_string());
                } else {
                    return Err(format!("unknown option {arg}"));
                }
            }
        }
        i += 1;
    }
    let Some(file) = argv.get(i) else { return Err("no module file given".into()) };
    o.file = PathBuf::from(file);
    o.args = argv[i..].to_vec();
    if o.function.as_deref() == Some("") {
        return Err("empty function name".into());
    }
    Ok((Action::Run, o))
}

/// `compile IN -o OUT` (or `--output=OUT`, before or after IN), and
/// `--target T` (or `--target=T`).
fn parse_compile(argv: &[String]) -> Result<Action, String> {
    let (mut input, mut output, mut target) = (None, None, None);
    let mut args = argv.iter();
    while let Some(arg) = args.next() {
        if arg == "-o" || arg == "--output" {
            output = Some(args.next().ok_or_else(|| format!("{arg} needs a file name"))?.clone());
        } else if let Some(v) = arg.strip_prefix("--output=") {
            output = Some(v.to_string());
        } else if arg == "--target" {
            target = Some(args.next().ok_or_else(|| format!("{arg} needs a target triple"))?.clone());
        } else if let Some(v) = arg.strip_prefix("--target=") {
            target = Some(v.to_string());
        } else if arg.starts_with('-') {
            return Err(format!("unknown option {arg} for compile"));
        } else if input.replace(arg.clone()).is_some() {
            return Err("compile takes one module file".into());
        }
    }
    match (input, output) {
        (Some(i), Some(o)) => Ok(Action::Compile { input: i.into(), output: o.into(), target }),
        (None, _) => Err("compile needs a module file".into()),
        (_, None) => Err("compile needs -o OUTPUT".into()),
    }
}

fn add_env(o: &mut Options, kv: &str) -> Result<(), String> {
    match kv.split_once('=') {
        Some((k, v)) if !k.is_empty() => {
            o.env.push((k.to_string(), v.to_string()));
            Ok(())
        }
        _ => Err(format!("Wasm parse env string failed: expect \"key=value\", got \"{kv}\"")),
    }
}

fn add_dir(o: &mut Options, dir: &str) {
    o.dirs.push((dir.to_string(), PathBuf::from(dir)));
}

fn add_map_dir(o: &mut Options, spec: &str) -> Result<(), String> {
    match spec.split_once("::") {
        Some((guest, host)) if !guest.is_empty() && !host.is_empty() => {
            o.dirs.push((guest.to_string(), PathBuf::from(host)));
            Ok(())
        }
        _ => Err(format!("--map-dir expects GUEST::HOST, got \"{spec}\"")),
    }
}

/// `--addr-pool=A/M,B/N`: entries separated by commas (empty ones
/// skipped, as WAMR's `strtok` skips them); each is checked when the
/// program is instantiated, with WAMR's messages.
fn add_addr_pool(o: &mut Options, list: &str) -> Result<(), String> {
    if list.is_empty() {
        return Err("--addr-pool= needs ADDRESS/MASK entries".into());
    }
    for entry in list.split(',').filter(|e| !e.is_empty()) {
        if o.addr_pool.len() >= MAX_POOL {
            return Err(format!("Only allow max address number {MAX_POOL}"));
        }
        o.addr_pool.push(entry.to_string());
    }
    Ok(())
}

fn size(arg: &str, v: &str) -> Result<usize, String> {
    v.parse().map_err(|_| format!("{arg}: not a number of bytes"))
}

/// The `--help` text.
pub const HELP: &str = "\
Usage: iwasm [-options] wasm_file [args...]
       iwasm compile [--target=<triple>] wasm_file -o compiled_file
options:
  -f|--function name       Specify a function name of the module to run rather
                           than main (_start); its arguments follow wasm_file
  --invoke name            The same as -f
  --stack-size=n           Set maximum native stack size wasm may use, in bytes
  --timeout=ms             Stop the program after ms milliseconds
  --max-threads=n          Set the most threads a wasi-threads program may run
                           at once, besides its main thread (default 128)
  --heap-size=n            Set the host-managed heap size (module_malloc and the
                           builtin libc's malloc); 0 by default
  --env=<env>              Pass wasi environment variables with \"key=value\"
                           to the program, for example:
                             --env=\"key1=value1\" --env \"key2=value2\"
  --dir=<dir>              Grant wasi access to the given host directories
                           to the program, for example:
                             --dir=<dir1> --dir=<dir2>
  --map-dir=<guest::host>  Grant wasi access to the given host directories
                           to the program at a specific guest path, for example:
                             --map-dir=<guest-path1::host-path1>
  --addr-pool=<addr/mask>  Grant wasi access to the given network addresses in
                           CIDR notation to the program, separated with ',',
                           for example:
                             --addr-pool=1.2.3.4/15,2.3.4.5/16
  --allow-resolve=<domain> Allow the lookup of the specific domain name or domain
                           name suffixes using a wildcard, for example:
                           --allow-resolve=example.com # allow the lookup of the specific domain
                           --allow-resolve=*.example.com # allow the lookup of all subdomains
                           --allow-resolve=* # allow any lookup
  --native-lib=<lib>       Register natives from a shared library (one that
                           exports get_native_lib), up to 8 times
  --module-path=<path>     Where modules imported from are read
                           (<path>/<module>.wasm)
  --enable-linux-perf      Write Linux perf's map of the compiled functions
                           (/tmp/perf-<pid>.map), so perf report names them
  --cache-dir=<dir>        Keep compiled code in dir (default
                           $CRANEWASM_CACHE_DIR, else $XDG_CACHE_HOME/cranewasm,
                           else ~/.cache/cranewasm), so that the next run of the
                           same module starts without compiling (a first run
                           compiles lazily while a detached, low-priority iwasm
                           compiles the whole module into the cache;
                           CRANEWASM_LAZY=0: the run compiles it all and stores)
  --no-cache               Compile every time and store nothing
  --version                Show version information
  -h|--help                Show this help
wasm_file may be a binary module, WebAssembly text (.wat), or a file that
`iwasm compile` wrote, which runs without compiling (it holds machine code:
run only such files you made or trust). A trap prints the WebAssembly call
stack on stderr, innermost first: module offset and function name.
`iwasm compile --target=aarch64-unknown-linux-gnu` (or x86_64-unknown-linux-gnu)
writes code for that target's baseline CPU, which the iwasm built for it runs.
WAMR's running-mode and JIT tuning options (--interp, --llvm-jit, ...) are
accepted and ignored: cranewasm always compiles with Cranelift.
";

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &[&str]) -> Vec<String> {
        s.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn wamr_forms() {
        let (a, o) =
            parse(&args(&["--env", "A=1", "--env=B=2=3", "--map-dir=/::/tmp", "--dir=.", "x.wasm", "-f", "y"]))
                .unwrap();
        assert_eq!(a, Action::Run);
        assert_eq!(o.env, [("A".to_string(), "1".to_string()), ("B".to_string(), "2=3".to_string())]);
        assert_eq!(o.dirs, [("/".to_string(), PathBuf::from("/tmp")), (".".to_string(), PathBuf::from("."))]);
        // Everything after the file is the guest's, options included.
        assert_eq!(o.args, ["x.wasm", "-f", "y"]);
        assert_eq!(o.function, None);
    }

    #[test]
    fn function_and_sizes() {
        let (_, o) = parse(&args(&[
            "-f",
            "add",
            "--stack-size=65536",
            "--heap-size=8192",
            "--max-threads=8",
            "m.wat",
            "1",
            "2",
        ]))
        .unwrap();
        assert_eq!(o.function.as_deref(), Some("add"));
        assert_eq!(o.stack_size, Some(65536));
        assert_eq!(o.heap_size, 8192);
        assert_eq!(o.max_threads, Some(8));
        assert_eq!(o.args, ["m.wat", "1", "2"]);
        let (_, o) = parse(&args(&["--native-lib=a.so", "--native-lib=b.so", "--module-path=/m", "m.wasm"])).unwrap();
        assert_eq!(o.native_libs, ["a.so", "b.so"]);
        assert_eq!(o.module_path, Some(PathBuf::from("/m")));
    }

    #[test]
    fn cache_options() {
        let (_, o) = parse(&args(&["--cache-dir", "/c", "m.wasm"])).unwrap();
        assert_eq!((o.cache_dir, o.no_cache), (Some(PathBuf::from("/c")), false));
        let (_, o) = parse(&args(&["--cache-dir=/d", "--no-cache", "m.wasm"])).unwrap();
        assert_eq!((o.cache_dir, o.no_cache), (Some(PathBuf::from("/d")), true));
        assert!(parse(&args(&["--cache-dir=", "m.wasm"])).is_err());
        assert!(parse(&args(&["--cache-dir"])).is_err());
    }

    #[test]
    fn bad_input_is_an_error() {
        assert!(parse(&args(&["--bogus", "x.wasm"])).unwrap_err().contains("unknown option --bogus"));
        assert!(parse(&args(&["--repl", "x.wasm"])).unwrap_err().contains("not supported"));
        let many: Vec<String> = (0..9).map(|i| format!("--native-lib=l{i}.so")).chain(["x.wasm".into()]).collect();
        assert!(parse(&many).unwrap_err().contains("Only allow max native lib number 8"));
        assert!(parse(&args(&["--env", "novalue", "x.wasm"])).is_err());
        assert!(parse(&args(&["--map-dir=/tmp", "x.wasm"])).is_err());
        assert!(parse(&args(&["--stack-size=lots", "x.wasm"])).is_err());
        assert!(parse(&args(&["--max-threads=-1", "x.wasm"])).is_err());
        assert!(parse(&args(&["-f"])).is_err());
        assert!(parse(&args(&[])).is_err());
        assert_eq!(parse(&args(&["--version", "x"])).unwrap().0, Action::Version);
    }

    #[test]
    fn compile_and_timeout() {
        let (a, _) = parse(&args(&["compile", "in.wasm", "-o", "out.cwasm"])).unwrap();
        assert_eq!(a, Action::Compile { input: "in.wasm".into(), output: "out.cwasm".into(), target: None });
        let (a, _) = parse(&args(&["compile", "--output=o", "i"])).unwrap();
        assert_eq!(a, Action::Compile { input: "i".into(), output: "o".into(), target: None });
        let (a, _) = parse(&args(&["compile", "--target", "aarch64-unknown-linux-gnu", "i", "-o", "o"])).unwrap();
        let target = Some("aarch64-unknown-linux-gnu".to_string());
        assert_eq!(a, Action::Compile { input: "i".into(), output: "o".into(), target: target.clone() });
        let (a, _) = parse(&args(&["compile", "i", "--target=aarch64-unknown-linux-gnu", "-o", "o"])).unwrap();
        assert_eq!(a, Action::Compile { input: "i".into(), output: "o".into(), target });
        assert!(parse(&args(&["compile", "i", "-o", "o", "--target"])).unwrap_err().contains("target triple"));
        assert!(parse(&args(&["compile", "in.wasm"])).unwrap_err().contains("-o"));
        assert!(parse(&args(&["compile", "-o", "x"])).unwrap_err().contains("module file"));
        assert!(parse(&args(&["compile", "a", "b", "-o", "x"])).is_err());
        let (_, o) = parse(&args(&["--timeout=250", "m.wasm"])).unwrap();
        assert_eq!(o.timeout_ms, Some(250));
        assert!(parse(&args(&["--timeout=soon", "m.wasm"])).is_err());
    }

    #[test]
    fn address_pool_and_lookups() {
        let (_, o) = parse(&args(&[
            "--addr-pool=127.0.0.1/8,,::1/128",
            "--addr-pool=10.0.0.0/8",
            "--allow-resolve=*.com",
            "m.wasm",
        ]))
        .unwrap();
        assert_eq!(o.addr_pool, ["127.0.0.1/8", "::1/128", "10.0.0.0/8"]);
        assert_eq!(o.allow_resolve, ["*.com"]);
        assert!(parse(&args(&["--addr-pool=", "m.wasm"])).is_err());
        assert!(parse(&args(&["--allow-resolve=", "m.wasm"])).is_err());
        let many = format!("--addr-pool={}", vec!["1.2.3.4/32"; 9].join(","));
        assert!(parse(&args(&[&many, "m.wasm"])).unwrap_err().contains("Only allow max address number 8"));
        let mut names: Vec<String> = (0..9).map(|i| format!("--allow-resolve=h{i}")).collect();
        names.push("m.wasm".into());
        assert!(parse(&names).unwrap_err().contains("Only allow max ns lookup number 8"));
    }

    #[test]
    fn tuning_options_leave_a_note() {
        let (_, o) = parse(&args(&["--interp", "-v=3", "x.wasm"])).unwrap();
        assert_eq!(o.notes.len(), 2);
    }
}
