/* check.h: the project's whole unit-test framework, a few macros.
 * A test program calls CHECK* as often as it likes and ends with `return check_report();`. */
#ifndef CHECK_H
#define CHECK_H

#include <malloc.h>
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

/* Heap bytes in use, for tests that memory is given back; -1 where it cannot be told (not
 * glibc 2.33+, or a sanitizer's allocator, which glibc's counters do not see). */
#if defined(__SANITIZE_ADDRESS__)
#define CHECK_HEAP_KNOWN 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CHECK_HEAP_KNOWN 0
#endif
#endif
#ifndef CHECK_HEAP_KNOWN
#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 33)
#define CHECK_HEAP_KNOWN 1
#else
#define CHECK_HEAP_KNOWN 0
#endif
#endif

static inline long long check_heap_in_use(void)
{
#if CHECK_HEAP_KNOWN
    struct mallinfo2 m = mallinfo2();
    return (long long)(m.uordblks + m.hblkhd);
#else
    return -1;
#endif
}

static inline int check_report(void)
{
    printf("%d checks, %d failed\n", check_run_, check_failed_);
    return check_failed_ ? 1 : 0;
}

#endif
