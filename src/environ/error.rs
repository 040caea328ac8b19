//! The error type of every fallible operation outside a running call.
//!
//! Variants carry structure where callers branch on them: which import
//! failed to link and why, an object of another store, a memory access or a
//! growth that does not fit. The rest carry a message. `Display` gives the
//! texts the C layer passes on (`link error: import m::f: ...`).

use std::any::{Any, TypeId};
use std::fmt;

use crate::environ::trap::Trap;
use crate::environ::types::{ExternType, ImportType};

/// Why loading, linking, instantiating or calling failed.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// The bytes are not a valid module: wasmparser's message and the byte
    /// offset it points at.
    Invalid {
        /// What is wrong.
        message: String,
        /// Where in the binary.
        offset: usize,
    },
    /// The module is valid but exceeds what this runtime can compile.
    Unsupported(String),
    /// An import is missing or does not match what the module declares.
    Link(LinkError),
    /// The operation trapped (a start function, a segment out of bounds, or
    /// the called function itself).
    Trap(Trap),
    /// The host refused a resource (address space for a memory, say).
    Resource(String),
    /// An object (a function, memory, table, global or reference) was used
    /// with a store it does not belong to.
    WrongStore,
    /// A module was instantiated in a store of another engine.
    WrongEngine,
    /// A memory cannot grow by `delta` pages: past its maximum, or the host
    /// refused the memory.
    MemoryGrow {
        /// The pages asked for.
        delta: u64,
    },
    /// A table cannot grow by `delta` elements: past its maximum or the
    /// runtime's limit on table size.
    TableGrow {
        /// The elements asked for.
        delta: u32,
    },
    /// A host read or write of `len` bytes at `offset` does not lie within
    /// the memory.
    MemoryAccess {
        /// Where the access starts.
        offset: usize,
        /// How many bytes it covers.
        len: usize,
    },
    /// A host function ended the call with an exit status (WASI's
    /// `proc_exit`, through [`Trap::exit`]): the guest finished on purpose,
    /// this is not a trap.
    Exit(i32),
    /// A wasm exception that no handler caught: its message is
    /// "uncaught wasm exception", and [`Exn::from_error`](crate::Exn::from_error)
    /// gives its tag and payload.
    Exception(Trap),
    /// The embedder passed something else unusable: wrong arity, a value
    /// of the wrong type, a write to a constant global.
    Usage(String),
    /// Another thread is using the store (see
    /// [`StoreClaim`](crate::StoreClaim)).
    StoreBusy,
    /// An embedder's own message: [`format_err!`](crate::format_err),
    /// [`bail!`](crate::bail), [`Error::msg`].
    Msg(String),
}

/// The message of [`Error::StoreBusy`], and of the trap a call gets when
/// it enters wasm on a store another thread has claimed.
pub(crate) const STORE_BUSY: &str = "store is in use by another thread";

/// Why instantiation could not link a module's imports.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum LinkError {
    /// The module declares `expected` imports; `given` were passed.
    Count {
        /// Imports the module declares.
        expected: usize,
        /// Imports passed to instantiation.
        given: usize,
    },
    /// Nothing is defined under the name of import `index` (a
    /// [`Linker`](crate::Linker) lookup).
    Missing {
        /// Position of the import in the module's imports.
        index: usize,
        /// The import, with the type it requires.
        import: ImportType,
    },
    /// What was given for import `index` is of another kind or type.
    Incompatible {
        /// Position of the import in the module's imports.
        index: usize,
        /// The import, with the type it requires.
        import: ImportType,
        /// The type of what was given.
        actual: ExternType,
    },
}

impl LinkError {
    /// The import that failed, if the error is about one.
    pub fn import(&self) -> Option<&ImportType> {
        match self {
            LinkError::Count { .. } => None,
            LinkError::Missing { import, .. } | LinkError::Incompatible { import, .. } => Some(import),
        }
    }
}

impl Error {
    /// The one way to refuse a valid module: it uses something this runtime
    /// does not compile (yet), such as an operator of a proposal we leave
    /// off. `offset` is where in the binary, when it is known.
    pub(crate) fn unsupported(what: impl fmt::Display, offset: Option<usize>) -> Error {
        match offset {
            Some(offset) => Error::Unsupported(format!("{what} (at offset {offset:#x})")),
            None => Error::Unsupported(what.to_string()),
        }
    }

    /// The trap behind this error, if it is one.
    pub fn as_trap(&self) -> Option<&Trap> {
        match self {
            Error::Trap(t) | Error::Exception(t) => Some(t),
            _ => None,
        }
    }

    /// An error with the embedder's message (anyhow's `Error::msg`).
    pub fn msg(message: impl fmt::Display) -> Error {
        Error::Msg(message.to_string())
    }

