use cranewasm::*;
use std::time::Instant;
fn main() {
    let engine = Engine::default();
    let m = Module::new(&engine, r#"(module
        (import "h" "f" (func $f (param i32) (result i32)))
        (memory 1)
        (func (export "id") (param i32) (result i32) local.get 0)
        (func (export "loop") (param i32) (result i32) (local i32)
          (block (loop (br_if 1 (i32.eqz (local.get 0)))
             (local.set 1 (call $f (local.get 1)))
             (local.set 0 (i32.sub (local.get 0) (i32.const 1))) (br 0)))
          local.get 1))"#).unwrap();
    let mut store = Store::new(&engine, ());
    let f = Func::wrap(&mut store, |x: i32| x + 1);
    let inst = Instance::new(&mut store, &m, &[f.into()]).unwrap();
    let id = inst.get_func(&store, "id").unwrap().typed::<i32, i32>(&store).unwrap();
    let n = 2_000_000;
    for _ in 0..3 {
        let t = Instant::now();
        let mut acc = 0;
        for i in 0..n { acc += id.call(&mut store, i).unwrap(); }
        println!("typed call: {:.1} ns/call ({acc})", t.elapsed().as_nanos() as f64 / n as f64);
        let lp = inst.get_func(&store, "loop").unwrap().typed::<i32, i32>(&store).unwrap();
        let t = Instant::now();
        let r = lp.call(&mut store, n).unwrap();
        println!("wasm->host: {:.1} ns/call ({r})", t.elapsed().as_nanos() as f64 / n as f64);
        let t = Instant::now();
        let k = 20000;
        for _ in 0..k { let mut s = Store::new(&engine, ()); let f = Func::wrap(&mut s, |x: i32| x + 1); Instance::new(&mut s, &m, &[f.into()]).unwrap(); }
        println!("store+func+instantiate: {:.2} us", t.elapsed().as_nanos() as f64 / k as f64 / 1000.0);
        let mut s = Store::new(&engine, ()); let f = Func::wrap(&mut s, |x: i32| x + 1);
        let t = Instant::now();
        for _ in 0..k { let i = Instance::new(&mut s, &m, &[f.into()]).unwrap(); unsafe { i.release(&mut s) }; }
        println!("instantiate only: {:.2} us", t.elapsed().as_nanos() as f64 / k as f64 / 1000.0);
    }
}
