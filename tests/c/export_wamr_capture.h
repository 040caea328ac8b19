/* Captures what a program writes on stdout and stderr (C's streams and
 * the file descriptors alike) between capture_start() and capture_stop(),
 * which returns it: WAMR writes its log lines on stdout, cranewasm its own
 * on stderr, and the tests that look for them take both. */
#ifndef EXPORT_WAMR_CAPTURE_H
#define EXPORT_WAMR_CAPTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int saved_out = -1, saved_err = -1;
static char capture_file[] = "/tmp/cranewasm-capture-XXXXXX";

static void capture_start(void)
{
    int fd;
    fflush(stdout);
    fflush(stderr);
    strcpy(capture_file, "/tmp/cranewasm-capture-XXXXXX");
    fd = mkstemp(capture_file);
    if (fd < 0) {
        perror("mkstemp");
        exit(1);
    }
    saved_out = dup(1);
    saved_err = dup(2);
    dup2(fd, 1);
    dup2(fd, 2);
    close(fd);
}

/* What was written since capture_start(), NUL-terminated, in a static
   buffer. */
static const char *capture_stop(void)
{
    static char buf[16384];
    FILE *f;
    size_t n;
    fflush(stdout);
    fflush(stderr);
    dup2(saved_out, 1);
    dup2(saved_err, 2);
    close(saved_out);
    close(saved_err);
    f = fopen(capture_file, "rb");
    n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    buf[n] = 0;
    if (f)
        fclose(f);
    unlink(capture_file);
    return buf;
}

#endif
