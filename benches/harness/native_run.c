/* The native columns of the real programs (benches/compare.sh): times
 * whole runs of a native build of a program, start to exit, as a fresh
 * process each time (a wasm run is a fresh instance each time).
 *
 *   native_run NAME REPS PROGRAM [ARGS...]
 *
 * After one untimed run, REPS timed runs; the program must exit 0 and
 * print one integer on stdout, the same every time: the check value.
 * Prints "RESULT NAME:run <median ms> ms <check>". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "timing.h"

static const char *name;

static void fail(const char *what)
{
    fprintf(stderr, "native_run %s: %s\n", name, what);
    exit(1);
}

/* Runs argv to its exit with stdout to a pipe; its check value. */
static unsigned long long run_once(char **argv)
{
    int fds[2];
    char buf[64];
    size_t got = 0;
    ssize_t n;
    int status;
    pid_t pid;
    char *end;
    unsigned long long v;
    if (pipe(fds) != 0)
        fail("pipe");
    pid = fork();
    if (pid < 0)
        fail("fork");
    if (pid == 0) {
        dup2(fds[1], 1);
        close(fds[0]);
        close(fds[1]);
        execv(argv[0], argv);
        _exit(127);
    }
    close(fds[1]);
    while ((n = read(fds[0], buf + got, sizeof buf - 1 - got)) > 0)
        got += (size_t)n;
    close(fds[0]);
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        fail("the program failed");
    buf[got] = 0;
    v = strtoull(buf, &end, 10);
    if (end == buf || (*end != '\n' && *end != 0))
        fail("the program printed something other than an integer");
    return v;
}

int main(int argc, char **argv)
{
    double ms[MAX_REPS];
    unsigned long long first;
    char case_name[128];
    int reps;
    if (argc < 4) {
        fprintf(stderr, "usage: %s NAME REPS PROGRAM [ARGS...]\n", argv[0]);
        return 2;
    }
    name = argv[1];
    reps = atoi(argv[2]);
    if (reps < 1 || reps > MAX_REPS)
        fail("REPS must be 1..64");
    first = run_once(argv + 3);
    for (int r = 0; r < reps; r++) {
        double t0 = now_seconds();
        if (run_once(argv + 3) != first)
            fail("the check value changed between runs");
        ms[r] = (now_seconds() - t0) * 1e3;
    }
    snprintf(case_name, sizeof case_name, "%s:run", name);
    REPORT(case_name, median(ms, reps), "ms", first);
    return 0;
}
