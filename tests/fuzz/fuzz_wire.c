/* fuzz_wire: libFuzzer target over the classifier and its typing pass; besides "no crash, no
 * overread" it checks the invariants of a total function that the contract implies. */
#include "wire.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static wire_class classify(const uint8_t *d, size_t n, const char *suffix, wire_explain *why)
{
    size_t sl = strlen(suffix);
    /* Exactly the bytes plus the padding the classifier may read: ASan catches anything more. */
    char *b = malloc(n + sl + WIRE_PADDING);
    if (!b)
        abort();
    memcpy(b, d, n);
    memcpy(b + n, suffix, sl);
    memset(b + n + sl, '"', WIRE_PADDING);
    wire_class c = wire_classify(b, n + sl, why);
    free(b);
    return c;
}

/* wire_parse on the same bytes: the same class, and for a valid text typed fields that stay
 * within the contract's bounds (the engine-side proof is order_wire_parse.bats). */
static void parse_agrees(const uint8_t *d, size_t n, wire_class c)
{
    static wire_row row;
    static int init;
    if (!init) {
        wire_row_init(&row);
        init = 1;
    }
    char *b = malloc(n + WIRE_PADDING);
    if (!b)
        abort();
    memcpy(b, d, n);
    memset(b + n, '"', WIRE_PADDING);
    if (wire_parse(b, n, &row) != c)
        abort();
    free(b);
    if (c != WIRE_VALID)
        return;
    char *out = NULL;
    size_t on = 0, cap = 0;
    if (wire_tuple_rowbinary(c, &row, &out, &on, &cap) < 0 || on < 1 + WIRE_NFIELDS)
        abort();
    free(out);
    for (size_t i = 0; i < WIRE_NFIELDS; i++)
        if (WIRE_FIELDS[i].rule == WIRE_RULE_TEXT && (row.n[i] < 1 || row.n[i] > WIRE_TEXT_MAX))
            abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
    wire_explain why;
    wire_class c = classify(d, n, "", NULL);
    parse_agrees(d, n, c);
    if (c != WIRE_VALID && c != WIRE_NOT_AN_OBJECT && c != WIRE_KEYSET_MISMATCH &&
        c != WIRE_FIELD_INVALID)
        abort();
    /* Deterministic, and the explained path decides exactly like the fast one. */
    if (classify(d, n, "", NULL) != c || classify(d, n, "", &why) != c)
        abort();
    if (!why.reason[0] || strchr(why.reason, '\n') || strchr(why.reason, '\t'))
        abort();
    if ((c == WIRE_FIELD_INVALID) != (why.field != NULL))
        abort();
    /* JSON whitespace after the root never changes anything; after a root object, one more
     * root always breaks it. */
    if (classify(d, n, " \t\r\n", NULL) != c)
        abort();
    if (c != WIRE_NOT_AN_OBJECT && classify(d, n, "{}", NULL) != WIRE_NOT_AN_OBJECT)
        abort();
    /* A leading byte order mark always makes it not JSON. */
    if (n && classify(d, n, "", NULL) == WIRE_VALID) {
        uint8_t *bom = malloc(n + 3);
        memcpy(bom, "\xef\xbb\xbf", 3);
        memcpy(bom + 3, d, n);
        if (classify(bom, n + 3, "", NULL) != WIRE_NOT_AN_OBJECT)
            abort();
        free(bom);
    }
    return 0;
}
