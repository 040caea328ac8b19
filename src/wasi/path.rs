//! `path_*`: everything that names a file by a path relative to a
//! directory fd. Each path is resolved by cap-std beneath that directory's
//! handle (the kernel's `openat2(RESOLVE_BENEATH)` where it has it, a
//! component-by-component walk that refuses to climb out otherwise), so
//! `..`, absolute paths and symlinks — including ones the guest creates and
//! ones swapped in mid-walk — cannot leave it. Rights are checked on both
//! directories of two-path calls (rename, link).

use std::path::Path;

use cap_fs_ext::{DirExt, FollowSymlinks, OpenOptionsFollowExt, OpenOptionsMaybeDirExt, OpenOptionsSyncExt};
use cap_std::fs::{Dir, OpenOptions};

use super::ctx::{EntryRef, Kind, WasiCtx};
use super::fd::{filestat, set_times_spec};
use super::guest::GuestMemory;
use super::types::{fdflags, oflags, rights, Errno, WasiResult, LOOKUP_SYMLINK_FOLLOW};

/// The directory entry `fd` (with `needed` rights, checked to be a
/// directory) and the guest's path.
fn dir_and_path<'a>(
    cx: &'a WasiCtx,
    mem: &'a GuestMemory<'_>,
    fd: u32,
    needed: u64,
    path: u32,
    len: u32,
) -> WasiResult<(EntryRef<'a>, &'a Path)> {
    let e = cx.get(fd, needed)?;
    e.dir()?;
    Ok((e, Path::new(mem.str(path, len)?)))
}

pub fn path_create_directory(cx: &mut WasiCtx, mem: &mut GuestMemory<'_>, fd: u32, path: u32, len: u32) -> WasiResult {
    let (dir, path) = dir_and_path(cx, mem, fd, rights::PATH_CREATE_DIRECTORY, path, len)?;
    let dir = dir.dir()?;
    Ok(dir.create_dir(path)?)
}

pub fn path_filestat_get(
    cx: &mut WasiCtx,
    mem: &mut GuestMemory<'_>,
    fd: u32,
    flags: u32,
    path: u32,
    len: u32,
    out: u32,
) -> WasiResult {
    let (dir, p) = dir_and_path(cx, mem, fd, rights::PATH_FILESTAT_GET, path, len)?;
    let dir = dir.dir()?;
    let meta = if flags & LOOKUP_SYMLINK_FOLLOW != 0 { dir.metadata(p)? } else { dir.symlink_metadata(p)? };
    let stat = filestat(&meta);
    mem.write(out, &stat.to_bytes())
}

#[allow(clippy::too_many_arguments)]
pub fn path_filestat_set_times(
    cx: &mut WasiCtx,
    mem: &mut GuestMemory<'_>,
    fd: u32,
    flags: u32,
    path: u32,
    len: u32,
    atim: u64,
    mtim: u64,
    fst: u32,
) -> WasiResult {
    let (dir, p) = dir_and_path(cx, mem, fd, rights::PATH_FILESTAT_SET_TIMES, path, len)?;
    let dir = dir.dir()?;
    let (a, m) = set_times_spec(atim, mtim, fst as u16)?;
    if flags & LOOKUP_SYMLINK_FOLLOW != 0 {
        Ok(dir.set_times(p, a, m)?)
    } else {
        Ok(dir.set_symlink_times(p, a, m)?)
    }
}

#[allow(clippy::too_many_arguments)]
pub fn path_link(
    cx: &mut WasiCtx,
    mem: &mut GuestMemory<'_>,
    old_fd: u32,
    old_flags: u32,
    old_path: u32,
    old_len: u32,
    new_fd: u32,
    new_path: u32,
    new_len: u32,
) -> WasiResult {
    let (old_dir, old) = dir_and_path(cx, mem, old_fd, rights::PATH_LINK_SOURCE, old_path, old_len)?;
    let old_dir = old_dir.dir()?;
    let (new_dir, new) = dir_and_path(cx, mem, new_fd, rights::PATH_LINK_TARGET, new_path, new_len)?;
    let new_dir = new_dir.dir()?;
    // Following a symlink would let a link name a file the guest reached
    // by a path it cannot otherwise open; cap-std links the entry itself.
    if old_flags & LOOKUP_SYMLINK_FOLLOW != 0 {
        return Err(Errno::Inval);
    }
    Ok(old_dir.hard_link(old, new_dir, new)?)
}

