//! Scratch arrays for the values of one call, on the stack when small, so
//! that calls do not allocate.

use std::mem::MaybeUninit;

/// Runs `f` on `n` copies of `fill`, kept on the stack when few (as for
/// every ordinary signature).
#[inline]
pub(crate) fn with_scratch<V: Copy, R>(n: usize, fill: V, f: impl FnOnce(&mut [V]) -> R) -> R {
    const ON_STACK: usize = 16;
    if n > ON_STACK {
        return f(&mut vec![fill; n]);
    }
    // Only the `n` slots in use are written: filling all sixteen cost more
    // than the rest of a call.
    let mut buf = [const { MaybeUninit::<V>::uninit() }; ON_STACK];
    for slot in &mut buf[..n] {
        slot.write(fill);
    }
    // SAFETY: the first `n` elements were just initialised; `V: Copy` has no
    // destructor to run when `buf` goes.
    f(unsafe { std::slice::from_raw_parts_mut(buf.as_mut_ptr().cast::<V>(), n) })
}
