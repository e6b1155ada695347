/* proto_floor: a UDF that decodes each row with the proto layer and answers a zero value, doing
 * no work of its own (or only simdjson's DOM validation, or that and the root members handed over). */
#include "proto.h"
#include "sj.h"

#include <stdio.h>
#include <string.h>

static int empty(void *ctx, const proto_value *arg, proto_result *res)
{
    (void)ctx;
    (void)arg;
    res->p = "";
    res->n = 0;
    return 0;
}

static int zero(void *ctx, const proto_value *arg, proto_result *res)
{
    static const unsigned char z[16];
    (void)ctx;
    (void)arg;
    res->p = z;
    res->n = sizeof z;
    return 0;
}

/* What checking every byte with simdjson costs through this protocol, before any rule: the DOM
 * parser the engine's isValidJSON runs, here in place, without the engine's copy. '' valid, "x"
 * not, NULL ''. */
static int validate(void *ctx, const proto_value *arg, proto_result *res)
{
    int obj, v = arg->s.is_null ? 1 : sj_dom_verdict(arg->s.p, arg->s.n, 1, &obj);
    (void)ctx;
    if (v < 0)
        return -1;
    res->p = "x";
    res->n = v ? 0 : 1;
    return 0;
}

/* The classifier's fast path without its rules: DOM's checked tree and its root members handed
 * over one by one (sj_members), each only counted. What any classifier on that tree pays before
 * it looks at a key. '' for an object with a member, "x" otherwise. */
static int count_member(void *ctx, const char *key, size_t kn, const sj_member *v)
{
    (void)key;
    (void)kn;
    (void)v;
    ++*(size_t *)ctx;
    return 0;
}

static int members(void *ctx, const proto_value *arg, proto_result *res)
{
    size_t k = 0;
    int rc = arg->s.is_null ? SJ_ENOTOBJ : sj_members(ctx, arg->s.p, arg->s.n, count_member, &k);
    if (rc == SJ_ENOMEM)
        return -1;
    res->p = "x";
    res->n = rc == SJ_OK && k ? 0 : 1;
    return 0;
}

int main(int argc, char **argv)
{
    /* --string: order_wire_class's shape (one String-like argument, a String out), so the
     * classifier's floor is measured with exactly its protocol */
    int val = argc == 2 && strcmp(argv[1], "--validate") == 0;
    int mem = argc == 2 && strcmp(argv[1], "--members") == 0;
    int str = val || mem || (argc == 2 && strcmp(argv[1], "--string") == 0);
    if (argc > 1 && !str) {
        int help = strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0;
        fputs("usage: proto_floor [--string | --validate | --members]  (a UDF: RowBinaryWithNamesAndTypes\n"
              "with chunk header; one Array of strings in, UInt128 0 out per row; with --string one\n"
              "String-like value in, '' out; with --validate the same, but 'x' for a value that is\n"
              "not one JSON text by simdjson's DOM parser; with --members 'x' unless the value is a\n"
              "JSON object with a member, its root members handed over as the classifier's fast path\n"
              "takes them, each only counted; for measuring the protocol's cost)\n",
              help ? stdout : stderr);
        return help ? 0 : 2;
    }
    proto_config cfg = {.format = PROTO_ROWBINARY_NT, .chunk_header = 1,
                        .arg_kind = str ? PROTO_ARG_STRING : PROTO_ARG_STRING_ARRAY,
                        .res_kind = str ? PROTO_RES_STRING : PROTO_RES_UINT128};
    proto_error err = {0};
    sj_parser *sp = NULL;
    if (mem && (sp = sj_new()) == NULL) {
        fputs("proto_floor: out of memory\n", stderr);
        return 1;
    }
    int rc = proto_serve(&cfg, 0, 1, mem ? members : val ? validate : str ? empty : zero, sp, &err);
    sj_free(sp);
    if (rc != 0) {
        fprintf(stderr, "proto_floor: %s at input byte %llu\n", err.msg ? err.msg : "I/O error",
                (unsigned long long)err.pos);
        return 1;
    }
    return 0;
}
