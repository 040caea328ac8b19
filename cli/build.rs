//! Exports the runtime's C functions from the `iwasm` executable, as
//! WAMR's iwasm (linked to libiwasm) has them: a `--native-lib` library
//! that calls `wasm_runtime_*` (WAMR's samples/native-lib test_hello2.c)
//! then reaches this process's runtime, not a second copy in a
//! libiwasm.so it was linked against.

fn main() {
    println!("cargo:rustc-link-arg-bin=iwasm=-rdynamic");
}
