/* split: the statements of a procedure as ods-ddl's writers print them ("-- K. title" before
 * each, ';' after), cut apart so that a runner can send them one at a time and name each. */
#ifndef SPLIT_H
#define SPLIT_H

#include <stddef.h>

typedef struct {
    int k;             /* its number, 1, 2, ... */
    const char *title; /* the text after "-- K. ", NUL-terminated (the line's newline cut) */
    const char *sql;   /* the statement, from the line after its title to its ';' included */
} sp_stmt;

typedef struct {
    const char *msg; /* static text */
    size_t line;     /* 1-based line of text where it went wrong */
} sp_error;

enum { SP_EFORMAT = -1 };

/* Cuts text (modified in place: titles and statements become NUL-terminated strings inside
 * it) into at most max statements. Lines before the first title must be "--" comments; the
 * titles must number 1, 2, ... in order; each statement must be non-empty and end with ';'
 * followed only by blank lines. The number of statements, or SP_EFORMAT (err says where). */
int sp_split(char *text, sp_stmt *out, int max, sp_error *err);

#endif
