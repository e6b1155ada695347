/* check.h: the project's whole unit-test framework, a few macros.
 * A test program calls CHECK* as often as it likes and ends with `return check_report();`. */
#ifndef CHECK_H
#define CHECK_H

#include <stdio.h>
#include <string.h>

static int check_failed_, check_run_;

#define CHECK(cond)                                                                 \
    do {                                                                            \
        check_run_++;                                                               \
        if (!(cond)) {                                                              \
            check_failed_++;                                                        \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
        }                                                                           \
    } while (0)

#define CHECK_EQ_INT(a, b)                                                                   \
    do {                                                                                     \
        long long a_ = (long long)(a), b_ = (long long)(b);                                  \
        check_run_++;                                                                        \
        if (a_ != b_) {                                                                      \
            check_failed_++;                                                                 \
            fprintf(stderr, "%s:%d: %s == %lld, want %lld\n", __FILE__, __LINE__, #a, a_, b_); \
        }                                                                                    \
    } while (0)

#define CHECK_EQ_STR(a, b)                                                                        \
    do {                                                                                          \
        const char *a_ = (a), *b_ = (b);                                                          \
        check_run_++;                                                                             \
        if (!a_ || !b_ || strcmp(a_, b_) != 0) {                                                  \
            check_failed_++;                                                                      \
            fprintf(stderr, "%s:%d: %s == \"%s\", want \"%s\"\n", __FILE__, __LINE__, #a,           \
                    a_ ? a_ : "(null)", b_ ? b_ : "(null)");                                      \
        }                                                                                         \
    } while (0)

static inline int check_report(void)
{
    printf("%d checks, %d failed\n", check_run_, check_failed_);
    return check_failed_ ? 1 : 0;
}

#endif
