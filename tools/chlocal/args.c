/* cl_args: chlocal's own options are taken out, everything else goes to the engine unchanged,
 * and the UDF server settings are added after "--" unless the caller already gave them there. */
#include "args.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char OPT_SCRIPTS[] = "--user_scripts_path";
static const char OPT_CONFIG[] = "--user_defined_executable_functions_config";

int cl_take_value(int argc, char **argv, int *i, const char *name, const char **val)
{
    size_t n = strlen(name);
    if (strncmp(argv[*i], name, n) != 0)
        return 0;
    if (argv[*i][n] == '=')
        *val = argv[*i] + n + 1;
    else if (argv[*i][n] != '\0')
        return 0;
    else if (*i + 1 < argc)
        *val = argv[++*i];
    else
        return -1;
    return **val ? 1 : -1;
}

static int names_option(const char *arg, const char *name)
{
    size_t n = strlen(name);
    return strncmp(arg, name, n) == 0 && (arg[n] == '\0' || arg[n] == '=');
}

static char *setting(const char *name, const char *value)
{
    size_t ln = strlen(name), lv = strlen(value);
    char *s = malloc(ln + lv + 2);
    if (!s)
        return NULL;
    memcpy(s, name, ln);
    s[ln] = '=';
    memcpy(s + ln + 1, value, lv + 1);
    return s;
}

static int fail(cl_error *err, const char *msg, int arg, const char *opt)
{
    if (err) {
        err->msg = msg;
        err->arg = arg;
        err->opt = opt;
    }
    return CL_EUSAGE;
}

int cl_parse(int argc, char **argv, const cl_defaults *def, cl_cmd *cmd, cl_error *err)
{
    static const struct {
        const char *name, *missing;
        size_t field;
    } valued[] = {
        {"--udf-dir", "--udf-dir needs a value", offsetof(cl_cmd, udf_dir)},
        {"--udf-config", "--udf-config needs a value", offsetof(cl_cmd, udf_config)},
        {"--libchdb", "--libchdb needs a value", offsetof(cl_cmd, libchdb)},
    };
    memset(cmd, 0, sizeof *cmd);
    cmd->libchdb = def->libchdb;
    cmd->udf_dir = def->udf_dir;
    cmd->udf_config = def->udf_config;
    cmd->sep = -1;

    /* Room for every argument, "--", the two settings and the NULL. */
    char **out = calloc((size_t)argc + 4, sizeof *out);
    if (!out)
        return CL_ENOMEM;
    int n = 0;
    int no_udf = 0;
    out[n++] = argc > 0 ? argv[0] : "chlocal";

    for (int i = 1; i < argc; i++) {
        if (cmd->sep >= 0) { /* server settings pass as they are; note what the caller set */
            cmd->have_scripts |= names_option(argv[i], OPT_SCRIPTS);
            cmd->have_config |= names_option(argv[i], OPT_CONFIG);
            out[n++] = argv[i];
            continue;
        }
        if (strcmp(argv[i], "--") == 0) {
            cmd->sep = n;
            out[n++] = argv[i];
            continue;
        }
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            cmd->help = 1;
            continue;
        }
        if (strcmp(argv[i], "--no-udf") == 0) {
            no_udf = 1;
            continue;
        }
        if (strcmp(argv[i], "--version") == 0) {
            cmd->version = 1;
            continue;
        }
        size_t k;
        int r = 0;
        for (k = 0; k < sizeof valued / sizeof *valued; k++) {
            const char *v = NULL;
            if ((r = cl_take_value(argc, argv, &i, valued[k].name, &v)) > 0)
                *(const char **)((char *)cmd + valued[k].field) = v;
            if (r != 0)
                break;
        }
        if (r < 0) {
            free(out);
            return fail(err, valued[k].missing, i, valued[k].name);
        }
        if (r == 0)
            out[n++] = argv[i];
    }
    /* The engine would take the "--" we append as the missing value and then complain
     * about our own setting; name the real mistake instead. */
    static const char *const needs_value[] = {"-q", "--query", "--queries-file", "--path",
                                              "--format", "--output-format", "--input-format",
                                              "--structure", "--database", "--file", "-f", "-d"};
    int last = cmd->sep >= 0 ? cmd->sep - 1 : n - 1;
    for (size_t k = 0; last > 0 && k < sizeof needs_value / sizeof *needs_value; k++)
        if (strcmp(out[last], needs_value[k]) == 0) {
            free(out);
            return fail(err, "the last option needs a value", -1, needs_value[k]);
        }
    if (no_udf)
        cmd->udf_dir = cmd->udf_config = NULL;
    cmd->engine_argc = n;
    cmd->engine_argv = out;
    return 0;
}

int cl_build(cl_cmd *cmd, const char *udf_dir, const char *udf_config)
{
    char **out = cmd->engine_argv;
    int n = cmd->engine_argc;
    int want_scripts = udf_dir && udf_config && !cmd->have_scripts;
    int want_config = udf_dir && udf_config && !cmd->have_config;
    if ((want_scripts || want_config) && cmd->sep < 0) {
        cmd->sep = n;
        out[n++] = "--";
    }
    if (want_scripts) {
        if (!(cmd->owned[0] = setting(OPT_SCRIPTS, udf_dir)))
            return CL_ENOMEM;
        out[n++] = cmd->owned[0];
    }
    if (want_config) {
        if (!(cmd->owned[1] = setting(OPT_CONFIG, udf_config)))
            return CL_ENOMEM;
        out[n++] = cmd->owned[1];
    }
    out[n] = NULL;
    cmd->engine_argc = n;
    return 0;
}

void cl_free(cl_cmd *cmd)
{
    free(cmd->owned[0]);
    free(cmd->owned[1]);
    free(cmd->engine_argv);
    memset(cmd, 0, sizeof *cmd);
}
