//! `fd_*`: operations on an open fd (read, write, seek, stat, flags,
//! rights, directory listing, preopen names, closing and renumbering).
//! Each one first takes its entry from the table with the rights it needs,
//! so a missing right or a closed fd fails before anything is touched.
//!
//! Reads and writes gather guest iovecs into at most [`MAX_IOVS`] slices on
//! the stack: `fd_write` of a small buffer allocates nothing.

use std::io::{IoSlice, Read, SeekFrom, Write};
use std::os::fd::AsRawFd;

use cap_fs_ext::SystemTimeSpec;
use cap_std::fs::MetadataExt;
use fs_set_times::SetTimes;
use system_interface::fs::{Advice, FdFlags, FileIoExt, GetSetFdFlags};

use super::ctx::{Entry, Kind, Stream, WasiCtx};
use super::guest::GuestMemory;
use super::sock;
use super::types::{fdflags, filetype, fstflags, rights, size, whence, Errno, Filestat, WasiResult};
use crate::runtime::vm::blocking::{self, Polled};

/// Iovecs handed to the host in one call; more are written in a later
/// call, which POSIX allows (a short write).
const MAX_IOVS: usize = 16;

/// The byte range of a checked iovec, summed in `usize`: one that ends at
/// exactly 4 GiB would wrap in `u32`.
fn span(buf: u32, len: u32) -> std::ops::Range<usize> {
    buf as usize..buf as usize + len as usize
}

/// The guest's iovecs at `iovs` as host slices (the first `MAX_IOVS`
/// non-empty ones), passed to `f`.
fn gather<R>(mem: &GuestMemory<'_>, iovs: u32, n: u32, f: impl FnOnce(&[IoSlice<'_>]) -> R) -> WasiResult<R> {
    let mut it = mem.iovecs(iovs, n)?;
    let mut slices = [IoSlice::new(&[]); MAX_IOVS];
    let mut count = 0;
    let bytes = mem.bytes();
    while let Some((buf, len)) = it.next(mem) {
        if len == 0 {
            continue;
        }
        if count == MAX_IOVS {
            break;
        }
        slices[count] = IoSlice::new(&bytes[span(buf, len)]);
        count += 1;
    }
    Ok(f(&slices[..count]))
}

/// Reads into the guest's iovecs one after another with `read` (given a
/// buffer and the bytes read so far), stopping at a short read. Iovecs may
/// overlap, so they are never borrowed mutably at once.
fn scatter(
    mem: &mut GuestMemory<'_>,
    iovs: u32,
    n: u32,
    mut read: impl FnMut(&mut [u8], u64) -> std::io::Result<usize>,
) -> WasiResult<u32> {
    let mut it = mem.iovecs(iovs, n)?;
    let mut total: u32 = 0;
    while let Some((buf, len)) = it.next(mem) {
        if len == 0 {
            continue;
        }
        let dst = &mut mem.bytes_mut()[span(buf, len)];
        let got = match read(dst, total as u64) {
            Ok(got) => got,
            // What was read before an error is the result.
            Err(_) if total > 0 => break,
            Err(e) => return Err(e.into()),
        };
        total = total.saturating_add(got as u32);
        if got < len as usize {
            break;
        }
    }
    Ok(total)
}

