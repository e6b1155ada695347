/* scerr.h: the error codes and the error record every shard-check module reports through:
 * a static message and where it happened (file, line, column). */
#ifndef SC_SCERR_H
#define SC_SCERR_H

/* SC_E_REFUSED: the input is readable, but a ClickHouse server would refuse it whole (a config
 * with one cluster it cannot build: every cluster of it is refused, so every check fails). */
enum { SC_OK = 0, SC_E_CHECK = -1, SC_E_INPUT = -2, SC_E_NOMEM = -3, SC_E_REFUSED = -4 };

/* msg is static; where/line/col locate it (file name, line, column; 0 when unknown). */
typedef struct {
    const char *msg;
    char where[512];
    long line, col;
} sc_err;

void sc_err_set(sc_err *err, const char *msg, const char *where, long line, long col);

#endif
