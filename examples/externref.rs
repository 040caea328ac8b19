//! Passes host values to wasm and back as `externref`s (wasmtime's
//! `externref` example; ours are handles of the store, not `Rooted`).

use cranewasm::*;

const EXTERNREF: &str = r#"(module
  (table $table (export "table") 10 externref)
  (global $global (export "global") (mut externref) (ref.null extern))
  (func (export "func") (param externref) (result externref) (local.get 0)))"#;

fn main() -> Result<()> {
    let mut store = Store::<()>::default();
    let module = Module::new(store.engine(), EXTERNREF)?;
    let instance = Instance::new(&mut store, &module, &[])?;
    let externref = ExternRef::new(&mut store, "Hello, World!");
    let text = |store: &Store<()>, r: ExternRef| *r.data(store).downcast_ref::<&str>().unwrap();
    assert_eq!(text(&store, externref), "Hello, World!");

    let table = instance.get_table(&store, "table").ok_or_else(|| format_err!("no table"))?;
    table.set(&mut store, 3, Val::ExternRef(Some(externref)))?;
    let elem = table.get(&store, 3).and_then(|v| v.externref()).flatten().ok_or_else(|| format_err!("null"))?;
    assert_eq!(text(&store, elem), "Hello, World!");

    let global = instance.get_global(&store, "global").ok_or_else(|| format_err!("no global"))?;
    global.set(&mut store, Val::ExternRef(Some(externref)))?;
    assert_eq!(global.get(&store).externref(), Some(Some(externref)));

    let func = instance.get_func(&store, "func").ok_or_else(|| format_err!("no func"))?;
    let mut result = [Val::ExternRef(None)];
    func.call(&mut store, &[Val::ExternRef(Some(externref))], &mut result)?;
    let back = result[0].externref().flatten().ok_or_else(|| format_err!("null"))?;
    println!("externref round trip: {}", text(&store, back));
    assert_eq!(back, externref);
    Ok(())
}
