//! The WASI sandbox holds: a guest given one directory tries every way out
//! of it — `..`, absolute paths, symlinks (the host's and its own), hard
//! links, renames, `path_open` flags, a path component swapped for a
//! symlink while it opens — and each test checks that nothing outside was
//! read, written or created. Also: rights and fd numbers are checked on
//! every call, and bad pointers or lengths give `EFAULT`, never a fault.

#[path = "support/wasi_guest.rs"]
mod wasi_guest;

use std::fs;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use cranewasm::wasi::types::{filetype, oflags, rights, LOOKUP_SYMLINK_FOLLOW};
use cranewasm::wasi::{Errno, WasiCtx};
use wasi_guest::{Guest, A, MEMORY_SIZE};

const SECRET: &[u8] = b"SECRET";
/// The preopen's fd (after stdin, stdout, stderr).
const ROOT: u32 = 3;
const FOLLOW: u32 = LOOKUP_SYMLINK_FOLLOW;
const RW: u64 = rights::FD_READ | rights::FD_WRITE | rights::FD_SEEK;

/// A scratch tree: `sandbox/` (given to the guest as "/") beside
/// `outside/secret.txt`, which the guest must never reach.
struct Tree {
    root: PathBuf,
}

impl Tree {
    fn new(name: &str) -> Tree {
        static N: AtomicUsize = AtomicUsize::new(0);
        let root = std::env::temp_dir().join(format!(
            "cranewasm-wasi-{name}-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = fs::remove_dir_all(&root);
        fs::create_dir_all(root.join("sandbox/sub")).unwrap();
        fs::create_dir_all(root.join("outside")).unwrap();
        fs::write(root.join("outside/secret.txt"), SECRET).unwrap();
        fs::write(root.join("sandbox/file.txt"), b"inside").unwrap();
        Tree { root }
    }

    fn sandbox(&self) -> PathBuf {
        self.root.join("sandbox")
    }

    fn outside(&self) -> PathBuf {
        self.root.join("outside")
    }

    fn guest(&self) -> Guest {
        Guest::new(WasiCtx::builder().preopened_dir(self.sandbox(), "/").build().unwrap())
    }

    /// Fails unless `outside/` holds exactly the untouched secret, and
    /// nothing appeared beside the two directories.
    fn assert_outside_untouched(&self) {
        let names = |p: &Path| {
            let mut v: Vec<String> =
                fs::read_dir(p).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
            v.sort();
            v
        };
        assert_eq!(names(&self.outside()), ["secret.txt"], "something was created or removed outside");
        assert_eq!(fs::read(self.outside().join("secret.txt")).unwrap(), SECRET, "the secret was changed");
        assert_eq!(names(&self.root), ["outside", "sandbox"], "something was created beside the sandbox");
    }
}

impl Drop for Tree {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.root);
    }
}

/// Whether opening `path` (with `dirflags`) could read the secret: an open
/// that fails is fine, one that succeeds must not give the secret's bytes.
fn try_read(g: &mut Guest, dirflags: u32, path: &str) -> Option<Vec<u8>> {
    let fd = g.open(ROOT, dirflags, path, 0, rights::FD_READ, 0, 0).ok()?;
    let data = g.read_fd(fd, 64).ok();
    assert_eq!(g.call("fd_close", &[A::I(fd)]), Errno::Success);
    data
}

fn assert_escape_refused(e: Result<u32, Errno>, what: &str) {
    match e {
        // `EISDIR`: `name/` with `O_CREAT`, refused before any lookup.
        Err(
            Errno::Notcapable | Errno::Perm | Errno::Noent | Errno::Loop | Errno::Notdir | Errno::Acces | Errno::Isdir,
        ) => {}
        Err(other) => panic!("{what}: unexpected errno {other:?}"),
        Ok(fd) => panic!("{what}: opened as fd {fd}"),
    }
}

