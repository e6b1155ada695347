/* test_split: unit tests of ods-load's module split: every procedure ods-ddl writes cuts into its
 * statements exactly, and a text not shaped as the writers print it is refused with its line. */
#include <stdlib.h>

#include "check.h"
#include "split.h"
#include "transition.h"

static char *written(int (*writer)(FILE *, const ddl_opts *), const ddl_opts *o)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    CHECK(writer(f, o) == 0);
    fclose(f);
    return text;
}

/* The statements, joined back as the writers print them, give the text again. */
static void check_procedure(int (*writer)(FILE *, const ddl_opts *), const ddl_opts *o, int want)
{
    char *text = written(writer, o);
    char *orig = strdup(text);
    sp_stmt st[16];
    sp_error err = {0};
    int n = sp_split(text, st, 16, &err);
    CHECK_EQ_INT(n, want);
    /* the text from the first title on is exactly title, statement, blank line, ... */
    char *joined = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&joined, &len);
    for (int i = 0; i < n; i++) {
        CHECK_EQ_INT(st[i].k, i + 1);
        CHECK(strchr(st[i].title, '\n') == NULL && st[i].title[0] != '\0');
        CHECK(st[i].sql[strlen(st[i].sql) - 1] == ';');
        fprintf(f, "-- %d. %s\n%s\n%s", st[i].k, st[i].title, st[i].sql, i + 1 < n ? "\n" : "");
    }
    fclose(f);
    const char *first = strstr(orig, "\n-- 1. ");
    CHECK(first != NULL);
    if (first)
        CHECK_EQ_STR(joined, first + 1);
    free(joined);
    free(orig);
    free(text);
}

static void test_procedures(void)
{
    ddl_opts o = {.stg_db = "stg", .ods_db = "ods"};
    check_procedure(ddl_transition, &o, DDL_TRANSITION_STATEMENTS);
    o.store_every = 1, o.typing_sql = 1, o.allow_empty = 1;
    check_procedure(ddl_transition, &o, DDL_TRANSITION_STATEMENTS);
    o.cluster = "prod-ods", o.stg_db = "s2", o.ods_db = "o2";
    check_procedure(ddl_transition, &o, DDL_TRANSITION_STATEMENTS);
    check_procedure(ddl_abandon, &o, 11);
    check_procedure(ddl_move_late, &o, 7);
    check_procedure(ddl_take_back, &o, 12);
    check_procedure(ddl_rebaseline, &o, 11); /* with a cluster: the Distributed tables' defaults too */
    /* fewer slots than statements: refused, not cut short */
    char *text = written(ddl_transition, &o);
    sp_stmt st[4];
    sp_error err = {0};
    CHECK_EQ_INT(sp_split(text, st, 4, &err), SP_EFORMAT);
    CHECK_EQ_STR(err.msg, "more statements than expected");
    free(text);
}

static void refused(const char *text, const char *msg, size_t line)
{
    char *t = strdup(text);
    sp_stmt st[8];
    sp_error err = {0};
    CHECK_EQ_INT(sp_split(t, st, 8, &err), SP_EFORMAT);
    CHECK_EQ_STR(err.msg, msg);
    CHECK_EQ_INT(err.line, line);
    free(t);
}

static void test_refused(void)
{
    refused("", "no statement", 1);
    refused("-- a comment only\n", "no statement", 1);
    refused("SELECT 1;\n", "text before the first statement's title", 1);
    refused("-- 2. the second first\nSELECT 1;\n", "statement titles out of order", 1);
    refused("-- 1. one\nSELECT 1;\n\n-- 3. three\nSELECT 3;\n", "statement titles out of order", 4);
    refused("-- 1. one\n\n-- 2. two\nSELECT 2;\n", "a statement is empty", 3);
    refused("-- 1. one\nSELECT 1\n\n-- 2. two\nSELECT 2;\n", "a statement does not end with ';'", 4);
    refused("-- 1. one\nSELECT 1;\n-- 2. two", "a title is the last line", 3);
    refused("-- 1. one\nSELECT 1", "a statement does not end with ';'", 2);
    refused("-- 0. zero\nSELECT 1;\n", "text before the first statement's title", 2);
}

static void test_accepted(void)
{
    char t[] = "-- header\n-- more\n\n-- 1. one\nSELECT 1;\n\n-- 2. two: x\nSELECT\n-- 1. a comment inside\n2;\n\n";
    sp_stmt st[4];
    sp_error err = {0};
    CHECK_EQ_INT(sp_split(t, st, 4, &err), 2);
    CHECK_EQ_STR(st[0].title, "one");
    CHECK_EQ_STR(st[0].sql, "SELECT 1;");
    CHECK_EQ_STR(st[1].title, "two: x");
    CHECK_EQ_STR(st[1].sql, "SELECT\n-- 1. a comment inside\n2;");
    /* "-- K. " with more than 3 digits is no title: a comment in the statement */
    char t2[] = "-- 1. one\nSELECT 1;\n-- 1234. many\nSELECT 2;\n";
    CHECK_EQ_INT(sp_split(t2, st, 4, &err), 1);
    CHECK_EQ_STR(st[0].sql, "SELECT 1;\n-- 1234. many\nSELECT 2;");
}

int main(void)
{
    test_procedures();
    test_refused();
    test_accepted();
    return check_report();
}