/// The WASI record of a host file's metadata.
pub(crate) fn filestat(meta: &cap_std::fs::Metadata) -> Filestat {
    use cap_fs_ext::FileTypeExt;
    let t = meta.file_type();
    let filetype = if t.is_dir() {
        filetype::DIRECTORY
    } else if t.is_symlink() {
        filetype::SYMBOLIC_LINK
    } else if t.is_file() {
        filetype::REGULAR_FILE
    } else if t.is_char_device() {
        filetype::CHARACTER_DEVICE
    } else if t.is_block_device() {
        filetype::BLOCK_DEVICE
    } else if t.is_socket() {
        filetype::SOCKET_STREAM
    } else {
        filetype::UNKNOWN
    };
    let ns = |t: std::io::Result<cap_std::time::SystemTime>| {
        t.ok().and_then(|t| t.into_std().duration_since(std::time::UNIX_EPOCH).ok()).map_or(0, |d| d.as_nanos() as u64)
    };
    Filestat {
        dev: meta.dev(),
        ino: meta.ino(),
        filetype,
        nlink: meta.nlink(),
        size: meta.len(),
        atim: ns(meta.accessed()),
        mtim: ns(meta.modified()),
        ctim: (meta.ctime() as u64).saturating_mul(1_000_000_000).saturating_add(meta.ctime_nsec() as u64),
    }
}

/// The times of a `*_set_times` call, checked: setting a time and "now"
/// for the same field is `EINVAL`.
pub(crate) fn set_times_spec(
    atim: u64,
    mtim: u64,
    flags: u16,
) -> WasiResult<(Option<SystemTimeSpec>, Option<SystemTimeSpec>)> {
    if flags & !(fstflags::ATIM | fstflags::ATIM_NOW | fstflags::MTIM | fstflags::MTIM_NOW) != 0 {
        return Err(Errno::Inval);
    }
    let one = |t: u64, set: u16, now: u16| -> WasiResult<Option<SystemTimeSpec>> {
        match (flags & set != 0, flags & now != 0) {
            (true, true) => Err(Errno::Inval),
            (true, false) => Ok(Some(SystemTimeSpec::Absolute(cap_std::time::SystemTime::from_std(
                std::time::UNIX_EPOCH + std::time::Duration::from_nanos(t),
            )))),
            (false, true) => Ok(Some(SystemTimeSpec::SymbolicNow)),
            (false, false) => Ok(None),
        }
    };
    Ok((one(atim, fstflags::ATIM, fstflags::ATIM_NOW)?, one(mtim, fstflags::MTIM, fstflags::MTIM_NOW)?))
}

pub fn fd_advise(
    cx: &mut WasiCtx,
    _mem: &mut GuestMemory<'_>,
    fd: u32,
    offset: u64,
    len: u64,
    advice: u32,
) -> WasiResult {
    let e = cx.get(fd, rights::FD_ADVISE)?;
    let file = e.file()?;
    let advice = match advice {
        0 => Advice::Normal,
        1 => Advice::Sequential,
        2 => Advice::Random,
        3 => Advice::WillNeed,
        4 => Advice::DontNeed,
        5 => Advice::NoReuse,
        _ => return Err(Errno::Inval),
    };
    Ok(file.advise(offset, len, advice)?)
}

pub fn fd_allocate(cx: &mut WasiCtx, _mem: &mut GuestMemory<'_>, fd: u32, offset: u64, len: u64) -> WasiResult {
    let e = cx.get(fd, rights::FD_ALLOCATE)?;
    let file = e.file()?;
    offset.checked_add(len).filter(|end| *end <= i64::MAX as u64).ok_or(Errno::Inval)?;
    Ok(file.allocate(offset, len)?)
}

pub fn fd_close(cx: &mut WasiCtx, _mem: &mut GuestMemory<'_>, fd: u32) -> WasiResult {
    cx.remove(fd).map(drop)
}

pub fn fd_datasync(cx: &mut WasiCtx, _mem: &mut GuestMemory<'_>, fd: u32) -> WasiResult {
    Ok(cx.get(fd, rights::FD_DATASYNC)?.file()?.sync_data()?)
}

pub fn fd_sync(cx: &mut WasiCtx, _mem: &mut GuestMemory<'_>, fd: u32) -> WasiResult {
    let e = cx.get(fd, rights::FD_SYNC)?;
    match &e.kind {
        Kind::File(f) => Ok(f.sync_all()?),
        // A directory's entries are made durable by syncing it.
        Kind::Dir { dir, .. } => Ok(dir.open(".")?.sync_all()?),
        Kind::Stream(_) | Kind::Socket(_) => Err(Errno::Inval),
    }
}

