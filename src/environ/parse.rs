//! Bytes to [`ModuleInfo`]: one pass of wasmparser's parser and validator
//! over the sections. Function bodies are only located here; they are
//! validated as they are translated, on the compile threads.
//!
//! A build without the `compiler` feature has no validator: it parses only
//! the binaries stored in compiled-code files, which were validated when
//! they were compiled and whose checksum the file's loader checked.

use cranelift_entity::EntityRef;
use wasmparser::{
    BinaryReaderError, Chunk, ElementItems, ElementKind, FunctionBody, KnownCustom, Name, Operator, Parser, Payload,
    TypeRef,
};
#[cfg(feature = "compiler")]
use wasmparser::{FuncToValidate, ValidPayload, Validator, ValidatorResources};

use super::module_info::*;
use crate::environ::error::{Error, Result};
use crate::environ::index::*;
use crate::environ::types::*;

/// A function body still to be validated and compiled.
pub struct FunctionBodyData<'a> {
    #[cfg(feature = "compiler")]
    pub validator: FuncToValidate<ValidatorResources>,
    pub body: FunctionBody<'a>,
}

pub struct ParsedModule<'a> {
    pub info: ModuleInfo,
    pub bodies: Vec<FunctionBodyData<'a>>,
}

/// Parses and validates everything but the function bodies.
pub fn parse<'a>(bytes: &'a [u8], features: wasmparser::WasmFeatures) -> Result<ParsedModule<'a>> {
    parse_with(bytes, features, None)
}

