/* chlocal: a `clickhouse local` on top of the embedded engine (libchdb, loaded with dlopen),
 * with this project's executable UDFs installed by default, for tests, scripts and people. */
#include "args.h"
#include "chdb_api.h"
#include "cli.h"
#include "io.h"
#include "startup.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static const char USAGE[] =
    "usage: chlocal [CHLOCAL OPTIONS] [CLICKHOUSE-LOCAL OPTIONS] [-- SERVER SETTINGS]\n"
    "\n"
    "Runs SQL on the embedded ClickHouse engine (libchdb) exactly as `clickhouse local`\n"
    "would, with this project's executable UDFs installed.\n"
    "\n"
    "chlocal options (taken out before the engine sees the command line):\n"
    "  -h, --help            this text\n"
    "  --version             print \"chlocal VERSION\" and the engine's version, and exit\n"
    "  --libchdb PATH        the engine library (env CHLOCAL_LIBCHDB)\n"
    "  --udf-dir DIR         directory of UDF binaries, passed as --user_scripts_path\n"
    "                        (env CHLOCAL_UDF_DIR)\n"
    "  --udf-config GLOB     UDF definitions, passed as\n"
    "                        --user_defined_executable_functions_config\n"
    "                        (env CHLOCAL_UDF_CONFIG)\n"
    "  --no-udf              install no UDFs\n"
    "The defaults: from a build tree (the UDF binaries beside chlocal), the engine scripts/setup\n"
    "fetched into .deps/chdb/libchdb.so, the UDFs beside chlocal and the checkout's\n"
    "clickhouse-config/*_function.xml; installed (no UDF beside it), the server's layout the\n"
    "packages fill, and libchdb.so found as the dynamic loader finds libraries (the packages do\n"
    "not ship the engine: npm @chdb/lib-linux-x64-gnu). The ones in force are listed last.\n"
    "\n"
    "Everything else goes to the engine unchanged: -q/--query, --queries-file, --path,\n"
    "--format/--output-format, --input-format (data on stdin is `table`), --param_NAME=V,\n"
    "settings such as --max_threads=2. Server settings go after `--`; a\n"
    "--user_scripts_path or --user_defined_executable_functions_config given there wins.\n"
    "\n"
    "Output: the result bytes on stdout, exactly. Exit status: 0 success; 1 the query\n"
    "failed (the engine's message is on stderr); 2 usage error (one line on stderr, e.g.\n"
    "\"chlocal: unknown option: --foo (try --help)\"), an unusable --path, or the engine\n"
    "cannot load. The engine's stack traces are left out of its messages; set\n"
    "CHLOCAL_STACK_TRACE=1 to keep them (for a bug report).\n"
    "\n"
    "A run whose start the engine fails by a fault of its own (a table's load job failing\n"
    "inside it, ASYNC_LOAD_WAIT_FAILED with a C++ library exception, before any query ran)\n"
    "starts again, 3 runs at most, each said on stderr; only with --path, queries given by\n"
    "-q/--query/--queries-file (a regular file) and none saying ATTACH. Anything else fails\n"
    "as the engine said.\n"
    "\n"
    "example: chlocal -q \"SELECT order_wire_class('{}')\"\n";

/* 1 when chlocal runs beside its UDF binaries (a build tree), 0 when installed */
static int g_build_tree;

static int load_engine(const char *path, chdb_api *e)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "chlocal: cannot load the engine: %s\n%s", dlerror(),
                g_build_tree ? "chlocal: run scripts/setup, or point CHLOCAL_LIBCHDB at libchdb.so\n"
                             : "chlocal: the packages do not ship the engine: point CHLOCAL_LIBCHDB (or --libchdb) at "
                               "libchdb.so from the npm package @chdb/lib-linux-x64-gnu\n");
        return -1;
    }
    if (chdb_api_load(h, e) != 0) {
        fprintf(stderr, "chlocal: %s lacks the chdb C API (chdb_query_cmdline …)\n", path);
        return -1;
    }
    return 0;
}

/* The engine reports a failing statement only by printing "Code: N. DB::…Exception: …" to
 * stderr (the result's error text stays empty), so stderr is captured during the call. */
static int looks_like_engine_error(const char *s, size_t n)
{
    const char *p = s, *end = s + n;
    while (p < end) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        const char *q = p + 6;
        if (!eol)
            eol = end;
        if (eol - p > 12 && memcmp(p, "Code: ", 6) == 0) {
            while (q < eol && *q >= '0' && *q <= '9')
                q++;
            if (q > p + 6 && eol - q >= 6 && memcmp(q, ". DB::", 6) == 0)
                return 1;
        }
        p = eol + 1;
    }
    return 0;
}

