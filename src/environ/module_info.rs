//! What a validated module declares, as plain data: the output of parsing
//! and the input of both translation and instantiation.

use std::collections::HashMap;
use std::ops::Range;

use cranelift_entity::{EntityRef, PrimaryMap};

use crate::environ::index::*;
use crate::environ::types::*;

/// One import, in import order.
#[derive(Clone, Debug)]
pub struct Import {
    pub module: String,
    pub name: String,
    pub index: EntityIndex,
}

/// A constant expression (global initialisers, segment offsets, element
/// items), kept as a tiny stack program so extended-const works unchanged.
#[derive(Clone, Debug, PartialEq)]
pub struct ConstExpr {
    pub ops: Box<[ConstOp]>,
}

#[derive(Copy, Clone, Debug, PartialEq)]
pub enum ConstOp {
    I32Const(i32),
    I64Const(i64),
    F32Const(u32),
    F64Const(u64),
    V128Const(u128),
    GlobalGet(GlobalIndex),
    RefNull,
    RefFunc(FuncIndex),
    /// `ref.i31` of the i32 on the stack (GC).
    RefI31,
    /// GC objects (issue 40 stage 2), allocated in the store's heap.
    StructNew(TypeIndex),
    StructNewDefault(TypeIndex),
    ArrayNew(TypeIndex),
    ArrayNewDefault(TypeIndex),
    ArrayNewFixed(TypeIndex, u32),
    /// Boxes a host pointer; leaves any other reference.
    AnyConvertExtern,
    /// Unboxes a boxed host pointer; leaves any other reference.
    ExternConvertAny,
    I32Add,
    I32Sub,
    I32Mul,
    I64Add,
    I64Sub,
    I64Mul,
}

#[derive(Clone, Debug)]
pub enum ElemMode {
    Active { table: TableIndex, offset: ConstExpr },
    Passive,
    Declared,
}

#[derive(Clone, Debug)]
pub struct ElemSegment {
    pub mode: ElemMode,
    pub items: Box<[ConstExpr]>,
}

#[derive(Clone, Debug)]
pub enum DataMode {
    Active { memory: MemoryIndex, offset: ConstExpr },
    Passive,
}

#[derive(Clone, Debug)]
pub struct DataSegment {
    pub mode: DataMode,
    /// Where the bytes sit in the module's binary.
    pub range: Range<usize>,
}

/// Everything a module declares, with imported entities first in each
/// index space (as the binary format numbers them).
#[derive(Default, Debug)]
pub struct ModuleInfo {
    /// The type section: every entry, and how they are grouped.
    pub types: PrimaryMap<TypeIndex, SubType>,
    pub rec_groups: Vec<RecGroup>,
    /// Each type's depth in the subtype hierarchy (0 without supertype):
    /// where its id sits in its subtypes' displays (GC).
    pub type_depths: PrimaryMap<TypeIndex, u32>,
    /// Each struct or array type's object layout in the GC heap.
    pub gc_layouts: PrimaryMap<TypeIndex, super::gc_layout::GcLayout>,
    pub imports: Vec<Import>,
    pub funcs: PrimaryMap<FuncIndex, TypeIndex>,
    pub tables: PrimaryMap<TableIndex, TableType>,
    pub memories: PrimaryMap<MemoryIndex, MemoryType>,
    pub globals: PrimaryMap<GlobalIndex, GlobalType>,
    pub global_inits: PrimaryMap<DefinedGlobalIndex, ConstExpr>,
    pub exports: Vec<(String, EntityIndex)>,
    pub export_names: HashMap<String, usize>,
    pub start: Option<FuncIndex>,
    pub elems: PrimaryMap<ElemIndex, ElemSegment>,
    pub datas: PrimaryMap<DataIndex, DataSegment>,
    pub num_imported_funcs: usize,
    pub num_imported_tables: usize,
    pub num_imported_memories: usize,
    pub num_imported_globals: usize,
    /// Each tag's type (exceptions), imported tags first.
    pub tags: PrimaryMap<TagIndex, TypeIndex>,
    pub num_imported_tags: usize,
    /// Function names from the `name` custom section, for backtraces.
    pub func_names: HashMap<FuncIndex, String>,
    /// The module's own name from the `name` section.
    pub name: Option<String>,
    /// Defined tables that never change after instantiation, and what
    /// their segments put in them (see `frozen_tables`).
    pub frozen_tables: HashMap<TableIndex, super::frozen_tables::FrozenTable>,
    /// The initialiser of each defined table that has one (typed function
    /// references); the others start null.
    pub table_inits: HashMap<TableIndex, ConstExpr>,
}

