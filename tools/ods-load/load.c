/* load: one load's transition, statement by statement, each in a process of its own, so that
 * every failure is named by its statement and a kill stops exactly one statement. */
#include "load.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "split.h"
#include "transition.h"

/* a statement's output and messages are kept up to this much (the engine's are short) */
#define LD_CAPTURE_MAX (1u << 20)
/* a statement longer than this goes to the program as a file, not as an argument (the kernel
 * refuses an argument of 128 KiB or more; the gate's INSERTs make statement 9 near that) */
#define LD_ARG_MAX (32u << 10)

static void copy_trim(char *out, size_t n, const char *s, size_t len)
{
    while (len > 0 && (s[len - 1] == '\n' || s[len - 1] == ' ' || s[len - 1] == '.'))
        len--;
    if (len >= n)
        len = n - 1;
    memcpy(out, s, len);
    out[len] = '\0';
}

int ld_engine_message(const char *text, char *out, size_t n)
{
    for (const char *p = strstr(text, "transition "); p; p = strstr(p + 1, "transition ")) {
        const char *q = p + 11;
        if (*q < '0' || *q > '9')
            continue;
        while (*q >= '0' && *q <= '9')
            q++;
        if (*q++ != '/' || *q < '0' || *q > '9')
            continue;
        while (*q >= '0' && *q <= '9')
            q++;
        if (q[0] != ':' || q[1] != ' ')
            continue;
        size_t len = strcspn(p, "\n");
        const char *w = strstr(p, ": while executing '");
        if (w && (size_t)(w - p) < len)
            len = (size_t)(w - p);
        copy_trim(out, n, p, len);
        return 1;
    }
    const char *e = strstr(text, "Exception");
    const char *line = text;
    if (e)
        for (line = e; line > text && line[-1] != '\n'; line--)
            ;
    copy_trim(out, n, line, strcspn(line, "\n"));
    return 0;
}

/* --- processes --- */

static volatile sig_atomic_t g_signal;
static volatile pid_t g_child;

static void on_signal(int sig)
{
    g_signal = sig;
    pid_t c = g_child;
    if (c > 0)
        kill(-c, SIGTERM);
}

typedef struct {
    char *data;
    size_t len, cap;
} cap;

static void cap_add(cap *c, const char *p, size_t n)
{
    if (c->len + n + 1 > c->cap) {
        size_t want = c->len + n + 1;
        if (want > LD_CAPTURE_MAX)
            n = c->len + 1 < LD_CAPTURE_MAX ? LD_CAPTURE_MAX - c->len - 1 : 0;
        size_t cap2 = c->cap ? c->cap : 4096;
        while (cap2 < c->len + n + 1)
            cap2 *= 2;
        char *d = realloc(c->data, cap2);
        if (!d)
            return;
        c->data = d;
        c->cap = cap2;
    }
    memcpy(c->data + c->len, p, n);
    c->len += n;
    c->data[c->len] = '\0';
}

/* Runs argv with stdin from /dev/null, its stdout and stderr captured; the child leads a
 * process group of its own, so a signal to us reaches the engine's UDF processes too. The
 * exit status (0..255), 128+N for a signal N, or -1 (err->detail says why). */