#[test]
fn dot_dot_and_absolute_paths_stay_inside() {
    let t = Tree::new("dotdot");
    let mut g = t.guest();
    for path in [
        "../outside/secret.txt",
        "sub/../../outside/secret.txt",
        "sub/../sub/../../outside/secret.txt",
        "/outside/secret.txt",
        "/etc/passwd",
        t.outside().join("secret.txt").to_str().unwrap(),
        "..",
        "sub/../..",
    ] {
        for dirflags in [0, FOLLOW] {
            assert_escape_refused(g.open(ROOT, dirflags, path, 0, rights::FD_READ, 0, 0), path);
            assert_escape_refused(g.open(ROOT, dirflags, path, oflags::DIRECTORY, rights::FD_READDIR, 0, 0), path);
        }
    }
    // `..` that stays inside is fine.
    let fd = g.open(ROOT, 0, "sub/../file.txt", 0, rights::FD_READ, 0, 0).expect("an inside path with ..");
    assert_eq!(g.read_fd(fd, 64).unwrap(), b"inside");
    t.assert_outside_untouched();
}

#[test]
fn creating_writing_and_truncating_outside_is_refused() {
    let t = Tree::new("create");
    let mut g = t.guest();
    for (path, of) in [
        ("../outside/new.txt", oflags::CREAT),
        ("../outside/new.txt", oflags::CREAT | oflags::EXCL),
        ("../outside/secret.txt", oflags::TRUNC),
        ("../outside/secret.txt", oflags::CREAT | oflags::TRUNC),
        ("../new.txt", oflags::CREAT),
        ("/new.txt", oflags::CREAT),
    ] {
        assert_escape_refused(g.open(ROOT, FOLLOW, path, of, RW, 0, 0), path);
    }
    assert_escape_refused(g.open(ROOT, 0, "../outside/secret.txt", 0, RW, 0, 0), "write open");
    for name in ["path_create_directory", "path_remove_directory", "path_unlink_file"] {
        for path in ["../outside", "../outside/secret.txt", "../outside/newdir", "/tmp/x", "../sandbox2"] {
            assert_ne!(g.path_call(name, ROOT, path), Errno::Success, "{name} {path}");
        }
    }
    t.assert_outside_untouched();
}

#[test]
fn host_symlinks_pointing_out_are_not_followed() {
    let t = Tree::new("hostlinks");
    symlink(t.outside(), t.sandbox().join("abs")).unwrap();
    symlink("../outside", t.sandbox().join("rel")).unwrap();
    symlink("../outside/secret.txt", t.sandbox().join("file-link")).unwrap();
    symlink("sub/../../outside", t.sandbox().join("sub/deep")).unwrap();
    let mut g = t.guest();
    for path in ["abs/secret.txt", "rel/secret.txt", "file-link", "sub/deep/secret.txt", "abs", "rel/"] {
        for dirflags in [0, FOLLOW] {
            assert_ne!(try_read(&mut g, dirflags, path).as_deref(), Some(SECRET), "{path} read the secret");
            let out = g.alloc(64);
            let p = g.put(path.as_bytes());
            let e =
                g.call("path_filestat_get", &[A::I(ROOT), A::I(dirflags), A::I(p), A::I(path.len() as u32), A::I(out)]);
            g.reset();
            // Without FOLLOW a final link is stat'ed itself, which is fine;
            // through a link, or following one, it must fail.
            if dirflags == FOLLOW || path.trim_end_matches('/').contains('/') {
                assert_ne!(e, Errno::Success, "stat {path} with dirflags {dirflags}");
            } else if e == Errno::Success {
                // The link itself (even `rel/`), never what it points at.
                assert_eq!(g.read(out + 16, 1)[0], filetype::SYMBOLIC_LINK, "stat {path}");
            }
        }
        assert_escape_refused(g.open(ROOT, FOLLOW, path, oflags::CREAT, RW, 0, 0), path);
    }
    // Writing through a link to the outside, or creating beyond one.
    assert_escape_refused(g.open(ROOT, FOLLOW, "rel/new.txt", oflags::CREAT, RW, 0, 0), "create through link");
    assert_ne!(g.path_call("path_create_directory", ROOT, "abs/newdir"), Errno::Success);
    assert_ne!(g.path_call("path_unlink_file", ROOT, "rel/secret.txt"), Errno::Success);
    t.assert_outside_untouched();
}

/// Makes symlink `link` -> `target` from the guest; its errno.
fn guest_symlink(g: &mut Guest, target: &str, link: &str) -> Errno {
    let tp = g.put(target.as_bytes());
    let lp = g.put(link.as_bytes());
    let e =
        g.call("path_symlink", &[A::I(tp), A::I(target.len() as u32), A::I(ROOT), A::I(lp), A::I(link.len() as u32)]);
    g.reset();
    e
}