/// As [`parse`], with the frozen tables a compiled-code file recorded
/// (`frozen`), which its code assumed: the scan of every body that finds
/// them is skipped (a sixth of a cache hit's time for Lua).
pub fn parse_with<'a>(
    bytes: &'a [u8],
    features: wasmparser::WasmFeatures,
    frozen: Option<&[super::frozen_tables::FrozenRecord]>,
) -> Result<ParsedModule<'a>> {
    #[cfg(feature = "compiler")]
    let mut validator = Validator::new_with_features(features);
    let mut info = ModuleInfo::default();
    let mut bodies = Vec::new();

    let mut parser = new_parser(features);
    let mut rest = bytes;
    loop {
        let payload = match parser.parse(rest, true)? {
            Chunk::Parsed { consumed, payload } => {
                rest = &rest[consumed..];
                payload
            }
            // Not with `eof` set; an error rather than a panic all the same.
            Chunk::NeedMoreData(_) => {
                return Err(Error::Invalid { message: "unexpected end".into(), offset: bytes.len() - rest.len() });
            }
        };
        // Validate first: everything below may then trust counts and indices.
        #[cfg(feature = "compiler")]
        match validator.payload(&payload)? {
            ValidPayload::Func(validator, body) => {
                bodies.push(FunctionBodyData { validator, body });
                continue;
            }
            ValidPayload::Parser(_) => return Err(Error::unsupported("components", Some(0))),
            ValidPayload::Ok | ValidPayload::End(_) => {}
        }
        #[cfg(not(feature = "compiler"))]
        if let Payload::CodeSectionEntry(body) = &payload {
            bodies.push(FunctionBodyData { body: body.clone() });
            continue;
        }
        match payload {
            Payload::Version { encoding: wasmparser::Encoding::Component, .. } => {
                return Err(Error::unsupported("components", Some(0)));
            }
            Payload::TypeSection(reader) => {
                for group in reader {
                    let group = group?;
                    let start = info.types.len() as u32;
                    for sub in group.into_types() {
                        let sub = sub_type(&sub, start);
                        // Validation: a supertype comes earlier.
                        info.type_depths.push(sub.supertype.map_or(0, |s| info.type_depths[s] + 1));
                        info.types.push(sub);
                    }
                    info.rec_groups.push(RecGroup { range: start..info.types.len() as u32 });
                    // After the whole group: its types may refer to each other.
                    for t in start..info.types.len() as u32 {
                        let layout = super::gc_layout::layout(TypeIndex::from_u32(t), &info.types);
                        info.gc_layouts.push(layout);
                    }
                }
            }
            Payload::ImportSection(reader) => {
                for import in reader.into_imports_with_offsets() {
                    let (offset, import) = import?;
                    let index = match import.ty {
                        TypeRef::Func(t) | TypeRef::FuncExact(t) => {
                            info.num_imported_funcs += 1;
                            EntityIndex::Func(info.funcs.push(TypeIndex::from_u32(t)))
                        }
                        TypeRef::Table(t) => {
                            info.num_imported_tables += 1;
                            EntityIndex::Table(info.tables.push(table_type(&t)))
                        }
                        TypeRef::Memory(m) => {
                            info.num_imported_memories += 1;
                            EntityIndex::Memory(info.memories.push(memory_type(&m)))
                        }
                        TypeRef::Global(g) => {
                            info.num_imported_globals += 1;
                            EntityIndex::Global(info.globals.push(global_type(&g)))
                        }
                        TypeRef::Tag(t) => {
                            let _ = offset;
                            info.num_imported_tags += 1;
                            EntityIndex::Tag(info.tags.push(TypeIndex::from_u32(t.func_type_idx)))
                        }
                    };
                    info.imports.push(Import {
                        module: import.module.to_string(),
                        name: import.name.to_string(),
                        index,
                    });
                }
            }
            Payload::FunctionSection(reader) => {
                for t in reader {
                    info.funcs.push(TypeIndex::from_u32(t?));
                }
            }
            Payload::TableSection(reader) => {
                for table in reader {
                    let table = table?;
                    let t = info.tables.push(table_type(&table.ty));
                    if let wasmparser::TableInit::Expr(init) = &table.init {
                        info.table_inits.insert(t, const_expr(init)?);
                    }
                }
            }
            Payload::MemorySection(reader) => {
                for m in reader {
                    info.memories.push(memory_type(&m?));
                }
            }
            Payload::GlobalSection(reader) => {
                for g in reader {
                    let g = g?;
                    info.globals.push(global_type(&g.ty));
                    info.global_inits.push(const_expr(&g.init_expr)?);
                }
            }
            Payload::ExportSection(reader) => {
                for e in reader {
                    let e = e?;
                    let index = match e.kind {
                        wasmparser::ExternalKind::Func | wasmparser::ExternalKind::FuncExact => {
                            EntityIndex::Func(FuncIndex::from_u32(e.index))
                        }
                        wasmparser::ExternalKind::Table => EntityIndex::Table(TableIndex::from_u32(e.index)),
                        wasmparser::ExternalKind::Memory => EntityIndex::Memory(MemoryIndex::from_u32(e.index)),
                        wasmparser::ExternalKind::Global => EntityIndex::Global(GlobalIndex::from_u32(e.index)),
                        wasmparser::ExternalKind::Tag => EntityIndex::Tag(TagIndex::from_u32(e.index)),
                    };
                    info.export_names.insert(e.name.to_string(), info.exports.len());
                    info.exports.push((e.name.to_string(), index));
                }
            }
            Payload::StartSection { func, .. } => info.start = Some(FuncIndex::from_u32(func)),
            Payload::ElementSection(reader) => {
                for elem in reader {
                    info.elems.push(elem_segment(elem?)?);
                }
            }
            Payload::DataSection(reader) => {
                for data in reader {
                    let data = data?;
                    let start = data.range.end as usize - data.data.len();
                    let mode = match data.kind {
                        wasmparser::DataKind::Passive => DataMode::Passive,
                        wasmparser::DataKind::Active { memory_index, offset_expr } => DataMode::Active {
                            memory: MemoryIndex::from_u32(memory_index),
                            offset: const_expr(&offset_expr)?,
                        },
                    };
                    info.datas.push(DataSegment { mode, range: start..start + data.data.len() });
                }
            }
            Payload::CustomSection(reader) => {
                // A malformed name section is not an error: names are advisory.
                if let KnownCustom::Name(names) = reader.as_known() {
                    let _ = read_names(names, &mut info);
                }
            }
            Payload::TagSection(reader) => {
                for tag in reader {
                    info.tags.push(TypeIndex::from_u32(tag?.func_type_idx));
                }
            }
            Payload::End(_) => break,
            _ => {}
        }
    }
    info.frozen_tables = match frozen {
        None => super::frozen_tables::find(&info, bodies.iter().map(|b| b.body.clone())),
        Some(records) => super::frozen_tables::from_records(&info, records)
            .map_err(|e| Error::Invalid { message: format!("compiled module refused: {e}"), offset: 0 })?,
    };
    // What the analysis proves of a table's slots assumes they start null.
    info.frozen_tables.retain(|t, _| !info.table_inits.contains_key(t));
    // The analysis compares function types by structure, which decides
    // type equality only among plain types (GC's recursion groups and
    // subtypes make equal structures different types).
    if !info.types.keys().all(|t| info.is_plain_type(t)) {
        info.frozen_tables.clear();
    }
    Ok(ParsedModule { info, bodies })
}

