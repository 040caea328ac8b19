//! The [`Config`] switches of the 3.0 memory proposals and of two later
//! ones that widen memories and integers: memory64 (with table64),
//! custom page sizes, and wide arithmetic.

use super::config::Config;

/// Which of these proposals are on (see the switches below).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct WideProposals {
    pub memory64: bool,
    pub custom_page_sizes: bool,
    pub wide_arithmetic: bool,
}

impl Default for WideProposals {
    fn default() -> WideProposals {
        // memory64 is part of WebAssembly 3.0; the other two are later
        // proposals, off until asked for (as in wasmtime).
        WideProposals { memory64: true, custom_page_sizes: false, wide_arithmetic: false }
    }
}

impl WideProposals {
    /// Sets the wasmparser features these switches decide.
    pub(crate) fn apply(&self, f: &mut wasmparser::WasmFeatures) {
        use wasmparser::WasmFeatures as F;
        f.set(F::MEMORY64, self.memory64);
        f.set(F::CUSTOM_PAGE_SIZES, self.custom_page_sizes);
        f.set(F::WIDE_ARITHMETIC, self.wide_arithmetic);
    }
}

impl Config {
    /// The memory64 proposal (part of WebAssembly 3.0): memories and
    /// tables with 64-bit indices (`i64` addresses, `u64` limits). On by
    /// default.
    ///
    /// Guard pages cannot cover a 64-bit index, so accesses to a 64-bit
    /// memory are compared with its length (one compare when the guard
    /// region covers the offset); accesses to 32-bit memories are as
    /// before.
    pub fn wasm_memory64(&mut self, on: bool) -> &mut Config {
        self.wide.memory64 = on;
        self
    }

    /// The custom-page-sizes proposal: memories of 1-byte pages
    /// (`(pagesize 1)`). Off by default. Accesses to such memories are
    /// always compared with the exact length, since the last host page of
    /// the memory is accessible past it.
    pub fn wasm_custom_page_sizes(&mut self, on: bool) -> &mut Config {
        self.wide.custom_page_sizes = on;
        self
    }

    /// The wide-arithmetic proposal: `i64.add128`, `i64.sub128`,
    /// `i64.mul_wide_s` and `i64.mul_wide_u`. Off by default.
    pub fn wasm_wide_arithmetic(&mut self, on: bool) -> &mut Config {
        self.wide.wide_arithmetic = on;
        self
    }
}