#[test]
fn symlinks_the_guest_creates_lead_nowhere_outside() {
    let t = Tree::new("guestlinks");
    let mut g = t.guest();
    let secret = t.outside().join("secret.txt");
    let targets = [
        "../outside/secret.txt",
        "../outside",
        "/etc/passwd",
        secret.to_str().unwrap(),
        "sub/../../outside/secret.txt",
    ];
    for (i, target) in targets.iter().enumerate() {
        let link = format!("evil{i}");
        // Creating the link may succeed (it is only a name), but nothing
        // through it may reach the outside.
        if guest_symlink(&mut g, target, &link) == Errno::Success {
            assert_ne!(try_read(&mut g, FOLLOW, &link).as_deref(), Some(SECRET), "{link} -> {target}");
            assert_ne!(try_read(&mut g, FOLLOW, &format!("{link}/secret.txt")).as_deref(), Some(SECRET));
            assert_escape_refused(g.open(ROOT, FOLLOW, &link, oflags::CREAT | oflags::TRUNC, RW, 0, 0), &link);
            assert_escape_refused(g.open(ROOT, FOLLOW, &format!("{link}/made.txt"), oflags::CREAT, RW, 0, 0), &link);
            // A hard link of the symlink is still only a symlink.
            let (lp, np) = (g.put(link.as_bytes()), g.put(b"hard"));
            let e = g.call(
                "path_link",
                &[A::I(ROOT), A::I(0), A::I(lp), A::I(link.len() as u32), A::I(ROOT), A::I(np), A::I(4)],
            );
            g.reset();
            if e == Errno::Success {
                assert_ne!(try_read(&mut g, FOLLOW, "hard").as_deref(), Some(SECRET), "hard link of {link}");
                assert_eq!(g.path_call("path_unlink_file", ROOT, "hard"), Errno::Success);
            }
        }
    }
    // A chain of links that ends outside.
    assert_eq!(guest_symlink(&mut g, "chain2", "chain1"), Errno::Success);
    assert_eq!(guest_symlink(&mut g, "sub/../chain3", "chain2"), Errno::Success);
    assert_eq!(guest_symlink(&mut g, "../outside/secret.txt", "chain3"), Errno::Success);
    assert_ne!(try_read(&mut g, FOLLOW, "chain1").as_deref(), Some(SECRET));
    t.assert_outside_untouched();
}

#[test]
fn hard_links_and_renames_cannot_cross_the_boundary() {
    let t = Tree::new("links");
    let mut g = t.guest();
    let two = |g: &mut Guest, name: &str, flags: Option<u32>, a: &str, b: &str| {
        let (ap, bp) = (g.put(a.as_bytes()), g.put(b.as_bytes()));
        let (al, bl) = (a.len() as u32, b.len() as u32);
        let args: Vec<A> = match flags {
            Some(f) => vec![A::I(ROOT), A::I(f), A::I(ap), A::I(al), A::I(ROOT), A::I(bp), A::I(bl)],
            None => vec![A::I(ROOT), A::I(ap), A::I(al), A::I(ROOT), A::I(bp), A::I(bl)],
        };
        let e = g.call(name, &args);
        g.reset();
        e
    };
    for (a, b) in [
        ("../outside/secret.txt", "stolen"),
        ("file.txt", "../outside/planted"),
        ("file.txt", "../planted"),
        ("/etc/passwd", "stolen"),
        ("file.txt", "/planted"),
    ] {
        assert_ne!(two(&mut g, "path_link", Some(0), a, b), Errno::Success, "link {a} {b}");
        assert_ne!(two(&mut g, "path_link", Some(FOLLOW), a, b), Errno::Success, "link -L {a} {b}");
        assert_ne!(two(&mut g, "path_rename", None, a, b), Errno::Success, "rename {a} {b}");
    }
    assert!(!t.sandbox().join("stolen").exists());
    // Renaming a directory the guest is inside does not widen its view.
    assert_eq!(two(&mut g, "path_rename", None, "sub", "sub2"), Errno::Success);
    assert_escape_refused(g.open(ROOT, 0, "sub2/../../outside/secret.txt", 0, rights::FD_READ, 0, 0), "after rename");
    assert_eq!(fs::read(t.sandbox().join("file.txt")).unwrap(), b"inside");
    t.assert_outside_untouched();
}