/// A parser for a whole module, in heap memory that was zeroed before the
/// parser was written into it, and used in place from then on.
///
/// Why not `Parser::new(0).parse_all(bytes)` on the stack: LLVM compiles
/// wasmparser's `Parser::parse` so that it tests the two `u32`s of the
/// parser's function-body state (`remaining`, `len`) before it tests which
/// state the parser is in. The branch taken in the end does not depend on
/// them, but until the first code section they were never written, so
/// valgrind reported "conditional jump depends on uninitialised value(s)"
/// on every module. A program of wasmparser alone shows the same report.
/// Zeroed storage makes those bytes defined (0) whatever the state. The
/// parser stays in its box: a move is a typed copy, which need not keep
/// bytes that no field of the current state covers. The C tests run under
/// valgrind with no suppression, so a regression shows there.
pub(crate) fn new_parser(features: wasmparser::WasmFeatures) -> Box<Parser> {
    let mut parser = Box::write(Box::new_zeroed(), Parser::new(0));
    // The parser must use the same features as the validator: they decide
    // how some encodings (memory limits, for one) are read.
    parser.set_features(features);
    parser
}

/// A type section entry; `group_start` is the index of its recursion
/// group's first type (references within the group are relative to it in
/// wasmparser's canonical form, module indices in the binary).
fn sub_type(sub: &wasmparser::SubType, group_start: u32) -> SubType {
    let _ = group_start;
    let composite = match &sub.composite_type.inner {
        wasmparser::CompositeInnerType::Func(f) => CompositeType::Func(FuncType::new(
            f.params().iter().map(|t| ValType::from_wasmparser(*t)),
            f.results().iter().map(|t| ValType::from_wasmparser(*t)),
        )),
        wasmparser::CompositeInnerType::Struct(s) => {
            CompositeType::Struct(s.fields.iter().map(|f| FieldType::from_wasmparser(*f)).collect())
        }
        wasmparser::CompositeInnerType::Array(a) => CompositeType::Array(FieldType::from_wasmparser(a.0)),
        // Stack switching's continuation types are not in 3.0; the
        // validator refuses them first.
        wasmparser::CompositeInnerType::Cont(_) => CompositeType::Struct(Box::new([])),
    };
    let supertype = sub.supertype_idxs.first().and_then(|i| i.as_module_index()).map(TypeIndex::from_u32);
    SubType { is_final: sub.is_final, supertype, composite }
}

fn table_type(t: &wasmparser::TableType) -> TableType {
    let element = RefType::from_wasmparser(t.element_type);
    match t.table64 {
        false => TableType::new(element, t.initial as u32, t.maximum.map(|m| m as u32)),
        true => TableType::new64(element, t.initial, t.maximum),
    }
}

fn memory_type(m: &wasmparser::MemoryType) -> MemoryType {
    let ty = match m.memory64 {
        false => MemoryType::new(m.initial as u32, m.maximum.map(|m| m as u32)),
        true => MemoryType::new64(m.initial, m.maximum),
    };
    ty.with_shared(m.shared).with_page_size_log2(m.page_size_log2.map_or(16, |l| l as u8))
}

fn global_type(g: &wasmparser::GlobalType) -> GlobalType {
    let mutability = if g.mutable { Mutability::Var } else { Mutability::Const };
    GlobalType::new(ValType::from_wasmparser(g.content_type), mutability)
}

