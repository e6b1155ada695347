/* orders-gen: writes the Kafka payloads a real order source sends, day by day snapshots of a
 * deterministic order world, optionally dirty, as lines or RowBinary (see docs/orders-gen.md). */
#include "cli.h"
#include "io.h"
#include "emit.h"
#include "rng.h"
#include "world.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char USAGE[] =
    "usage: orders-gen [OPTIONS] > messages\n"
    "\n"
    "Writes the order snapshots of a deterministic world: --orders orders created evenly over\n"
    "--days model days; the snapshot of a day holds every order whose last change (creation or\n"
    "status move new -> paid -> shipped -> delivered, or cancelled) falls within the last\n"
    "--window days, as of the end of that day. Each message is one JSON object that meets the\n"
    "order-snapshot wire contract v1, unless --dirty made it one of the dirty kinds.\n"
    "\n"
    "  --orders N          orders in the world (default 10000)\n"
    "  --days D            model days (default 3)\n"
    "  --window W          mutability window in days (default 3)\n"
    "  --day K             write only the snapshot of model day K (1 .. D); default: every day,\n"
    "                      in order (the same bytes as --day 1, --day 2, ... one after another)\n"
    "  --start YYYY-MM-DD  the date of model day 1 (default 2026-03-01)\n"
    "  --dirty RATE        the share of messages, 0 .. 1, replaced by a dirty variant drawn\n"
    "                      from a realistic mix of error kinds (default 0)\n"
    "  --seed N            the world and the dirt are a function of N (default 1)\n"
    "  --format F          lines: one message per line, no message holds a newline (default);\n"
    "                      rowbinary: each message a ClickHouse RowBinary String\n"
    "                      (read with --input-format RowBinary --structure 'raw String')\n"
    "  --labels FILE       also write, per message, a line 'KIND<TAB>CLASS': its kind (valid,\n"
    "                      truncated, ...) and the class order_wire_class must give it\n"
    "  -h, --help          this text\n"
    "  --version           print \"orders-gen VERSION\" and exit\n"
    "\n"
    "Exit status: 0 done; 1 a write failed; 2 usage error (one line on stderr, e.g.\n"
    "\"orders-gen: bad value for --format: json (expected lines or rowbinary)\").\n";

typedef struct {
    int help, version;
    uint64_t orders, seed;
    uint32_t days, window;
    uint32_t day; /* 1-based; 0: every day */
    int64_t start_day;
    double dirty;
    int rowbinary;
    const char *labels;
} og_opts;

/* ---- option parsing ---- */

static int parse_rate(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (!*s || *end || errno || !(v >= 0.0 && v <= 1.0))
        return -1;
    *out = v;
    return 0;
}

static int parse_date(const char *s, int64_t *day)
{
    if (strlen(s) != 10 || s[4] != '-' || s[7] != '-')
        return -1;
    for (int i = 0; i < 10; i++)
        if (i != 4 && i != 7 && (s[i] < '0' || s[i] > '9'))
            return -1;
    int y = (s[0] - '0') * 1000 + (s[1] - '0') * 100 + (s[2] - '0') * 10 + (s[3] - '0');
    unsigned m = (unsigned)((s[5] - '0') * 10 + (s[6] - '0'));
    unsigned d = (unsigned)((s[8] - '0') * 10 + (s[9] - '0'));
    static const unsigned MDAYS[12] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (m < 1 || m > 12 || d < 1 || d > MDAYS[m - 1])
        return -1;
    int64_t z = og_days_from_civil(y, m, d);
    int yy;
    unsigned mm, dd;
    og_civil_from_days(z, &yy, &mm, &dd);
    if (mm != m) /* Feb 29 of a common year */
        return -1;
    *day = z;
    return 0;
}

static int usage_error(const char *what, const char *arg)
{
    fprintf(stderr, "orders-gen: %s%s%s (try --help)\n", what, arg ? ": " : "", arg ? arg : "");
    return 2;
}

