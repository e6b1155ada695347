/* cl_args: turns chlocal's command line into the argv handed to the embedded engine.
 * No I/O and no globals, so the rules are unit tested on their own (tests/tools/chlocal/test_args.c). */
#ifndef CL_ARGS_H
#define CL_ARGS_H

typedef struct {
    const char *msg; /* static text */
    int arg;         /* index in the caller's argv of the offending argument, or -1 */
    const char *opt; /* the option whose value is missing, or NULL */
} cl_error;

/* The parsed command. Every pointer borrows from the caller's argv or from the
 * defaults given to cl_parse, except engine_argv, which cl_parse allocates and
 * cl_free releases (its strings are borrowed or point into `owned`). */
typedef struct {
    int help;
    int version;            /* --version (before "--"): chlocal's and the engine's version */
    const char *libchdb;
    const char *udf_dir;    /* NULL: do not install UDFs */
    const char *udf_config; /* NULL: do not install UDFs */
    int engine_argc;
    char **engine_argv;     /* NULL-terminated; after cl_build: with the UDF settings */
    int sep;                /* index of "--" in engine_argv, or -1 */
    int have_scripts, have_config; /* the caller set them after "--" */
    char *owned[2];
} cl_cmd;

typedef struct {
    const char *libchdb;
    const char *udf_dir;
    const char *udf_config;
} cl_defaults;

/* 0 on success; CL_EUSAGE when the command line is wrong (err says why);
 * CL_ENOMEM when out of memory. */
enum { CL_EUSAGE = -1, CL_ENOMEM = -2 };
int cl_parse(int argc, char **argv, const cl_defaults *def, cl_cmd *cmd, cl_error *err);
/* Appends the UDF server settings (NULL: none) to engine_argv unless the caller set them. */
int cl_build(cl_cmd *cmd, const char *udf_dir, const char *udf_config);
void cl_free(cl_cmd *cmd);
/* argv[*i] as option NAME, "--name=value" or "--name value": 1 and the value (advancing *i past
 * it), 0 when argv[*i] is another option, -1 when the value is missing or empty (argc: the end). */
int cl_take_value(int argc, char **argv, int *i, const char *name, const char **val);

#endif
