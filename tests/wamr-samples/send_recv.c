/* A stand-in for WAMR's samples/wasm-c-api-imports/wasm/send_recv.c, which
 * needs WAMR's socket extension library and lib-pthread to build. Like the
 * original it is a wasi-libc program (WASI imports the runtime provides,
 * which the unchanged host skips with wasm_importtype_is_linked) importing
 * the host's `env.log` (i64, i32), with `_start` as its second export. */
#include <stdint.h>
#include <stdio.h>

__attribute__((import_module("env"), import_name("log"))) extern void
host_log(uint64_t message, uint32_t length);

int
main(void)
{
    printf("--> send_recv stand-in: WASI stdout works\n");
    host_log(0x1234, 5);
    printf("--> host log called\n");
    return 0;
}