/* The engine's text without its stack traces: a line ending in "Stack trace (when copying this
 * message, always include the lines below):" keeps what precedes that, the frames
 * ("12. func @ 0x…") and blank lines after it go, and so does the "Cannot print extra info"
 * note. Everything else stays as it was. Returns the new length (s is edited in place). */
static size_t strip_stack_traces(char *s, size_t n)
{
    static const char MARK[] = "Stack trace (when copying this message, always include the lines below):";
    static const char NOTE[] = "Cannot print extra info for Poco::Exception";
    const char *p = s, *end = s + n;
    char *w = s;
    int in_trace = 0;
    while (p < end) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        size_t len = eol ? (size_t)(eol - p) : (size_t)(end - p);
        const char *next = eol ? eol + 1 : end;
        const char *m = memmem(p, len, MARK, sizeof MARK - 1);
        if (m) {
            size_t keep = (size_t)(m - p);
            while (keep && (p[keep - 1] == ' ' || p[keep - 1] == ','))
                keep--;
            if (keep) {
                memmove(w, p, keep);
                w += keep;
                *w++ = '\n';
            }
            in_trace = 1;
            p = next;
            continue;
        }
        if (len >= sizeof NOTE - 1 && !memcmp(p, NOTE, sizeof NOTE - 1)) {
            p = next;
            continue;
        }
        if (in_trace) {
            const char *q = p;
            while (q < p + len && *q >= '0' && *q <= '9')
                q++;
            int frame = q > p && q + 1 < p + len && q[0] == '.' && q[1] == ' ' && memmem(q, (size_t)(p + len - q), " @ 0x", 5);
            if (len == 0 || frame) {
                p = next;
                continue;
            }
            in_trace = 0;
        }
        memmove(w, p, (size_t)(next - p));
        w += next - p;
        p = next;
    }
    return (size_t)(w - s);
}

static int is_usage_error(const char *s, size_t n)
{
    static const char *const marks[] = {"Positional option", "(UNRECOGNIZED_ARGUMENTS)"};
    for (size_t m = 0; m < sizeof marks / sizeof *marks; m++)
        if (memmem(s, n, marks[m], strlen(marks[m])))
            return 1;
    return 0;
}

/* The command's run number: 1, or what the run before it set when it started it again (taken
 * out of the environment, so the UDFs and whatever they start never see it). */
static int run_number(void)
{
    const char *s = getenv("CHLOCAL_START_RUN");
    int n = s && s[0] >= '1' && s[0] <= '9' && !s[1] ? s[0] - '0' : 1;
    unsetenv("CHLOCAL_START_RUN");
    return n;
}

/* After the engine's start-up fault (nothing ran, stdin unread): the same command again, as a
 * new process, the engine's threads and state gone. Returns only when it cannot. */
static void run_again(char **argv, const cs_fault *f, int next)
{
    char num[2] = {(char)('0' + next), 0};
    fprintf(stderr,
            "chlocal: the engine failed as it started, before any query ran (load job '%.*s': a C++ "
            "library exception inside the engine, ASYNC_LOAD_WAIT_FAILED); running it again, run %d of %d\n",
            (int)f->job_len, f->job, next, CS_MAX_RUNS);
    fflush(stderr);
    if (setenv("CHLOCAL_START_RUN", num, 1) == 0)
        execv("/proc/self/exe", argv);
    fprintf(stderr, "chlocal: cannot run again: %s\n", strerror(errno));
}

