/* proto: ClickHouse's executable-UDF protocol, shared by every UDF binary: reads each block of
 * rows in the configured format (with or without send_chunk_header) and writes one result per row. */
#ifndef PROTO_H
#define PROTO_H

/* What ClickHouse 26.5 does, checked against the engine (tests/fixtures/proto/capture.sh records
 * its exact bytes; tests/bats/proto.bats runs the whole matrix):
 * - It sends the caller's actual column type, whatever the config declares, except that
 *   LowCardinality is removed, also inside Array (an Array(LowCardinality(Nullable(String)))
 *   column arrives as Array(Nullable(String))). LowCardinality(...) in a type name is still
 *   accepted: RowBinary encodes it exactly like the type inside.
 * - RowBinaryWithNamesAndTypes: a header (count, names, types) precedes EVERY block, also in
 *   executable_pool, and the engine expects one back before each block's results. Without
 *   send_chunk_header this layer recognises a repeated header at a row start (same column name,
 *   a type it decodes); a row whose bytes spell exactly such a header would be misread, so the
 *   chunk header is the safe choice.
 * - send_chunk_header: "<rows>\n" before each block in every format; executable_pool reads
 *   exactly that many results.
 * - TabSeparated: ClickHouse escapes \b \f \n \r \t \0 \\ \' and leaves other bytes raw; NULL
 *   is the field \N. An Array field is its quoted text ['a',NULL,'b\'c'], not TSV-escaped again.
 *   Reading follows the engine's own reader (\N inside a value is dropped, an unknown \c keeps
 *   its backslash); \x without two hex digits and a trailing backslash are errors. */

#include <stddef.h>
#include <stdint.h>

typedef enum {
    PROTO_TSV,        /* TabSeparated */
    PROTO_ROWBINARY,  /* RowBinary: the caller's actual column type must be known (arg_type) */
    PROTO_ROWBINARY_NT /* RowBinaryWithNamesAndTypes: the type is read from each header */
} proto_format;

/* What the function takes: one String-like argument, or one Array of String-like items. */
typedef enum { PROTO_ARG_STRING, PROTO_ARG_STRING_ARRAY } proto_arg_kind;

/* What the function returns. */
typedef enum {
    PROTO_RES_STRING,  /* String */
    PROTO_RES_FIXED,   /* FixedString(result_fixed_len) */
    PROTO_RES_UINT128, /* UInt128: the callback gives 16 bytes, little-endian */
    PROTO_RES_ENCODED  /* res_type (e.g. a Tuple): the callback gives the value's RowBinary bytes;
                        * RowBinary formats only */
} proto_res_kind;

/* At least this many readable bytes follow every proto_str's last byte (their values are
 * unspecified), so simdjson can parse a value in place without copying it. */
#define PROTO_PADDING 64

/* One string value; p is valid only during the callback. */
typedef struct {
    int is_null;
    const char *p;
    size_t n;
} proto_str;

/* Optional, for PROTO_ARG_STRING_ARRAY: called with consecutive items of a row in order, as
 * they are decoded, possibly before the rest of the row has arrived: items[0..n) are the
 * row's items first, first+1, ... (first == 0 starts a new row; a row without items calls
 * only the row function). Ordinary rows come in one call; long ones in batches of a few
 * thousand. The items are valid only during the call. Returns 0, or negative to abort. */
typedef int (*proto_items_fn)(void *ctx, size_t first, const proto_str *items, size_t n);

typedef struct {
    proto_format format;
    int chunk_header;           /* send_chunk_header = 1 */
    proto_arg_kind arg_kind;
    /* For PROTO_ROWBINARY (no header to read it from): the type ClickHouse sends, spelled
     * as ClickHouse spells it, e.g. "Nullable(String)" or "Array(Nullable(String))". */
    const char *arg_type;
    proto_res_kind res_kind;
    size_t res_fixed_len;
    const char *res_type;       /* PROTO_RES_ENCODED: the type, spelled as the engine spells it */
    /* The function's name, for the message its caller sees when the argument type does not fit
     * ("order_wire_class takes a String-like argument, got UInt8"); NULL: plain messages. */
    const char *name;
    /* Set: array items go to items_fn in batches and the row function gets arg->items == NULL
     * (n_items still counts them), so a row of millions of tiny items needs neither a table of
     * them all nor the whole row in memory. NULL: the row function gets all in arg->items. */
    proto_items_fn items_fn;
} proto_config;

/* The argument of one row. */
typedef struct {
    proto_str s;             /* PROTO_ARG_STRING */
    const proto_str *items;  /* PROTO_ARG_STRING_ARRAY: n_items values */
    size_t n_items;
} proto_value;

/* The result of one row, set by the callback: bytes (String / FixedString: exactly
 * res_fixed_len bytes / UInt128: 16 bytes little-endian). The bytes are copied. */
typedef struct {
    const void *p;
    size_t n;
} proto_result;

/* Called once per row, in order. Returns 0, or a negative code to abort the run. */
typedef int (*proto_row_fn)(void *ctx, const proto_value *arg, proto_result *res);

typedef struct {
    const char *msg; /* static text; one naming what was read (e.g. the argument type that
                      * came) stays valid until the next proto_serve call */
    uint64_t pos;    /* byte offset in the input stream */
} proto_error;

enum { PROTO_EINPUT = -1, PROTO_EIO = -2, PROTO_ENOMEM = -3, PROTO_ECALLBACK = -4 };

/* RowBinary's length prefix: v as LEB128 into out (at most PROTO_VARINT_MAX bytes); returns
 * the byte count. For callers that encode a PROTO_RES_ENCODED value themselves. */
#define PROTO_VARINT_MAX 10
size_t proto_varint(uint64_t v, unsigned char *out);

/* Parses "TabSeparated", "TSV", "RowBinary", "RowBinaryWithNamesAndTypes"; 0 or -1. */
int proto_format_from_name(const char *name, proto_format *out);

/* Serves rows from in_fd to out_fd until EOF. Every complete row is answered; output is
 * flushed whenever no more input is buffered, so a pool-mode caller never waits on us.
 * Returns 0 at a clean EOF (between rows or blocks), a negative code otherwise with *err
 * filled (if err is not NULL). A block whose RowBinaryWithNamesAndTypes header cannot be
 * served (e.g. an argument type that does not fit: err->msg names the type, with cfg->name)
 * is still answered with the result header and no rows: the engine then reads a well-formed
 * empty answer, waits for the process and shows its exit status with the last of its stderr,
 * so the caller prints err->msg there and exits non-zero. Buffers that grew beyond a few MiB
 * for a big row are given back once it is answered (long-lived pool processes stay small). */
int proto_serve(const proto_config *cfg, int in_fd, int out_fd, proto_row_fn fn, void *ctx,
                proto_error *err);

/* 0 if ClickHouse type name `type` (e.g. "Nullable(String)", "Array(LowCardinality(String))")
 * is one this layer decodes for an argument of `kind`, else -1. For validating --arg-type. */
int proto_arg_type_valid(const char *type, proto_arg_kind kind);

/* proto_serve over memory, for tests and fuzzing: the input in[0..n) arrives in reads of at
 * most read_step bytes (0: as much as fits), the output goes to *out (malloc'ed, the caller
 * frees it; may be NULL when nothing was written) / *out_n. out may be NULL to discard it. */
int proto_serve_mem(const proto_config *cfg, const void *in, size_t n, size_t read_step,
                    proto_row_fn fn, void *ctx, char **out, size_t *out_n, proto_error *err);

#endif
