//! 128-bit SIMD operators.

use wasmparser::{FuncValidator, Operator, ValidatorResources};

use super::Translator;
use crate::error::Result;

impl Translator<'_, '_> {
    /// Translates `op` if it is a SIMD operator.
    pub(super) fn translate_simd(
        &mut self,
        _op: &Operator<'_>,
        _validator: &FuncValidator<ValidatorResources>,
    ) -> Result<bool> {
        Ok(false)
    }
}
