//! [`WasiCtx`]: one guest's WASI world (arguments, environment, stdio,
//! the directories it may see, its fd table), shared by the threads of a
//! wasi-threads program, and [`WasiCtxBuilder`] that makes it. The fd table is where rights and fd numbers are checked: every
//! function reaches an fd through [`WasiCtx::get`] with the rights it needs.

use std::fs::File as StdFile;
use std::os::fd::AsFd;
use std::path::Path;
use std::sync::atomic::{AtomicU16, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use cap_std::ambient_authority;
use cap_std::fs::{Dir, File};

use super::pipe::{ReadPipe, WritePipe};
use super::sock::NetPolicy;
use super::types::{filetype, rights, Errno, WasiResult};
use crate::environ::error::{Error, Result};

/// What an fd refers to.
pub(crate) enum Kind {
    /// A file opened with `path_open` (or a host file given as stdio).
    File(File),
    /// A directory: a preopen (with the name the guest sees) or one opened
    /// with `path_open`.
    Dir { dir: Dir, preopen: Option<String> },
    /// One of the three standard streams.
    Stream(Stream),
    /// A socket (WAMR's socket extension, `sock_open` and `sock_accept`).
    Socket(super::sock::Socket),
}

/// Where a standard stream goes.
pub(crate) enum Stream {
    /// A duplicate of the host process's own fd 0, 1 or 2.
    Host(StdFile),
    /// Reads from an in-memory pipe.
    Read(ReadPipe),
    /// Writes to an in-memory pipe.
    Write(WritePipe),
    /// Reads end-of-file, writes vanish (the default: a guest sees no host
    /// stream it was not given).
    Null,
}

/// One open fd. Its rights and stream flags change through `&self`: in a
/// context shared by threads an entry is used by several at once.
pub(crate) struct Entry {
    pub kind: Kind,
    /// Rights of this fd.
    base: AtomicU64,
    /// Rights fds opened through this one (a directory's) may have.
    inheriting: AtomicU64,
    /// `fdflags` of streams, which have no host file to keep them.
    stream_flags: AtomicU16,
}

impl Entry {
    fn new(kind: Kind, base: u64, inheriting: u64) -> Entry {
        Entry {
            kind,
            base: AtomicU64::new(base),
            inheriting: AtomicU64::new(inheriting),
            stream_flags: AtomicU16::new(0),
        }
    }

    /// Rights of this fd.
    pub fn base(&self) -> u64 {
        self.base.load(Ordering::Relaxed)
    }

    /// Rights fds opened through this one may have.
    pub fn inheriting(&self) -> u64 {
        self.inheriting.load(Ordering::Relaxed)
    }

    /// Narrows the rights (callers check that they only shrink).
    pub fn set_rights(&self, base: u64, inheriting: u64) {
        self.base.store(base, Ordering::Relaxed);
        self.inheriting.store(inheriting, Ordering::Relaxed);
    }

    /// `fdflags` of a stream.
    pub fn stream_flags(&self) -> u16 {
        self.stream_flags.load(Ordering::Relaxed)
    }

    pub fn set_stream_flags(&self, flags: u16) {
        self.stream_flags.store(flags, Ordering::Relaxed);
    }

    /// The WASI file type.
    pub fn filetype(&self) -> u8 {
        match &self.kind {
            Kind::Dir { .. } => filetype::DIRECTORY,
            Kind::File(f) => f.metadata().map_or(filetype::UNKNOWN, |m| super::fd::filestat(&m).filetype),
            Kind::Stream(Stream::Host(f)) => stream_filetype(f),
            Kind::Stream(_) => filetype::UNKNOWN,
            Kind::Socket(s) => s.filetype(),
        }
    }

    /// The directory behind this fd, or `ENOTDIR`.
    pub fn dir(&self) -> WasiResult<&Dir> {
        match &self.kind {
            Kind::Dir { dir, .. } => Ok(dir),
            _ => Err(Errno::Notdir),
        }
    }

    /// The regular file behind this fd: `EISDIR` for a directory, `ESPIPE`
    /// for a stream.
    pub fn file(&self) -> WasiResult<&File> {
        match &self.kind {
            Kind::File(f) => Ok(f),
            Kind::Dir { .. } => Err(Errno::Isdir),
            Kind::Stream(_) | Kind::Socket(_) => Err(Errno::Spipe),
        }
    }
}

/// The WASI file type of a host stream (a terminal is a character device).
fn stream_filetype(f: &StdFile) -> u8 {
    f.metadata()
        .map_or(filetype::UNKNOWN, |m| super::fd::filestat(&cap_std::fs::Metadata::from_just_metadata(m)).filetype)
}

/// Arguments or environment: NUL-terminated strings laid out as the guest
/// receives them, built once.
#[derive(Default, Clone)]
pub(crate) struct StringTable {
    /// All strings, each followed by a NUL.
    pub bytes: Vec<u8>,
    /// Offset of each string in `bytes`.
    pub starts: Vec<u32>,
}

impl StringTable {
    fn push(&mut self, s: &[u8]) {
        self.starts.push(self.bytes.len() as u32);
        self.bytes.extend_from_slice(s);
        self.bytes.push(0);
    }
}

/// The fd table: owned by one context, or shared by the contexts of the
/// threads of one program (see [`WasiCtx::share`]). An owned table costs
/// no lock or reference count per call; a shared one locks only to find or
/// change an entry, never during I/O, so a thread blocked reading stdin
/// does not hold up another's writes.
enum FdTable {
    Owned(Vec<Option<Arc<Entry>>>),
    Shared(Arc<Mutex<Vec<Option<Arc<Entry>>>>>),
}

/// An open entry, as [`WasiCtx::get`] hands it out: borrowed from an owned
/// table, or kept alive (even if another thread closes its fd) from a
/// shared one.
pub(crate) enum EntryRef<'a> {
    Borrowed(&'a Entry),
    Held(Arc<Entry>),
}

impl std::ops::Deref for EntryRef<'_> {
    type Target = Entry;
    fn deref(&self) -> &Entry {
        match self {
            EntryRef::Borrowed(e) => e,
            EntryRef::Held(e) => e,
        }
    }
}