    /// What this error holds of type `E`, as anyhow's `downcast_ref` finds
    /// an error's cause or context: for a trap, its reason as a
    /// [`Trap`](crate::Trap), its [`WasmBacktrace`](crate::WasmBacktrace)
    /// or the [`TrapError`](crate::TrapError); for a link error the
    /// [`LinkError`]; and the error itself.
    pub fn downcast_ref<E: Any>(&self) -> Option<&E> {
        if TypeId::of::<E>() == TypeId::of::<Error>() {
            return (self as &dyn Any).downcast_ref();
        }
        match self {
            Error::Trap(t) | Error::Exception(t) => t.downcast_ref(),
            Error::Link(e) => (e as &dyn Any).downcast_ref(),
            _ => None,
        }
    }

    /// Whether [`downcast_ref`](Self::downcast_ref) finds an `E`.
    pub fn is<E: Any>(&self) -> bool {
        self.downcast_ref::<E>().is_some()
    }

    /// The `E` this error holds (a copy of it), or the error back
    /// (anyhow's `downcast`, for the types `downcast_ref` finds).
    pub fn downcast<E: Any + Clone>(self) -> std::result::Result<E, Error> {
        match self.downcast_ref::<E>() {
            Some(e) => Ok(e.clone()),
            None => Err(self),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Invalid { message, offset } => {
                write!(f, "invalid module: {message} (at offset {offset:#x})")
            }
            Error::Unsupported(m) => write!(f, "unsupported: {m}"),
            Error::Link(e) => write!(f, "link error: {e}"),
            Error::Trap(t) | Error::Exception(t) => write!(f, "{t}"),
            Error::Resource(m) => write!(f, "resource error: {m}"),
            Error::WrongStore => f.write_str("object used with a store it does not belong to"),
            Error::WrongEngine => f.write_str("module and store belong to different engines"),
            Error::MemoryGrow { delta } => write!(f, "memory cannot grow by {delta} pages"),
            Error::TableGrow { delta } => write!(f, "table cannot grow by {delta} elements"),
            Error::MemoryAccess { offset, len } => {
                write!(f, "memory access of {len} bytes at offset {offset} is out of bounds")
            }
            Error::Exit(code) => write!(f, "exit with status {code}"),
            Error::Usage(m) => write!(f, "{m}"),
            Error::StoreBusy => f.write_str(STORE_BUSY),
            Error::Msg(m) => f.write_str(m),
        }
    }
}

impl fmt::Display for LinkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LinkError::Count { expected, given } => write!(f, "expected {expected} imports, got {given}"),
            LinkError::Missing { import, .. } => write!(f, "unknown import: {}::{}", import.module, import.name),
            LinkError::Incompatible { import, actual, .. } => write!(
                f,
                "import {}::{}: incompatible import type: expected {}, got {}",
                import.module,
                import.name,
                import.ty.kind_name(),
                actual.kind_name()
            ),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Link(e) => Some(e),
            _ => None,
        }
    }
}
impl std::error::Error for LinkError {}

impl From<Trap> for Error {
    fn from(t: Trap) -> Error {
        match t.exit_code() {
            Some(code) => Error::Exit(code),
            None if t.exception().is_some() => Error::Exception(t),
            None => Error::Trap(t),
        }
    }
}

/// An error where a trap is expected (a host function's `?`): the trap
/// itself, or a trap with the error's message.
impl From<Error> for Trap {
    fn from(e: Error) -> Trap {
        match e {
            Error::Trap(t) | Error::Exception(t) => t,
            Error::Exit(code) => Trap::exit(code),
            e => Trap::new(e.to_string()),
        }
    }
}

/// A file or other I/O failure of the embedder's (a `?` on `std::fs`).
impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Error {
        Error::Resource(e.to_string())
    }
}

impl From<LinkError> for Error {
    fn from(e: LinkError) -> Error {
        Error::Link(e)
    }
}

impl From<wasmparser::BinaryReaderError> for Error {
    fn from(e: wasmparser::BinaryReaderError) -> Error {
        Error::Invalid { message: e.message().to_string(), offset: e.offset() as usize }
    }
}

/// Shorthand used throughout the crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// An [`Error`] with a formatted message (anyhow's `format_err!`), so
/// that embedders need no error crate of their own.
///
/// ```
/// let e = cranewasm::format_err!("no export named {}", "run");
/// assert_eq!(e.to_string(), "no export named run");
/// ```
#[macro_export]
macro_rules! format_err {
    ($($arg:tt)*) => {
        $crate::Error::msg(::std::format!($($arg)*))
    };
}

/// Returns early with a [`format_err!`](crate::format_err) error,
/// converted to the function's error type (an [`Error`] or, in a host
/// function, a [`TrapError`](crate::TrapError)).
///
/// ```
/// fn check(n: i32) -> cranewasm::Result<i32> {
///     if n < 0 {
///         cranewasm::bail!("negative: {n}");
///     }
///     Ok(n)
/// }
/// assert_eq!(check(-1).unwrap_err().to_string(), "negative: -1");
/// ```
#[macro_export]
macro_rules! bail {
    ($($arg:tt)*) => {
        return ::std::result::Result::Err(::std::convert::From::from($crate::format_err!($($arg)*)))
    };
}

/// Errors cross threads and live as long as the program wants them.
const _: () = {
    const fn check<E: std::error::Error + Send + Sync + 'static>() {}
    check::<Error>();
    check::<Trap>();
};
