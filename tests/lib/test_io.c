/* Unit tests for io: whole writes through a pipe, whole reads of files larger than the first
 * buffer, the terminator, and the error codes callers print. */
#include "check.h"
#include "io.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

static void fill(char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (char)('a' + (i * 7 + i / 251) % 26);
}

static void test_round_trip(void)
{
    /* 3 MiB: several growths of the 64 KiB first buffer, and a write the kernel splits. */
    size_t n = 3u << 20;
    char *src = malloc(n);
    fill(src, n);
    int fd = memfd_create("test_io", 0);
    CHECK(fd >= 0);
    CHECK_EQ_INT(io_write_all(fd, src, n), 0);
    CHECK_EQ_INT(lseek(fd, 0, SEEK_SET), 0);
    char *got = NULL;
    size_t len = 0;
    CHECK_EQ_INT(io_read_fd(fd, &got, &len), 0);
    CHECK_EQ_INT(len, n);
    CHECK(got && memcmp(got, src, n) == 0);
    CHECK(got && got[len] == '\0');
    free(got);
    close(fd);
    free(src);
}

static void test_empty_and_exact_sizes(void)
{
    /* Sizes at the buffer's edges: the terminator must always fit. */
    size_t sizes[] = {0, 1, 65535, 65536, 65537, 131071};
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        char *src = malloc(sizes[k] + 1);
        fill(src, sizes[k]);
        int fd = memfd_create("test_io", 0);
        CHECK_EQ_INT(io_write_all(fd, src, sizes[k]), 0);
        lseek(fd, 0, SEEK_SET);
        char *got = NULL;
        size_t len = 1;
        CHECK_EQ_INT(io_read_fd(fd, &got, &len), 0);
        CHECK_EQ_INT(len, sizes[k]);
        CHECK(got && memcmp(got, src, sizes[k]) == 0 && got[len] == '\0');
        free(got);
        free(src);
        close(fd);
    }
}

static void test_pipe(void)
{
    int p[2];
    CHECK_EQ_INT(pipe(p), 0);
    CHECK_EQ_INT(io_write_all(p[1], "hello", 5), 0);
    close(p[1]);
    char *got = NULL;
    size_t len = 0;
    CHECK_EQ_INT(io_read_fd(p[0], &got, &len), 0);
    CHECK_EQ_INT(len, 5);
    CHECK_EQ_STR(got, "hello");
    free(got);
    close(p[0]);
}

static void test_errors(void)
{
    char *got = NULL;
    size_t len = 0;
    CHECK_EQ_INT(io_read_path("/nonexistent/io-test", &got, &len), -ENOENT);
    CHECK_EQ_INT(errno, ENOENT);
    CHECK_EQ_INT(io_read_fd(-1, &got, &len), -EBADF);
    CHECK_EQ_INT(io_write_all(-1, "x", 1), -EBADF);
    int p[2];
    CHECK_EQ_INT(pipe(p), 0);
    close(p[0]);
    /* A closed reader: EPIPE (SIGPIPE is ignored by the caller here). */
    CHECK_EQ_INT(io_write_all(p[1], "x", 1), -EPIPE);
    close(p[1]);
}

static void test_read_path(void)
{
    char name[] = "/tmp/test_io.XXXXXX";
    int fd = mkstemp(name);
    CHECK(fd >= 0);
    CHECK_EQ_INT(io_write_all(fd, "a\0b", 3), 0);
    close(fd);
    char *got = NULL;
    size_t len = 0;
    CHECK_EQ_INT(io_read_path(name, &got, &len), 0);
    CHECK_EQ_INT(len, 3);
    CHECK(got && memcmp(got, "a\0b", 4) == 0);
    free(got);
    /* a cap: exactly max bytes read, one more refused */
    got = NULL;
    CHECK_EQ_INT(io_read_path_max(name, 3, &got, &len), 0);
    CHECK(len == 3 && got && memcmp(got, "a\0b", 4) == 0);
    free(got);
    got = NULL;
    CHECK_EQ_INT(io_read_path_max(name, 2, &got, &len), -EFBIG);
    CHECK(got == NULL);
    got = NULL;
    CHECK_EQ_INT(io_read_path_max("/dev/zero", 100000, &got, &len), -EFBIG);
    CHECK(got == NULL);
    unlink(name);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    test_round_trip();
    test_empty_and_exact_sizes();
    test_pipe();
    test_errors();
    test_read_path();
    return check_report();
}
