//! What the programs share: deterministic inputs and a hash of outputs.

/// A 64-bit linear congruential generator (Knuth's MMIX constants).
pub struct Lcg(u64);

impl Lcg {
    pub fn new(seed: u64) -> Lcg {
        Lcg(seed)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        self.0 >> 11
    }
    /// A number below `n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }
}

const WORDS: &[&str] = &[
    "the", "of", "and", "runtime", "module", "memory", "table", "function", "value", "store", "engine", "compile",
    "instance", "import", "export", "global", "trap", "stack", "frame", "signal", "thread", "atomic", "page", "limit",
    "bytes", "offset", "index", "type", "result", "param", "local", "block", "loop", "branch", "call", "return",
    "select", "load", "store", "grow", "size", "data", "element",
];

/// About `len` bytes of space-separated words, with a newline now and then.
pub fn words(len: usize, seed: u64) -> String {
    let mut rng = Lcg::new(seed);
    let mut out = String::with_capacity(len + 16);
    while out.len() < len {
        out.push_str(WORDS[rng.below(WORDS.len() as u64) as usize]);
        out.push(if rng.below(12) == 0 { '\n' } else { ' ' });
    }
    out
}

/// One of the words above.
pub fn word(rng: &mut Lcg) -> &'static str {
    WORDS[rng.below(WORDS.len() as u64) as usize]
}

/// FNV-1a over `bytes`, continuing from `h` (start with `FNV_START`).
pub fn fnv(mut h: u64, bytes: &[u8]) -> u64 {
    for &b in bytes {
        h = (h ^ b as u64).wrapping_mul(0x100000001b3);
    }
    h
}

pub const FNV_START: u64 = 0xcbf29ce484222325;
