//! Traps: why a call stopped, and where.
//!
//! The public names follow wasmtime's: the enum of reasons is
//! [`Trap`](crate::Trap) (here `TrapCode`), and the error a trapping call
//! returns is [`TrapError`](crate::TrapError) (here `Trap`), which carries
//! the reason, the message and a [`WasmBacktrace`]. The crate keeps the
//! old internal names so that the compiler's files need not change.

use std::any::{Any, TypeId};
use std::fmt;

/// Why WebAssembly code trapped, with wasmtime's variant names (the
/// public [`Trap`](crate::Trap)). The messages are the spec's wording.
///
/// A trapping call's error gives it with `downcast_ref`:
///
/// ```
/// use cranewasm::{Engine, Instance, Module, Store, Trap};
/// let mut store = Store::<()>::default();
/// let module = Module::new(store.engine(), r#"(module (func (export "f") unreachable))"#)?;
/// let f = Instance::new(&mut store, &module, &[])?.get_typed_func::<(), ()>(&mut store, "f")?;
/// let err = f.call(&mut store, ()).unwrap_err();
/// assert_eq!(err.downcast_ref::<Trap>(), Some(&Trap::UnreachableCodeReached));
/// # Ok::<(), cranewasm::Error>(())
/// ```
///
/// Unlike wasmtime's, the enum is exhaustive, so that the C layer's
/// mapping of reasons to WAMR's and its own codes is checked complete.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum TrapCode {
    /// The call stack exceeded its limit.
    StackOverflow,
    /// A load, store or bulk memory operation was out of bounds.
    MemoryOutOfBounds,
    /// A table access or bulk table operation was out of bounds.
    TableOutOfBounds,
    /// `call_indirect` on an index past the end of the table (an
    /// addition: wasmtime reports `TableOutOfBounds`; the spec's message
    /// differs).
    UndefinedElement,
    /// `call_indirect` on a null table entry.
    IndirectCallToNull,
    /// `call_indirect` on a function of another signature.
    BadSignature,
    /// Signed division overflow (`i32.div_s` of `INT_MIN` by -1, ...).
    IntegerOverflow,
    /// Integer division or remainder by zero.
    IntegerDivisionByZero,
    /// A float-to-integer conversion of NaN or out of range.
    BadConversionToInteger,
    /// `unreachable` was executed.
    UnreachableCodeReached,
    /// A call of an import that was never provided (an addition, as are
    /// the C API's stand-ins for missing imports).
    UnlinkedFunction,
    /// An atomic access at an address that is not a multiple of its size.
    HeapMisaligned,
    /// `memory.atomic.wait32`/`wait64` on a memory that is not shared:
    /// nothing could ever notify the waiter.
    AtomicWaitNonSharedMemory,
    /// The embedder stopped the call through an
    /// [`InterruptHandle`](crate::InterruptHandle).
    Interrupt,
    /// The store's fuel ran out (see [`Config::consume_fuel`](crate::Config::consume_fuel)).
    OutOfFuel,
    /// The engine's epoch reached the store's deadline (see
    /// [`Config::epoch_interruption`](crate::Config::epoch_interruption)).
    /// An addition: wasmtime reports `Interrupt`; ours keeps WAMR-style
    /// clients' distinct message.
    EpochDeadline,
    /// `ref.as_non_null` (or a cast) of a null reference.
    NullReference,
    /// `call_ref` or `return_call_ref` of a null function reference (an
    /// addition: wasmtime reports `NullReference`).
    NullFunctionReference,
    /// `i31.get_s`/`i31.get_u` of a null reference (an addition: wasmtime
    /// reports `NullReference`; the spec's message differs).
    NullI31Reference,
    /// `ref.cast` of a reference that is not of the target type.
    CastFailure,
    /// A struct operator on a null reference (an addition: wasmtime
    /// reports `NullReference`; the spec's message differs).
    NullStructReference,
    /// An array operator on a null reference (likewise).
    NullArrayReference,
    /// An array access or bulk array operation out of bounds.
    ArrayOutOfBounds,
    /// The store's GC heap cannot hold the object being allocated.
    OutOfMemory,
}

/// The names these reasons had before they took wasmtime's, deprecated
/// for one release (`cranewasm::migrating`).
#[allow(non_upper_case_globals)]
impl TrapCode {
    /// Old name of [`UnreachableCodeReached`](Self::UnreachableCodeReached).
    #[doc(hidden)]
    #[deprecated(note = "renamed as in wasmtime")]
    pub const Unreachable: TrapCode = TrapCode::UnreachableCodeReached;
    /// Old name of [`IndirectCallToNull`](Self::IndirectCallToNull).
    #[doc(hidden)]
    #[deprecated(note = "renamed as in wasmtime")]
    pub const UninitializedElement: TrapCode = TrapCode::IndirectCallToNull;
    /// Old name of [`Interrupt`](Self::Interrupt).
    #[doc(hidden)]
    #[deprecated(note = "renamed as in wasmtime")]
    pub const Interrupted: TrapCode = TrapCode::Interrupt;
}

