//! The one linker of both headers: an instance's imports are resolved in
//! module order, each by the first of a chain of [`Resolver`]s that
//! provides it. Each header builds its chain from the resolvers WAMR has:
//!
//! - the wasm-c-api: the externs the client gave, by WAMR's positional
//!   rule ([`positions`]), then WASI, then stand-ins;
//! - `wasm_export.h`: registered natives (and the builtin libc), WASI,
//!   registered sub-modules (multi-module, [`SubModules`]), then what the
//!   runtime makes itself.
//!
//! WASI is resolved by name through the core's [`Linker`]
//! (`crate::core::wasi::resolve`); a sub-module's exports by its module
//! name and the export's name.

use cranewasm::{Extern, ExternType, ImportType, Instance, Module, Store};
#[cfg(doc)]
use cranewasm::Linker;

use crate::core::store::StoreData;

/// One source of definitions for imports: the definition of an import
/// (the module's import number `index`) in a store, if it has one; an
/// error (of the header's kind, `E`) stops the linking.
pub type Resolver<'a, E> = dyn FnMut(&mut Store<StoreData>, usize, &ImportType) -> Result<Option<Extern>, E> + 'a;

/// The externs for `module`'s imports, in module order: for each, the
/// first definition a resolver of `chain` gives; `missing` says what an
/// import none gives is (as WAMR words it: [`unresolved`]).
pub fn link<E>(
    store: &mut Store<StoreData>,
    module: &Module,
    chain: &mut [&mut Resolver<'_, E>],
    missing: impl Fn(&ImportType) -> E,
) -> Result<Vec<Extern>, E> {
    let mut externs = Vec::new();
    'imports: for (index, import) in module.imports().enumerate() {
        for r in chain.iter_mut() {
            if let Some(e) = r(store, index, &import)? {
                externs.push(e);
                continue 'imports;
            }
        }
        return Err(missing(&import));
    }
    Ok(externs)
}

/// WAMR's "failed to link import KIND (m, n)".
pub fn unresolved(import: &ImportType) -> String {
    format!("failed to link import {} ({}, {})", kind_name(&import.ty), import.module, import.name)
}

/// The word WAMR's link errors use for an import's kind.
pub fn kind_name(t: &ExternType) -> &'static str {
    match t {
        ExternType::Func(_) => "function",
        ExternType::Global(_) => "global",
        ExternType::Table(_) => "table",
        ExternType::Memory(_) => "memory",
        ExternType::Tag(_) => "tag",
    }
}

/// WAMR's positional rule (`wasm_c_api.c`'s `do_link`): given externs of
/// kinds `given` (in the client's order), the i-th of a kind stands for
/// the i-th import of that kind, however the kinds interleave; names play
/// no part. For each given extern: the position among the module's imports
/// it stands for, `None` past the imports of its kind. `kind_of` ranks an
/// import's type in the same terms as `given`.
pub fn positions(
    imports: &[ImportType],
    given: impl IntoIterator<Item = usize>,
    kind_of: impl Fn(&ExternType) -> usize,
) -> Vec<Option<usize>> {
    let mut by_kind: Vec<Vec<usize>> = Vec::new();
    for (i, import) in imports.iter().enumerate() {
        let k = kind_of(&import.ty);
        if by_kind.len() <= k {
            by_kind.resize(k + 1, Vec::new());
        }
        by_kind[k].push(i);
    }
    let mut next = vec![0; by_kind.len()];
    given
        .into_iter()
        .map(|k| {
            if next.len() <= k {
                next.resize(k + 1, 0);
            }
            let n = next[k];
            next[k] += 1;
            by_kind.get(k).and_then(|p| p.get(n)).copied()
        })
        .collect()
}

/// The instances of registered sub-modules (multi-module), made in the
/// importing instance's store on first use and found by module name.
#[derive(Default)]
pub struct SubModules {
    made: Vec<(String, Instance)>,
}

impl SubModules {
    /// The instance of sub-module `name`, if it was made.
    pub fn get(&self, name: &str) -> Option<Instance> {
        self.made.iter().find(|(n, _)| n == name).map(|(_, i)| *i)
    }

    /// Records sub-module `name`'s new instance and defines its exports.
    pub fn add(&mut self, name: &str, instance: Instance) {
        self.made.push((name.to_string(), instance));
    }

    /// Export `name` of sub-module `module`'s instance, if it has one of
    /// `ty`'s kind.
    pub fn export(&self, store: &Store<StoreData>, module: &str, name: &str, ty: &ExternType) -> Option<Extern> {
        // The latest instance made under the name shadows earlier ones.
        let instance = self.made.iter().rev().find(|(n, _)| n == module).map(|(_, i)| *i)?;
        let e = instance.get_export(store, name)?;
        (std::mem::discriminant(&e.ty(store)) == std::mem::discriminant(ty)).then_some(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cranewasm::{FuncType, GlobalType, Mutability, ValType};

    #[test]
    fn positions_follow_each_kind_in_order() {
        let f = ExternType::Func(FuncType::new([], []));
        let g = ExternType::Global(GlobalType::new(ValType::I32, Mutability::Const));
        let import = |ty: &ExternType| ImportType { module: "m".into(), name: "n".into(), ty: ty.clone() };
        let imports = [import(&g), import(&f), import(&g), import(&f)];
        let kind = |t: &ExternType| usize::from(matches!(t, ExternType::Global(_)));
        // f, g, f, g, f: the third function has no import.
        assert_eq!(positions(&imports, [0, 1, 0, 1, 0], kind), [Some(1), Some(0), Some(3), Some(2), None]);
    }
}
