/* cs_startup: tells the embedded engine's start-up fault (a table failing to load inside the
 * engine before any query ran) from every other failure, and whether a run may start again. */
#ifndef CS_STARTUP_H
#define CS_STARTUP_H

#include "args.h"

#include <stddef.h>

/* Runs of one command at most: the first and two more after a start-up fault. */
enum { CS_MAX_RUNS = 3 };

/* The load job a start-up fault names ("load table stg.orders_raw"), borrowed from the text. */
typedef struct {
    const char *job;
    size_t job_len;
} cs_fault;

/* 1 when TEXT, the engine's stderr of a run that failed, is one error and it is the start-up
 * fault: `Waited job failed: … Load job '…' failed: std::exception. Code: 1001, …
 * (ASYNC_LOAD_WAIT_FAILED)`, an exception of the C++ library inside the engine's loader (a
 * table whose own definition is wrong fails with the engine's code for that instead, and
 * would fail the same way again). F (may be NULL) then names the job. 0 otherwise. */
int cs_is_startup_fault(const char *text, size_t n, cs_fault *f);

/* 1 when a run of CMD that met the start-up fault ran no query and can start again unchanged:
 * it has a --path (the engine loads tables before the first query only from one), its queries
 * are given by -q/--query/--queries-file (stdin, its queries or its data, is not read before
 * the first query), and no query text says ATTACH (a statement that loads tables as it runs
 * could fail the same way after others had written). 0 otherwise. */
int cs_may_run_again(const cl_cmd *cmd);

#endif
