use cranewasm::*;

#[test]
fn add_and_host_call() {
    let engine = Engine::default();
    let module = Module::new(
        &engine,
        r#"(module
            (import "host" "double" (func $double (param i32) (result i32)))
            (func (export "add") (param i32 i32) (result i32) (i32.add (local.get 0) (local.get 1)))
            (func (export "run") (param i32) (result i32)
                (i32.add (call $double (local.get 0)) (i32.const 1)))
            (func (export "div") (param i32 i32) (result i32) (i32.div_s (local.get 0) (local.get 1)))
            (func $rec (export "rec") (param i32) (result i32) (call $rec (local.get 0)))
            (memory (export "mem") 1)
            (func (export "load") (param i32) (result i32) (i32.load (local.get 0))))"#,
    )
    .unwrap();
    let mut store = Store::new(&engine, ());
    let double = Func::new(&mut store, FuncType::new([ValType::I32], [ValType::I32]), |_, p, r| {
        r[0] = Val::I32(p[0].i32().unwrap() * 2);
        Ok(())
    });
    let instance = Instance::new(&mut store, &module, &[double.into()]).unwrap();
    let call = |store: &mut Store<()>, name: &str, args: &[Val]| -> Result<i32> {
        let f = instance.get_func(&*store, name).unwrap();
        let mut r = [Val::I32(0)];
        f.call(store, args, &mut r)?;
        Ok(r[0].i32().unwrap())
    };
    assert_eq!(call(&mut store, "add", &[Val::I32(2), Val::I32(3)]).unwrap(), 5);
    assert_eq!(call(&mut store, "run", &[Val::I32(20)]).unwrap(), 41);
    let e = call(&mut store, "div", &[Val::I32(1), Val::I32(0)]).unwrap_err();
    assert_eq!(e.as_trap().unwrap().code(), Some(Trap::IntegerDivisionByZero), "{e}");
    let e = call(&mut store, "div", &[Val::I32(i32::MIN), Val::I32(-1)]).unwrap_err();
    assert_eq!(e.as_trap().unwrap().code(), Some(Trap::IntegerOverflow), "{e}");
    let e = call(&mut store, "load", &[Val::I32(65535)]).unwrap_err();
    assert_eq!(e.as_trap().unwrap().code(), Some(Trap::MemoryOutOfBounds), "{e}");
    let e = call(&mut store, "rec", &[Val::I32(1)]).unwrap_err();
    assert_eq!(e.as_trap().unwrap().code(), Some(Trap::StackOverflow), "{e}");
    assert_eq!(call(&mut store, "add", &[Val::I32(2), Val::I32(3)]).unwrap(), 5);
}
