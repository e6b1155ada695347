/* io: whole writes and whole reads with the EINTR and short-transfer loops written once;
 * reads grow one buffer geometrically and keep a terminator so text parsers can use it. */
#include "io.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int io_write_all(int fd, const void *p, size_t n)
{
    const char *c = p;
    while (n > 0) {
        ssize_t w = write(fd, c, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            if (w == 0)
                errno = EIO;
            return -errno;
        }
        c += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Reads up to max bytes (then -EFBIG if one more comes). */
static int read_fd_max(int fd, size_t max, char **data, size_t *len)
{
    size_t cap = 1 << 16, n = 0;
    char *b = malloc(cap);
    if (!b)
        return -(errno = ENOMEM);
    for (;;) {
        if (n > max) {
            free(b);
            return -(errno = EFBIG);
        }
        if (n + 1 >= cap) { /* keep a byte for the terminator */
            size_t nc = max < SIZE_MAX / 2 && cap * 2 > max + 2 ? max + 2 : cap * 2;
            char *nb = realloc(b, nc);
            if (!nb) {
                free(b);
                return -(errno = ENOMEM);
            }
            b = nb;
            cap = nc;
        }
        ssize_t r = read(fd, b + n, cap - 1 - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            int e = errno;
            free(b);
            return -(errno = e);
        }
        if (r == 0)
            break;
        n += (size_t)r;
    }
    b[n] = '\0';
    *data = b;
    *len = n;
    return 0;
}

int io_read_fd(int fd, char **data, size_t *len)
{
    return read_fd_max(fd, SIZE_MAX - 2, data, len);
}

int io_read_path(const char *path, char **data, size_t *len)
{
    return io_read_path_max(path, SIZE_MAX - 2, data, len);
}

int io_read_path_max(const char *path, size_t max, char **data, size_t *len)
{
    int fd = strcmp(path, "-") == 0 ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    int rc = read_fd_max(fd, max, data, len);
    if (fd != STDIN_FILENO) {
        int e = errno;
        close(fd);
        errno = e;
    }
    return rc;
}