/// A guest's WASI state. Lives in the store's data;
/// [`Linker::define_wasi`](crate::Linker::define_wasi) is told how to reach
/// it. The threads of one program (wasi-threads) each have a context made
/// by [`share`](Self::share): all of them see one fd table.
pub struct WasiCtx {
    pub(crate) args: Arc<StringTable>,
    pub(crate) env: Arc<StringTable>,
    fds: FdTable,
    pub(crate) clocks: Arc<super::clocks::Clocks>,
    pub(crate) rng: Arc<Mutex<Box<dyn cap_rand::RngCore + Send + Sync>>>,
    /// Where its sockets may go (the address pool, the names it may look up).
    pub(crate) net: Arc<NetPolicy>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl WasiCtx {
    /// A builder with no arguments, environment or directories and null
    /// stdio.
    pub fn builder() -> WasiCtxBuilder {
        WasiCtxBuilder::new()
    }

    /// Another context for the same program: the same arguments,
    /// environment, clocks and random source, and the same fd table, so an
    /// fd opened, closed or renumbered through either is so for both. This
    /// is what each thread of a wasi-threads program gets; from the first
    /// call on, this context's table is shared (and locked per call).
    pub fn share(&mut self) -> WasiCtx {
        if let FdTable::Owned(fds) = &mut self.fds {
            self.fds = FdTable::Shared(Arc::new(Mutex::new(std::mem::take(fds))));
        }
        let FdTable::Shared(fds) = &self.fds else { unreachable!("made shared above") };
        WasiCtx {
            args: self.args.clone(),
            env: self.env.clone(),
            fds: FdTable::Shared(fds.clone()),
            clocks: self.clocks.clone(),
            rng: self.rng.clone(),
            net: self.net.clone(),
        }
    }

    /// The open entry `fd` if it has every right in `needed`: `EBADF` for
    /// a number that is not open, `ENOTCAPABLE` for missing rights.
    pub(crate) fn get(&self, fd: u32, needed: u64) -> WasiResult<EntryRef<'_>> {
        let e = match &self.fds {
            FdTable::Owned(fds) => {
                EntryRef::Borrowed(fds.get(fd as usize).and_then(Option::as_deref).ok_or(Errno::Badf)?)
            }
            FdTable::Shared(fds) => {
                EntryRef::Held(lock(fds).get(fd as usize).and_then(Option::clone).ok_or(Errno::Badf)?)
            }
        };
        if e.base() & needed != needed {
            return Err(Errno::Notcapable);
        }
        Ok(e)
    }

