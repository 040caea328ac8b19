//! Tables that never change after instantiation, found at parse time so
//! that `call_indirect` through them can skip checks.
//!
//! A defined funcref table that is not exported, that no function writes
//! (`table.set`, `fill`, `copy` into it, `init`, `grow`), and whose active
//! segments all have constant offsets and plain `ref.func`/`ref.null`
//! items holds, for its whole life, exactly what those segments put there
//! at instantiation (nothing else can reach it: the runtime refuses host
//! writes to it and its use as another module's import, see
//! `VMTable::read_only`). Its size is its minimum, since nothing grows it.
//! From the segments alone we then know the type each slot holds. If every
//! non-null element has one function type, a `call_indirect` of that type
//! needs no signature check; if, besides, every slot is non-null, it needs
//! no null check either.
//!
//! Clang's function-pointer table (`__indirect_function_table`, unexported
//! unless linked with `--export-table`) is such a table.

use std::collections::HashMap;

use cranelift_entity::EntityRef;
use wasmparser::{FunctionBody, Operator};

use super::module_info::{ConstOp, ElemMode, ModuleInfo};
use crate::environ::index::{EntityIndex, TableIndex};
use crate::environ::types::{FuncType, RefType};

/// What compiled code may assume of a table that never changes.
#[derive(Clone, Debug, PartialEq)]
pub struct FrozenTable {
    /// The type of every non-null element, when they share one (and there
    /// is at least one).
    pub shared_type: Option<FuncType>,
    /// Every slot below the table's size holds a non-null function.
    pub full: bool,
    /// Every element is a function this module defines (none imported),
    /// so its VMContext is the caller's own: the table is neither imported
    /// nor exported, so only this instance's code calls through it.
    pub own_functions: bool,
}

impl FrozenTable {
    /// Whether `call_indirect` through the table, for its shared type,
    /// loads the callee's code address from an array of them made at
    /// instantiation (`VMTable::freeze_codes`) instead of the funcref's:
    /// every element is null or this instance's, so the caller's VMContext
    /// is the callee's, and one type means no signature check.
    pub fn calls_by_code(&self) -> bool {
        self.own_functions && self.shared_type.is_some()
    }
}

/// Tables larger than this are not simulated slot by slot (they may still
/// share a type; they are just never called `full`).
const MAX_SIMULATED_SLOTS: u32 = 1 << 20;

