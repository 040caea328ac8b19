//! The checksum of a compiled-code file: a 64-bit hash over every byte but
//! its own, to refuse damaged or truncated files (not forged ones: the
//! file is trusted, see the module documentation).
//!
//! Four independent lanes of multiply-rotate mixing over 32-byte blocks
//! keep it near memory speed (a load of a few-megabyte module must not be
//! dominated by its check); every step of a lane is a bijection of its
//! state, so any single changed word changes the result, and the length
//! is mixed in so that a file cut at a block boundary differs too.

const PRIME1: u64 = 0x9E37_79B1_85EB_CA87;
const PRIME2: u64 = 0xC2B2_AE3D_27D4_EB4F;
const PRIME3: u64 = 0x1656_67B1_9E37_79F9;

#[inline]
fn round(lane: u64, word: u64) -> u64 {
    lane.wrapping_add(word.wrapping_mul(PRIME2)).rotate_left(31).wrapping_mul(PRIME1)
}

#[inline]
fn word(bytes: &[u8]) -> u64 {
    u64::from_le_bytes(bytes.try_into().expect("8 bytes"))
}

/// The checksum of `bytes`.
pub fn checksum(bytes: &[u8]) -> u64 {
    let mut lanes = [PRIME1.wrapping_add(PRIME2), PRIME2, 0, PRIME1.wrapping_neg()];
    let mut blocks = bytes.chunks_exact(32);
    for block in &mut blocks {
        for (i, lane) in lanes.iter_mut().enumerate() {
            *lane = round(*lane, word(&block[i * 8..i * 8 + 8]));
        }
    }
    let mut h = lanes.iter().enumerate().fold((bytes.len() as u64).wrapping_mul(PRIME3), |h, (i, lane)| {
        (h ^ round(0, *lane)).rotate_left(27 + i as u32 * 7).wrapping_mul(PRIME1)
    });
    let mut words = blocks.remainder().chunks_exact(8);
    for w in &mut words {
        h = (h ^ round(0, word(w))).rotate_left(27).wrapping_mul(PRIME1).wrapping_add(PRIME3);
    }
    for &b in words.remainder() {
        h = (h ^ u64::from(b).wrapping_mul(PRIME3)).rotate_left(11).wrapping_mul(PRIME1);
    }
    // Final avalanche, so that nearby inputs give unrelated sums.
    h ^= h >> 33;
    h = h.wrapping_mul(PRIME2);
    h ^= h >> 29;
    h = h.wrapping_mul(PRIME3);
    h ^ (h >> 32)
}

#[cfg(test)]
mod tests {
    use super::checksum;

    #[test]
    fn every_single_bit_flip_and_every_cut_changes_it() {
        let data: Vec<u8> = (0..1000u32).map(|i| (i.wrapping_mul(2654435761) >> 13) as u8).collect();
        let sum = checksum(&data);
        for bit in 0..data.len() * 8 {
            let mut flipped = data.clone();
            flipped[bit / 8] ^= 1 << (bit % 8);
            assert_ne!(checksum(&flipped), sum, "bit {bit}");
        }
        for len in 0..data.len() {
            assert_ne!(checksum(&data[..len]), sum, "cut at {len}");
        }
        // Zeros of different lengths differ too.
        assert_ne!(checksum(&[0; 64]), checksum(&[0; 96]));
    }
}