static int run(const cl_cmd *cmd, char **argv)
{
    int now = run_number(), shown = 0;
    chdb_api e;
    if (load_engine(cmd->libchdb, &e) != 0)
        return 2;

    fflush(stderr);
    int saved = dup(STDERR_FILENO);
    int cap = memfd_create("chlocal-stderr", MFD_CLOEXEC);
    if (saved < 0 || cap < 0 || dup2(cap, STDERR_FILENO) < 0) {
        fprintf(stderr, "chlocal: cannot capture stderr: %s\n", strerror(errno));
        return 2;
    }
    chdb_result *r = e.query_cmdline(cmd->engine_argc, cmd->engine_argv);
    fflush(stderr);
    dup2(saved, STDERR_FILENO);
    close(saved);

    char *msg = NULL;
    size_t msg_len = 0;
    if (lseek(cap, 0, SEEK_SET) != 0 || io_read_fd(cap, &msg, &msg_len) != 0)
        msg_len = 0;
    close(cap);
    const char *keep = getenv("CHLOCAL_STACK_TRACE");
    int strip = !(keep && *keep && strcmp(keep, "0") != 0);
    if (strip)
        msg_len = strip_stack_traces(msg, msg_len);

    int rc = 0;
    const char *err = r ? e.error(r) : "the engine returned no result";
    char *buf = r ? e.buffer(r) : NULL;
    /* An option neither chlocal nor the engine knows: the one wording of every tool. */
    static const char UNRECOGNIZED[] = "Unrecognized option '";
    const char *src = err && *err ? err : msg;
    size_t src_len = err && *err ? strlen(err) : msg_len;
    const char *un = src_len ? memmem(src, src_len, UNRECOGNIZED, sizeof UNRECOGNIZED - 1) : NULL;
    const char *un_val = un ? un + sizeof UNRECOGNIZED - 1 : NULL;
    const char *un_end = un ? memchr(un_val, '\'', (size_t)(src + src_len - un_val)) : NULL;
    if (!buf && un_end && is_usage_error(src, src_len)) {
        char *opt = strndup(un_val, (size_t)(un_end - un_val));
        cli_unknown_option("chlocal", opt ? opt : "?");
        free(opt);
        free(msg);
        if (r)
            e.destroy(r);
        return 2;
    }
    if (!buf && !(err && *err) && now < CS_MAX_RUNS && msg_len) {
        /* judged on the text without stack traces, whether or not they are shown */
        char *seen = strip ? msg : strndup(msg, msg_len);
        size_t seen_len = !seen ? 0 : strip ? msg_len : strip_stack_traces(seen, msg_len);
        cs_fault fault;
        if (cs_is_startup_fault(seen, seen_len, &fault) && cs_may_run_again(cmd)) {
            io_write_all(STDERR_FILENO, msg, msg_len);
            shown = 1;
            run_again(argv, &fault, now + 1);
        }
        if (seen != msg)
            free(seen);
    }
    if (!shown)
        io_write_all(STDERR_FILENO, msg, msg_len);
    if (err && *err) {
        /* Errors raised while the engine reads its command line or opens --path land here. */
        char *text = strdup(err);
        size_t len = text ? strip ? strip_stack_traces(text, strlen(text)) : strlen(text) : 0;
        while (len && text[len - 1] == '\n')
            len--;
        fprintf(stderr, "chlocal: the engine cannot start: %.*s\n", text ? (int)len : (int)strlen(err),
                text ? text : err);
        free(text);
        rc = 2;
    } else if (!buf && looks_like_engine_error(msg, msg_len)) {
        rc = is_usage_error(msg, msg_len) ? 2 : 1;
    } else if (buf && io_write_all(STDOUT_FILENO, buf, e.length(r)) != 0) {
        fprintf(stderr, "chlocal: writing the result: %s\n", strerror(errno));
        rc = 1;
    }
    free(msg);
    if (r)
        e.destroy(r);
    return rc;
}

/* --version: ours, then the engine's, asked with SELECT version() the way queries run (no
 * --path: the engine writes no file). 0 (an engine that cannot load or answer is said on
 * stderr: chlocal's own version is what was asked first), 1 when stdout cannot be written. */
