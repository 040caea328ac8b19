//! The natives the client registered (`wasm_runtime_register_natives`),
//! and how an import finds one: by module and field name, also without a
//! leading `_`, the most recent registration first, then the builtin libc
//! ([`crate::libc_builtin`]); a signature string must fit the import's
//! type as WAMR checks it. Both headers link imports through this lookup;
//! the registration functions and the host functions natives become are
//! `wasm_export.h`'s (`export/natives.rs`).

use std::ffi::CString;
use std::sync::{Mutex, MutexGuard};

use cranewasm::{FuncType, ValType};

use crate::core::runtime::warn;

/// One native function, copied out of the client's array at registration.
#[derive(Clone)]
pub struct Native {
    pub module: String,
    pub name: String,
    pub func: usize,
    /// The signature string, if one was given (an empty one counts as none).
    pub signature: Option<CString>,
    pub attachment: usize,
    pub raw: bool,
}

/// One `wasm_runtime_register_natives` call.
pub(crate) struct Group {
    module: String,
    /// The client's array, which identifies the registration for
    /// `wasm_runtime_unregister_natives`.
    array: usize,
    /// Sorted by name.
    natives: Vec<Native>,
}

/// Registrations, the most recent first.
static NATIVES: Mutex<Vec<Group>> = Mutex::new(Vec::new());

fn registrations() -> MutexGuard<'static, Vec<Group>> {
    NATIVES.lock().unwrap_or_else(|e| e.into_inner())
}

/// Adds a registration of `natives` under `module`, made from the
/// client's array at `array` (which identifies it for [`remove`]), before
/// the earlier ones.
pub fn add(module: &str, array: usize, mut natives: Vec<Native>) {
    natives.sort_by(|a, b| a.name.cmp(&b.name));
    registrations().insert(0, Group { module: module.to_string(), array, natives });
}

/// Undoes the registration of the array at `array` under `module`; false
/// if there is none.
pub fn remove(module: &str, array: usize) -> bool {
    let mut groups = registrations();
    match groups.iter().position(|g| g.array == array && g.module == module) {
        Some(i) => {
            groups.remove(i);
            true
        }
        None => false,
    }
}

/// Forgets every registration (`wasm_runtime_destroy`).
pub fn clear() {
    registrations().clear();
}

/// The native for `(module, name)`, whatever its type: the first
/// registration of `module` that has `name` (or `name` without a leading
/// `_`), else the builtin libc's.
pub fn find(module: &str, name: &str) -> Option<Native> {
    let groups = registrations();
    let lookup =
        |list: &[Native], n: &str| list.binary_search_by(|x| x.name.as_str().cmp(n)).ok().map(|i| list[i].clone());
    for g in groups.iter().filter(|g| g.module == module) {
        let found = lookup(&g.natives, name).or_else(|| name.strip_prefix('_').and_then(|n| lookup(&g.natives, n)));
        if found.is_some() {
            return found;
        }
    }
    drop(groups);
    crate::libc_builtin::find(module, name)
        .or_else(|| name.strip_prefix('_').and_then(|n| crate::libc_builtin::find(module, n)))
}

/// The native an import `(module, name)` of type `ty` links to: see
/// [`find`]; `None` as well when its signature does not fit `ty`.
pub fn resolve(module: &str, name: &str, ty: &FuncType) -> Option<Native> {
    let native = find(module, name)?;
    match &native.signature {
        Some(sig) if !signature_fits(ty, sig.to_bytes()) => None,
        _ => Some(native),
    }
}

/// [`resolve`], with WAMR's warning when a signature does not fit.
pub fn resolve_for_instantiation(module: &str, name: &str, ty: &FuncType) -> Option<Native> {
    let native = find(module, name)?;
    if let Some(sig) = &native.signature
        && !signature_fits(ty, sig.to_bytes())
    {
        warn(format_args!(
            "failed to check signature '{}' and resolve pointer params for import function ({module}, {name})",
            sig.to_string_lossy()
        ));
        return None;
    }
    Some(native)
}

/// Whether signature character `c` stands for a value of type `t`.
fn char_fits(t: ValType, c: u8) -> bool {
    matches!((t, c), (ValType::I32, b'i') | (ValType::I64, b'I') | (ValType::F32, b'f') | (ValType::F64, b'F'))
        || (t == ValType::EXTERNREF && c == b'r')
}

/// WAMR's check of a signature string against a function type
/// (`check_symbol_signature`): `(` one character per parameter `)` and one
/// for the result if there is one; `*` and `$` stand for i32 pointers,
/// `~` after `*` for the i32 length that follows.
pub fn signature_fits(ty: &FuncType, sig: &[u8]) -> bool {
    let params = ty.params();
    if sig.len() < 2 || sig[0] != b'(' || sig.len() - 1 < params.len() + 1 {
        return false;
    }
    let mut p = 1;
    let mut i = 0;
    while i < params.len() {
        let c = sig.get(p).copied().unwrap_or(0);
        p += 1;
        if char_fits(params[i], c) {
            i += 1;
            continue;
        }
        if params[i] != ValType::I32 {
            return false;
        }
        match c {
            b'*' => {
                if i + 1 < params.len() && params[i + 1] == ValType::I32 && sig.get(p) == Some(&b'~') {
                    i += 1;
                    p += 1;
                }
            }
            b'$' => {}
            _ => return false,
        }
        i += 1;
    }
    if sig.get(p) != Some(&b')') {
        return false;
    }
    p += 1;
    if let Some(r) = ty.results().first() {
        match sig.get(p) {
            Some(&c) if char_fits(*r, c) => p += 1,
            _ => return false,
        }
    }
    p == sig.len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use ValType::*;
    const EXTERNREF: ValType = ValType::EXTERNREF;

    #[test]
    fn signatures_checked_like_wamr() {
        let t = |p: &[ValType], r: &[ValType]| FuncType::new(p.iter().copied(), r.iter().copied());
        assert!(signature_fits(&t(&[I32, I32, I32, I32], &[I32]), b"(i*~i)i"));
        assert!(signature_fits(&t(&[I32, I32], &[I32]), b"(ii)i"));
        assert!(signature_fits(&t(&[I32], &[]), b"($)"));
        assert!(signature_fits(&t(&[I32, I32], &[I32]), b"(**)i"), "a * without ~ checks one byte");
        assert!(signature_fits(&t(&[I64, F32, F64], &[F64]), b"(IfF)F"));
        assert!(signature_fits(&t(&[EXTERNREF], &[EXTERNREF]), b"(r)r"));
        assert!(!signature_fits(&t(&[I32], &[I32]), b"(i)"), "missing result");
        assert!(!signature_fits(&t(&[I32], &[]), b"(i)i"), "extra result");
        assert!(!signature_fits(&t(&[I64], &[]), b"(*)"), "pointers are i32");
        assert!(!signature_fits(&t(&[I32, I32], &[]), b"(i)"), "too few");
        assert!(!signature_fits(&t(&[I32], &[]), b"i)"), "no (");
        assert!(!signature_fits(&t(&[I32], &[]), b"(x)"));
        assert!(!signature_fits(&t(&[], &[]), b"()x"), "trailing characters");
        assert!(signature_fits(&t(&[], &[]), b"()"));
    }
}
