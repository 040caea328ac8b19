//! WASI preview 1's numbers: errno values, rights, flags and the byte
//! layouts of the records guests pass by pointer, as `wasi_snapshot_preview1`
//! (witx) fixes them. Everything the other files put in guest memory or
//! compare against guest arguments is named here, once.

use std::io;

macro_rules! errnos {
    ($($name:ident = $n:literal,)*) => {
        /// A WASI error number: what every `wasi_snapshot_preview1` function
        /// returns (0 is success).
        #[derive(Copy, Clone, Debug, PartialEq, Eq)]
        #[repr(u16)]
        #[allow(missing_docs)]
        pub enum Errno { $($name = $n,)* }

        impl Errno {
            /// The errno numbered `n`, if there is one.
            pub fn from_u16(n: u16) -> Option<Errno> {
                match n {
                    $($n => Some(Errno::$name),)*
                    _ => None,
                }
            }
        }
    };
}

errnos! {
    Success = 0, TooBig = 1, Acces = 2, Addrinuse = 3, Addrnotavail = 4, Afnosupport = 5, Again = 6,
    Already = 7, Badf = 8, Badmsg = 9, Busy = 10, Canceled = 11, Child = 12, Connaborted = 13,
    Connrefused = 14, Connreset = 15, Deadlk = 16, Destaddrreq = 17, Dom = 18, Dquot = 19, Exist = 20,
    Fault = 21, Fbig = 22, Hostunreach = 23, Idrm = 24, Ilseq = 25, Inprogress = 26, Intr = 27, Inval = 28,
    Io = 29, Isconn = 30, Isdir = 31, Loop = 32, Mfile = 33, Mlink = 34, Msgsize = 35, Multihop = 36,
    Nametoolong = 37, Netdown = 38, Netreset = 39, Netunreach = 40, Nfile = 41, Nobufs = 42, Nodev = 43,
    Noent = 44, Noexec = 45, Nolck = 46, Nolink = 47, Nomem = 48, Nomsg = 49, Noprotoopt = 50, Nospc = 51,
    Nosys = 52, Notconn = 53, Notdir = 54, Notempty = 55, Notrecoverable = 56, Notsock = 57, Notsup = 58,
    Notty = 59, Nxio = 60, Overflow = 61, Ownerdead = 62, Perm = 63, Pipe = 64, Proto = 65,
    Protonosupport = 66, Prototype = 67, Range = 68, Rofs = 69, Spipe = 70, Srch = 71, Stale = 72,
    Timedout = 73, Txtbsy = 74, Xdev = 75, Notcapable = 76,
}

/// What a WASI function implementation returns.
pub type WasiResult<T = ()> = Result<T, Errno>;

