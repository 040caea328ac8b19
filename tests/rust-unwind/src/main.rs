//! Panics inside `catch_unwind`, recovers, and exits 0: the panic is a
//! wasm exception thrown through several frames and caught.

use std::panic;

#[inline(never)]
fn parse(depth: u32, text: &str) -> u32 {
    if depth > 0 {
        return parse(depth - 1, text) + 1;
    }
    text.parse().unwrap_or_else(|_| panic!("not a number: {text}"))
}

fn main() {
    panic::set_hook(Box::new(|info| println!("panicked: {}", info.payload_as_str().unwrap_or("?"))));
    let mut recovered = 0;
    for (i, text) in ["12", "x", "7", "y"].iter().enumerate() {
        match panic::catch_unwind(|| parse(i as u32 * 3, text)) {
            Ok(n) => println!("parsed {text}: {n}"),
            Err(_) => {
                recovered += 1;
                println!("recovered from {text}");
            }
        }
    }
    println!("recovered {recovered} times");
    std::process::exit(if recovered == 2 { 0 } else { 1 });
}
