//! Bytes to [`ModuleInfo`]: one pass of wasmparser's parser and validator
//! over the sections. Function bodies are only located here; they are
//! validated as they are translated, on the compile threads.

use cranelift_entity::EntityRef;
use wasmparser::{
    BinaryReaderError, Chunk, ElementItems, ElementKind, FuncToValidate, FunctionBody, KnownCustom, Name, Operator,
    Parser, Payload, TypeRef, ValidPayload, Validator, ValidatorResources,
};

use super::module_info::*;
use crate::environ::error::{Error, Result};
use crate::environ::index::*;
use crate::environ::types::*;

/// A function body still to be validated and compiled.
pub struct FunctionBodyData<'a> {
    pub validator: FuncToValidate<ValidatorResources>,
    pub body: FunctionBody<'a>,
}

pub struct ParsedModule<'a> {
    pub info: ModuleInfo,
    pub bodies: Vec<FunctionBodyData<'a>>,
}

/// Parses and validates everything but the function bodies.
pub fn parse<'a>(bytes: &'a [u8], features: wasmparser::WasmFeatures) -> Result<ParsedModule<'a>> {
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
                return Err(Error::Invalid { message: "unexpected end".into(), offset: bytes.len() - rest.len() })
            }
        };
        // Validate first: everything below may then trust counts and indices.
        match validator.payload(&payload)? {
            ValidPayload::Func(validator, body) => {
                bodies.push(FunctionBodyData { validator, body });
                continue;
            }
            ValidPayload::Parser(_) => return Err(Error::unsupported("components", Some(0))),
            ValidPayload::Ok | ValidPayload::End(_) => {}
        }
        match payload {
            Payload::Version { encoding: wasmparser::Encoding::Component, .. } => {
                return Err(Error::unsupported("components", Some(0)));
            }
            Payload::TypeSection(reader) => {
                for ty in reader.into_iter_err_on_gc_types() {
                    let ty = ty?;
                    info.types.push(func_type(&ty)?);
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
                            EntityIndex::Table(info.tables.push(table_type(&t, offset)?))
                        }
                        TypeRef::Memory(m) => {
                            info.num_imported_memories += 1;
                            EntityIndex::Memory(info.memories.push(memory_type(&m, offset)?))
                        }
                        TypeRef::Global(g) => {
                            info.num_imported_globals += 1;
                            EntityIndex::Global(info.globals.push(global_type(&g, offset)?))
                        }
                        TypeRef::Tag(_) => return Err(Error::unsupported("exception tags", Some(offset as usize))),
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
                let offset = reader.range().start;
                for table in reader {
                    let table = table?;
                    if !matches!(table.init, wasmparser::TableInit::RefNull) {
                        return Err(Error::unsupported("table initialiser expressions", Some(offset as usize)));
                    }
                    info.tables.push(table_type(&table.ty, offset)?);
                }
            }
            Payload::MemorySection(reader) => {
                let offset = reader.range().start;
                for m in reader {
                    info.memories.push(memory_type(&m?, offset)?);
                }
            }
            Payload::GlobalSection(reader) => {
                let offset = reader.range().start;
                for g in reader {
                    let g = g?;
                    info.globals.push(global_type(&g.ty, offset)?);
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
                        wasmparser::ExternalKind::Tag => return Err(Error::unsupported("exception tags", None)),
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
            Payload::TagSection(r) => return Err(Error::unsupported("exception tags", Some(r.range().start as usize))),
            Payload::End(_) => break,
            _ => {}
        }
    }
    info.frozen_tables = super::frozen_tables::find(&info, bodies.iter().map(|b| b.body.clone()));
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

fn func_type(ty: &wasmparser::FuncType) -> Result<FuncType> {
    let conv = |tys: &[wasmparser::ValType]| -> Result<Vec<ValType>> {
        tys.iter()
            .map(|t| ValType::from_wasmparser(*t).ok_or_else(|| Error::unsupported("typed references", None)))
            .collect()
    };
    Ok(FuncType::new(conv(ty.params())?, conv(ty.results())?))
}

fn limits32(min: u64, max: Option<u64>, offset: u64) -> Result<Limits> {
    let fits = |v: u64| u32::try_from(v).map_err(|_| Error::unsupported("64-bit limits", Some(offset as usize)));
    Ok(Limits::new(fits(min)?, max.map(fits).transpose()?))
}

fn table_type(t: &wasmparser::TableType, offset: u64) -> Result<TableType> {
    if t.table64 {
        return Err(Error::unsupported("64-bit tables", Some(offset as usize)));
    }
    let element = ValType::from_ref_type(t.element_type)
        .ok_or_else(|| Error::unsupported("typed references", Some(offset as usize)))?;
    Ok(TableType::new(element, limits32(t.initial, t.maximum, offset)?))
}

fn memory_type(m: &wasmparser::MemoryType, offset: u64) -> Result<MemoryType> {
    if m.memory64 || m.page_size_log2.is_some() {
        return Err(Error::unsupported("memory64 or custom page sizes", Some(offset as usize)));
    }
    let limits = limits32(m.initial, m.maximum, offset)?;
    match (m.shared, limits.max) {
        (false, _) => Ok(MemoryType { limits }),
        (true, Some(max)) => Ok(MemoryType::shared(limits.min, max)),
        // The validator rejects this first ("shared memory must have maximum").
        (true, None) => {
            Err(Error::Invalid { message: "shared memory must have maximum".into(), offset: offset as usize })
        }
    }
}

fn global_type(g: &wasmparser::GlobalType, offset: u64) -> Result<GlobalType> {
    let content = ValType::from_wasmparser(g.content_type)
        .ok_or_else(|| Error::unsupported("typed references", Some(offset as usize)))?;
    let mutability = if g.mutable { Mutability::Var } else { Mutability::Const };
    Ok(GlobalType::new(content, mutability))
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
            Operator::I32Add => ConstOp::I32Add,
            Operator::I32Sub => ConstOp::I32Sub,
            Operator::I32Mul => ConstOp::I32Mul,
            Operator::I64Add => ConstOp::I64Add,
            Operator::I64Sub => ConstOp::I64Sub,
            Operator::I64Mul => ConstOp::I64Mul,
            _ => return Err(Error::unsupported("constant expression operator", Some(offset as usize))),
        });
    }
    Ok(ConstExpr { ops: ops.into() })
}

fn elem_segment(elem: wasmparser::Element<'_>) -> Result<ElemSegment> {
    let offset = elem.range.start as usize;
    let (_ty, items): (ValType, Vec<ConstExpr>) = match elem.items {
        ElementItems::Functions(funcs) => (
            ValType::FuncRef,
            funcs
                .into_iter()
                .map(|f| Ok(ConstExpr { ops: Box::new([ConstOp::RefFunc(FuncIndex::from_u32(f?))]) }))
                .collect::<Result<_>>()?,
        ),
        ElementItems::Expressions(ty, exprs) => (
            ValType::from_ref_type(ty).ok_or_else(|| Error::unsupported("typed references", Some(offset)))?,
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
