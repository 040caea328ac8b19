/* sieve: a sieve of Eratosthenes over a byte array, as a user writes it:
 * one char flag per number up to 32 million, cleared by an inner loop that
 * steps by the prime, then counted; run for six limits, the check value
 * folds the prime counts and a few flags. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"

static int sieve(char *flags, int limit)
{
    memset(flags, 1, limit + 1);
    flags[0] = flags[1] = 0;
    for (int i = 2; i * i <= limit; i++) {
        if (flags[i]) {
            for (int j = i * i; j <= limit; j += i)
                flags[j] = 0;
        }
    }
    int count = 0;
    for (int i = 0; i <= limit; i++)
        if (flags[i])
            count++;
    return count;
}

int main(void)
{
    const int max = 32000000;
    char *flags = malloc(max + 1);
    uint64_t check = FNV_START;
    if (!flags)
        return 1;
    for (int round = 0; round < 6; round++) {
        int limit = max - round * 1000003;
        int count = sieve(flags, limit);
        check = fnv(check, &count, sizeof count);
        check = fnv(check, flags + limit - 4096, 4096);
    }
    printf("%llu\n", (unsigned long long)(check >> 1));
    return 0;
}