/// A host thread swaps `sandbox/swap` between a real directory and a
/// symlink to the outside while the guest keeps opening `swap/secret.txt`:
/// whichever it finds mid-walk, the guest never reads the secret.
#[test]
fn swapping_a_path_component_for_a_symlink_mid_open_does_not_escape() {
    let t = Tree::new("toctou");
    let real = t.sandbox().join("real");
    fs::create_dir(&real).unwrap();
    fs::write(real.join("secret.txt"), b"decoy").unwrap();
    // Every swap is an atomic rename: `swap` is the real directory one
    // moment and a symlink to the outside the next.
    let (swap, parked, link) = (t.sandbox().join("swap"), t.sandbox().join("parked"), t.sandbox().join("link"));
    fs::rename(&real, &swap).unwrap();
    symlink(t.outside(), &link).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let swapper = {
        let stop = stop.clone();
        std::thread::spawn(move || {
            let mut flips = 0u64;
            let deadline = Instant::now() + Duration::from_secs(60);
            while !stop.load(Ordering::Relaxed) && Instant::now() < deadline {
                fs::rename(&swap, &parked).unwrap();
                fs::rename(&link, &swap).unwrap();
                // Each state lasts a little while, even when both cores are
                // busy, so the guest meets both of them.
                std::thread::sleep(Duration::from_micros(20));
                fs::rename(&swap, &link).unwrap();
                fs::rename(&parked, &swap).unwrap();
                std::thread::sleep(Duration::from_micros(20));
                flips += 1;
            }
            flips
        })
    };
    let mut g = t.guest();
    let (mut opened, mut refused) = (0u32, 0u32);
    // At least 3000 attempts, and on until both outcomes were seen: how the
    // two threads interleave depends on the machine's load.
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut i = 0u32;
    while (i < 3000 || opened == 0 || refused == 0) && Instant::now() < deadline {
        let dirflags = if i.is_multiple_of(2) { FOLLOW } else { 0 };
        i += 1;
        match try_read(&mut g, dirflags, "swap/secret.txt") {
            Some(data) => {
                assert_ne!(data, SECRET, "read the secret through a swapped component");
                opened += 1;
            }
            None => refused += 1,
        }
    }
    stop.store(true, Ordering::Relaxed);
    let flips = swapper.join().unwrap();
    assert!(flips > 0, "the swapper never ran");
    // Both outcomes happened, so the race was really exercised.
    assert!(opened > 0 && refused > 0, "opened {opened}, refused {refused}");
    t.assert_outside_untouched();
}

#[test]
fn read_only_preopen_refuses_every_change() {
    let t = Tree::new("readonly");
    let mut g = Guest::new(WasiCtx::builder().preopened_dir_readonly(t.sandbox(), "/").build().unwrap());
    assert_eq!(g.open(ROOT, 0, "new.txt", oflags::CREAT, RW, RW, 0), Err(Errno::Notcapable));
    assert_eq!(g.open(ROOT, 0, "file.txt", oflags::TRUNC, RW, RW, 0), Err(Errno::Notcapable));
    assert_eq!(g.path_call("path_create_directory", ROOT, "d"), Errno::Notcapable);
    assert_eq!(g.path_call("path_unlink_file", ROOT, "file.txt"), Errno::Notcapable);
    assert_eq!(g.path_call("path_remove_directory", ROOT, "sub"), Errno::Notcapable);
    assert_eq!(guest_symlink(&mut g, "file.txt", "l"), Errno::Notcapable);
    // A file opened for writing gets no write right.
    let fd = g.open(ROOT, 0, "file.txt", 0, RW, RW, 0).expect("opening to read");
    assert_eq!(g.write_fd(fd, b"changed"), Err(Errno::Notcapable));
    assert_eq!(g.read_fd(fd, 64).unwrap(), b"inside");
    // Subdirectories are read-only too, and rights cannot be regained.
    let sub = g.open(ROOT, 0, "sub", oflags::DIRECTORY, u64::MAX, u64::MAX, 0).unwrap();
    assert_eq!(g.open(sub, 0, "new.txt", oflags::CREAT, RW, RW, 0), Err(Errno::Notcapable));
    assert_eq!(g.call("fd_fdstat_set_rights", &[A::I(sub), A::L(u64::MAX), A::L(u64::MAX)]), Errno::Notcapable);
    assert_eq!(fs::read(t.sandbox().join("file.txt")).unwrap(), b"inside");
    assert!(!t.sandbox().join("new.txt").exists() && !t.sandbox().join("d").exists());
    t.assert_outside_untouched();
}