/// The frozen tables of the module `info` describes, whose function
/// bodies are `bodies`. A body that fails to read (invalid; validation
/// rejects it later) freezes nothing.
pub fn find<'a>(info: &ModuleInfo, bodies: impl Iterator<Item = FunctionBody<'a>>) -> HashMap<TableIndex, FrozenTable> {
    let mut candidates: Vec<TableIndex> = info
        .tables
        .iter()
        .skip(info.num_imported_tables)
        .filter(|(t, ty)| {
            ty.element() == RefType::FUNCREF && !info.exports.iter().any(|(_, e)| *e == EntityIndex::Table(*t))
        })
        .map(|(t, _)| t)
        .collect();
    if candidates.is_empty() {
        return HashMap::new();
    }
    // Segments next: cheaper than the bodies, and most modules stop here.
    let mut slots: HashMap<TableIndex, Vec<Option<FuncType>>> = HashMap::new();
    let mut types: HashMap<TableIndex, Vec<FuncType>> = HashMap::new();
    let mut foreign: Vec<TableIndex> = Vec::new();
    candidates.retain(|&t| {
        let size = info.tables[t].minimum();
        let simulate = size <= MAX_SIMULATED_SLOTS as u64;
        let table_slots = slots.entry(t).or_insert_with(|| vec![None; if simulate { size as usize } else { 0 }]);
        let table_types = types.entry(t).or_default();
        for seg in info.elems.values() {
            let ElemMode::Active { table, offset } = &seg.mode else { continue };
            if *table != t {
                continue;
            }
            let [ConstOp::I32Const(start)] = *offset.ops else { return false };
            for (i, item) in seg.items.iter().enumerate() {
                let ty = match *item.ops {
                    [ConstOp::RefFunc(f)] => {
                        if info.defined_func_index(f).is_none() && !foreign.contains(&t) {
                            foreign.push(t);
                        }
                        Some(info.func_type(f).clone())
                    }
                    [ConstOp::RefNull] => None,
                    _ => return false,
                };
                if let Some(ty) = &ty {
                    if !table_types.contains(ty) {
                        table_types.push(ty.clone());
                    }
                }
                // Out of bounds fails instantiation: no code runs then.
                if let Some(slot) = table_slots.get_mut((start as u32 as usize).saturating_add(i)) {
                    *slot = ty;
                }
            }
        }
        true
    });
    if candidates.is_empty() {
        return HashMap::new();
    }
    for body in bodies {
        let Ok(mut reader) = body.get_operators_reader() else { return HashMap::new() };
        while !reader.eof() {
            let Ok(op) = reader.read() else { return HashMap::new() };
            let written = match op {
                Operator::TableSet { table }
                | Operator::TableFill { table }
                | Operator::TableGrow { table }
                | Operator::TableInit { table, .. }
                | Operator::TableCopy { dst_table: table, .. } => table,
                // Shared-everything threads (not enabled; written all the same).
                Operator::TableAtomicSet { table_index, .. }
                | Operator::TableAtomicRmwXchg { table_index, .. }
                | Operator::TableAtomicRmwCmpxchg { table_index, .. } => table_index,
                _ => continue,
            };
            candidates.retain(|t| t.index() as u32 != written);
            if candidates.is_empty() {
                return HashMap::new();
            }
        }
    }
    // A segment that fails instantiation leaves the earlier ones applied,
    // and functions they put in other (imported) tables stay callable: a
    // table later segments should have filled may have holes then. So no
    // table is `full` unless every active segment is in bounds for sure.
    let no_segment_fails = info.elems.values().all(|seg| match &seg.mode {
        ElemMode::Active { table, offset } => match *offset.ops {
            [ConstOp::I32Const(start)] => {
                u64::from(start as u32) + seg.items.len() as u64 <= info.tables[*table].minimum()
            }
            _ => false,
        },
        _ => true,
    });
    candidates
        .into_iter()
        .map(|t| {
            let table_types = &types[&t];
            let table_slots = &slots[&t];
            let full = no_segment_fails
                && table_slots.len() as u64 == info.tables[t].minimum()
                && table_slots.iter().all(Option::is_some);
            let shared_type = if let [ty] = &table_types[..] { Some(ty.clone()) } else { None };
            // Segments that overwrite each other may leave fewer types than
            // `types` lists; then the table just keeps its checks.
            (t, FrozenTable { shared_type, full, own_functions: !foreign.contains(&t) })
        })
        .collect()
}

/// A frozen table as a compiled-code file records it, so that loading the
/// file need not scan every function body again (the code compiled from
/// it assumes exactly these facts): the table, a type of the module equal
/// to its elements' shared type, and the two facts.
#[derive(Clone, Debug, PartialEq)]
pub struct FrozenRecord {
    pub table: u32,
    pub shared_type: Option<u32>,
    pub full: bool,
    pub own_functions: bool,
}

/// The records of `info`'s frozen tables, by table.
pub fn to_records(info: &ModuleInfo) -> Vec<FrozenRecord> {
    let mut records: Vec<FrozenRecord> = info
        .frozen_tables
        .iter()
        .map(|(t, f)| FrozenRecord {
            table: t.index() as u32,
            // The analysis ran on the module's types as parsed; by now the
            // types hold canonical ids for the types they refer to, so a
            // shared type that refers to one matches no type here. None is
            // then what the compiled code assumed already: it skips a
            // signature check (and reads the table's code array) only for a
            // shared type equal to a call's type as compiled, that is, one
            // that canonicalising left unchanged and that is found here.
            shared_type: f.shared_type.as_ref().and_then(|ty| {
                let found = info.types.iter().find(|(_, sub)| sub.as_func() == Some(ty));
                found.map(|(t, _)| t.index() as u32)
            }),
            full: f.full,
            own_functions: f.own_functions,
        })
        .collect();
    records.sort_by_key(|r| r.table);
    records
}

/// The frozen tables `records` describe for the module `info` describes,
/// or why they cannot be its (a damaged file).
pub fn from_records(info: &ModuleInfo, records: &[FrozenRecord]) -> Result<HashMap<TableIndex, FrozenTable>, String> {
    let mut tables = HashMap::new();
    for r in records {
        let table = TableIndex::from_u32(r.table);
        if info.tables.get(table).is_none() || (r.table as usize) < info.num_imported_tables {
            return Err(format!("a frozen table ({}) is not a table the module defines", r.table));
        }
        let shared_type = match r.shared_type {
            None => None,
            Some(t) => match info.types.get(crate::environ::index::TypeIndex::from_u32(t)).and_then(|s| s.as_func()) {
                Some(ty) => Some(ty.clone()),
                None => return Err(format!("a frozen table's type ({t}) is not a function type of the module")),
            },
        };
        tables.insert(table, FrozenTable { shared_type, full: r.full, own_functions: r.own_functions });
    }
    Ok(tables)
}

