/* A TCP echo over loopback, built natively and for wasm32-wasi (with WAMR's
 * lib-socket, as WAMR's socket apps are): benches/socket_echo.py runs a
 * server and a client of the same build and compares the builds.
 *
 *   echo server PORT            echoes one connection on 127.0.0.1:PORT
 *   echo client PORT SIZE N     N round trips of SIZE bytes after a
 *                               warm-up; prints
 *                               RESULT <us per round trip> <MB/s one way>
 *
 * Both ends set TCP_NODELAY, so no round trip waits on Nagle's algorithm
 * and a delayed acknowledgement. */
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#ifdef __wasi__
#include <wasi_socket_ext.h>
#endif

#define WARMUP 200

static void
die(const char *what)
{
    perror(what);
    exit(1);
}

static struct sockaddr_in
loopback(int port)
{
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons((unsigned short)port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return a;
}

static void
no_delay(int fd)
{
    int on = 1;
    if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on) != 0)
        die("TCP_NODELAY");
}

static void
send_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t k = send(fd, p, n, 0);
        if (k <= 0)
            die("send");
        p += k;
        n -= (size_t)k;
    }
}

static void
recv_all(int fd, char *p, size_t n)
{
    while (n > 0) {
        ssize_t k = recv(fd, p, n, 0);
        if (k <= 0)
            die("recv");
        p += k;
        n -= (size_t)k;
    }
}

static int
server(int port)
{
    static char buf[1 << 16];
    struct sockaddr_in a = loopback(port);
    int l = socket(AF_INET, SOCK_STREAM, 0), c;
    ssize_t n;
    if (l < 0)
        die("socket");
    if (bind(l, (struct sockaddr *)&a, sizeof a) != 0)
        die("bind");
    if (listen(l, 1) != 0)
        die("listen");
    socklen_t len = sizeof a;
    if ((c = accept(l, (struct sockaddr *)&a, &len)) < 0)
        die("accept");
    no_delay(c);
    while ((n = recv(c, buf, sizeof buf, 0)) > 0)
        send_all(c, buf, (size_t)n);
    close(c);
    close(l);
    return 0;
}

static double
now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int
client(int port, size_t size, long n)
{
    char *out = malloc(size), *in = malloc(size);
    struct sockaddr_in a = loopback(port);
    int s = socket(AF_INET, SOCK_STREAM, 0);
    long i;
    if (!out || !in || s < 0)
        die("setup");
    memset(out, 'x', size);
    if (connect(s, (struct sockaddr *)&a, sizeof a) != 0)
        die("connect");
    no_delay(s);
    for (i = 0; i < WARMUP; i++) {
        send_all(s, out, size);
        recv_all(s, in, size);
    }
    double start = now();
    for (i = 0; i < n; i++) {
        send_all(s, out, size);
        recv_all(s, in, size);
    }
    double took = now() - start;
    if (memcmp(in, out, size) != 0) {
        fprintf(stderr, "echo: the data came back changed\n");
        return 1;
    }
    printf("RESULT %.3f %.1f\n", took / (double)n * 1e6, (double)size * (double)n / took / 1e6);
    close(s);
    return 0;
}

int
main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "server"))
        return server(atoi(argv[2]));
    if (argc == 5 && !strcmp(argv[1], "client"))
        return client(atoi(argv[2]), (size_t)atol(argv[3]), atol(argv[4]));
    fprintf(stderr, "usage: echo server PORT | echo client PORT SIZE N\n");
    return 2;
}
