//! miniz_oxide: 2 MB of generated text compressed at level 6 and
//! decompressed again (checked against the input), twice.
use bench_programs::{fnv, words, FNV_START};

fn main() {
    let text = words(2 << 20, 17);
    let mut check = FNV_START;
    for level in [6u8, 1] {
        let packed = miniz_oxide::deflate::compress_to_vec(text.as_bytes(), level);
        let unpacked = miniz_oxide::inflate::decompress_to_vec(&packed).expect("inflate");
        assert!(unpacked == text.as_bytes(), "round trip");
        check = fnv(check, &packed);
        check = fnv(check, &(packed.len() as u64).to_le_bytes());
    }
    println!("{}", check >> 1);
}
