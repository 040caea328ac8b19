/* Forced (-include) into WAMR's socket apps, which are otherwise built
 * unchanged, so that tests/wamr-sockets.sh can run them side by side and
 * on loopback only:
 *
 * - Their servers and clients meet on fixed ports (1234; 8989 in
 *   lib-socket's tcp_udp.c). The test gives each run of a pair a free port
 *   of its own in CW_TEST_PORT (iwasm --env), and the fixed ports map to
 *   it, so runs never collide with each other or with anything else on
 *   the machine. Other ports pass through.
 * - Their servers bind the wildcard address (INADDR_ANY, in6addr_any);
 *   here they bind loopback instead, so nothing outside the machine can
 *   reach them, and every run's address pool can be 127.0.0.1/32 and
 *   ::1/128 alone (the sandbox then refuses anything else). */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdlib.h>

static inline uint16_t
cw_test_htons(uint16_t port)
{
    if (port == 1234 || port == 8989) {
        const char *given = getenv("CW_TEST_PORT");
        if (!given)
            abort(); /* a run without a port of its own is a test bug */
        port = (uint16_t)atoi(given);
    }
    return (uint16_t)((port << 8) | (port >> 8));
}

static inline uint32_t
cw_test_htonl(uint32_t addr)
{
    if (addr == 0) /* INADDR_ANY */
        addr = 0x7f000001; /* INADDR_LOOPBACK */
    return __builtin_bswap32(addr);
}

#undef htons
#define htons(x) cw_test_htons(x)
#undef htonl
#define htonl(x) cw_test_htonl(x)
#define in6addr_any in6addr_loopback
