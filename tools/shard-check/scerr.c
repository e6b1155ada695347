/* scerr.c: fills the error record of scerr.h; a long file name is cut to fit, never overrun,
 * so that a message can always be printed. */
#include "scerr.h"

#include <string.h>

void sc_err_set(sc_err *err, const char *msg, const char *where, long line, long col)
{
    if (!err)
        return;
    err->msg = msg;
    size_t n = where ? strnlen(where, sizeof err->where - 1) : 0;
    memcpy(err->where, where ? where : "", n);
    err->where[n] = 0;
    err->line = line;
    err->col = col;
}