/* 0 to run, or the exit status (2) after a one-line message. */
static int parse_args(int argc, char **argv, og_opts *o)
{
    *o = (og_opts){.orders = 10000, .seed = 1, .days = 3, .window = 3, .day = 0, .dirty = 0};
    parse_date("2026-03-01", &o->start_day);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            o->help = 1;
            return 0;
        }
        if (!strcmp(a, "--version")) {
            o->version = 1;
            return 0;
        }
        static const char *const WITH_VALUE[] = {"--orders", "--days",   "--window", "--day",
                                                 "--start",  "--dirty",  "--seed",   "--format",
                                                 "--labels"};
        const char *name = NULL, *val = NULL;
        for (size_t k = 0; k < sizeof WITH_VALUE / sizeof *WITH_VALUE; k++) {
            size_t n = strlen(WITH_VALUE[k]);
            if (!strncmp(a, WITH_VALUE[k], n) && (a[n] == '\0' || a[n] == '=')) {
                name = WITH_VALUE[k];
                val = a[n] == '=' ? a + n + 1 : NULL;
                break;
            }
        }
        if (!name)
            return a[0] == '-' ? cli_unknown_option("orders-gen", a) : cli_unexpected_argument("orders-gen", a);
        if (!val) {
            if (i + 1 >= argc)
                return cli_missing_value("orders-gen", name);
            val = argv[++i];
        }
        unsigned long long v = 0;
        int bad = 0;
        const char *expected = "a whole number from 1 to 100000";
        if (!strcmp(name, "--orders")) {
            bad = cli_whole(val, 0, 1000000000000ULL, &v);
            o->orders = v;
            expected = "a whole number from 0 to 1000000000000";
        } else if (!strcmp(name, "--days") || !strcmp(name, "--window") || !strcmp(name, "--day")) {
            bad = cli_whole(val, 1, 100000, &v);
            uint32_t *dst = !strcmp(name, "--days") ? &o->days
                          : !strcmp(name, "--window") ? &o->window
                                                      : &o->day;
            *dst = (uint32_t)v;
        } else if (!strcmp(name, "--start")) {
            bad = parse_date(val, &o->start_day);
            expected = "a date YYYY-MM-DD";
        } else if (!strcmp(name, "--dirty")) {
            bad = parse_rate(val, &o->dirty);
            expected = "a rate from 0 to 1";
        } else if (!strcmp(name, "--seed")) {
            bad = cli_whole(val, 0, UINT64_MAX, &v);
            o->seed = v;
            expected = "a whole number from 0 to 18446744073709551615";
        } else if (!strcmp(name, "--format")) {
            expected = "lines or rowbinary";
            if (!strcmp(val, "lines"))
                o->rowbinary = 0;
            else if (!strcmp(val, "rowbinary"))
                o->rowbinary = 1;
            else
                bad = 1;
        } else
            o->labels = val;
        if (bad)
            return cli_bad_value("orders-gen", name, val, expected);
    }
    if (o->day > o->days)
        return usage_error("--day must be at most --days", NULL);
    return 0;
}

/* ---- buffered output: one write(2) per megabyte ---- */

typedef struct {
    int fd;
    int failed; /* the errno of the failed write, or 0 */
    size_t len;
    char buf[1 << 20];
} og_out;

static void out_flush(og_out *w)
{
    int rc = w->failed ? 0 : io_write_all(w->fd, w->buf, w->len);
    if (rc < 0)
        w->failed = -rc;
    w->len = 0;
}

static void out_bytes(og_out *w, const char *p, size_t n)
{
    if (w->len + n > sizeof w->buf)
        out_flush(w);
    memcpy(w->buf + w->len, p, n);
    w->len += n;
}

