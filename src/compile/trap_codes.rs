//! Our trap codes as Cranelift's: compiled code carries Cranelift trap
//! codes, and the runtime reads ours back from the trap table.

use cranelift_codegen::ir::TrapCode as ClifTrapCode;

use crate::environ::trap::TrapCode;

/// The codes Cranelift has no name for, numbered as Cranelift's user
/// codes (1 for the first).
const USER: [TrapCode; 19] = [
    TrapCode::UnreachableCodeReached,
    TrapCode::TableOutOfBounds,
    TrapCode::UndefinedElement,
    TrapCode::IndirectCallToNull,
    TrapCode::BadSignature,
    TrapCode::UnlinkedFunction,
    TrapCode::HeapMisaligned,
    TrapCode::AtomicWaitNonSharedMemory,
    TrapCode::Interrupt,
    TrapCode::OutOfFuel,
    TrapCode::EpochDeadline,
    TrapCode::NullReference,
    TrapCode::NullFunctionReference,
    TrapCode::NullI31Reference,
    TrapCode::CastFailure,
    TrapCode::NullStructReference,
    TrapCode::NullArrayReference,
    TrapCode::ArrayOutOfBounds,
    TrapCode::OutOfMemory,
];

/// Our trap codes as the Cranelift trap codes compiled code uses.
pub(crate) trait ToClif {
    fn to_clif(self) -> ClifTrapCode;
}

impl ToClif for TrapCode {
    fn to_clif(self) -> ClifTrapCode {
        to_clif(self)
    }
}

/// The Cranelift trap code compiled code uses for `code`.
fn to_clif(code: TrapCode) -> ClifTrapCode {
    match code {
        TrapCode::StackOverflow => ClifTrapCode::STACK_OVERFLOW,
        TrapCode::MemoryOutOfBounds => ClifTrapCode::HEAP_OUT_OF_BOUNDS,
        TrapCode::IntegerOverflow => ClifTrapCode::INTEGER_OVERFLOW,
        TrapCode::IntegerDivisionByZero => ClifTrapCode::INTEGER_DIVISION_BY_ZERO,
        TrapCode::BadConversionToInteger => ClifTrapCode::BAD_CONVERSION_TO_INTEGER,
        user => {
            let i = USER.iter().position(|c| *c == user).expect("every other code is a user code");
            ClifTrapCode::unwrap_user(i as u8 + 1)
        }
    }
}

/// Our trap code for a Cranelift trap code, if it is one of ours.
pub(crate) fn from_clif(code: ClifTrapCode) -> Option<TrapCode> {
    Some(match code {
        ClifTrapCode::STACK_OVERFLOW => TrapCode::StackOverflow,
        ClifTrapCode::HEAP_OUT_OF_BOUNDS => TrapCode::MemoryOutOfBounds,
        ClifTrapCode::INTEGER_OVERFLOW => TrapCode::IntegerOverflow,
        ClifTrapCode::INTEGER_DIVISION_BY_ZERO => TrapCode::IntegerDivisionByZero,
        ClifTrapCode::BAD_CONVERSION_TO_INTEGER => TrapCode::BadConversionToInteger,
        other => *USER.iter().find(|c| to_clif(**c) == other)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_round_trips() {
        for code in TrapCode::ALL {
            assert_eq!(from_clif(to_clif(code)), Some(code));
        }
    }
}
