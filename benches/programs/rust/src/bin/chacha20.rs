//! chacha20: 64 MB encrypted with ChaCha20 (a 1 MB buffer, in place,
//! under a new nonce each pass).
use bench_programs::{fnv, words, FNV_START};
use chacha20::cipher::{KeyIvInit, StreamCipher};
use chacha20::ChaCha20;

fn main() {
    let mut buf = words(1 << 20, 23).into_bytes();
    let key = [7u8; 32];
    let mut check = FNV_START;
    for pass in 0..64u64 {
        let mut nonce = [0u8; 12];
        nonce[..8].copy_from_slice(&pass.to_le_bytes());
        ChaCha20::new(&key.into(), &nonce.into()).apply_keystream(&mut buf);
        check = fnv(check, &buf[..64]);
    }
    check = fnv(check, &buf);
    println!("{}", check >> 1);
}