/// The fd's flags as WASI spells them.
fn flags_of(e: &Entry) -> WasiResult<u16> {
    match &e.kind {
        Kind::File(f) => {
            let host = f.get_fd_flags()?;
            let mut flags = 0;
            for (h, w) in [
                (FdFlags::APPEND, fdflags::APPEND),
                (FdFlags::DSYNC, fdflags::DSYNC),
                (FdFlags::NONBLOCK, fdflags::NONBLOCK),
                (FdFlags::RSYNC, fdflags::RSYNC),
                (FdFlags::SYNC, fdflags::SYNC),
            ] {
                if host.contains(h) {
                    flags |= w;
                }
            }
            Ok(flags)
        }
        Kind::Dir { .. } => Ok(0),
        Kind::Stream(_) | Kind::Socket(_) => Ok(e.stream_flags()),
    }
}

pub fn fd_fdstat_get(cx: &mut WasiCtx, mem: &mut GuestMemory<'_>, fd: u32, out: u32) -> WasiResult {
    let e = cx.get(fd, 0)?;
    let mut b = [0u8; size::FDSTAT as usize];
    b[0] = e.filetype();
    b[2..4].copy_from_slice(&flags_of(&e)?.to_le_bytes());
    b[8..16].copy_from_slice(&e.base().to_le_bytes());
    b[16..24].copy_from_slice(&e.inheriting().to_le_bytes());
    mem.write(out, &b)
}

pub fn fd_fdstat_set_flags(cx: &mut WasiCtx, _mem: &mut GuestMemory<'_>, fd: u32, flags: u32) -> WasiResult {
    let e = cx.get(fd, rights::FD_FDSTAT_SET_FLAGS)?;
    let flags = u16::try_from(flags).map_err(|_| Errno::Inval)?;
    if flags & !(fdflags::APPEND | fdflags::DSYNC | fdflags::NONBLOCK | fdflags::RSYNC | fdflags::SYNC) != 0 {
        return Err(Errno::Inval);
    }
    match &e.kind {
        Kind::File(f) => {
            // Linux cannot change the sync modes of an open file.
            if flags & (fdflags::DSYNC | fdflags::RSYNC | fdflags::SYNC) != 0 {
                return Err(Errno::Notsup);
            }
            let mut host = FdFlags::empty();
            if flags & fdflags::APPEND != 0 {
                host |= FdFlags::APPEND;
            }
            if flags & fdflags::NONBLOCK != 0 {
                host |= FdFlags::NONBLOCK;
            }
            let set = GetSetFdFlags::new_set_fd_flags(f, host)?;
            // Setting flags wants the file mutably, but other threads may
            // use this entry: set them through a duplicate, which shares
            // the open file description (and so its flags).
            let mut dup = f.try_clone()?;
            Ok(GetSetFdFlags::set_fd_flags(&mut dup, set)?)
        }
        Kind::Dir { .. } => Ok(()),
        Kind::Stream(_) | Kind::Socket(_) => {
            e.set_stream_flags(flags & (fdflags::APPEND | fdflags::NONBLOCK));
            Ok(())
        }
    }
}

pub fn fd_fdstat_set_rights(
    cx: &mut WasiCtx,
    _mem: &mut GuestMemory<'_>,
    fd: u32,
    base: u64,
    inheriting: u64,
) -> WasiResult {
    let e = cx.get(fd, 0)?;
    // Rights only ever shrink.
    if base & !e.base() != 0 || inheriting & !e.inheriting() != 0 {
        return Err(Errno::Notcapable);
    }
    e.set_rights(base, inheriting);
    Ok(())
}

