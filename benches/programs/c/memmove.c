/* memmove: memmove and memcpy of small, odd sizes (1 to 64 bytes) at
 * unaligned offsets, as a byte-shuffling program does them: inserts and
 * deletes in a gap buffer (overlapping memmove), copies of records between
 * two buffers (memcpy), and a string builder appending short pieces. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"

#define BUF (64 << 10)
#define OPS 6000000

int main(void)
{
    unsigned char *a = malloc(BUF + 128), *b = malloc(BUF + 128), *out = malloc(BUF + 128);
    uint32_t *plan = malloc(OPS * sizeof *plan);
    uint64_t check = FNV_START;
    if (!a || !b || !out || !plan)
        return 1;
    lcg_state = 23;
    gen_words((char *)a, BUF + 128);
    memcpy(b, a, BUF + 128);
    /* The operations are drawn once, so the loops below time the copies, not
     * the generator: per op a size of 1..64, two offsets and a kind. */
    for (int i = 0; i < OPS; i++)
        plan[i] = (uint32_t)lcg_next();
    for (int pass = 0; pass < 4; pass++) {
        size_t used = 0;
        for (int i = 0; i < OPS; i++) {
            uint32_t r = plan[i] ^ (uint32_t)pass * 0x9e3779b9u;
            size_t n = 1 + (r & 63);
            size_t x = (r >> 6) & (BUF - 1), y = (r >> 22) * 61 & (BUF - 1);
            switch ((r >> 20) & 3) {
            case 0: /* insert a gap at x: move the tail up by n */
                memmove(a + x + n, a + x, 64 - (x & 63));
                a[x] ^= (unsigned char)n;
                break;
            case 1: /* delete n bytes at y: move the tail down */
                memmove(a + y, a + y + n, 64);
                break;
            case 2: /* copy a record between the buffers */
                memcpy(b + y, a + x, n);
                break;
            default: /* append a piece to the output string */
                if (used + n > BUF) {
                    /* A sample of the string, so that hashing does not
                     * outweigh the copies; it is hashed whole below. */
                    check = fnv(check, out + (check & 4095), 64);
                    used = 0;
                }
                memcpy(out + used, b + x, n);
                used += n;
                break;
            }
        }
        check = fnv(check, out, used);
        check = fnv(check, a, BUF);
        check = fnv(check, b, BUF);
    }
    printf("%llu\n", (unsigned long long)(check >> 1));
    return 0;
}
