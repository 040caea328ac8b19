//! The error type of every fallible operation outside a running call.

use std::fmt;

use crate::trap::Trap;

/// Why loading, linking, instantiating or calling failed.
#[derive(Debug)]
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
    Link(String),
    /// The operation trapped (a start function, a segment out of bounds, or
    /// the called function itself).
    Trap(Trap),
    /// The host refused a resource (address space for a memory, say).
    Resource(String),
    /// The embedder passed something unusable: wrong arity, a value of the
    /// wrong type, an object from another store.
    Usage(String),
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
            Error::Trap(t) => Some(t),
            _ => None,
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
            Error::Link(m) => write!(f, "link error: {m}"),
            Error::Trap(t) => write!(f, "{t}"),
            Error::Resource(m) => write!(f, "resource error: {m}"),
            Error::Usage(m) => write!(f, "{m}"),
        }
    }
}

impl std::error::Error for Error {}

impl From<Trap> for Error {
    fn from(t: Trap) -> Error {
        Error::Trap(t)
    }
}

impl From<wasmparser::BinaryReaderError> for Error {
    fn from(e: wasmparser::BinaryReaderError) -> Error {
        Error::Invalid { message: e.message().to_string(), offset: e.offset() as usize }
    }
}

/// Shorthand used throughout the crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;