#[cfg(test)]
mod tests {
    use crate::environ::parse::parse;

    fn frozen(wat: &str) -> Vec<(u32, Option<usize>, bool)> {
        let wasm = wat::parse_str(wat).unwrap();
        let info = parse(&wasm, wasmparser::WasmFeatures::default()).unwrap().info;
        let mut found: Vec<_> = info
            .frozen_tables
            .iter()
            .map(|(t, f)| (t.as_u32(), f.shared_type.as_ref().map(|ty| ty.params().len()), f.full))
            .collect();
        found.sort_by_key(|f| f.0);
        found
    }

    const FUNCS: &str = "(type $t (func (param i32))) (type $u (func (param i32 i32)))
        (func $a (type $t)) (func $b (type $t)) (func $c (type $u))";

    #[test]
    fn tables_only_their_segments_fill_are_frozen() {
        // Two tables, both frozen: one full of $t, one with a null and a $u.
        let both = frozen(&format!(
            "(module {FUNCS} (table 2 funcref) (table 3 3 funcref)
                (elem (table 0) (i32.const 0) func $a $b) (elem (table 1) (i32.const 1) func $a $c)
                (func (drop (table.get 0 (i32.const 0))) (table.copy 1 0 (i32.const 0) (i32.const 0) (i32.const 0))))"
        ));
        // Table 1 is written by the copy (its destination); table 0 only read.
        assert_eq!(both, [(0, Some(1), true)]);
        // A later segment's null leaves a hole; overwritten slots count once.
        let holes = frozen(&format!(
            "(module {FUNCS} (table 2 funcref)
                (elem (i32.const 0) func $a $b) (elem (table 0) (i32.const 1) funcref (ref.null func)))"
        ));
        assert_eq!(holes, [(0, Some(1), false)]);
        // A failing segment (here past table 1's end) may stop the filling
        // before the full table's segment: then it may have holes.
        let may_fail = frozen(&format!(
            "(module {FUNCS} (table 2 funcref) (table 1 funcref)
                (elem (table 1) (i32.const 1) func $a) (elem (table 0) (i32.const 0) func $a $b))"
        ));
        assert_eq!(may_fail, [(0, Some(1), false), (1, Some(1), false)]);
        let mixed = frozen(&format!("(module {FUNCS} (table 2 funcref) (elem (i32.const 0) func $a $c))"));
        assert_eq!(mixed, [(0, None, true)]);
    }

    #[test]
    fn tables_holding_an_imported_function_do_not_share_the_callers_context() {
        let own = |elems: &str| {
            let wat = format!(r#"(module (import "m" "f" (func $f)) (func $g) (table 2 funcref) {elems})"#);
            let info = parse(&wat::parse_str(wat).unwrap(), wasmparser::WasmFeatures::default()).unwrap().info;
            info.frozen_tables.values().map(|f| f.own_functions).collect::<Vec<_>>()
        };
        assert_eq!(own("(elem (i32.const 0) func $g $g)"), [true]);
        assert_eq!(own("(elem (i32.const 0) func $g) (elem (i32.const 1) func $f)"), [false]);
    }

    #[test]
    fn reachable_written_or_unknown_tables_are_not() {
        for (what, table) in [
            ("exported", r#"(table (export "t") 1 funcref)"#),
            ("imported", r#"(import "m" "t" (table 1 funcref))"#),
            ("set", "(table 1 funcref) (func (table.set 0 (i32.const 0) (ref.null func)))"),
            ("grown", "(table 1 funcref) (func (drop (table.grow 0 (ref.null func) (i32.const 1))))"),
            ("filled", "(table 1 funcref) (func (table.fill 0 (i32.const 0) (ref.null func) (i32.const 1)))"),
            (
                "initialised",
                "(table 1 funcref) (elem $p func $a) (func (table.init 0 $p (i32.const 0) (i32.const 0) (i32.const 1)))",
            ),
            ("global offset", r#"(import "m" "g" (global i32)) (table 1 funcref) (elem (global.get 0) func $a)"#),
            ("externref", "(table 1 externref)"),
        ] {
            assert_eq!(frozen(&format!("(module {table} {FUNCS})")), [], "{what}");
        }
    }
}