impl ModuleInfo {
    /// The signature of function `f`.
    pub fn func_type(&self, f: FuncIndex) -> &FuncType {
        self.func_sig(self.funcs[f])
    }

    /// The function type at index `t` of the type section (validation
    /// proves the types that functions, calls and tags name are functions).
    pub fn func_sig(&self, t: TypeIndex) -> &FuncType {
        self.types[t].as_func().expect("a function type, as validated")
    }

    /// Whether type `t` is final, without supertype and alone in its
    /// recursion group, as every WebAssembly 2.0 type is: only such a type
    /// equals another of the same structure written on its own, so only it
    /// may have a small signature id.
    pub fn is_plain_type(&self, t: TypeIndex) -> bool {
        let sub = &self.types[t];
        let i = t.as_u32();
        let group = self.rec_groups.partition_point(|g| g.range.end <= i);
        sub.is_final && sub.supertype.is_none() && self.rec_groups.get(group).is_none_or(|g| g.range.len() == 1)
    }

    /// The small id of function type `t` (`FuncType::small_sig_id`), which
    /// only a plain type ([`is_plain_type`](Self::is_plain_type)) has.
    pub fn small_sig_id(&self, t: TypeIndex) -> Option<usize> {
        self.types[t].as_func().filter(|_| self.is_plain_type(t))?.small_sig_id()
    }

    pub fn num_defined_funcs(&self) -> usize {
        self.funcs.len() - self.num_imported_funcs
    }

    pub fn defined_func_index(&self, f: FuncIndex) -> Option<DefinedFuncIndex> {
        f.index().checked_sub(self.num_imported_funcs).map(DefinedFuncIndex::new)
    }

    pub fn func_index(&self, f: DefinedFuncIndex) -> FuncIndex {
        FuncIndex::new(self.num_imported_funcs + f.index())
    }

    pub fn defined_global_index(&self, g: GlobalIndex) -> Option<DefinedGlobalIndex> {
        g.index().checked_sub(self.num_imported_globals).map(DefinedGlobalIndex::new)
    }

    pub fn global_index(&self, g: DefinedGlobalIndex) -> GlobalIndex {
        GlobalIndex::new(self.num_imported_globals + g.index())
    }

    /// Whether every memory of an instance of this module stays below
    /// 4 GiB by 64 KiB or more, which `compile::address_steps` relies on:
    /// a defined memory declared smaller than 4 GiB never grows to it
    /// (`GROWN_MAX_PAGES`), and an imported one is at most its import's
    /// maximum. Instantiation refuses a defined memory that the embedder
    /// made 4 GiB (WAMR's app heap can add pages).
    pub fn memories_below_4gib(&self) -> bool {
        self.memories.iter().all(|(m, ty)| match m.index() < self.num_imported_memories {
            true => ty.maximum().is_some_and(|max| max < ty.pages_in_4gib()),
            false => ty.minimum() < ty.pages_in_4gib(),
        })
    }

    /// The type of whatever `index` names.
    pub fn entity_type(&self, index: EntityIndex) -> ExternType {
        match index {
            EntityIndex::Func(f) => ExternType::Func(self.func_type(f).clone()),
            EntityIndex::Table(t) => ExternType::Table(self.tables[t]),
            EntityIndex::Memory(m) => ExternType::Memory(self.memories[m]),
            EntityIndex::Global(g) => ExternType::Global(self.globals[g]),
            EntityIndex::Tag(t) => ExternType::Tag(TagType::new(self.func_sig(self.tags[t]).clone())),
        }
    }

    pub fn export(&self, name: &str) -> Option<EntityIndex> {
        self.export_names.get(name).map(|&i| self.exports[i].1)
    }
}
