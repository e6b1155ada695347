/* io: the few byte-moving helpers shared by the tools and the UDF protocol layer (whole writes,
 * whole reads), so all buffered output and file loading rests on one retry-on-EINTR loop. */
#ifndef IO_H
#define IO_H

#include <stddef.h>

/* Writes all n bytes to fd, retrying short writes and EINTR.
 * 0, or -errno (errno is left set; -EIO if the fd accepted no bytes). */
int io_write_all(int fd, const void *p, size_t n);

/* Reads fd from its current offset to EOF into a fresh buffer, always NUL-terminated
 * (data[len] == 0; the caller frees *data). 0, or -errno with errno set. */
int io_read_fd(int fd, char **data, size_t *len);

/* io_read_fd on a file opened by path; "-" is standard input. */
int io_read_path(const char *path, char **data, size_t *len);

/* io_read_path reading at most max bytes: -EFBIG (errno set) when there is more, having read
 * only max + 1 (a pipe or /dev/zero cannot make it grow without bound). */
int io_read_path_max(const char *path, size_t max, char **data, size_t *len);

#endif
