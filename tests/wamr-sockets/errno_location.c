/* lib-socket's wasi_socket_ext.c sets errno through __errno_location(),
 * which wasi-libc added after the version apt ships (2022): there errno is
 * one plain variable, and this gives its address. Compiled, like that
 * libc, without atomics, so `errno` is that variable and not a TLS one. */
#include <errno.h>

int *
__errno_location(void)
{
    return &errno;
}
