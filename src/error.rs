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
    /// A host function ended the call with an exit status (WASI's
    /// `proc_exit`, through [`Trap::exit`]): the guest finished on purpose,
    /// this is not a trap.
    Exit(i32),
    /// The embedder passed something unusable: wrong arity, a value of the
    /// wrong type, an object from another store.
    Usage(String),
}

impl Error {
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
            Error::Exit(code) => write!(f, "exit with status {code}"),
            Error::Usage(m) => write!(f, "{m}"),
        }
    }
}

impl std::error::Error for Error {}

impl From<Trap> for Error {
    fn from(t: Trap) -> Error {
        match t.exit_code() {
            Some(code) => Error::Exit(code),
            None => Error::Trap(t),
        }
    }
}

impl From<wasmparser::BinaryReaderError> for Error {
    fn from(e: wasmparser::BinaryReaderError) -> Error {
        Error::Invalid { message: e.message().to_string(), offset: e.offset() as usize }
    }
}

/// Shorthand used throughout the crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;
