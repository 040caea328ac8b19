//! The runtime's fault handlers coexist with a host's own: a SIGSEGV
//! handler the host installed before the runtime, or after it (chaining to
//! the runtime's as well-behaved hosts do), is still called for the host's
//! own faults — outside wasm and inside host functions that wasm called —
//! while wasm traps keep working; and a fault nobody handles still kills
//! the process instead of being taken for a trap.
//!
//! Each scenario runs in a child process (this binary again, with
//! `--child NAME`), so a failure cannot take the test harness down.

use std::ptr;
use std::sync::atomic::{AtomicPtr, AtomicUsize, Ordering};

use cranewasm::*;

#[path = "support/self_exec.rs"]
mod self_exec;

/// The host's page that faults until its handler makes it accessible.
static HOST_PAGE: AtomicPtr<u8> = AtomicPtr::new(ptr::null_mut());
/// Faults the host's handler recovered from.
static RECOVERED: AtomicUsize = AtomicUsize::new(0);
/// The handler that was installed before the host's (the runtime's, in
/// the "after" scenario).
static mut PREVIOUS: Option<libc::sigaction> = None;

fn page_size() -> usize {
    // SAFETY: sysconf has no preconditions.
    unsafe { libc::sysconf(libc::_SC_PAGESIZE) as usize }
}

/// Maps a fresh inaccessible page for the host to fault on.
fn arm_host_page() -> *mut u8 {
    // SAFETY: an anonymous private mapping of our own.
    let page = unsafe {
        libc::mmap(ptr::null_mut(), page_size(), libc::PROT_NONE, libc::MAP_PRIVATE | libc::MAP_ANONYMOUS, -1, 0)
    };
    assert_ne!(page, libc::MAP_FAILED);
    HOST_PAGE.store(page.cast(), Ordering::SeqCst);
    page.cast()
}

/// The host's SIGSEGV handler: a fault on its page is fixed by making the
/// page writable; anything else goes to the handler installed before it
/// (or, if none, to the default action).
extern "C" fn host_handler(sig: libc::c_int, info: *mut libc::siginfo_t, context: *mut libc::c_void) {
    // SAFETY: the kernel passes a valid siginfo; mprotect on our own page
    // is async-signal-safe.
    unsafe {
        let addr = (*info).si_addr() as usize;
        let page = HOST_PAGE.load(Ordering::SeqCst) as usize;
        if page != 0 && addr >= page && addr < page + page_size() {
            libc::mprotect(page as *mut libc::c_void, page_size(), libc::PROT_READ | libc::PROT_WRITE);
            RECOVERED.fetch_add(1, Ordering::SeqCst);
            return;
        }
        match *ptr::addr_of!(PREVIOUS) {
            Some(prev) if prev.sa_flags & libc::SA_SIGINFO != 0 => {
                let f: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) =
                    std::mem::transmute(prev.sa_sigaction);
                f(sig, info, context)
            }
            _ => {
                libc::signal(sig, libc::SIG_DFL);
            }
        }
    }
}

fn install_host_handler() {
    // SAFETY: a plain sigaction call with a handler that is async-signal-safe;
    // PREVIOUS is written before the handler can run.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = host_handler as *const () as usize;
        action.sa_flags = libc::SA_SIGINFO | libc::SA_NODEFER | libc::SA_ONSTACK;
        libc::sigemptyset(&mut action.sa_mask);
        let mut previous: libc::sigaction = std::mem::zeroed();
        assert_eq!(libc::sigaction(libc::SIGSEGV, &action, &mut previous), 0);
        *ptr::addr_of_mut!(PREVIOUS) = Some(previous);
    }
}

/// Writes to the host page (faulting first) and reads the value back.
fn touch_host_page(value: u8) -> u8 {
    let page = arm_host_page();
    // SAFETY: the page is ours; the first write faults and the host's
    // handler makes it writable before the write is retried.
    unsafe {
        ptr::write_volatile(page, value);
        ptr::read_volatile(page)
    }
}

/// A module with an out-of-bounds access and a call to a host function.
fn wasm_parts(engine: &Engine, store: &mut Store<()>) -> (TypedFunc<(), i32>, TypedFunc<i32, i32>) {
    let module = Module::new(
        engine,
        r#"(module (import "host" "touch" (func $touch (param i32) (result i32)))
            (memory 1)
            (func (export "oob") (result i32) (i32.load (i32.const 65536)))
            (func (export "call_host") (param i32) (result i32) (i32.add (call $touch (local.get 0)) (i32.const 1))))"#,
    )
    .unwrap();
    // The host function faults on the host's page, outside wasm code but
    // while wasm is on the stack.
    let touch = Func::wrap(&mut *store, |x: i32| touch_host_page(x as u8) as i32);
    let instance = Instance::new(&mut *store, &module, &[touch.into()]).unwrap();
    let oob = instance.get_func(&*store, "oob").unwrap().typed::<(), i32>(&*store).unwrap();
    let call_host = instance.get_func(&*store, "call_host").unwrap().typed::<i32, i32>(&*store).unwrap();
    (oob, call_host)
}