pub fn fd_filestat_get(cx: &mut WasiCtx, mem: &mut GuestMemory<'_>, fd: u32, out: u32) -> WasiResult {
    let e = cx.get(fd, rights::FD_FILESTAT_GET)?;
    let stat = match &e.kind {
        Kind::File(f) => filestat(&f.metadata()?),
        Kind::Dir { dir, .. } => filestat(&dir.dir_metadata()?),
        Kind::Stream(Stream::Host(f)) => {
            let mut s = filestat(&cap_std::fs::Metadata::from_just_metadata(f.metadata()?));
            s.filetype = e.filetype();
            s
        }
        Kind::Stream(_) | Kind::Socket(_) => Filestat { filetype: e.filetype(), ..Filestat::default() },
    };
    mem.write(out, &stat.to_bytes())
}

pub fn fd_filestat_set_size(cx: &mut WasiCtx, _mem: &mut GuestMemory<'_>, fd: u32, size: u64) -> WasiResult {
    let e = cx.get(fd, rights::FD_FILESTAT_SET_SIZE)?;
    let file = e.file()?;
    Ok(file.set_len(size)?)
}

pub fn fd_filestat_set_times(
    cx: &mut WasiCtx,
    _mem: &mut GuestMemory<'_>,
    fd: u32,
    atim: u64,
    mtim: u64,
    flags: u32,
) -> WasiResult {
    let e = cx.get(fd, rights::FD_FILESTAT_SET_TIMES)?;
    let (a, m) = set_times_spec(atim, mtim, flags as u16)?;
    match &e.kind {
        Kind::File(f) => Ok(SetTimes::set_times(f, a.map(SystemTimeSpec::into_std), m.map(SystemTimeSpec::into_std))?),
        Kind::Dir { dir, .. } => {
            Ok(SetTimes::set_times(dir, a.map(SystemTimeSpec::into_std), m.map(SystemTimeSpec::into_std))?)
        }
        Kind::Stream(_) | Kind::Socket(_) => Err(Errno::Badf),
    }
}

pub fn fd_pread(
    cx: &mut WasiCtx,
    mem: &mut GuestMemory<'_>,
    fd: u32,
    iovs: u32,
    n: u32,
    offset: u64,
    out: u32,
) -> WasiResult {
    let e = cx.get(fd, rights::FD_READ | rights::FD_SEEK)?;
    let file = e.file()?;
    let got = scatter(mem, iovs, n, |buf, done| file.read_at(buf, offset + done))?;
    mem.write_u32(out, got)
}

pub fn fd_pwrite(
    cx: &mut WasiCtx,
    mem: &mut GuestMemory<'_>,
    fd: u32,
    iovs: u32,
    n: u32,
    offset: u64,
    out: u32,
) -> WasiResult {
    let e = cx.get(fd, rights::FD_WRITE | rights::FD_SEEK)?;
    let file = e.file()?;
    let wrote = gather(mem, iovs, n, |slices| file.write_vectored_at(slices, offset))??;
    mem.write_u32(out, wrote as u32)
}

/// Waits until the host stream `f` has something to read (or its end),
/// so that a stop of the guest's call ends a read that would block
/// (`EINTR`, which the guest never sees: its call traps on return).
fn wait_readable(f: &std::fs::File) -> WasiResult {
    let mut fds = [libc::pollfd { fd: f.as_raw_fd(), events: libc::POLLIN, revents: 0 }];
    match blocking::poll(&mut fds, None)? {
        Polled::Stopped(_) => Err(Errno::Intr),
        Polled::Ready(_) => Ok(()),
    }
}