#[test]
fn fd_numbers_and_rights_are_checked_on_every_call() {
    let t = Tree::new("fds");
    let mut g = t.guest();
    for fd in [4, 99, u32::MAX, 1 << 31] {
        assert_eq!(g.read_fd(fd, 4), Err(Errno::Badf));
        assert_eq!(g.write_fd(fd, b"x"), Err(Errno::Badf));
        assert_eq!(g.open(fd, 0, "file.txt", 0, rights::FD_READ, 0, 0), Err(Errno::Badf));
        assert_eq!(g.call("fd_close", &[A::I(fd)]), Errno::Badf);
        assert_eq!(g.call("fd_renumber", &[A::I(ROOT), A::I(fd)]), Errno::Badf);
        assert_eq!(g.call("sock_shutdown", &[A::I(fd), A::I(1)]), Errno::Badf);
    }
    // A file is not a directory to open paths through.
    let file = g.open(ROOT, 0, "file.txt", 0, rights::FD_READ, 0, 0).unwrap();
    assert!(matches!(g.open(file, 0, "x", 0, 0, 0, 0), Err(Errno::Notcapable | Errno::Notdir)));
    // Opened without the write right: writing is refused.
    assert_eq!(g.write_fd(file, b"x"), Err(Errno::Notcapable));
    // Dropping a right sticks.
    assert_eq!(g.call("fd_fdstat_set_rights", &[A::I(file), A::L(0), A::L(0)]), Errno::Success);
    assert_eq!(g.read_fd(file, 4), Err(Errno::Notcapable));
    assert_eq!(g.call("fd_fdstat_set_rights", &[A::I(file), A::L(rights::FD_READ), A::L(0)]), Errno::Notcapable);
    // Closed means closed.
    assert_eq!(g.call("fd_close", &[A::I(file)]), Errno::Success);
    assert_eq!(g.read_fd(file, 4), Err(Errno::Badf));
    // The preopen without PATH_OPEN opens nothing.
    assert_eq!(
        g.call(
            "fd_fdstat_set_rights",
            &[A::I(ROOT), A::L(rights::DIR & !rights::PATH_OPEN), A::L(rights::DIR | rights::FILE)]
        ),
        Errno::Success
    );
    assert_eq!(g.open(ROOT, 0, "file.txt", 0, rights::FD_READ, 0, 0), Err(Errno::Notcapable));
    t.assert_outside_untouched();
}

#[test]
fn bad_pointers_and_lengths_are_efault_not_a_crash() {
    let t = Tree::new("pointers");
    let mut g = t.guest();
    let end = MEMORY_SIZE;
    let fault = |g: &mut Guest, name: &str, args: &[A]| {
        assert_eq!(g.call(name, args), Errno::Fault, "{name}");
    };
    // Result pointers past the end, straddling it, or wrapping around.
    for out in [end, end - 3, u32::MAX, u32::MAX - 2] {
        fault(&mut g, "args_sizes_get", &[A::I(out), A::I(0)]);
        fault(&mut g, "environ_sizes_get", &[A::I(0), A::I(out)]);
        fault(&mut g, "clock_time_get", &[A::I(0), A::L(0), A::I(out)]);
        fault(&mut g, "fd_fdstat_get", &[A::I(1), A::I(out)]);
        fault(&mut g, "fd_prestat_get", &[A::I(ROOT), A::I(out)]);
    }
    // Iovec arrays and their buffers out of bounds.
    let bad_iov = g.put(&[(end - 2).to_le_bytes(), 16u32.to_le_bytes()].concat());
    let huge_iov = g.put(&[0u32.to_le_bytes(), u32::MAX.to_le_bytes()].concat());
    let out = g.alloc(8);
    for iov in [bad_iov, huge_iov, end - 4, u32::MAX] {
        fault(&mut g, "fd_write", &[A::I(1), A::I(iov), A::I(1), A::I(out)]);
        fault(&mut g, "fd_read", &[A::I(0), A::I(iov), A::I(1), A::I(out)]);
    }
    fault(&mut g, "fd_write", &[A::I(1), A::I(0), A::I(u32::MAX), A::I(out)]);
    // Paths out of bounds, and not UTF-8.
    fault(&mut g, "path_create_directory", &[A::I(ROOT), A::I(u32::MAX - 1), A::I(10)]);
    fault(&mut g, "path_unlink_file", &[A::I(ROOT), A::I(100), A::I(end)]);
    let latin1 = g.put(b"caf\xe9");
    assert_eq!(g.call("path_create_directory", &[A::I(ROOT), A::I(latin1), A::I(4)]), Errno::Ilseq);
    fault(&mut g, "random_get", &[A::I(end - 8), A::I(9)]);
    fault(&mut g, "random_get", &[A::I(8), A::I(u32::MAX)]);
    fault(&mut g, "fd_prestat_dir_name", &[A::I(ROOT), A::I(end), A::I(10)]);
    fault(&mut g, "args_get", &[A::I(u32::MAX), A::I(0)]);
    let dir = g.open(ROOT, 0, ".", oflags::DIRECTORY, rights::FD_READDIR, 0, 0).unwrap();
    fault(&mut g, "fd_readdir", &[A::I(dir), A::I(end - 10), A::I(100), A::L(0), A::I(out)]);
    fault(&mut g, "poll_oneoff", &[A::I(0), A::I(4096), A::I(100_000), A::I(out)]);
    fault(&mut g, "poll_oneoff", &[A::I(end - 10), A::I(4096), A::I(1), A::I(out)]);
    assert_eq!(g.call("poll_oneoff", &[A::I(0), A::I(4096), A::I(0), A::I(out)]), Errno::Inval);
    // Nothing was created by a call that failed, and the store still works.
    assert_eq!(fs::read_dir(t.sandbox()).unwrap().count(), 2);
    assert_eq!(g.write_fd(1, b"still fine").unwrap(), 10);
    t.assert_outside_untouched();
}

