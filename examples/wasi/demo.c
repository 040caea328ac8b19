// A WASI command built with wasi-libc: prints its arguments and the
// environment variable GREETING, writes a file in the directory the host
// mapped at /data, reads it back, lists the directory, and exits with the
// status given as its last argument. Built and run by tests/wasi-example.sh:
//   clang --target=wasm32-wasi -O2 -o demo.wasm demo.c
//   iwasm --env GREETING=hello --map-dir=/data::/tmp/x demo.wasm a b 7
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  for (int i = 0; i < argc; i++)
    printf("arg %d: %s\n", i, argv[i]);
  const char *greeting = getenv("GREETING");
  printf("GREETING=%s\n", greeting ? greeting : "(unset)");

  FILE *f = fopen("/data/note.txt", "w");
  if (!f) {
    perror("fopen /data/note.txt");
    return 2;
  }
  fprintf(f, "written by a wasm guest\n");
  fclose(f);

  char line[64] = {0};
  f = fopen("/data/note.txt", "r");
  if (!f || !fgets(line, sizeof line, f)) {
    perror("reading /data/note.txt");
    return 3;
  }
  fclose(f);
  printf("read back: %s", line);

  // Outside the mapped directory there is nothing to open.
  printf("open /etc/passwd: %s\n", fopen("/etc/passwd", "r") ? "opened" : "refused");

  DIR *d = opendir("/data");
  int entries = 0;
  for (struct dirent *e; d && (e = readdir(d));)
    if (e->d_name[0] != '.')
      entries++;
  if (d)
    closedir(d);
  printf("entries in /data: %d\n", entries);

  return argc > 1 ? atoi(argv[argc - 1]) : 0;
}