#[allow(clippy::too_many_arguments)]
pub fn path_open(
    cx: &mut WasiCtx,
    mem: &mut GuestMemory<'_>,
    fd: u32,
    dirflags: u32,
    path: u32,
    len: u32,
    oflags: u32,
    base: u64,
    inheriting: u64,
    fdflags: u32,
    out: u32,
) -> WasiResult {
    let oflags = u16::try_from(oflags).map_err(|_| Errno::Inval)?;
    let fdflags = u16::try_from(fdflags).map_err(|_| Errno::Inval)?;
    let mut needed = rights::PATH_OPEN;
    if oflags & oflags::CREAT != 0 {
        needed |= rights::PATH_CREATE_FILE;
    }
    if oflags & oflags::TRUNC != 0 {
        needed |= rights::PATH_FILESTAT_SET_SIZE;
    }
    let parent = cx.get(fd, needed)?;
    let dir = parent.dir()?;
    let p = Path::new(mem.str(path, len)?);
    // A child never gets more than its directory may hand down.
    let (base, inheriting) = (base & parent.inheriting(), inheriting & parent.inheriting());
    let follow = if dirflags & LOOKUP_SYMLINK_FOLLOW != 0 { FollowSymlinks::Yes } else { FollowSymlinks::No };

    let kind = if oflags & oflags::DIRECTORY != 0 {
        if oflags & (oflags::CREAT | oflags::EXCL | oflags::TRUNC) != 0 {
            return Err(Errno::Inval);
        }
        // A directory cannot be opened for writing (POSIX's `EISDIR`).
        if base & rights::FD_WRITE != 0 {
            return Err(Errno::Isdir);
        }
        let d = match follow {
            FollowSymlinks::Yes => dir.open_dir(p)?,
            FollowSymlinks::No => dir.open_dir_nofollow(p)?,
        };
        Kind::Dir { dir: d, preopen: None }
    } else {
        let read = base & (rights::FD_READ | rights::FD_READDIR) != 0;
        let write_rights = rights::FD_DATASYNC | rights::FD_WRITE | rights::FD_ALLOCATE | rights::FD_FILESTAT_SET_SIZE;
        // Creating or truncating needs a writable open on the host, whatever
        // rights the guest keeps on the fd.
        let write =
            base & write_rights != 0 || fdflags & fdflags::APPEND != 0 || oflags & (oflags::CREAT | oflags::TRUNC) != 0;
        let mut opts = OpenOptions::new();
        opts.read(read || !write).write(write);
        if oflags & oflags::CREAT != 0 {
            if oflags & oflags::EXCL != 0 {
                opts.create_new(true);
            } else {
                opts.create(true);
            }
        }
        opts.truncate(oflags & oflags::TRUNC != 0);
        opts.follow(follow).maybe_dir(true);
        opts.dsync(fdflags & fdflags::DSYNC != 0)
            .sync(fdflags & fdflags::SYNC != 0)
            .rsync(fdflags & fdflags::RSYNC != 0);
        // Append and non-blocking go in as raw flags: std's `append`
        // refuses to be combined with `truncate`, which POSIX allows.
        let mut custom = 0;
        if fdflags & fdflags::APPEND != 0 {
            custom |= libc::O_APPEND;
        }
        if fdflags & fdflags::NONBLOCK != 0 {
            custom |= libc::O_NONBLOCK;
        }
        {
            use cap_std::fs::OpenOptionsExt;
            opts.custom_flags(custom);
        }
        let file = dir.open_with(p, &opts)?;
        if file.metadata()?.is_dir() {
            Kind::Dir { dir: Dir::from_std_file(file.into_std()), preopen: None }
        } else {
            Kind::File(file)
        }
    };
    let mask = if matches!(kind, Kind::Dir { .. }) { rights::DIR } else { rights::FILE };
    let new_fd = cx.insert(WasiCtx::opened(kind, base & mask, inheriting))?;
    mem.write_u32(out, new_fd)
}

#[allow(clippy::too_many_arguments)]
pub fn path_readlink(
    cx: &mut WasiCtx,
    mem: &mut GuestMemory<'_>,
    fd: u32,
    path: u32,
    len: u32,
    buf: u32,
    buf_len: u32,
    out: u32,
) -> WasiResult {
    use std::os::unix::ffi::OsStrExt;
    let (dir, p) = dir_and_path(cx, mem, fd, rights::PATH_READLINK, path, len)?;
    let dir = dir.dir()?;
    let target = dir.read_link_contents(p)?;
    let bytes = target.as_os_str().as_bytes();
    let n = bytes.len().min(buf_len as usize);
    mem.write(buf, &bytes[..n])?;
    mem.write_u32(out, n as u32)
}

pub fn path_remove_directory(cx: &mut WasiCtx, mem: &mut GuestMemory<'_>, fd: u32, path: u32, len: u32) -> WasiResult {
    let (dir, p) = dir_and_path(cx, mem, fd, rights::PATH_REMOVE_DIRECTORY, path, len)?;
    let dir = dir.dir()?;
    Ok(dir.remove_dir(p)?)
}

#[allow(clippy::too_many_arguments)]
pub fn path_rename(
    cx: &mut WasiCtx,
    mem: &mut GuestMemory<'_>,
    fd: u32,
    old_path: u32,
    old_len: u32,
    new_fd: u32,
    new_path: u32,
    new_len: u32,
) -> WasiResult {
    let (old_dir, old) = dir_and_path(cx, mem, fd, rights::PATH_RENAME_SOURCE, old_path, old_len)?;
    let old_dir = old_dir.dir()?;
    let (new_dir, new) = dir_and_path(cx, mem, new_fd, rights::PATH_RENAME_TARGET, new_path, new_len)?;
    let new_dir = new_dir.dir()?;
    Ok(old_dir.rename(old, new_dir, new)?)
}

pub fn path_symlink(
    cx: &mut WasiCtx,
    mem: &mut GuestMemory<'_>,
    old_path: u32,
    old_len: u32,
    fd: u32,
    new_path: u32,
    new_len: u32,
) -> WasiResult {
    let target = mem.str(old_path, old_len)?;
    let (dir, link) = dir_and_path(cx, mem, fd, rights::PATH_SYMLINK, new_path, new_len)?;
    let dir = dir.dir()?;
    // The target is stored, not resolved; it is resolved (beneath some
    // directory) only when a path through the link is used.
    Ok(dir.symlink(target, link)?)
}

pub fn path_unlink_file(cx: &mut WasiCtx, mem: &mut GuestMemory<'_>, fd: u32, path: u32, len: u32) -> WasiResult {
    let (dir, p) = dir_and_path(cx, mem, fd, rights::PATH_UNLINK_FILE, path, len)?;
    let dir = dir.dir()?;
    Ok(dir.remove_file_or_symlink(p)?)
}
