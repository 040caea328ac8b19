//! [`WasiCtx`]: one guest's WASI world (arguments, environment, stdio,
//! the directories it may see, its fd table), and [`WasiCtxBuilder`] that
//! makes it. The fd table is where rights and fd numbers are checked: every
//! function reaches an fd through [`WasiCtx::get`] with the rights it needs.

use std::fs::File as StdFile;
use std::os::fd::AsFd;
use std::path::Path;

use cap_std::ambient_authority;
use cap_std::fs::{Dir, File};

use super::pipe::{ReadPipe, WritePipe};
use super::types::{filetype, rights, Errno, WasiResult};
use crate::error::{Error, Result};

/// What an fd refers to.
pub(crate) enum Kind {
    /// A file opened with `path_open` (or a host file given as stdio).
    File(File),
    /// A directory: a preopen (with the name the guest sees) or one opened
    /// with `path_open`.
    Dir { dir: Dir, preopen: Option<String> },
    /// One of the three standard streams.
    Stream(Stream),
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

/// One open fd.
pub(crate) struct Entry {
    pub kind: Kind,
    /// Rights of this fd.
    pub base: u64,
    /// Rights fds opened through this one (a directory's) may have.
    pub inheriting: u64,
    /// `fdflags` of streams, which have no host file to keep them.
    pub stream_flags: u16,
}

impl Entry {
    fn new(kind: Kind, base: u64, inheriting: u64) -> Entry {
        Entry { kind, base, inheriting, stream_flags: 0 }
    }

    /// The WASI file type.
    pub fn filetype(&self) -> u8 {
        match &self.kind {
            Kind::Dir { .. } => filetype::DIRECTORY,
            Kind::File(f) => f.metadata().map_or(filetype::UNKNOWN, |m| super::fd::filestat(&m).filetype),
            Kind::Stream(Stream::Host(f)) => stream_filetype(f),
            Kind::Stream(_) => filetype::UNKNOWN,
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
            Kind::Stream(_) => Err(Errno::Spipe),
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

/// A guest's WASI state. Lives in the store's data; [`Linker::define_wasi`](crate::Linker::define_wasi)
/// is told how to reach it.
pub struct WasiCtx {
    pub(crate) args: StringTable,
    pub(crate) env: StringTable,
    fds: Vec<Option<Entry>>,
    pub(crate) clocks: super::clocks::Clocks,
    pub(crate) rng: Box<dyn cap_rand::RngCore + Send + Sync>,
}

impl WasiCtx {
    /// A builder with no arguments, environment or directories and null
    /// stdio.
    pub fn builder() -> WasiCtxBuilder {
        WasiCtxBuilder::new()
    }

    /// The open entry `fd` if it has every right in `needed`: `EBADF` for
    /// a number that is not open, `ENOTCAPABLE` for missing rights.
    pub(crate) fn get(&self, fd: u32, needed: u64) -> WasiResult<&Entry> {
        let e = self.fds.get(fd as usize).and_then(Option::as_ref).ok_or(Errno::Badf)?;
        if e.base & needed != needed {
            return Err(Errno::Notcapable);
        }
        Ok(e)
    }

    /// As [`get`](Self::get), mutably.
    pub(crate) fn get_mut(&mut self, fd: u32, needed: u64) -> WasiResult<&mut Entry> {
        let e = self.fds.get_mut(fd as usize).and_then(Option::as_mut).ok_or(Errno::Badf)?;
        if e.base & needed != needed {
            return Err(Errno::Notcapable);
        }
        Ok(e)
    }

    /// Puts `entry` at the lowest free fd number.
    pub(crate) fn insert(&mut self, entry: Entry) -> WasiResult<u32> {
        let slot = self.fds.iter().position(Option::is_none).unwrap_or(self.fds.len());
        let fd = u32::try_from(slot).map_err(|_| Errno::Mfile)?;
        if slot == self.fds.len() {
            self.fds.push(Some(entry));
        } else {
            self.fds[slot] = Some(entry);
        }
        Ok(fd)
    }

    /// Removes `fd` from the table (closing it when dropped).
    pub(crate) fn remove(&mut self, fd: u32) -> WasiResult<Entry> {
        self.fds.get_mut(fd as usize).and_then(Option::take).ok_or(Errno::Badf)
    }

    /// Moves `from` to `to`, closing what `to` held. Both must be open.
    pub(crate) fn renumber(&mut self, from: u32, to: u32) -> WasiResult {
        self.get(from, 0)?;
        self.get(to, 0)?;
        if from != to {
            let e = self.remove(from)?;
            self.fds[to as usize] = Some(e);
        }
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

    /// Random bytes for `random_get` come from `rng` instead of the OS
    /// (for reproducible tests).
    pub fn rng(&mut self, rng: impl cap_rand::RngCore + Send + Sync + 'static) -> &mut Self {
        self.rng = Some(Box::new(rng));
        self
    }

    /// The context. Fails when a preopened directory cannot be opened or a
    /// host stream cannot be duplicated.
    pub fn build(&mut self) -> Result<WasiCtx> {
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
        Ok(WasiCtx { args, env, fds, clocks: super::clocks::Clocks::new(), rng })
    }
}