static int run_proc(char *const argv[], cap *out, cap *errs, ld_error *err)
{
    int po[2], pe[2];
    if (pipe2(po, O_CLOEXEC) < 0)
        goto sys;
    if (pipe2(pe, O_CLOEXEC) < 0) {
        close(po[0]);
        close(po[1]);
        goto sys;
    }
    pid_t pid = fork();
    if (pid < 0) {
        close(po[0]), close(po[1]), close(pe[0]), close(pe[1]);
        goto sys;
    }
    if (pid == 0) {
        setpgid(0, 0);
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        signal(SIGHUP, SIG_DFL);
        int nul = open("/dev/null", O_RDONLY);
        if (nul < 0 || dup2(nul, 0) < 0 || dup2(po[1], 1) < 0 || dup2(pe[1], 2) < 0)
            _exit(127);
        execvp(argv[0], argv);
        dprintf(2, "cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    setpgid(pid, pid);
    g_child = pid;
    if (g_signal)
        kill(-pid, SIGTERM);
    close(po[1]);
    close(pe[1]);
    struct pollfd fds[2] = {{.fd = po[0], .events = POLLIN}, {.fd = pe[0], .events = POLLIN}};
    int open_fds = 2;
    char buf[65536];
    while (open_fds > 0) {
        if (poll(fds, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        for (int i = 0; i < 2; i++) {
            if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            ssize_t r = read(fds[i].fd, buf, sizeof buf);
            if (r < 0 && errno == EINTR)
                continue;
            if (r <= 0) {
                close(fds[i].fd);
                fds[i].fd = -1;
                open_fds--;
                continue;
            }
            cap_add(i == 0 ? out : errs, buf, (size_t)r);
        }
    }
    for (int i = 0; i < 2; i++)
        if (fds[i].fd >= 0)
            close(fds[i].fd);
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) {
            g_child = 0;
            goto sys;
        }
    g_child = 0;
    /* what the engine left in its group (UDF processes between fork and exec) goes with it */
    kill(-pid, SIGKILL);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
sys:
    snprintf(err->detail, sizeof err->detail, "%s", strerror(errno));
    return -1;
}

/* --- the run --- */

typedef struct {
    const ld_opts *o;
    char *argv[24];
    int nfixed;   /* argv[0..nfixed) is the program and its connection options */
    char param[160];
    char token[64];   /* client mode: this run's query ids are TOKEN-N */
    char qid[96];
    int nq;
} runner;

static void runner_init(runner *r, const ld_opts *o)
{
    int n = 0;
    memset(r, 0, sizeof *r);
    r->o = o;
    r->argv[n++] = (char *)o->program;
    if (o->path) {
        r->argv[n++] = "--path";
        r->argv[n++] = (char *)o->path;
    } else {
        if (o->host)
            r->argv[n++] = "--host", r->argv[n++] = (char *)o->host;
        if (o->port)
            r->argv[n++] = "--port", r->argv[n++] = (char *)o->port;
        if (o->user)
            r->argv[n++] = "--user", r->argv[n++] = (char *)o->user;
        if (o->secure)
            r->argv[n++] = "--secure";
        if (o->client_config)
            r->argv[n++] = "--config-file", r->argv[n++] = (char *)o->client_config;
        /* a server runs a query on after its client is gone: the ids let this run see its own */
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        snprintf(r->token, sizeof r->token, "ods-load-%ld-%ld%09ld", (long)getpid(), (long)ts.tv_sec, ts.tv_nsec);
    }
    snprintf(r->param, sizeof r->param, "--param_load_id=%s", o->load_id);
    r->argv[n++] = r->param;
    r->nfixed = n;
}

/* runs one query; its status as run_proc's */
static int runner_query(runner *r, const char *sql, cap *out, cap *errs, ld_error *err)
{
    int n = r->nfixed;
    if (r->token[0]) {
        snprintf(r->qid, sizeof r->qid, "%s-%d", r->token, ++r->nq);
        r->argv[n++] = "--query_id";
        r->argv[n++] = r->qid;
    }
    /* a long statement: an unnamed file in memory, inherited by the program, which opens it
     * again by its /proc path (nothing to remove, whatever kills this process) */
    int fd = -1;
    char path[64];
    size_t len = strlen(sql);
    if (len > LD_ARG_MAX) {
        fd = memfd_create("ods-load-statement", 0);
        size_t done = 0;
        while (fd >= 0 && done < len) {
            ssize_t w = write(fd, sql + done, len - done);
            if (w < 0 && errno == EINTR)
                continue;
            if (w <= 0) {
                close(fd);
                fd = -1;
                break;
            }
            done += (size_t)w;
        }
        if (fd < 0) {
            snprintf(err->detail, sizeof err->detail, "cannot hand a statement to the program: %s", strerror(errno));
            return -1;
        }
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
        r->argv[n++] = "--queries-file";
        r->argv[n++] = path;
    } else {
        r->argv[n++] = r->o->path ? "-q" : "--query";
        r->argv[n++] = (char *)sql;
    }
    r->argv[n] = NULL;
    out->len = errs->len = 0;
    if (out->data)
        out->data[0] = '\0';
    if (errs->data)
        errs->data[0] = '\0';
    int st = run_proc(r->argv, out, errs, err);
    if (fd >= 0)
        close(fd);
    return st;
}

/* Client mode: waits (up to o->server_wait seconds) until the server runs no query of this run.
 * 0 when none runs (or on the embedded engine, whose queries end with their process), -1
 * otherwise. */
static int server_queries_ended(runner *r, cap *out, cap *errs)
{
    if (!r->token[0])
        return 0;
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT count() FROM system.processes WHERE startsWith(initial_query_id, '%s-') "
             "AND query_id != currentQueryID() FORMAT TSV", r->token);
    for (unsigned i = 0; i <= r->o->server_wait; i++) {
        ld_error e = {0};
        if (runner_query(r, sql, out, errs, &e) != 0)
            return -1;
        if (out->data && !strcmp(out->data, "0\n"))
            return 0;
        if (i < r->o->server_wait)
            sleep(1);
    }
    return -1;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The text of the transition (ods-ddl transition's, by the same writer), in a fresh buffer. */
static char *transition_text(const ddl_opts *o)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return NULL;
    int rc = ddl_transition(f, o);
    if (fclose(f) != 0 || rc < 0) {
        free(text);
        return NULL;
    }
    return text;
}

static void put_captured(const cap *c)
{
    if (c->len > 0) {
        fwrite(c->data, 1, c->len, stderr);
        if (c->data[c->len - 1] != '\n')
            fputc('\n', stderr);
    }
}

/* The gate's INSERTs when --gate-pieces is not given: as many as the load's staged rows need
 * (pieces of piece_size, at most DDL_GATE_PIECES), since each costs 0.1 to 0.3 s, mostly the
 * engine planning it, even when its piece is empty. Copies count as rows, so there are never
 * fewer than the messages need; any number gives every message the same fate. Unknown (the
 * count failed: statement 1 then says why): the default. */
static unsigned gate_pieces_for(runner *r, const ld_opts *o, cap *out, cap *errs)
{
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT count() FROM %s.orders_raw WHERE _load_id = {load_id:String} FORMAT TSV",
             o->ddl.stg_db);
    ld_error e = {0};
    char *end = NULL;
    if (runner_query(r, sql, out, errs, &e) != 0 || !out->data)
        return 0;
    unsigned long long rows = strtoull(out->data, &end, 10);
    if (end == out->data || *end != '\n')
        return 0;
    return ddl_gate_pieces_for(rows, o->ddl.piece_size);
}

int ld_run(const ld_opts *o, ld_error *err)
{
    memset(err, 0, sizeof *err);
    sp_stmt st[DDL_TRANSITION_STATEMENTS];
    runner r;
    runner_init(&r, o);
    cap out = {0}, errs = {0};
    ddl_opts d = o->ddl;
    if (!d.gate_pieces)
        d.gate_pieces = gate_pieces_for(&r, o, &out, &errs);
    char *text = transition_text(&d);
    if (!text) {
        err->msg = "cannot write the transition's SQL";
        snprintf(err->detail, sizeof err->detail, "%s", strerror(errno ? errno : ENOMEM));
        free(out.data);
        free(errs.data);
        return LD_ESYSTEM;
    }
    sp_error se = {0};
    int n = sp_split(text, st, DDL_TRANSITION_STATEMENTS, &se);
    if (n != DDL_TRANSITION_STATEMENTS) {
        free(text);
        free(out.data);
        free(errs.data);
        err->msg = "the transition's SQL is not as expected (a bug: please report it)";
        snprintf(err->detail, sizeof err->detail, "%s, line %zu", n < 0 ? se.msg : "too few statements", se.line);
        return LD_ESYSTEM;
    }

    struct sigaction sa = {0};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);

    char since[64] = "";    /* the lease as this run took it (its since), once it has */
    char lease_sql[512];
    int rc = 0, engine_retries = 0;
    for (int i = 0; i < n && rc == 0; i++) {
        double t0 = now_s();
        int status = g_signal ? -1 : runner_query(&r, st[i].sql, &out, &errs, err);
        if (g_signal) {
            err->stmt = st[i].k;
            err->msg = "stopped by a signal";
            rc = LD_EINTR;
            break;
        }
        if (status < 0) {
            err->stmt = st[i].k;
            err->msg = "cannot run the client";
            rc = LD_ESYSTEM;
            break;
        }
        if (status == 127 && errs.data && !strncmp(errs.data, "cannot run ", 11)) {
            /* the child's own words: exec failed, no statement reached an engine */
            err->stmt = st[i].k;
            err->msg = "the client cannot be run: --client names the program (default clickhouse-client, on PATH)";
            copy_trim(err->detail, sizeof err->detail, errs.data, strcspn(errs.data, "\n"));
            rc = LD_ESYSTEM;
            break;
        }
        if (status != 0 && errs.data && strstr(errs.data, "(ASYNC_LOAD_WAIT_FAILED)") && ++engine_retries <= 3) {
            /* A table the engine failed to load as it started (a fault of the engine, seen with
             * the embedded one: docs/testing.md, finding 10): the statement never began, and
             * every statement may run again anyway. */
            fprintf(stderr, "ods-load: %s %d/%d: the engine failed to load a table, the statement did not run; "
                    "running it again (%d of 3)\n", o->load_id, st[i].k, n, engine_retries);
            sleep(1);
            i--;
            continue;
        }
        if (status != 0) {
            put_captured(&errs);
            err->stmt = st[i].k;
            err->msg = "the statement failed";
            ld_engine_message(errs.data ? errs.data : "", err->detail, sizeof err->detail);
            if (status > 128 && !errs.len)
                snprintf(err->detail, sizeof err->detail, "%s ended by signal %d", o->program, status - 128);
            else if (!err->detail[0])
                snprintf(err->detail, sizeof err->detail, "%s exited with status %d and no message", o->program, status);
            rc = LD_EFAILED;
            break;
        }
        fprintf(stderr, "ods-load: %s %d/%d %s: ok, %.2f s\n", o->load_id, st[i].k, n, st[i].title, now_s() - t0);
        if (st[i].k == 2) {
            /* the lease this run took, by its time: released on failure only while it is still that one */
            snprintf(lease_sql, sizeof lease_sql, "SELECT toString(since) FROM %s.order_lease_v WHERE _load_id = "
                     "{load_id:String} FORMAT TSV", o->ddl.ods_db);
            if (runner_query(&r, lease_sql, &out, &errs, err) == 0 && out.len > 0 && out.len < sizeof since &&
                strspn(out.data, "0123456789-: .") == strcspn(out.data, "\n"))
                copy_trim(since, sizeof since, out.data, strcspn(out.data, "\n"));
        }
    }
    if (rc == 0) {
        char ledger[512];
        snprintf(ledger, sizeof ledger, "SELECT * FROM %s.%s WHERE _load_id = {load_id:String} FORMAT TSVWithNames",
                 o->ddl.ods_db, o->ddl.cluster ? "order_loads_dist" : "order_loads");
        int status = runner_query(&r, ledger, &out, &errs, err);
        if (status != 0 || strchr(out.data ? out.data : "", '\n') == NULL ||
            !strchr(strchr(out.data, '\n') + 1, '\n')) {
            put_captured(&errs);
            err->msg = "every statement ran, yet the ledger holds no row for the load: it is not committed; "
                       "ods-ddl status shows its state, and the same ods-load run again completes it";
            ld_engine_message(errs.data ? errs.data : "", err->detail, sizeof err->detail);
            rc = LD_EFAILED;
        } else {
            fwrite(out.data, 1, out.len, stdout);
        }
    } else if (since[0] && err->stmt > 2) {
        /* This run's processes have ended: the lease it took goes, unless another run holds it now. */
        sig_atomic_t sig = g_signal;
        g_signal = 0;
        ld_error e2 = {0};
        if (server_queries_ended(&r, &out, &errs) < 0) {
            char clear[160];
            fprintf(stderr, "ods-load: %s: a query of this run may still be running on the server (query ids %s-*, "
                    "system.processes): the lease stays; once none runs, %s\n",
                    o->load_id, r.token, ddl_lease_clear(&o->ddl, clear, sizeof clear));
            g_signal = sig;
            goto done;
        }
        snprintf(lease_sql, sizeof lease_sql, "SELECT if(count() = 0, 'free', if(countIf(_load_id = {load_id:String} "
                 "AND toString(since) = '%s') = 1, 'ours', 'other')) FROM %s.order_lease_v FORMAT TSV", since,
                 o->ddl.ods_db);
        int q = runner_query(&r, lease_sql, &out, &errs, &e2);
        const char *state = q == 0 && out.data ? out.data : "";
        if (!strcmp(state, "ours\n")) {
            /* (on a cluster the delete names the lease this run took: nothing else can go) */
            ddl_lease_release(&o->ddl, since, lease_sql, sizeof lease_sql);
            q = runner_query(&r, lease_sql, &out, &errs, &e2);
            if (q == 0 && ++err->released)
                fprintf(stderr, "ods-load: %s: the lease this run took (since %s) is released\n", o->load_id, since);
        }
        if (!strcmp(state, "other\n"))
            fprintf(stderr, "ods-load: %s: the lease is another run's now: left alone\n", o->load_id);
        else if (strcmp(state, "free\n") != 0 && !err->released)
            fprintf(stderr, "ods-load: %s: the lease this run took could not be released (the engine refused): the "
                    "next run names it\n", o->load_id);
        g_signal = sig;
    }
done:
    free(out.data);
    free(errs.data);
    free(text);
    return rc;
}
