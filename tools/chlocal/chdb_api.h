/* chdb_api: the five functions of libchdb's C API that chlocal calls, declared once: chlocal
 * loads them with dlopen (never links the engine), tests/helpers/chdb_fault.c stands in for them. */
#ifndef CHDB_API_H
#define CHDB_API_H

#include <dlfcn.h>
#include <stddef.h>

typedef struct chdb_result chdb_result;

chdb_result *chdb_query_cmdline(int argc, char **argv);
char *chdb_result_buffer(chdb_result *r);
size_t chdb_result_length(chdb_result *r);
const char *chdb_result_error(chdb_result *r);
void chdb_destroy_query_result(chdb_result *r);

typedef struct {
    __typeof__(chdb_query_cmdline) *query_cmdline;
    __typeof__(chdb_result_buffer) *buffer;
    __typeof__(chdb_result_length) *length;
    __typeof__(chdb_result_error) *error;
    __typeof__(chdb_destroy_query_result) *destroy;
} chdb_api;

/* Every function from the library handle h: 0, or -1 when one is missing. */
static inline int chdb_api_load(void *h, chdb_api *api)
{
    *(void **)&api->query_cmdline = dlsym(h, "chdb_query_cmdline");
    *(void **)&api->buffer = dlsym(h, "chdb_result_buffer");
    *(void **)&api->length = dlsym(h, "chdb_result_length");
    *(void **)&api->error = dlsym(h, "chdb_result_error");
    *(void **)&api->destroy = dlsym(h, "chdb_destroy_query_result");
    return api->query_cmdline && api->buffer && api->length && api->error && api->destroy ? 0 : -1;
}

#endif
