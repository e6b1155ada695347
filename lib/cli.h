/* cli.h: what every binary's command line shares (docs/cli.md): the one wording of --version and
 * of usage errors, and the one reading of an option's whole number (cli_whole).
 * Each usage error is exactly one line on stderr; the cli_* reporters return 2, the exit
 * status of a usage error, so a parser can `return cli_unknown_option(...)`:
 *   NAME: unknown option: --foo (try --help)
 *   NAME: bad value for --format: json (expected lines or rowbinary)
 *   NAME: --format needs a value (try --help)
 *   NAME: unexpected argument: foo (try --help)
 * An argument is written with its control bytes as \xNN, so the message stays one line.
 * Header only (static inline): the sanitizer build of chlocal compiles its own copies. */
#ifndef ODS_CLI_H
#define ODS_CLI_H

#include <stdio.h>
#include <string.h>

#include "ods_version.h"

/* --version: "NAME VERSION" on stdout; 0, or 1 when stdout cannot be written. */
static inline int cli_version(const char *name)
{
    return printf("%s %s\n", name, ODS_VERSION) < 0 || fflush(stdout) != 0 ? 1 : 0;
}

static inline void cli_put_arg(const char *s)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c < 0x20 || c == 0x7f)
            fprintf(stderr, "\\x%02x", c);
        else
            fputc(c, stderr);
    }
}

static inline int cli_unknown_option(const char *name, const char *opt)
{
    fprintf(stderr, "%s: unknown option: ", name);
    cli_put_arg(opt);
    fputs(" (try --help)\n", stderr);
    return 2;
}

/* expected: what the option takes, e.g. "lines or rowbinary", "a whole number from 1". */
static inline int cli_bad_value(const char *name, const char *opt, const char *val, const char *expected)
{
    fprintf(stderr, "%s: bad value for %s: ", name, opt);
    cli_put_arg(val);
    fprintf(stderr, " (expected %s)\n", expected);
    return 2;
}

static inline int cli_missing_value(const char *name, const char *opt)
{
    fprintf(stderr, "%s: %s needs a value (try --help)\n", name, opt);
    return 2;
}

static inline int cli_unexpected_argument(const char *name, const char *arg)
{
    fprintf(stderr, "%s: unexpected argument: ", name);
    cli_put_arg(arg);
    fputs(" (try --help)\n", stderr);
    return 2;
}

/* Whether argv[*i] is the option name with its value, written "NAME VALUE" or "NAME=VALUE":
 * 1 with *val set (and *i moved past a separate value); 0 when it is another argument; -1 when
 * the value is missing (the usage error printed; the caller exits 2). */
static inline int cli_option_value(const char *prog, int argc, char **argv, int *i, const char *name,
                                   const char **val)
{
    const char *s = argv[*i];
    size_t n = strlen(name);
    if (strncmp(s, name, n) != 0 || (s[n] != '\0' && s[n] != '='))
        return 0;
    if (s[n] == '=')
        *val = s + n + 1;
    else if (*i + 1 < argc)
        *val = argv[++*i];
    else
        return cli_missing_value(prog, name), -1;
    return 1;
}

/* An option's whole number: s as digits only (no sign, space or base prefix; leading zeros
 * allowed) with a value in [lo, hi]: 0 with *v set, or -1. Overflow cannot wrap it into range. */
static inline int cli_whole(const char *s, unsigned long long lo, unsigned long long hi,
                            unsigned long long *v)
{
    unsigned long long n = 0;
    if (!*s)
        return -1;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return -1;
        unsigned d = (unsigned)(*s - '0');
        if (d > hi || n > (hi - d) / 10)
            return -1;
        n = n * 10 + d;
    }
    if (n < lo)
        return -1;
    *v = n;
    return 0;
}

#endif
