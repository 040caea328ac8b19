//! Float lane arithmetic, rounding and comparisons.
//!
//! `fmin`/`fmax` already follow wasm's `min`/`max` (NaN wins, -0 < +0);
//! `pmin`/`pmax` are the plain C-style comparisons and are built from a
//! compare and a select so that a NaN or a tie returns the first operand.
//! Vector rounding falls back to per-lane libcalls on hosts without
//! rounding instructions, inside Cranelift.

use cranelift_codegen::ir::{condcodes::FloatCC, InstBuilder, Type};

use super::Translator;

impl Translator<'_, '_> {
    /// Lane-wise comparison: all-ones where `cc` holds (`ne` holds for
    /// NaN, the ordered comparisons do not).
    pub(super) fn v_fcmp(&mut self, ty: Type, cc: FloatCC) {
        self.v_binary(ty, |b, x, y| b.ins().fcmp(cc, x, y))
    }

    /// `pmin(a, b)` is `b < a ? b : a` and `pmax(a, b)` is `a < b ? b : a`,
    /// lane by lane.
    pub(super) fn pseudo_min_max(&mut self, ty: Type, max: bool) {
        let b = self.pop_v(ty);
        let a = self.pop_v(ty);
        let take_b =
            if max { self.b.ins().fcmp(FloatCC::LessThan, a, b) } else { self.b.ins().fcmp(FloatCC::LessThan, b, a) };
        let mask = self.cast(take_b, ty);
        let r = self.b.ins().bitselect(mask, b, a);
        self.push_v(r)
    }
}