/// Iovecs that end exactly at the 4 GiB end of a full-size memory work,
/// and one byte further is `EFAULT` (sums of a 32-bit pointer and length
/// must not wrap).
#[test]
fn iovecs_at_the_end_of_a_4_gib_memory() {
    use cranewasm::wasi::WritePipe;
    use cranewasm::{Engine, Linker, Module, Store};
    let wat = r#"(module
      (import "wasi_snapshot_preview1" "fd_write" (func $w (param i32 i32 i32 i32) (result i32)))
      (import "wasi_snapshot_preview1" "fd_read" (func $r (param i32 i32 i32 i32) (result i32)))
      (memory (export "memory") 65536)
      (data (i32.const 0xfffffff0) "0123456789abcdef")
      (data (i32.const 16) "\f0\ff\ff\ff\10\00\00\00\f1\ff\ff\ff\10\00\00\00")
      (func (export "write") (param i32) (result i32) (call $w (i32.const 1) (local.get 0) (i32.const 1) (i32.const 0)))
      (func (export "read") (param i32) (result i32) (call $r (i32.const 0) (local.get 0) (i32.const 1) (i32.const 0))))"#;
    let engine = Engine::default();
    let module = Module::new(&engine, wat).expect("module");
    let out = WritePipe::new();
    let ctx = WasiCtx::builder().stdout(out.clone()).stdin(cranewasm::wasi::ReadPipe::new("xyz")).build().unwrap();
    let mut store = Store::new(&engine, ctx);
    let mut linker = Linker::new(store.engine());
    linker.define_wasi(&mut store, |c: &mut WasiCtx| c).unwrap();
    let instance = linker.instantiate(&mut store, &module).expect("a 4 GiB memory");
    let write = instance.get_func(&store, "write").unwrap().typed::<i32, i32>(&store).unwrap();
    let read = instance.get_func(&store, "read").unwrap().typed::<i32, i32>(&store).unwrap();
    assert_eq!(write.call(&mut store, 16).unwrap(), Errno::Success as i32);
    assert_eq!(out.contents(), b"0123456789abcdef");
    assert_eq!(write.call(&mut store, 24).unwrap(), Errno::Fault as i32);
    assert_eq!(read.call(&mut store, 24).unwrap(), Errno::Fault as i32);
    assert_eq!(read.call(&mut store, 16).unwrap(), Errno::Success as i32);
    let memory = instance.get_memory(&store, "memory").unwrap();
    let mut tail = [0u8; 16];
    memory.read(&store, 0xffff_fff0, &mut tail).unwrap();
    assert_eq!(&tail, b"xyz3456789abcdef");
}