    /// Runs `f` on the table, locked if shared.
    fn with_table<R>(&mut self, f: impl FnOnce(&mut Vec<Option<Arc<Entry>>>) -> R) -> R {
        match &mut self.fds {
            FdTable::Owned(fds) => f(fds),
            FdTable::Shared(fds) => f(&mut lock(fds)),
        }
    }

    /// Puts `entry` at the lowest free fd number.
    pub(crate) fn insert(&mut self, entry: Entry) -> WasiResult<u32> {
        self.with_table(|fds| {
            let slot = fds.iter().position(Option::is_none).unwrap_or(fds.len());
            let fd = u32::try_from(slot).map_err(|_| Errno::Mfile)?;
            if slot == fds.len() {
                fds.push(Some(Arc::new(entry)));
            } else {
                fds[slot] = Some(Arc::new(entry));
            }
            Ok(fd)
        })
    }

    /// Removes `fd` from the table (closing it once nobody uses it).
    pub(crate) fn remove(&mut self, fd: u32) -> WasiResult {
        // Dropped outside the lock: closing may take a while.
        let removed = self.with_table(|fds| fds.get_mut(fd as usize).and_then(Option::take).ok_or(Errno::Badf))?;
        drop(removed);
        Ok(())
    }

    /// Moves `from` to `to`, closing what `to` held. Both must be open.
    pub(crate) fn renumber(&mut self, from: u32, to: u32) -> WasiResult {
        let closed = self.with_table(|fds| {
            let open = |fd: u32| fds.get(fd as usize).is_some_and(Option::is_some);
            if !open(from) || !open(to) {
                return Err(Errno::Badf);
            }
            if from == to {
                return Ok(None);
            }
            let e = fds[from as usize].take();
            Ok(std::mem::replace(&mut fds[to as usize], e))
        })?;
        drop(closed);
        Ok(())
    }

    /// A new entry for a file or directory opened through a directory with
    /// `inheriting` rights.
    pub(crate) fn opened(kind: Kind, base: u64, inheriting: u64) -> Entry {
        Entry::new(kind, base, inheriting)
    }
}

/// How a standard stream of the guest is set up.
#[derive(Debug, Default)]
enum StdioSpec {
    #[default]
    Null,
    Inherit,
    File(StdFile),
    Read(ReadPipe),
    Write(WritePipe),
}

/// Builds a [`WasiCtx`].
///
/// ```
/// # use cranewasm::wasi::{WasiCtx, WritePipe};
/// let out = WritePipe::new();
/// let ctx = WasiCtx::builder().args(["prog", "x"]).env("K", "V").stdout(out.clone()).build()?;
/// # Ok::<(), cranewasm::Error>(())
/// ```
#[derive(Default)]
pub struct WasiCtxBuilder {
    args: Vec<Vec<u8>>,
    env: Vec<(Vec<u8>, Vec<u8>)>,
    stdio: [StdioSpec; 3],
    preopens: Vec<(String, std::path::PathBuf, bool)>,
    rng: Option<Box<dyn cap_rand::RngCore + Send + Sync>>,
    addr_pool: Vec<String>,
    resolve: Vec<String>,
}

