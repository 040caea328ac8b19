//! Engine-wide settings: which proposals are on, and how code is generated.

/// How linear-memory accesses are kept in bounds.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum BoundsChecks {
    /// Reserve the whole 32-bit index space plus a guard region per memory,
    /// so every access lands in mapped memory or faults; no compare in the
    /// generated code. The default on 64-bit hosts.
    GuardPages,
    /// Compare every access against the current length. For hosts short of
    /// address space; memories still never move once created.
    Explicit,
}

/// Which register allocator Cranelift runs: the trade between compile time
/// and code speed.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Regalloc {
    /// Better code, slower compilation. The default.
    Backtracking,
    /// Faster compilation, slower code (more spills and moves).
    SinglePass,
}

/// Settings shared by everything created from one [`Engine`](crate::Engine).
#[derive(Clone, Debug)]
pub struct Config {
    pub(crate) simd: bool,
    pub(crate) relaxed_simd: bool,
    pub(crate) tail_call: bool,
    pub(crate) extended_const: bool,
    pub(crate) multi_memory: bool,
    pub(crate) bounds_checks: BoundsChecks,
    pub(crate) max_wasm_stack: usize,
    pub(crate) parallel_compilation: bool,
    pub(crate) optimize: bool,
    pub(crate) regalloc: Regalloc,
    pub(crate) memory_pool_capacity: usize,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            simd: true,
            relaxed_simd: true,
            tail_call: true,
            extended_const: true,
            multi_memory: true,
            bounds_checks: BoundsChecks::GuardPages,
            max_wasm_stack: 1 << 20,
            parallel_compilation: true,
            optimize: true,
            regalloc: Regalloc::Backtracking,
            memory_pool_capacity: 16,
        }
    }
}

impl Config {
    /// The default configuration: WebAssembly 2.0 plus the tail-call, extended-const, multi-memory and relaxed-SIMD proposals, guard-page bounds checks, 1 MiB of wasm stack.
    pub fn new() -> Config {
        Config::default()
    }

    /// 128-bit SIMD (part of WebAssembly 2.0).
    pub fn wasm_simd(&mut self, on: bool) -> &mut Config {
        self.simd = on;
        self
    }

    /// The relaxed-SIMD proposal.
    pub fn wasm_relaxed_simd(&mut self, on: bool) -> &mut Config {
        self.relaxed_simd = on;
        self
    }

    /// The tail-call proposal (`return_call`, `return_call_indirect`).
    pub fn wasm_tail_call(&mut self, on: bool) -> &mut Config {
        self.tail_call = on;
        self
    }

    /// The extended-constant-expressions proposal.
    pub fn wasm_extended_const(&mut self, on: bool) -> &mut Config {
        self.extended_const = on;
        self
    }

    /// The multi-memory proposal.
    pub fn wasm_multi_memory(&mut self, on: bool) -> &mut Config {
        self.multi_memory = on;
        self
    }

    /// How memory accesses are bounds-checked (see [`BoundsChecks`]).
    pub fn bounds_checks(&mut self, mode: BoundsChecks) -> &mut Config {
        self.bounds_checks = mode;
        self
    }

    /// The most native stack that wasm frames may use before a call traps
    /// with "call stack exhausted". It is further capped by what is left of
    /// the calling thread's stack.
    pub fn max_wasm_stack(&mut self, bytes: usize) -> &mut Config {
        self.max_wasm_stack = bytes;
        self
    }

    /// Compile the functions of a module on several threads.
    pub fn parallel_compilation(&mut self, on: bool) -> &mut Config {
        self.parallel_compilation = on;
        self
    }

    /// Run Cranelift's optimiser (on by default).
    pub fn cranelift_optimize(&mut self, on: bool) -> &mut Config {
        self.optimize = on;
        self
    }

    /// Cranelift's register allocator (see [`Regalloc`]).
    pub fn cranelift_regalloc(&mut self, algorithm: Regalloc) -> &mut Config {
        self.regalloc = algorithm;
        self
    }

    /// How many released linear-memory reservations the engine keeps for
    /// reuse by later instances (default 16). Reuse saves the system calls
    /// that map and unmap a reservation; each kept one holds its address
    /// space (8 GiB with guard pages) but no memory. 0 returns every
    /// reservation to the system at once.
    pub fn memory_pool_capacity(&mut self, reservations: usize) -> &mut Config {
        self.memory_pool_capacity = reservations;
        self
    }

    pub(crate) fn wasm_features(&self) -> wasmparser::WasmFeatures {
        use wasmparser::WasmFeatures as F;
        let mut f = F::WASM2;
        f.set(F::SIMD, self.simd);
        f.set(F::RELAXED_SIMD, self.simd && self.relaxed_simd);
        f.set(F::TAIL_CALL, self.tail_call);
        f.set(F::EXTENDED_CONST, self.extended_const);
        f.set(F::MULTI_MEMORY, self.multi_memory);
        f
    }
}