/// Converts an already-validated constant expression.
pub fn const_expr(expr: &wasmparser::ConstExpr<'_>) -> Result<ConstExpr> {
    let mut ops = Vec::new();
    let mut reader = expr.get_operators_reader();
    loop {
        let offset = reader.original_position();
        let op = reader.read()?;
        ops.push(match op {
            Operator::End => break,
            Operator::I32Const { value } => ConstOp::I32Const(value),
            Operator::I64Const { value } => ConstOp::I64Const(value),
            Operator::F32Const { value } => ConstOp::F32Const(value.bits()),
            Operator::F64Const { value } => ConstOp::F64Const(value.bits()),
            Operator::V128Const { value } => ConstOp::V128Const(u128::from_le_bytes(*value.bytes())),
            Operator::GlobalGet { global_index } => ConstOp::GlobalGet(GlobalIndex::from_u32(global_index)),
            Operator::RefNull { .. } => ConstOp::RefNull,
            Operator::RefFunc { function_index } => ConstOp::RefFunc(FuncIndex::from_u32(function_index)),
            Operator::RefI31 => ConstOp::RefI31,
            // A host pointer made internal is boxed (see `gc_layout`).
            Operator::AnyConvertExtern => ConstOp::AnyConvertExtern,
            Operator::ExternConvertAny => ConstOp::ExternConvertAny,
            Operator::I32Add => ConstOp::I32Add,
            Operator::I32Sub => ConstOp::I32Sub,
            Operator::I32Mul => ConstOp::I32Mul,
            Operator::I64Add => ConstOp::I64Add,
            Operator::I64Sub => ConstOp::I64Sub,
            Operator::I64Mul => ConstOp::I64Mul,
            Operator::StructNew { struct_type_index } => ConstOp::StructNew(TypeIndex::from_u32(struct_type_index)),
            Operator::StructNewDefault { struct_type_index } => {
                ConstOp::StructNewDefault(TypeIndex::from_u32(struct_type_index))
            }
            Operator::ArrayNew { array_type_index } => ConstOp::ArrayNew(TypeIndex::from_u32(array_type_index)),
            Operator::ArrayNewDefault { array_type_index } => {
                ConstOp::ArrayNewDefault(TypeIndex::from_u32(array_type_index))
            }
            Operator::ArrayNewFixed { array_type_index, array_size } => {
                ConstOp::ArrayNewFixed(TypeIndex::from_u32(array_type_index), array_size)
            }
            _ => return Err(Error::unsupported("constant expression operator", Some(offset as usize))),
        });
    }
    Ok(ConstExpr { ops: ops.into() })
}

fn elem_segment(elem: wasmparser::Element<'_>) -> Result<ElemSegment> {
    let (_ty, items): (ValType, Vec<ConstExpr>) = match elem.items {
        ElementItems::Functions(funcs) => (
            ValType::FUNCREF,
            funcs
                .into_iter()
                .map(|f| Ok(ConstExpr { ops: Box::new([ConstOp::RefFunc(FuncIndex::from_u32(f?))]) }))
                .collect::<Result<_>>()?,
        ),
        ElementItems::Expressions(ty, exprs) => (
            ValType::Ref(RefType::from_wasmparser(ty)),
            exprs.into_iter().map(|e| const_expr(&e?)).collect::<Result<_>>()?,
        ),
    };
    let mode = match elem.kind {
        ElementKind::Passive => ElemMode::Passive,
        ElementKind::Declared => ElemMode::Declared,
        ElementKind::Active { table_index, offset_expr } => ElemMode::Active {
            table: TableIndex::from_u32(table_index.unwrap_or(0)),
            offset: const_expr(&offset_expr)?,
        },
    };
    Ok(ElemSegment { mode, items: items.into() })
}

fn read_names(names: wasmparser::NameSectionReader<'_>, info: &mut ModuleInfo) -> Result<(), BinaryReaderError> {
    for name in names {
        match name? {
            Name::Module { name, .. } => info.name = Some(name.to_string()),
            Name::Function(map) => {
                for naming in map {
                    let naming = naming?;
                    let f = FuncIndex::from_u32(naming.index);
                    if f.index() < info.funcs.len() {
                        info.func_names.insert(f, naming.name.to_string());
                    }
                }
            }
            _ => {}
        }
    }
    Ok(())
}