static int print_version(const char *libchdb)
{
    if (cli_version("chlocal") != 0)
        return 1;
    chdb_api e;
    if (load_engine(libchdb, &e) != 0)
        return 0;
    char *argv[] = {"chlocal", "--query", "SELECT version()", "--output-format", "TSVRaw", NULL};
    fflush(stderr);
    int saved = dup(STDERR_FILENO), devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (saved >= 0 && devnull >= 0)
        dup2(devnull, STDERR_FILENO);
    chdb_result *r = e.query_cmdline(5, argv);
    fflush(stderr);
    if (saved >= 0 && devnull >= 0)
        dup2(saved, STDERR_FILENO);
    if (saved >= 0)
        close(saved);
    if (devnull >= 0)
        close(devnull);
    const char *err = r ? e.error(r) : "no result";
    char *buf = r ? e.buffer(r) : NULL;
    size_t n = buf ? e.length(r) : 0;
    while (n && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
        n--;
    int rc = 0;
    if ((err && *err) || !n) {
        fputs("chlocal: the engine did not tell its version\n", stderr);
    } else if (printf("engine ClickHouse %.*s (libchdb)\n", (int)n, buf) < 0 || fflush(stdout) != 0) {
        rc = 1;
    }
    if (r)
        e.destroy(r);
    return rc;
}

/* --path DIR must be a directory the engine can use: refused here, in one line, rather than by
 * the engine's filesystem error. A path that does not exist yet is the engine's to create. */
static int check_path(const cl_cmd *cmd)
{
    int last = cmd->sep >= 0 ? cmd->sep : cmd->engine_argc;
    for (int i = 1; i < last; i++) {
        const char *a = cmd->engine_argv[i], *p = NULL;
        if (!strcmp(a, "--path") && i + 1 < last)
            p = cmd->engine_argv[++i];
        else if (!strncmp(a, "--path=", 7))
            p = a + 7;
        else if (!strcmp(a, "-q") || !strcmp(a, "--query") || !strcmp(a, "--queries-file"))
            i++; /* a query text is not an option */
        if (!p)
            continue;
        struct stat st;
        if (!*p)
            return cli_bad_value("chlocal", "--path", p, "a directory");
        if (stat(p, &st) == 0 && !S_ISDIR(st.st_mode))
            return cli_bad_value("chlocal", "--path", p, "a directory, not a file");
        if (stat(p, &st) == 0 && access(p, W_OK | X_OK) != 0)
            return cli_bad_value("chlocal", "--path", p, "a directory chlocal may write");
    }
    return 0;
}

/* Relative UDF locations are made absolute: the engine resolves them from its own state. */
static const char *absolute(const char *p, char *buf, size_t size)
{
    if (!p || p[0] == '/')
        return p;
    char cwd[PATH_MAX];
    if (!getcwd(cwd, sizeof cwd) || (size_t)snprintf(buf, size, "%s/%s", cwd, p) >= size)
        return p;
    return buf;
}

int main(int argc, char **argv)
{
    char exe[PATH_MAX], dir_abs[PATH_MAX], cfg_abs[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash)
        *slash = '\0';

    /* a build tree holds the UDFs beside chlocal; an installed chlocal finds them where the
     * packages put them for the server */
    char probe[PATH_MAX + 32];
    snprintf(probe, sizeof probe, "%s/order_wire_class", slash ? exe : ".");
    g_build_tree = access(probe, X_OK) == 0;
    const char *env_lib = getenv("CHLOCAL_LIBCHDB"), *env_dir = getenv("CHLOCAL_UDF_DIR"),
               *env_cfg = getenv("CHLOCAL_UDF_CONFIG");
    cl_defaults def = {
        .libchdb = env_lib && *env_lib ? env_lib
                   : g_build_tree      ? ODS_SOURCE_DIR "/.deps/chdb/libchdb.so"
                                       : "libchdb.so",
        .udf_dir = env_dir && *env_dir ? env_dir : g_build_tree ? exe : ODS_USER_SCRIPTS_DIR,
        .udf_config = env_cfg && *env_cfg ? env_cfg
                      : g_build_tree      ? ODS_SOURCE_DIR "/clickhouse-config/*_function.xml"
                                          : ODS_SERVER_CONFIG_DIR "/*_function.xml",
    };
    cl_cmd cmd;
    cl_error err = {0};
    int rc = cl_parse(argc, argv, &def, &cmd, &err);
    if (rc == 0 && !cmd.help)
        rc = cl_build(&cmd, absolute(cmd.udf_dir, dir_abs, sizeof dir_abs),
                      absolute(cmd.udf_config, cfg_abs, sizeof cfg_abs));
    if (rc == CL_ENOMEM) {
        fputs("chlocal: out of memory\n", stderr);
        rc = 2;
    } else if (rc != 0 && err.opt) {
        rc = cli_missing_value("chlocal", err.opt);
    } else if (rc != 0) {
        fprintf(stderr, "chlocal: %s (try --help)\n", err.msg);
        rc = 2;
    } else if (cmd.help) {
        fputs(USAGE, stdout);
        printf("\ndefaults in force here (%s):\n  engine      %s\n  UDFs        %s\n  UDF config  %s\n",
               g_build_tree ? "a build tree" : "installed", def.libchdb, def.udf_dir, def.udf_config);
    } else if (cmd.version) {
        rc = print_version(cmd.libchdb);
    } else if ((rc = check_path(&cmd)) == 0) {
        rc = run(&cmd, argv);
    }
    cl_free(&cmd);
    return rc;
}
