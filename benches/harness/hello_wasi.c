// The hello-world program of the CLI start-to-exit benchmark
// (benches/wasi_compare.py builds it with clang --target=wasm32-wasi).
#include <stdio.h>

int main(void) {
  printf("hello, world\n");
  return 0;
}