impl Errno {
    /// The errno of a host `errno` value (Linux numbering).
    pub fn from_raw_os(code: i32) -> Errno {
        use Errno::*;
        match code {
            libc::EPERM => Perm,
            libc::ENOENT => Noent,
            libc::ESRCH => Srch,
            libc::EINTR => Intr,
            libc::EIO => Io,
            libc::ENXIO => Nxio,
            libc::E2BIG => TooBig,
            libc::ENOEXEC => Noexec,
            libc::EBADF => Badf,
            libc::ECHILD => Child,
            libc::EAGAIN => Again,
            libc::ENOMEM => Nomem,
            libc::EACCES => Acces,
            libc::EFAULT => Fault,
            libc::EBUSY => Busy,
            libc::EEXIST => Exist,
            libc::EXDEV => Xdev,
            libc::ENODEV => Nodev,
            libc::ENOTDIR => Notdir,
            libc::EISDIR => Isdir,
            libc::EINVAL => Inval,
            libc::ENFILE => Nfile,
            libc::EMFILE => Mfile,
            libc::ENOTTY => Notty,
            libc::ETXTBSY => Txtbsy,
            libc::EFBIG => Fbig,
            libc::ENOSPC => Nospc,
            libc::ESPIPE => Spipe,
            libc::EROFS => Rofs,
            libc::EMLINK => Mlink,
            libc::EPIPE => Pipe,
            libc::EDOM => Dom,
            libc::ERANGE => Range,
            libc::EDEADLK => Deadlk,
            libc::ENAMETOOLONG => Nametoolong,
            libc::ENOLCK => Nolck,
            libc::ENOSYS => Nosys,
            libc::ENOTEMPTY => Notempty,
            libc::ELOOP => Loop,
            libc::ENOMSG => Nomsg,
            libc::EIDRM => Idrm,
            libc::ENOLINK => Nolink,
            libc::EPROTO => Proto,
            libc::EMULTIHOP => Multihop,
            libc::EBADMSG => Badmsg,
            libc::EOVERFLOW => Overflow,
            libc::EILSEQ => Ilseq,
            libc::ENOTSOCK => Notsock,
            libc::EDESTADDRREQ => Destaddrreq,
            libc::EMSGSIZE => Msgsize,
            libc::EPROTOTYPE => Prototype,
            libc::ENOPROTOOPT => Noprotoopt,
            libc::EPROTONOSUPPORT => Protonosupport,
            libc::EOPNOTSUPP => Notsup,
            libc::EAFNOSUPPORT => Afnosupport,
            libc::EADDRINUSE => Addrinuse,
            libc::EADDRNOTAVAIL => Addrnotavail,
            libc::ENETDOWN => Netdown,
            libc::ENETUNREACH => Netunreach,
            libc::ENETRESET => Netreset,
            libc::ECONNABORTED => Connaborted,
            libc::ECONNRESET => Connreset,
            libc::ENOBUFS => Nobufs,
            libc::EISCONN => Isconn,
            libc::ENOTCONN => Notconn,
            libc::ETIMEDOUT => Timedout,
            libc::ECONNREFUSED => Connrefused,
            libc::EHOSTUNREACH => Hostunreach,
            libc::EALREADY => Already,
            libc::EINPROGRESS => Inprogress,
            libc::ESTALE => Stale,
            libc::EDQUOT => Dquot,
            libc::ECANCELED => Canceled,
            libc::EOWNERDEAD => Ownerdead,
            libc::ENOTRECOVERABLE => Notrecoverable,
            _ => Io,
        }
    }
}

impl From<io::Error> for Errno {
    fn from(e: io::Error) -> Errno {
        if let Some(code) = e.raw_os_error() {
            return Errno::from_raw_os(code);
        }
        match e.kind() {
            // cap-std's answer to a path that would leave its directory
            // (`..` past the root, an absolute path, a symlink out).
            io::ErrorKind::PermissionDenied => Errno::Notcapable,
            io::ErrorKind::NotFound => Errno::Noent,
            io::ErrorKind::AlreadyExists => Errno::Exist,
            io::ErrorKind::InvalidInput => Errno::Inval,
            io::ErrorKind::Unsupported => Errno::Notsup,
            io::ErrorKind::WouldBlock => Errno::Again,
            io::ErrorKind::Interrupted => Errno::Intr,
            io::ErrorKind::OutOfMemory => Errno::Nomem,
            _ => Errno::Io,
        }
    }
}

impl From<std::num::TryFromIntError> for Errno {
    fn from(_: std::num::TryFromIntError) -> Errno {
        Errno::Overflow
    }
}

