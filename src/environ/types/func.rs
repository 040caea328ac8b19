//! Function types, and the ids compiled code compares them by.

use std::fmt;
use std::sync::Arc;

use super::val::ValType;

/// A function signature: parameter and result types.
///
/// Cheap to clone (a reference count). Two signatures are equal when their
/// types are; the engine's type registry
/// gives each distinct one a canonical id while something uses it.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct FuncType(Arc<FuncTypeInner>);

#[derive(PartialEq, Eq, Hash)]
struct FuncTypeInner {
    params: Box<[ValType]>,
    results: Box<[ValType]>,
}

impl FuncType {
    /// The signature `params -> results`.
    pub fn new(params: impl IntoIterator<Item = ValType>, results: impl IntoIterator<Item = ValType>) -> FuncType {
        FuncType(Arc::new(FuncTypeInner {
            params: params.into_iter().collect(),
            results: results.into_iter().collect(),
        }))
    }

    /// Parameter types.
    pub fn params(&self) -> &[ValType] {
        &self.0.params
    }

    /// Result types.
    pub fn results(&self) -> &[ValType] {
        &self.0.results
    }

    /// Whether every parameter and result is a WebAssembly 2.0 type.
    pub fn is_wasm2(&self) -> bool {
        self.params().iter().chain(self.results()).all(|t| t.is_wasm2())
    }

    /// The id compiled code compares this signature by, when it is a pure
    /// function of its types: see `small_sig_id` in this file.
    pub fn small_sig_id(&self) -> Option<usize> {
        small_sig_id(self.params(), self.results())
    }
}

/// The most values (parameters plus results) a signature may have for a
/// small, process-independent id.
pub const SMALL_SIG_ARITY: usize = 8;

/// Marks the id of a signature without a small id: it is the registry's
/// canonical id with this bit set (user-space values never have it).
pub const LARGE_SIG_ID_TAG: usize = 1 << 63;

/// The id of `params -> results` if it has at most [`SMALL_SIG_ARITY`]
/// values, all of WebAssembly 2.0's types: bit 30 set (no small id is 0,
/// which null-filled memory holds), the parameter count in bits 0-3, and a
/// 3-bit code per value (1-7, 0 for none), parameters then results, from
/// bit 4. The count and the codes determine the signature, so two
/// signatures share an id only if equal; and the id is the same in every
/// process and engine, so `call_indirect` compares it as a 32-bit
/// immediate and cached code needs no relocation for it.
pub fn small_sig_id(params: &[ValType], results: &[ValType]) -> Option<usize> {
    if params.len() + results.len() > SMALL_SIG_ARITY {
        return None;
    }
    let code = |t: &ValType| match *t {
        ValType::I32 => Some(1),
        ValType::I64 => Some(2),
        ValType::F32 => Some(3),
        ValType::F64 => Some(4),
        ValType::V128 => Some(5),
        ValType::EXTERNREF => Some(6),
        ValType::FUNCREF => Some(7),
        // Other references may need subtyping, or name concrete types:
        // the registry's canonical id stands for them.
        ValType::Ref(_) => None,
    };
    let mut codes = 0;
    for (i, t) in params.iter().chain(results).enumerate() {
        codes |= code(t)? << (4 + 3 * i);
    }
    Some(1 << 30 | codes | params.len())
}

impl fmt::Debug for FuncType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self}")
    }
}

impl fmt::Display for FuncType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let list = |f: &mut fmt::Formatter<'_>, tys: &[ValType]| -> fmt::Result {
            f.write_str("[")?;
            for (i, t) in tys.iter().enumerate() {
                if i > 0 {
                    f.write_str(" ")?;
                }
                write!(f, "{t}")?;
            }
            f.write_str("]")
        };
        list(f, self.params())?;
        f.write_str(" -> ")?;
        list(f, self.results())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn func_types_compare_by_their_types() {
        let a = FuncType::new([ValType::I32, ValType::F64], [ValType::I64]);
        let b = FuncType::new(vec![ValType::I32, ValType::F64], vec![ValType::I64]);
        let c = FuncType::new([ValType::I32], [ValType::I64]);
        assert_eq!(a, b);
        assert_eq!(a.small_sig_id(), b.small_sig_id());
        assert_ne!(a, c);
        assert_eq!(a.to_string(), "[i32 f64] -> [i64]");
    }

    #[test]
    fn small_signature_ids_are_distinct_and_fixed() {
        use ValType::*;
        let all = [I32, I64, F32, F64, V128, ValType::EXTERNREF, ValType::FUNCREF];
        // Every signature of up to 3 values, split every way between
        // parameters and results: no two share an id.
        let mut seqs: Vec<Vec<ValType>> = vec![vec![]];
        let mut last = seqs.clone();
        for _ in 0..3 {
            last = last.iter().flat_map(|s| all.iter().map(move |t| [s.clone(), vec![*t]].concat())).collect();
            seqs.extend(last.iter().cloned());
        }
        let mut ids = HashSet::new();
        let mut count = 0;
        for s in &seqs {
            for split in 0..=s.len() {
                let id = small_sig_id(&s[..split], &s[split..]).expect("small");
                assert!(id < 1 << 31 && id != 0, "{s:?}: {id:#x}");
                ids.insert(id);
                count += 1;
            }
        }
        assert_eq!(ids.len(), count);
        // The encoding is fixed: saved code compares against these.
        assert_eq!(small_sig_id(&[I32], &[I32]), Some(1 << 30 | 1 | 1 << 4 | 1 << 7));
        assert_eq!(small_sig_id(&[], &[]), Some(1 << 30));
        assert_eq!(small_sig_id(&[I32; 5], &[I64; 4]), None);
        assert_eq!(small_sig_id(&[ValType::EXNREF], &[]), None);
    }
}
