use cranewasm::*;
fn main() {
    let engine = Engine::default();
    let m = Module::new(&engine, r#"(module (func (export "id") (param i32) (result i32) local.get 0))"#).unwrap();
    let mut store = Store::new(&engine, ());
    let inst = Instance::new(&mut store, &m, &[]).unwrap();
    let id = inst.get_func(&store, "id").unwrap().typed::<i32, i32>(&store).unwrap();
    let mut acc = 0;
    for i in 0..100000 { acc += id.call(&mut store, i).unwrap(); }
    println!("{acc}");
}