impl WasiCtxBuilder {
    /// No arguments, environment or directories; stdin empty and output
    /// discarded.
    pub fn new() -> WasiCtxBuilder {
        WasiCtxBuilder::default()
    }

    /// Appends one argument (the first is the program name).
    pub fn arg(&mut self, arg: impl AsRef<str>) -> &mut Self {
        self.args.push(arg.as_ref().as_bytes().to_vec());
        self
    }

    /// Appends arguments.
    pub fn args<S: AsRef<str>>(&mut self, args: impl IntoIterator<Item = S>) -> &mut Self {
        for a in args {
            self.arg(a);
        }
        self
    }

    /// Sets an environment variable (a later value for the same key wins).
    pub fn env(&mut self, key: impl AsRef<str>, value: impl AsRef<str>) -> &mut Self {
        let (k, v) = (key.as_ref().as_bytes().to_vec(), value.as_ref().as_bytes().to_vec());
        self.env.retain(|(old, _)| *old != k);
        self.env.push((k, v));
        self
    }

    /// Passes the host process's environment.
    pub fn inherit_env(&mut self) -> &mut Self {
        use std::os::unix::ffi::OsStrExt;
        for (k, v) in std::env::vars_os() {
            self.env.retain(|(old, _)| old.as_slice() != k.as_bytes());
            self.env.push((k.as_bytes().to_vec(), v.as_bytes().to_vec()));
        }
        self
    }

    /// The guest's stdin, stdout and stderr are the host process's.
    pub fn inherit_stdio(&mut self) -> &mut Self {
        self.stdio = [StdioSpec::Inherit, StdioSpec::Inherit, StdioSpec::Inherit];
        self
    }

    /// The guest reads `pipe` as its stdin.
    pub fn stdin(&mut self, pipe: ReadPipe) -> &mut Self {
        self.stdio[0] = StdioSpec::Read(pipe);
        self
    }

    /// The guest's stdout goes to `pipe`.
    pub fn stdout(&mut self, pipe: WritePipe) -> &mut Self {
        self.stdio[1] = StdioSpec::Write(pipe);
        self
    }

    /// The guest's stderr goes to `pipe`.
    pub fn stderr(&mut self, pipe: WritePipe) -> &mut Self {
        self.stdio[2] = StdioSpec::Write(pipe);
        self
    }

    /// The guest's stdin, stdout or stderr (`fd` 0, 1 or 2) is a host file
    /// (a log, `/dev/null`, a pipe from another process).
    pub fn stdio_file(&mut self, fd: usize, file: StdFile) -> &mut Self {
        assert!(fd < 3, "stdio fds are 0, 1 and 2");
        self.stdio[fd] = StdioSpec::File(file);
        self
    }

    /// Gives the guest the host directory `host` under the name `guest`
    /// (`"."`, `"/"`, `"/data"`, ...). Nothing outside it can be reached
    /// through it.
    pub fn preopened_dir(&mut self, host: impl AsRef<Path>, guest: impl Into<String>) -> &mut Self {
        self.preopens.push((guest.into(), host.as_ref().to_path_buf(), false));
        self
    }

    /// As [`preopened_dir`](Self::preopened_dir), but the guest may only
    /// read: no right to create, write, rename, remove or change times.
    pub fn preopened_dir_readonly(&mut self, host: impl AsRef<Path>, guest: impl Into<String>) -> &mut Self {
        self.preopens.push((guest.into(), host.as_ref().to_path_buf(), true));
        self
    }

