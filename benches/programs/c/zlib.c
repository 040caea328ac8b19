/* zlib: 2 MB of generated words compressed with deflate at levels 6 and 1,
 * uncompressed again and compared with the input; prints a check value. */
#include <stdio.h>
#include <stdlib.h>

#include "gen.h"
#include "zlib.h"

int main(void)
{
    const size_t len = 2 << 20;
    char *text = malloc(len), *back = malloc(len);
    uLongf cap = compressBound(len);
    Bytef *packed = malloc(cap);
    uint64_t check = FNV_START;
    if (!text || !back || !packed)
        return 1;
    lcg_state = 17;
    gen_words(text, len);
    for (int level = 6; level >= 1; level -= 5) {
        uLongf packed_len = cap, back_len = len;
        if (compress2(packed, &packed_len, (const Bytef *)text, len, level) != Z_OK)
            return 2;
        if (uncompress((Bytef *)back, &back_len, packed, packed_len) != Z_OK || back_len != len ||
            memcmp(back, text, len) != 0)
            return 3;
        check = fnv(check, packed, packed_len);
        check ^= crc32(0, (const Bytef *)back, (uInt)len);
    }
    printf("%llu\n", (unsigned long long)(check >> 1));
    return 0;
}