pub fn fd_read(cx: &mut WasiCtx, mem: &mut GuestMemory<'_>, fd: u32, iovs: u32, n: u32, out: u32) -> WasiResult {
    let e = cx.get(fd, rights::FD_READ)?;
    let got = match &e.kind {
        Kind::File(f) => scatter(mem, iovs, n, |buf, _| (&*f).read(buf))?,
        Kind::Dir { .. } => return Err(Errno::Isdir),
        Kind::Stream(Stream::Host(f)) => {
            if e.stream_flags() & fdflags::NONBLOCK == 0 && blocking::stoppable() {
                wait_readable(f)?;
            }
            scatter(mem, iovs, n, |buf, _| (&*f).read(buf))?
        }
        Kind::Stream(Stream::Read(p)) => scatter(mem, iovs, n, |buf, _| Ok(p.read(buf)))?,
        Kind::Stream(Stream::Write(_)) => return Err(Errno::Badf),
        Kind::Stream(Stream::Null) => {
            mem.iovecs(iovs, n)?;
            0
        }
        Kind::Socket(s) => sock::read(s, e.stream_flags() & fdflags::NONBLOCK != 0, mem, iovs, n)?,
    };
    mem.write_u32(out, got)
}

pub fn fd_write(cx: &mut WasiCtx, mem: &mut GuestMemory<'_>, fd: u32, iovs: u32, n: u32, out: u32) -> WasiResult {
    let e = cx.get(fd, rights::FD_WRITE)?;
    let wrote = match &e.kind {
        Kind::File(f) => gather(mem, iovs, n, |s| (&*f).write_vectored(s))??,
        Kind::Dir { .. } => return Err(Errno::Isdir),
        Kind::Stream(Stream::Host(f)) => gather(mem, iovs, n, |s| (&*f).write_vectored(s))??,
        Kind::Stream(Stream::Write(p)) => {
            let mut it = mem.iovecs(iovs, n)?;
            let bytes = mem.bytes();
            p.write_parts(std::iter::from_fn(|| it.next(mem).map(|(b, l)| &bytes[span(b, l)])))
        }
        Kind::Stream(Stream::Read(_)) => return Err(Errno::Badf),
        Kind::Stream(Stream::Null) => {
            let mut it = mem.iovecs(iovs, n)?;
            std::iter::from_fn(|| it.next(mem)).map(|(_, l)| l as usize).sum()
        }
        Kind::Socket(s) => sock::write(s, e.stream_flags() & fdflags::NONBLOCK != 0, mem, iovs, n)? as usize,
    };
    mem.write_u32(out, wrote as u32)
}

pub fn fd_seek(cx: &mut WasiCtx, mem: &mut GuestMemory<'_>, fd: u32, offset: i64, how: u32, out: u32) -> WasiResult {
    // Asking where one is needs only the right to tell.
    let needed = if offset == 0 && how == u32::from(whence::CUR) { rights::FD_TELL } else { rights::FD_SEEK };
    let e = cx.get(fd, needed)?;
    let file = e.file()?;
    let pos = match how as u8 {
        whence::SET => SeekFrom::Start(u64::try_from(offset).map_err(|_| Errno::Inval)?),
        whence::CUR => SeekFrom::Current(offset),
        whence::END => SeekFrom::End(offset),
        _ => return Err(Errno::Inval),
    };
    let new = file.seek(pos)?;
    mem.write_u64(out, new)
}

pub fn fd_tell(cx: &mut WasiCtx, mem: &mut GuestMemory<'_>, fd: u32, out: u32) -> WasiResult {
    let e = cx.get(fd, rights::FD_TELL)?;
    let file = e.file()?;
    let pos = file.stream_position()?;
    mem.write_u64(out, pos)
}

pub fn fd_prestat_get(cx: &mut WasiCtx, mem: &mut GuestMemory<'_>, fd: u32, out: u32) -> WasiResult {
    let e = cx.get(fd, 0)?;
    let name = preopen_name(&e)?;
    let mut b = [0u8; size::PRESTAT as usize];
    b[4..8].copy_from_slice(&(name.len() as u32).to_le_bytes());
    mem.write(out, &b)
}

