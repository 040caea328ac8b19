//! Where a function starts, chosen so that its inner loops begin in the
//! first half of a 64-byte line.
//!
//! Cranelift lays out a function's blocks without aligning loop headers,
//! and on the AMD EPYC these figures come from, the same loop runs up to
//! 15 % slower when its first instruction sits in the second half of a
//! 64-byte line: matmul's inner loop took 189-194 ms with its header at
//! offsets 4, 10, 20 or 26 in its line, and 200-228 ms at 36, 42, 52 or 58
//! (eight placements, two versions of the loop); sieve, fib, sort and
//! bulkmem move by 4-14 % with the placement of their code. Native
//! compilers align loop headers themselves (clang, to 16 bytes).
//!
//! We cannot pad inside Cranelift's code, but we place each function: it
//! starts at its alignment plus 0, 16, 32 or 48 bytes, whichever puts the
//! most of its innermost loops' headers in the first half of their lines
//! (ties: the least padding). A function without loops gets none. The
//! offsets come from Cranelift's record of the basic blocks and the edges
//! between them (`machine_code_cfg_info`): a backward edge ends at a loop
//! header, and a loop is innermost when no other header lies inside it.
//! Lazily compiled functions are placed one by one as they are compiled
//! (`lazy`), without this padding.

/// The start offsets (in the function) of the first blocks of its
/// innermost loops, from `edges`: the function's control-flow edges as
/// `(source block start, target block start)`.
pub fn innermost_loop_heads(edges: &[(u32, u32)]) -> Vec<u32> {
    // A backward edge (target at or before its source) closes a loop that
    // spans [target, source].
    let loops: Vec<(u32, u32)> = edges.iter().filter(|(from, to)| to <= from).map(|&(from, to)| (to, from)).collect();
    let mut heads: Vec<u32> = loops
        .iter()
        .filter(|&&(head, end)| !loops.iter().any(|&(other, _)| head < other && other <= end))
        .map(|&(head, _)| head)
        .collect();
    heads.sort_unstable();
    heads.dedup();
    heads
}

/// Bytes of padding to put before a function that would start at `start`
/// (already at its alignment) so that most of `heads` (offsets in the
/// function) fall in the first 32 bytes of a 64-byte line.
pub fn start_padding(start: usize, heads: &[u32]) -> usize {
    let early = |pad: usize| heads.iter().filter(|&&h| (start + pad + h as usize) % 64 < 32).count();
    // `max_by_key` keeps the last maximum; scanning from the most padding
    // down makes that the least padding among ties.
    [48, 32, 16, 0].into_iter().max_by_key(|&pad| early(pad)).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_innermost_of_nested_loops() {
        // An outer loop [0x10, 0x80] around an inner one [0x30, 0x60] (two
        // back edges to it), then a loop of its own at 0x90; forward edges
        // are ignored.
        let edges = [(0x0, 0x10), (0x60, 0x30), (0x50, 0x30), (0x80, 0x10), (0x90, 0x90), (0x60, 0x70)];
        assert_eq!(innermost_loop_heads(&edges), vec![0x30, 0x90]);
    }

    #[test]
    fn padding_puts_headers_early_in_their_lines() {
        assert_eq!(start_padding(0, &[]), 0);
        assert_eq!(start_padding(0, &[4]), 0);
        assert_eq!(start_padding(0, &[0x34]), 16);
        assert_eq!(start_padding(0, &[0x2a]), 32);
        assert_eq!(start_padding(16, &[0x2a]), 16);
        // One of the two can be early at every padding: the least wins.
        assert_eq!(start_padding(0, &[0x00, 0x20]), 0);
    }
}