impl TrapCode {
    /// The spec's text for this trap.
    pub fn message(self) -> &'static str {
        match self {
            TrapCode::StackOverflow => "call stack exhausted",
            TrapCode::MemoryOutOfBounds => "out of bounds memory access",
            TrapCode::TableOutOfBounds => "out of bounds table access",
            TrapCode::UndefinedElement => "undefined element",
            TrapCode::IndirectCallToNull => "uninitialized element",
            TrapCode::BadSignature => "indirect call type mismatch",
            TrapCode::IntegerOverflow => "integer overflow",
            TrapCode::IntegerDivisionByZero => "integer divide by zero",
            TrapCode::BadConversionToInteger => "invalid conversion to integer",
            TrapCode::UnreachableCodeReached => "unreachable",
            TrapCode::UnlinkedFunction => "failed to call unlinked function",
            TrapCode::HeapMisaligned => "unaligned atomic",
            TrapCode::AtomicWaitNonSharedMemory => "expected shared memory",
            // WAMR's texts for `wasm_runtime_terminate` and for its
            // instruction-count limit, which fuel implements.
            TrapCode::Interrupt => "terminated by user",
            TrapCode::OutOfFuel => "instruction limit exceeded",
            TrapCode::EpochDeadline => "epoch deadline reached",
            TrapCode::NullReference => "null reference",
            TrapCode::NullFunctionReference => "null function reference",
            TrapCode::NullI31Reference => "null i31 reference",
            TrapCode::CastFailure => "cast failure",
            TrapCode::NullStructReference => "null structure reference",
            TrapCode::NullArrayReference => "null array reference",
            TrapCode::ArrayOutOfBounds => "out of bounds array access",
            TrapCode::OutOfMemory => "out of memory",
        }
    }

    /// Every trap code, in a fixed order: a code's position is its number
    /// in serialized modules.
    pub const ALL: [TrapCode; 24] = [
        TrapCode::StackOverflow,
        TrapCode::MemoryOutOfBounds,
        TrapCode::TableOutOfBounds,
        TrapCode::UndefinedElement,
        TrapCode::IndirectCallToNull,
        TrapCode::BadSignature,
        TrapCode::IntegerOverflow,
        TrapCode::IntegerDivisionByZero,
        TrapCode::BadConversionToInteger,
        TrapCode::UnreachableCodeReached,
        TrapCode::UnlinkedFunction,
        TrapCode::Interrupt,
        TrapCode::OutOfFuel,
        TrapCode::EpochDeadline,
        TrapCode::HeapMisaligned,
        TrapCode::AtomicWaitNonSharedMemory,
        TrapCode::NullReference,
        TrapCode::NullFunctionReference,
        TrapCode::NullI31Reference,
        TrapCode::CastFailure,
        TrapCode::NullStructReference,
        TrapCode::NullArrayReference,
        TrapCode::ArrayOutOfBounds,
        TrapCode::OutOfMemory,
    ];
}

impl fmt::Display for TrapCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message())
    }
}

/// One WebAssembly frame of a trap's backtrace, innermost first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FrameInfo {
    /// Index of the function in its module's function index space.
    pub func_index: u32,
    /// Name of the function from the module's `name` section.
    pub func_name: Option<String>,
    /// Byte offset of the instruction from the start of the function body.
    pub func_offset: usize,
    /// Byte offset of the instruction from the start of the module binary.
    pub module_offset: usize,
    /// Which instance the frame belongs to (an index in its store's list of
    /// instances), where known.
    pub instance: Option<usize>,
}

impl FrameInfo {
    /// Index of the function in its module's function index space.
    pub fn func_index(&self) -> u32 {
        self.func_index
    }

    /// The function's name from the module's `name` section, if it has one.
    pub fn func_name(&self) -> Option<&str> {
        self.func_name.as_deref()
    }

    /// Byte offset of the instruction from the start of the function body.
    pub fn func_offset(&self) -> usize {
        self.func_offset
    }

    /// Byte offset of the instruction from the start of the module binary.
    pub fn module_offset(&self) -> usize {
        self.module_offset
    }
}

/// The message of an exception that no wasm handler caught (WAMR's).
pub const UNCAUGHT_EXCEPTION: &str = "uncaught wasm exception";

/// The WebAssembly frames active when a trap happened, innermost first
/// (wasmtime's `WasmBacktrace`): reachable from a trapping call's error
/// with `downcast_ref::<WasmBacktrace>()`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WasmBacktrace {
    frames: Vec<FrameInfo>,
}

impl WasmBacktrace {
    /// The frames, innermost first.
    pub fn frames(&self) -> &[FrameInfo] {
        &self.frames
    }
}