/// Rights: what an fd may be used for (witx `rights`).
pub mod rights {
    #![allow(missing_docs)]
    pub const FD_DATASYNC: u64 = 1 << 0;
    pub const FD_READ: u64 = 1 << 1;
    pub const FD_SEEK: u64 = 1 << 2;
    pub const FD_FDSTAT_SET_FLAGS: u64 = 1 << 3;
    pub const FD_SYNC: u64 = 1 << 4;
    pub const FD_TELL: u64 = 1 << 5;
    pub const FD_WRITE: u64 = 1 << 6;
    pub const FD_ADVISE: u64 = 1 << 7;
    pub const FD_ALLOCATE: u64 = 1 << 8;
    pub const PATH_CREATE_DIRECTORY: u64 = 1 << 9;
    pub const PATH_CREATE_FILE: u64 = 1 << 10;
    pub const PATH_LINK_SOURCE: u64 = 1 << 11;
    pub const PATH_LINK_TARGET: u64 = 1 << 12;
    pub const PATH_OPEN: u64 = 1 << 13;
    pub const FD_READDIR: u64 = 1 << 14;
    pub const PATH_READLINK: u64 = 1 << 15;
    pub const PATH_RENAME_SOURCE: u64 = 1 << 16;
    pub const PATH_RENAME_TARGET: u64 = 1 << 17;
    pub const PATH_FILESTAT_GET: u64 = 1 << 18;
    pub const PATH_FILESTAT_SET_SIZE: u64 = 1 << 19;
    pub const PATH_FILESTAT_SET_TIMES: u64 = 1 << 20;
    pub const FD_FILESTAT_GET: u64 = 1 << 21;
    pub const FD_FILESTAT_SET_SIZE: u64 = 1 << 22;
    pub const FD_FILESTAT_SET_TIMES: u64 = 1 << 23;
    pub const PATH_SYMLINK: u64 = 1 << 24;
    pub const PATH_REMOVE_DIRECTORY: u64 = 1 << 25;
    pub const PATH_UNLINK_FILE: u64 = 1 << 26;
    pub const POLL_FD_READWRITE: u64 = 1 << 27;
    pub const SOCK_SHUTDOWN: u64 = 1 << 28;
    pub const SOCK_ACCEPT: u64 = 1 << 29;

    /// Rights that make sense on a regular file.
    pub const FILE: u64 = FD_DATASYNC
        | FD_READ
        | FD_SEEK
        | FD_FDSTAT_SET_FLAGS
        | FD_SYNC
        | FD_TELL
        | FD_WRITE
        | FD_ADVISE
        | FD_ALLOCATE
        | FD_FILESTAT_GET
        | FD_FILESTAT_SET_SIZE
        | FD_FILESTAT_SET_TIMES
        | POLL_FD_READWRITE;
    /// Rights that make sense on a directory.
    pub const DIR: u64 = FD_FDSTAT_SET_FLAGS
        | FD_SYNC
        | FD_ADVISE
        | PATH_CREATE_DIRECTORY
        | PATH_CREATE_FILE
        | PATH_LINK_SOURCE
        | PATH_LINK_TARGET
        | PATH_OPEN
        | FD_READDIR
        | PATH_READLINK
        | PATH_RENAME_SOURCE
        | PATH_RENAME_TARGET
        | PATH_FILESTAT_GET
        | PATH_FILESTAT_SET_SIZE
        | PATH_FILESTAT_SET_TIMES
        | FD_FILESTAT_GET
        | FD_FILESTAT_SET_TIMES
        | PATH_SYMLINK
        | PATH_REMOVE_DIRECTORY
        | PATH_UNLINK_FILE;
    /// Rights of a terminal or pipe (stdio).
    pub const STREAM: u64 = FD_READ | FD_FDSTAT_SET_FLAGS | FD_WRITE | FD_FILESTAT_GET | POLL_FD_READWRITE;
    /// Rights a directory opened read-only keeps: nothing that changes
    /// what is under it.
    pub const DIR_READONLY: u64 = DIR
        & !(PATH_CREATE_DIRECTORY
            | PATH_CREATE_FILE
            | PATH_LINK_TARGET
            | PATH_RENAME_SOURCE
            | PATH_RENAME_TARGET
            | PATH_FILESTAT_SET_SIZE
            | PATH_FILESTAT_SET_TIMES
            | FD_FILESTAT_SET_TIMES
            | PATH_SYMLINK
            | PATH_REMOVE_DIRECTORY
            | PATH_UNLINK_FILE);
    /// What files under a read-only directory may be opened with.
    pub const FILE_READONLY: u64 =
        FILE & !(FD_DATASYNC | FD_WRITE | FD_ALLOCATE | FD_FILESTAT_SET_SIZE | FD_FILESTAT_SET_TIMES);
}

/// `filetype`.
pub mod filetype {
    #![allow(missing_docs)]
    pub const UNKNOWN: u8 = 0;
    pub const BLOCK_DEVICE: u8 = 1;
    pub const CHARACTER_DEVICE: u8 = 2;
    pub const DIRECTORY: u8 = 3;
    pub const REGULAR_FILE: u8 = 4;
    pub const SOCKET_DGRAM: u8 = 5;
    pub const SOCKET_STREAM: u8 = 6;
    pub const SYMBOLIC_LINK: u8 = 7;
}