    /// Lets the guest's sockets bind, connect and send to the addresses of
    /// `entry`, `ADDRESS/MASK` (`"127.0.0.1/32"`, `"::1/128"`,
    /// `"0.0.0.0/0"` for any IPv4 address), as WAMR's `--addr-pool` does.
    /// With no entry, no socket may bind, connect or send anywhere.
    /// [`build`](Self::build) fails on a malformed entry.
    pub fn allow_addr(&mut self, entry: impl Into<String>) -> &mut Self {
        self.addr_pool.push(entry.into());
        self
    }

    /// Lets the guest look up `name` (`sock_addr_resolve`), or any name
    /// ending in `SUFFIX` for `"*SUFFIX"` (`"*.example.com"`, `"*"`), as
    /// WAMR's `--allow-resolve` does. With no name, no lookup is allowed.
    pub fn allow_resolve(&mut self, name: impl Into<String>) -> &mut Self {
        self.resolve.push(name.into());
        self
    }

    /// Random bytes for `random_get` come from `rng` instead of the OS
    /// (for reproducible tests).
    pub fn rng(&mut self, rng: impl cap_rand::RngCore + Send + Sync + 'static) -> &mut Self {
        self.rng = Some(Box::new(rng));
        self
    }

    /// The context. Fails when a preopened directory cannot be opened, a
    /// host stream cannot be duplicated or an address pool entry is
    /// malformed.
    pub fn build(&mut self) -> Result<WasiCtx> {
        let net = NetPolicy::new(&self.addr_pool, &self.resolve).map_err(|e| Error::Usage(e.to_string()))?;
        let mut args = StringTable::default();
        for a in &self.args {
            args.push(a);
        }
        let mut env = StringTable::default();
        for (k, v) in &self.env {
            env.push(&[k.as_slice(), b"=", v.as_slice()].concat());
        }
        let mut fds = Vec::new();
        for (i, spec) in self.stdio.iter().enumerate() {
            let stream = match spec {
                StdioSpec::Null => Stream::Null,
                StdioSpec::Read(p) => Stream::Read(p.clone()),
                StdioSpec::Write(p) => Stream::Write(p.clone()),
                StdioSpec::File(f) => Stream::Host(
                    f.try_clone().map_err(|e| Error::Resource(format!("cannot duplicate stdio file {i}: {e}")))?,
                ),
                StdioSpec::Inherit => {
                    let fd = match i {
                        0 => std::io::stdin().as_fd().try_clone_to_owned(),
                        1 => std::io::stdout().as_fd().try_clone_to_owned(),
                        _ => std::io::stderr().as_fd().try_clone_to_owned(),
                    };
                    let fd = fd.map_err(|e| Error::Resource(format!("cannot duplicate stdio fd {i}: {e}")))?;
                    Stream::Host(StdFile::from(fd))
                }
            };
            fds.push(Some(Entry::new(Kind::Stream(stream), rights::STREAM, 0)));
        }
        for (guest, host, readonly) in &self.preopens {
            let dir = Dir::open_ambient_dir(host, ambient_authority())
                .map_err(|e| Error::Resource(format!("cannot open directory {}: {e}", host.display())))?;
            let (base, inheriting) = if *readonly {
                (rights::DIR_READONLY, rights::DIR_READONLY | rights::FILE_READONLY)
            } else {
                (rights::DIR, rights::DIR | rights::FILE)
            };
            fds.push(Some(Entry::new(Kind::Dir { dir, preopen: Some(guest.clone()) }, base, inheriting)));
        }
        let rng = self.rng.take().unwrap_or_else(|| Box::new(cap_rand::std_rng_from_os_rng(ambient_authority())));
        Ok(WasiCtx {
            args: Arc::new(args),
            env: Arc::new(env),
            fds: FdTable::Owned(fds.into_iter().map(|e| e.map(Arc::new)).collect()),
            clocks: Arc::new(super::clocks::Clocks::new()),
            rng: Arc::new(Mutex::new(rng)),
            net: Arc::new(net),
        })
    }
}
