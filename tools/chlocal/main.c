/* chlocal: a `clickhouse local` on top of the embedded engine (libchdb, loaded with dlopen),
 * with this project's executable UDFs installed by default, for tests, scripts and people. */
#include "args.h"
#include "io.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static const char USAGE[] =
    "usage: chlocal [CHLOCAL OPTIONS] [CLICKHOUSE-LOCAL OPTIONS] [-- SERVER SETTINGS]\n"
    "\n"
    "Runs SQL on the embedded ClickHouse engine (libchdb) exactly as `clickhouse local`\n"
    "would, with this project's executable UDFs installed.\n"
    "\n"
    "chlocal options (taken out before the engine sees the command line):\n"
    "  -h, --help            this text\n"
    "  --libchdb PATH        the engine library (env CHLOCAL_LIBCHDB; default: the copy\n"
    "                        scripts/setup fetched into .deps/chdb/libchdb.so)\n"
    "  --udf-dir DIR         directory of UDF binaries, passed as --user_scripts_path\n"
    "                        (env CHLOCAL_UDF_DIR; default: the directory of chlocal)\n"
    "  --udf-config GLOB     UDF definitions, passed as\n"
    "                        --user_defined_executable_functions_config\n"
    "                        (env CHLOCAL_UDF_CONFIG; default: clickhouse-config/*_function.xml)\n"
    "  --no-udf              install no UDFs\n"
    "\n"
    "Everything else goes to the engine unchanged: -q/--query, --queries-file, --path,\n"
    "--format/--output-format, --input-format (data on stdin is `table`), --param_NAME=V,\n"
    "settings such as --max_threads=2. Server settings go after `--`; a\n"
    "--user_scripts_path or --user_defined_executable_functions_config given there wins.\n"
    "\n"
    "Output: the result bytes on stdout, exactly. Exit status: 0 success; 1 the query\n"
    "failed (the engine's message is on stderr); 2 usage error or the engine cannot load.\n"
    "\n"
    "example: chlocal -q \"SELECT order_wire_class('{}')\"\n";

typedef struct chdb_result chdb_result;

typedef struct {
    chdb_result *(*query_cmdline)(int, char **);
    char *(*buffer)(chdb_result *);
    size_t (*length)(chdb_result *);
    const char *(*error)(chdb_result *);
    void (*destroy)(chdb_result *);
} engine;

static int load_engine(const char *path, engine *e)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "chlocal: cannot load the engine: %s\n"
                        "chlocal: run scripts/setup, or point CHLOCAL_LIBCHDB at libchdb.so\n",
                dlerror());
        return -1;
    }
    *(void **)&e->query_cmdline = dlsym(h, "chdb_query_cmdline");
    *(void **)&e->buffer = dlsym(h, "chdb_result_buffer");
    *(void **)&e->length = dlsym(h, "chdb_result_length");
    *(void **)&e->error = dlsym(h, "chdb_result_error");
    *(void **)&e->destroy = dlsym(h, "chdb_destroy_query_result");
    if (!e->query_cmdline || !e->buffer || !e->length || !e->error || !e->destroy) {
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

static int is_usage_error(const char *s, size_t n)
{
    static const char *const marks[] = {"Positional option", "(UNRECOGNIZED_ARGUMENTS)"};
    for (size_t m = 0; m < sizeof marks / sizeof *marks; m++)
        if (memmem(s, n, marks[m], strlen(marks[m])))
            return 1;
    return 0;
}

static int run(const cl_cmd *cmd)
{
    engine e;
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
    io_write_all(STDERR_FILENO, msg, msg_len);

    int rc = 0;
    const char *err = r ? e.error(r) : "the engine returned no result";
    char *buf = r ? e.buffer(r) : NULL;
    if (err && *err) {
        /* Errors raised while the engine reads its command line land here. */
        fprintf(stderr, "%s\n", err);
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

    const char *env_lib = getenv("CHLOCAL_LIBCHDB"), *env_dir = getenv("CHLOCAL_UDF_DIR"),
               *env_cfg = getenv("CHLOCAL_UDF_CONFIG");
    cl_defaults def = {
        .libchdb = env_lib && *env_lib ? env_lib : ODS_SOURCE_DIR "/.deps/chdb/libchdb.so",
        .udf_dir = env_dir && *env_dir ? env_dir : slash ? exe : ".",
        .udf_config = env_cfg && *env_cfg ? env_cfg : ODS_SOURCE_DIR "/clickhouse-config/*_function.xml",
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
    } else if (rc != 0) {
        fprintf(stderr, "chlocal: %s (try --help)\n", err.msg);
        rc = 2;
    } else if (cmd.help) {
        fputs(USAGE, stdout);
    } else {
        rc = run(&cmd);
    }
    cl_free(&cmd);
    return rc;
}