/// `fdflags`.
pub mod fdflags {
    #![allow(missing_docs)]
    pub const APPEND: u16 = 1 << 0;
    pub const DSYNC: u16 = 1 << 1;
    pub const NONBLOCK: u16 = 1 << 2;
    pub const RSYNC: u16 = 1 << 3;
    pub const SYNC: u16 = 1 << 4;
}

/// `oflags` of `path_open`.
pub mod oflags {
    #![allow(missing_docs)]
    pub const CREAT: u16 = 1 << 0;
    pub const DIRECTORY: u16 = 1 << 1;
    pub const EXCL: u16 = 1 << 2;
    pub const TRUNC: u16 = 1 << 3;
}

/// `fstflags` of the `*_set_times` functions.
pub mod fstflags {
    #![allow(missing_docs)]
    pub const ATIM: u16 = 1 << 0;
    pub const ATIM_NOW: u16 = 1 << 1;
    pub const MTIM: u16 = 1 << 2;
    pub const MTIM_NOW: u16 = 1 << 3;
}

/// `lookupflags`: follow a final symlink.
pub const LOOKUP_SYMLINK_FOLLOW: u32 = 1;

/// `clockid`.
pub mod clockid {
    #![allow(missing_docs)]
    pub const REALTIME: u32 = 0;
    pub const MONOTONIC: u32 = 1;
    pub const PROCESS_CPUTIME_ID: u32 = 2;
    pub const THREAD_CPUTIME_ID: u32 = 3;
}

/// `eventtype` of poll subscriptions and events.
pub mod eventtype {
    #![allow(missing_docs)]
    pub const CLOCK: u8 = 0;
    pub const FD_READ: u8 = 1;
    pub const FD_WRITE: u8 = 2;
}

/// `subclockflags`: the timeout is an absolute time.
pub const SUBSCRIPTION_CLOCK_ABSTIME: u16 = 1;
/// `eventrwflags`: the peer hung up.
pub const EVENT_FD_READWRITE_HANGUP: u16 = 1;

/// `whence` of `fd_seek`.
pub mod whence {
    #![allow(missing_docs)]
    pub const SET: u8 = 0;
    pub const CUR: u8 = 1;
    pub const END: u8 = 2;
}

/// `sdflags` of `sock_shutdown`.
pub mod sdflags {
    #![allow(missing_docs)]
    pub const RD: u8 = 1;
    pub const WR: u8 = 2;
}

/// Byte sizes of the records in guest memory.
pub mod size {
    #![allow(missing_docs)]
    pub const IOVEC: u32 = 8;
    pub const FDSTAT: u32 = 24;
    pub const FILESTAT: u32 = 64;
    pub const DIRENT: u32 = 24;
    pub const PRESTAT: u32 = 8;
    pub const SUBSCRIPTION: u32 = 48;
    pub const EVENT: u32 = 32;
}

/// A `filestat` record before it is written to guest memory.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Filestat {
    /// Device id.
    pub dev: u64,
    /// Inode number.
    pub ino: u64,
    /// One of [`filetype`].
    pub filetype: u8,
    /// Number of hard links.
    pub nlink: u64,
    /// Size in bytes.
    pub size: u64,
    /// Access, modification and status-change times, ns since the epoch.
    pub atim: u64,
    /// See `atim`.
    pub mtim: u64,
    /// See `atim`.
    pub ctim: u64,
}

impl Filestat {
    /// The record's bytes, as `filestat` lays them out.
    pub fn to_bytes(&self) -> [u8; size::FILESTAT as usize] {
        let mut b = [0u8; size::FILESTAT as usize];
        b[0..8].copy_from_slice(&self.dev.to_le_bytes());
        b[8..16].copy_from_slice(&self.ino.to_le_bytes());
        b[16] = self.filetype;
        b[24..32].copy_from_slice(&self.nlink.to_le_bytes());
        b[32..40].copy_from_slice(&self.size.to_le_bytes());
        b[40..48].copy_from_slice(&self.atim.to_le_bytes());
        b[48..56].copy_from_slice(&self.mtim.to_le_bytes());
        b[56..64].copy_from_slice(&self.ctim.to_le_bytes());
        b
    }
}
