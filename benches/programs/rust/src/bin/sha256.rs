//! sha2: SHA-256 of 32 MB (a 1 MB buffer, each pass changed by the
//! digest of the last), in sha2's portable code.
use bench_programs::{fnv, words, FNV_START};
use sha2::{Digest, Sha256};

fn main() {
    let mut buf = words(1 << 20, 19).into_bytes();
    let mut check = FNV_START;
    let mut total = Sha256::new();
    for _ in 0..32 {
        let digest = Sha256::digest(&buf);
        buf[..32].copy_from_slice(&digest);
        total.update(&buf);
        check = fnv(check, &digest);
    }
    check = fnv(check, &total.finalize());
    println!("{}", check >> 1);
}