impl fmt::Display for WasmBacktrace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "wasm backtrace:")?;
        for (i, frame) in self.frames.iter().enumerate() {
            let name = frame.func_name.as_deref().unwrap_or("<unknown>");
            writeln!(f, "  {i:>3}: {:#x} - {name}", frame.module_offset)?;
        }
        Ok(())
    }
}

/// A trap (the public [`TrapError`](crate::TrapError)): execution stopped,
/// with a reason, a message and a backtrace. `downcast_ref` gives the
/// reason as a [`Trap`](crate::Trap) and the [`WasmBacktrace`].
#[derive(Clone, Debug)]
pub struct Trap {
    code: Option<TrapCode>,
    message: String,
    frames: WasmBacktrace,
    /// Set when a host function ends the whole call on purpose (WASI's
    /// `proc_exit`): it travels out of wasm like a trap, but callers see
    /// [`Error::Exit`](crate::Error::Exit), not a failure.
    exit_code: Option<i32>,
    /// The exception (a `vm::exception::VMExn` of the store that ran the
    /// call) when wasm threw one that nothing caught.
    exception: Option<usize>,
}

impl Trap {
    /// A trap with a message, as host functions raise them.
    pub fn new(message: impl Into<String>) -> Trap {
        Trap { code: None, message: message.into(), frames: WasmBacktrace::default(), exit_code: None, exception: None }
    }

    /// Ends the running call with exit status `code`, as a process's exit
    /// does: a host function returns this to unwind every wasm frame, and
    /// the call then fails with [`Error::Exit`](crate::Error::Exit)`(code)`
    /// rather than with a trap.
    pub fn exit(code: i32) -> Trap {
        Trap {
            code: None,
            message: format!("exit with status {code}"),
            frames: WasmBacktrace::default(),
            exit_code: Some(code),
            exception: None,
        }
    }

    /// The exit status, when this is a [`Trap::exit`] and not a trap.
    pub fn exit_code(&self) -> Option<i32> {
        self.exit_code
    }

    pub(crate) fn from_code(code: TrapCode) -> Trap {
        Trap {
            code: Some(code),
            message: code.message().to_string(),
            frames: WasmBacktrace::default(),
            exit_code: None,
            exception: None,
        }
    }

    /// What an exception that left wasm becomes on its way to the host:
    /// WAMR's message (the C APIs print it as "Exception: uncaught wasm
    /// exception"), with the exception itself for the Rust API.
    pub(crate) fn uncaught_exception(exn: usize) -> Trap {
        Trap {
            code: None,
            message: UNCAUGHT_EXCEPTION.to_string(),
            frames: WasmBacktrace::default(),
            exit_code: None,
            exception: Some(exn),
        }
    }

    /// Whether this stands for a wasm exception that nothing caught.
    pub fn is_exception(&self) -> bool {
        self.exception.is_some()
    }

    /// The uncaught exception this stands for, if it does (see
    /// `Exn::from_error`).
    pub(crate) fn exception(&self) -> Option<usize> {
        self.exception
    }

    /// The trap's cause, if it came from wasm code or the runtime rather
    /// than from a host function.
    pub fn code(&self) -> Option<TrapCode> {
        self.code
    }

    /// The message: the spec's wording for a wasm trap, or the host's text.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// WebAssembly frames active when the trap happened, innermost first.
    pub fn frames(&self) -> &[FrameInfo] {
        &self.frames.frames
    }

    /// The frames as wasmtime's [`WasmBacktrace`].
    pub fn backtrace(&self) -> &WasmBacktrace {
        &self.frames
    }

    pub(crate) fn with_frames(mut self, frames: Vec<FrameInfo>) -> Trap {
        if self.frames.frames.is_empty() {
            self.frames.frames = frames;
        }
        self
    }

    /// What this trap holds of type `E`, as anyhow's `downcast_ref` finds
    /// an error's cause or context: the reason as a
    /// [`Trap`](crate::Trap) (none for a host function's own trap), the
    /// [`WasmBacktrace`], or this trap itself.
    pub fn downcast_ref<E: Any>(&self) -> Option<&E> {
        let found: &dyn Any = match TypeId::of::<E>() {
            id if id == TypeId::of::<TrapCode>() => self.code.as_ref()?,
            id if id == TypeId::of::<WasmBacktrace>() => &self.frames,
            id if id == TypeId::of::<Trap>() => self,
            _ => return None,
        };
        found.downcast_ref()
    }

    /// Whether [`downcast_ref`](Self::downcast_ref) finds an `E`.
    pub fn is<E: Any>(&self) -> bool {
        self.downcast_ref::<E>().is_some()
    }
}

impl From<TrapCode> for Trap {
    fn from(code: TrapCode) -> Trap {
        Trap::from_code(code)
    }
}

impl fmt::Display for Trap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Trap {}