/* One message in the chosen framing; n < OG_MSG_MAX, far below the buffer. */
static void out_message(og_out *w, const char *p, size_t n, int rowbinary)
{
    if (w->len + n + 10 > sizeof w->buf)
        out_flush(w);
    char *q = w->buf + w->len;
    if (rowbinary) {
        size_t v = n;
        do { /* the length as an unsigned LEB128 varint */
            *q++ = (char)((v & 0x7F) | (v > 0x7F ? 0x80 : 0));
            v >>= 7;
        } while (v);
    }
    memcpy(q, p, n);
    q += n;
    if (!rowbinary)
        *q++ = '\n';
    w->len = (size_t)(q - w->buf);
}

/* ---- the run ---- */

#define DIRTY_STREAM 0x6469727479ULL

static int run(const og_opts *o)
{
    og_world w;
    const char *err;
    if (og_world_init(&w, o->seed, o->orders, o->days, o->window, o->start_day, &err) < 0) {
        fprintf(stderr, "orders-gen: %s (try --help)\n", err);
        return 2;
    }
    static og_out out, lab;
    static char msg[OG_MSG_MAX], dirty[OG_MSG_MAX];
    out.fd = STDOUT_FILENO;
    if (o->labels) {
        lab.fd = open(o->labels, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
        if (lab.fd < 0) {
            fprintf(stderr, "orders-gen: cannot write %s: %s\n", o->labels, strerror(errno));
            return 1;
        }
    }
    /* The draw is a 53-bit fraction compared with the rate: 0 never, 1 always. */
    uint64_t threshold = (uint64_t)(o->dirty * 9007199254740992.0);
    int lines = !o->rowbinary;
    uint32_t d0 = o->day ? o->day - 1 : 0, d1 = o->day ? o->day : o->days;
    for (uint32_t day = d0; day < d1 && !out.failed; day++) {
        uint64_t first, end;
        og_snapshot_candidates(&w, day, &first, &end);
        for (uint64_t i = first; i < end && !out.failed; i++) {
            og_life life;
            og_status st;
            int64_t upd;
            og_life_of(&w, i, &life);
            if (!og_snapshot_state(&w, &life, day, &st, &upd))
                continue;
            og_order ord;
            og_layout lay;
            og_order_fill(&w, &life, st, upd, &ord);
            size_t n = og_emit_order(&w, &ord, day, msg, &lay);
            const char *m = msg;
            og_kind kind = OG_VALID;
            if (threshold) {
                og_rng r;
                og_rng_stream(&r, o->seed ^ DIRTY_STREAM, i, day);
                if ((og_rng_next(&r) >> 11) < threshold) {
                    kind = og_dirty_pick(&r);
                    n = og_dirty_apply(kind, &r, lines, msg, n, &lay, dirty);
                    m = dirty;
                }
            }
            out_message(&out, m, n, o->rowbinary);
            if (o->labels) {
                const char *kn = og_kind_name(kind), *cn = og_kind_class(kind);
                out_bytes(&lab, kn, strlen(kn));
                out_bytes(&lab, "\t", 1);
                out_bytes(&lab, cn, strlen(cn));
                out_bytes(&lab, "\n", 1);
            }
        }
    }
    out_flush(&out);
    int rc = 0;
    if (out.failed) {
        fprintf(stderr, "orders-gen: writing the messages failed: %s\n", strerror(out.failed));
        rc = 1;
    }
    if (o->labels) {
        out_flush(&lab);
        if (lab.failed || close(lab.fd) < 0) {
            fprintf(stderr, "orders-gen: writing %s failed: %s\n", o->labels,
                    strerror(lab.failed ? lab.failed : errno));
            rc = 1;
        }
    }
    return rc;
}

int main(int argc, char **argv)
{
    og_opts o;
    int rc = parse_args(argc, argv, &o);
    if (rc)
        return rc;
    if (o.help) {
        fputs(USAGE, stdout);
        return 0;
    }
    if (o.version)
        return cli_version("orders-gen");
    return run(&o);
}