pub fn fd_prestat_dir_name(cx: &mut WasiCtx, mem: &mut GuestMemory<'_>, fd: u32, path: u32, len: u32) -> WasiResult {
    let e = cx.get(fd, 0)?;
    let name = preopen_name(&e)?;
    if (len as usize) < name.len() {
        return Err(Errno::Nametoolong);
    }
    mem.write(path, name.as_bytes())
}

/// The guest name of a preopen's entry; `EBADF` for any other fd.
fn preopen_name(e: &Entry) -> WasiResult<&str> {
    match &e.kind {
        Kind::Dir { preopen: Some(name), .. } => Ok(name),
        _ => Err(Errno::Badf),
    }
}

pub fn fd_renumber(cx: &mut WasiCtx, _mem: &mut GuestMemory<'_>, from: u32, to: u32) -> WasiResult {
    cx.renumber(from, to)
}

/// One directory entry as `fd_readdir` reports it.
struct Dirent {
    ino: u64,
    filetype: u8,
}

pub fn fd_readdir(
    cx: &mut WasiCtx,
    mem: &mut GuestMemory<'_>,
    fd: u32,
    buf: u32,
    buf_len: u32,
    cookie: u64,
    out: u32,
) -> WasiResult {
    let e = cx.get(fd, rights::FD_READDIR)?;
    let dir = e.dir()?;
    mem.slice(buf, buf_len)?;
    let this = dir.dir_metadata()?;
    let parent = dir.open_dir("..").and_then(|d| d.dir_metadata()).map(|m| m.ino()).unwrap_or(this.ino());
    let dots = [
        (".", Dirent { ino: this.ino(), filetype: filetype::DIRECTORY }),
        ("..", Dirent { ino: parent, filetype: filetype::DIRECTORY }),
    ];
    let mut used: u32 = 0;
    let mut next: u64 = 0;
    // Writes one entry (header, then as much of the name as fits); false
    // once the buffer is full, which tells the guest to call again.
    let mut put = |mem: &mut GuestMemory<'_>, name: &[u8], d: &Dirent| -> WasiResult<bool> {
        next += 1;
        if next <= cookie {
            return Ok(true);
        }
        let mut head = [0u8; size::DIRENT as usize];
        head[0..8].copy_from_slice(&next.to_le_bytes());
        head[8..16].copy_from_slice(&d.ino.to_le_bytes());
        head[16..20].copy_from_slice(&(name.len() as u32).to_le_bytes());
        head[20] = d.filetype;
        for part in [&head[..], name] {
            let room = (buf_len - used) as usize;
            let n = part.len().min(room);
            mem.write(buf + used, &part[..n])?;
            used += n as u32;
        }
        Ok(used < buf_len)
    };
    let mut more = true;
    for (name, d) in &dots {
        more = more && put(mem, name.as_bytes(), d)?;
    }
    if more {
        use std::os::unix::ffi::OsStrExt;
        for entry in dir.entries()? {
            let entry = entry?;
            let d = Dirent { ino: entry.metadata().map(|m| m.ino()).unwrap_or(0), filetype: entry_filetype(&entry) };
            if !put(mem, entry.file_name().as_bytes(), &d)? {
                break;
            }
        }
    }
    mem.write_u32(out, used)
}

fn entry_filetype(entry: &cap_std::fs::DirEntry) -> u8 {
    use cap_fs_ext::FileTypeExt;
    match entry.file_type() {
        Ok(t) if t.is_dir() => filetype::DIRECTORY,
        Ok(t) if t.is_symlink() => filetype::SYMBOLIC_LINK,
        Ok(t) if t.is_file() => filetype::REGULAR_FILE,
        Ok(t) if t.is_char_device() => filetype::CHARACTER_DEVICE,
        Ok(t) if t.is_block_device() => filetype::BLOCK_DEVICE,
        Ok(t) if t.is_socket() => filetype::SOCKET_STREAM,
        _ => filetype::UNKNOWN,
    }
}
