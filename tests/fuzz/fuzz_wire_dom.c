/* fuzz_wire_dom: differential libFuzzer target (issue 10): the classifier's walk's "one JSON text
 * whose root is an object" verdict against simdjson's DOM parser (sj_dom_verdict), same bytes. */
#include "sj.h"
#include "wire.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What is compared: the walk (sj_walk, wire_classify() asked for a reason: the path of --explain
 * and of wire_parse) answers other than WIRE_NOT_AN_OBJECT exactly when DOM accepts the bytes
 * and the root is an object. DOM stands in for the engine's isValidJSON (simdjson DOM, max depth
 * 1024), with one difference and no other:
 * - a leading UTF-8 BOM: the contract refuses it, the engine skips it (3.0.1's DOM happens to
 *   refuse it too, but that is not what is tested). Such inputs must be not_an_object and are
 *   not given to DOM.
 * - none for long exponents: the known 3.0.1 difference (more than 18 exponent digits, e.g.
 *   0e99999999999999999999) is in On-Demand's number getters only: 3.0.1's DOM caps such an
 *   exponent at 999999999999999999, which keeps its meaning (0 stays 0, anything else still
 *   overflows or underflows, as in the engine), so DOM and engine agree there, measured on the
 *   seeds exp_* in tests/fuzz/corpus/fuzz_wire_dom/. No exception is made for them: one would
 *   only hide real disagreements.
 * Each input is also judged as a member value, {"k":INPUT}, and as an array element,
 * {"k":[INPUT]}: the walk's paths for nested values (getters, keys, skipping) differ from the
 * root's, and the classifier stops at a root that is not an object, so a scalar or array root
 * would otherwise never be walked.
 * wire_classify() without a reason reads DOM's tree itself (sj_members): its class against the
 * walk's is fuzz_wire's check; here it must also say not_an_object exactly when the walk does. */

static void show(const char *what, const uint8_t *d, size_t n)
{
    fprintf(stderr, "fuzz_wire_dom: %s (%zu bytes): \"", what, n);
    for (size_t i = 0; i < n && i < 4096; i++) {
        unsigned char c = d[i];
        if (c >= 0x20 && c < 0x7f && c != '\\' && c != '"')
            fputc(c, stderr);
        else
            fprintf(stderr, "\\x%02x", c);
    }
    fprintf(stderr, n > 4096 ? "\"...\n" : "\"\n");
}

/* Classifies the bytes with exactly WIRE_PADDING readable bytes after them, so ASan catches any
 * read beyond what the classifier may touch; compares with DOM; aborts on a disagreement. */
static void judge(const uint8_t *d, size_t n, const char *form)
{
    char *b = malloc(n + WIRE_PADDING);
    if (!b)
        abort();
    memcpy(b, d, n);
    memset(b + n, '"', WIRE_PADDING);
    wire_explain why;
    wire_class c = wire_classify(b, n, &why), fast = wire_classify(b, n, NULL);
    int cls_ok = c != WIRE_NOT_AN_OBJECT;
    if (cls_ok != (fast != WIRE_NOT_AN_OBJECT)) {
        show(form, d, n);
        fprintf(stderr, "fuzz_wire_dom: the walk says %s (%s), DOM's tree %s\n",
                c == WIRE_VALID ? "valid" : wire_class_name(c), why.reason,
                fast == WIRE_VALID ? "valid" : wire_class_name(fast));
        abort();
    }
    if (n >= 3 && memcmp(d, "\xef\xbb\xbf", 3) == 0) {
        if (cls_ok) {
            show(form, d, n);
            fprintf(stderr, "fuzz_wire_dom: a leading BOM classified %s\n", wire_class_name(c));
            abort();
        }
        free(b);
        return;
    }
    int obj = 0, dom = sj_dom_verdict((const char *)d, n, 0, &obj);
    if (dom < 0) {
        fputs("fuzz_wire_dom: DOM out of memory\n", stderr);
        abort();
    }
    if (cls_ok != (dom == 1 && obj)) {
        show(form, d, n);
        fprintf(stderr, "fuzz_wire_dom: the walk says %s (%s), DOM says %s\n",
                c == WIRE_VALID ? "valid" : wire_class_name(c), why.reason,
                dom == 1 ? (obj ? "valid, root object" : "valid, root not an object") : "invalid");
        abort();
    }
    free(b);
}

static void judge_wrapped(const uint8_t *d, size_t n, const char *pre, const char *post,
                          const char *form)
{
    size_t a = strlen(pre), z = strlen(post);
    uint8_t *w = malloc(a + n + z);
    if (!w)
        abort();
    memcpy(w, pre, a);
    memcpy(w + a, d, n);
    memcpy(w + a + n, post, z);
    judge(w, a + n + z, form);
    free(w);
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
    judge(d, n, "input");
    judge_wrapped(d, n, "{\"k\":", "}", "input as {\"k\":INPUT}");
    judge_wrapped(d, n, "{\"k\":[", "]}", "input as {\"k\":[INPUT]}");
    return 0;
}
