use cranewasm::*;
fn main() {
    let engine = Engine::default();
    let m = Module::new(&engine, r#"(module
        (import "h" "f" (func $f (param i32) (result i32)))
        (memory 1) (global (mut i32) (i32.const 0)) (table 2 funcref)
        (func (export "id") (param i32) (result i32) local.get 0))"#).unwrap();
    let mut s = Store::new(&engine, ());
    let f = Func::wrap(&mut s, |x: i32| x + 1);
    for _ in 0..10000 { let i = Instance::new(&mut s, &m, &[f.into()]).unwrap(); unsafe { i.release(&mut s) }; }
}