/// Traps, host faults outside wasm, host faults inside a host function.
fn exercise(engine: &Engine) {
    let mut store = Store::new(engine, ());
    let (oob, call_host) = wasm_parts(engine, &mut store);
    for round in 0..3u8 {
        assert_eq!(oob.call(&mut store, ()).unwrap_err().code(), Some(Trap::MemoryOutOfBounds));
        let before = RECOVERED.load(Ordering::SeqCst);
        assert_eq!(touch_host_page(40 + round), 40 + round);
        assert_eq!(call_host.call(&mut store, 7).unwrap(), 8);
        assert_eq!(RECOVERED.load(Ordering::SeqCst), before + 2, "the host's handler saw both of its faults");
    }
}

fn child(name: &str) {
    match name {
        "handler-installed-before" => {
            install_host_handler();
            exercise(&Engine::default());
        }
        "handler-installed-after" => {
            let engine = Engine::default();
            // Make sure the runtime's handlers are in place first.
            let mut store = Store::new(&engine, ());
            let (oob, _) = wasm_parts(&engine, &mut store);
            assert!(oob.call(&mut store, ()).is_err());
            install_host_handler();
            // SAFETY: reading what install_host_handler stored.
            let previous = unsafe { *ptr::addr_of!(PREVIOUS) }.unwrap();
            assert_ne!(previous.sa_sigaction, libc::SIG_DFL, "the runtime's handler was the previous one");
            exercise(&engine);
        }
        "unhandled-fault-outside-wasm" => {
            let engine = Engine::default();
            let mut store = Store::new(&engine, ());
            let (oob, _) = wasm_parts(&engine, &mut store);
            assert!(oob.call(&mut store, ()).is_err());
            touch_host_page(1);
        }
        "unhandled-fault-in-host-function" => {
            let engine = Engine::default();
            let mut store = Store::new(&engine, ());
            let (_, call_host) = wasm_parts(&engine, &mut store);
            let _ = call_host.call(&mut store, 1);
        }
        "host-function-faults-in-a-guard-region" => {
            // The host's bad pointer lands in a linear memory's guard
            // region, where wasm code faults on purpose: the fault is still
            // the host's (its instruction is no trap site), not a trap.
            let mut config = Config::new();
            config.bounds_checks(BoundsChecks::GuardPages);
            let engine = Engine::new(&config).unwrap();
            let mut store = Store::new(&engine, ());
            let module = Module::new(
                &engine,
                r#"(module (import "host" "poke" (func $poke)) (memory (export "m") 1)
                    (func (export "run") (call $poke)))"#,
            )
            .unwrap();
            let poke = Func::wrap(&mut store, |caller: Caller<'_, ()>| {
                let memory = caller.default_memory().expect("the caller's memory");
                // 1 GiB past the start: inside the reservation, in its guard.
                let wild = memory.data_ptr(&caller).wrapping_add(1 << 30);
                // SAFETY: deliberately not: this write must fault.
                unsafe { ptr::write_volatile(wild, 1) };
            });
            let instance = Instance::new(&mut store, &module, &[poke.into()]).unwrap();
            let run = instance.get_func(&store, "run").unwrap().typed::<(), ()>(&store).unwrap();
            let _ = run.call(&mut store, ());
        }
        other => panic!("unknown child scenario {other}"),
    }
    println!("child ok");
}

/// Expected end of each scenario: success, or death by SIGSEGV.
const SCENARIOS: [(&str, Option<i32>); 5] = [
    ("handler-installed-before", None),
    ("handler-installed-after", None),
    ("unhandled-fault-outside-wasm", Some(libc::SIGSEGV)),
    ("unhandled-fault-in-host-function", Some(libc::SIGSEGV)),
    ("host-function-faults-in-a-guard-region", Some(libc::SIGSEGV)),
];

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--child") {
        child(&args[i + 1]);
        return;
    }
    use std::os::unix::process::ExitStatusExt;
    let (mut passed, mut failed) = (0, 0);
    for (name, signal) in SCENARIOS {
        let out = self_exec::self_command().args(["--child", name]).output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        let ok = match signal {
            None => out.status.success() && stdout.contains("child ok"),
            Some(sig) => out.status.signal() == Some(sig) && !stdout.contains("child ok"),
        };
        if ok {
            passed += 1;
            println!("ok   {name}");
        } else {
            failed += 1;
            println!("FAIL {name}: {} ({stdout}{})", out.status, String::from_utf8_lossy(&out.stderr));
        }
    }
    println!("signals: {passed} passed, {failed} failed");
    if failed > 0 {
        std::process::exit(1);
    }
}
