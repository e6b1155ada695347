/* load: runs one load's transition statement by statement, each in its own process of the
 * client (clickhouse-client) or of chlocal on an embedded database, reporting as it goes. */
#ifndef LOAD_H
#define LOAD_H

#include <stddef.h>

#include "ddl.h"

typedef struct {
    const char *load_id;
    const char *path;          /* embedded: chlocal --path DIR; NULL: the client */
    const char *program;       /* the program run per statement: chlocal or clickhouse-client */
    const char *host, *port, *user, *client_config; /* client only; NULL: the client's default */
    int secure;
    unsigned server_wait;      /* client mode: seconds to wait for this run's queries to end on the
                                * server before releasing the lease after a failure */
    ddl_opts ddl;              /* the transition's options (ods-ddl transition's) */
} ld_opts;

typedef struct {
    const char *msg;    /* static text: what went wrong */
    int stmt;           /* the statement (1..12) it stopped at, 0: before any */
    char detail[1024];  /* the engine's message, or the system error */
    int released;       /* the lease this run took was released after the failure */
} ld_error;

enum { LD_EFAILED = -1, LD_ESYSTEM = -2, LD_EINTR = -3 };

/* Runs the transition of o->load_id; a progress line per statement on stderr; at the end the
 * ledger row of the load on stdout (TSV with names). 0: committed (now or before);
 * LD_EFAILED: a statement failed (err); LD_ESYSTEM: a process could not run; LD_EINTR:
 * stopped by SIGINT, SIGTERM or SIGHUP. A run that took the lease and then fails releases it
 * when it is still the one this run took (its processes have ended), so the whole command can
 * be retried at once. */
int ld_run(const ld_opts *o, ld_error *err);

/* From an engine's stderr, the message of the transition's check that failed ("transition
 * K/N: ..." up to where the engine appends ": while executing" or " (CODE_NAME)"), copied
 * into out; 1 when there was one, else 0 and out holds the first line that says Exception. */
int ld_engine_message(const char *stderr_text, char *out, size_t n);

#endif
