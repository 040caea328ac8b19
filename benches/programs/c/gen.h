/* Deterministic inputs and an output hash for the C programs (as the Rust
 * programs' lib.rs: an LCG, generated words, FNV-1a). */
#ifndef BENCH_GEN_H
#define BENCH_GEN_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static uint64_t lcg_state;
static uint64_t lcg_next(void)
{
    lcg_state = lcg_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return lcg_state >> 11;
}

static const char *const WORDS[] = {
    "the", "of", "and", "runtime", "module", "memory", "table", "function", "value", "store", "engine",
    "compile", "instance", "import", "export", "global", "trap", "stack", "frame", "signal", "thread",
    "atomic", "page", "limit", "bytes", "offset", "index", "type", "result", "param", "local", "block",
    "loop", "branch", "call", "return", "select", "load", "grow", "size", "data", "element",
};
#define NWORDS (sizeof WORDS / sizeof WORDS[0])

static const char *gen_word(void)
{
    return WORDS[lcg_next() % NWORDS];
}

/* Fills buf with len bytes of words (the last one cut). */
static void gen_words(char *buf, size_t len)
{
    size_t at = 0;
    while (at < len) {
        const char *w = gen_word();
        size_t n = strlen(w);
        for (size_t i = 0; i < n && at < len; i++)
            buf[at++] = w[i];
        if (at < len)
            buf[at++] = lcg_next() % 12 == 0 ? '\n' : ' ';
    }
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ULL;
    return h;
}
#define FNV_START 0xcbf29ce484222325ULL

#endif
