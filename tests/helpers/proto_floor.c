/* proto_floor: a UDF that decodes each row with the proto layer and answers a zero UInt128,
 * doing no work of its own: bench/20-hashdiff.sh measures the executable-UDF floor with it. */
#include "proto.h"

#include <stdio.h>
#include <string.h>

static int zero(void *ctx, const proto_value *arg, proto_result *res)
{
    static const unsigned char z[16];
    (void)ctx;
    (void)arg;
    res->p = z;
    res->n = sizeof z;
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1) {
        int help = strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0;
        fputs("usage: proto_floor  (a UDF: RowBinaryWithNamesAndTypes with chunk header, one\n"
              "Array of strings in, UInt128 0 out per row; for measuring the protocol's cost)\n",
              help ? stdout : stderr);
        return help ? 0 : 2;
    }
    proto_config cfg = {.format = PROTO_ROWBINARY_NT, .chunk_header = 1,
                        .arg_kind = PROTO_ARG_STRING_ARRAY, .res_kind = PROTO_RES_UINT128};
    proto_error err = {0};
    if (proto_serve(&cfg, 0, 1, zero, NULL, &err) != 0) {
        fprintf(stderr, "proto_floor: %s at input byte %llu\n", err.msg ? err.msg : "I/O error",
                (unsigned long long)err.pos);
        return 1;
    }
    return 0;
}
