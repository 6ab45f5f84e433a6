/* Licensed under the Apache License, Version 2.0.
 *
 * tap.h: a tiny Test Anything Protocol emitter for the C unit tests.
 * No plan up front: each check prints "ok N - name" or "not ok N - name"
 * (plus a "#   Failed at file:line" diagnostic and, for the comparisons,
 * what came and what was expected), and tap_done() prints the trailing plan
 * "1..N" and "# N passed, M failed" and returns the exit status for main.
 *
 *   TAP_OK(cond, "name %d", i);
 *   TAP_IS_STR(got, expected, "name");     NULL-safe strcmp
 *   TAP_IS_INT(got, expected, "name");     as long long
 *   return tap_done();
 *
 * Everything is static inline so that a test file that leaves a helper
 * unused compiles without warnings.
 */
#ifndef PL_TAP_H
#define PL_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int tap_count_run;
static int tap_count_failed;

static inline void tap_vreport(int pass, const char *file, int line,
                               const char *fmt, va_list ap)
{
    char name[160];
    size_t i;

    tap_count_run++;
    if (!pass) {
        tap_count_failed++;
    }
    /* one line per check: control characters become '?', long names
     * are cut */
    vsnprintf(name, sizeof(name), fmt, ap);
    for (i = 0; name[i]; i++) {
        if ((unsigned char)name[i] < 0x20 || name[i] == 0x7f) {
            name[i] = '?';
        }
    }
    printf("%sok %d - %s\n", pass ? "" : "not ", tap_count_run, name);
    if (!pass) {
        printf("#   Failed at %s:%d\n", file, line);
    }
}

/** Record one check; returns pass. */
static inline int tap_ok(int pass, const char *file, int line, const char *fmt,
                         ...)
{
    va_list ap;

    va_start(ap, fmt);
    tap_vreport(pass, file, line, fmt, ap);
    va_end(ap);
    return pass;
}

/** Print a string for a diagnostic: quoted, or (null). */
static inline void tap_diag_str(const char *label, const char *s)
{
    if (s == NULL) {
        printf("#   %8s: (null)\n", label);
        return;
    }
    printf("#   %8s: '", label);
    for (; *s; s++) {
        if ((unsigned char)*s < 0x20 || *s == 0x7f) {
            printf("\\x%02x", (unsigned char)*s);
        }
        else {
            putchar(*s);
        }
    }
    printf("'\n");
}

static inline int tap_is_str(const char *got, const char *expected,
                             const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    int pass;

    if (got == NULL || expected == NULL) {
        pass = (got == expected);
    }
    else {
        pass = (strcmp(got, expected) == 0);
    }
    va_start(ap, fmt);
    tap_vreport(pass, file, line, fmt, ap);
    va_end(ap);
    if (!pass) {
        tap_diag_str("got", got);
        tap_diag_str("expected", expected);
    }
    return pass;
}

static inline int tap_is_int(long long got, long long expected,
                             const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    int pass = (got == expected);

    va_start(ap, fmt);
    tap_vreport(pass, file, line, fmt, ap);
    va_end(ap);
    if (!pass) {
        printf("#        got: %lld\n#   expected: %lld\n", got, expected);
    }
    return pass;
}

/** Print a comment line ("# ..."), for grouping the output. */
static inline void tap_note(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    printf("# ");
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
}

/** Print the plan and the summary; returns 0 if every check passed. */
static inline int tap_done(void)
{
    printf("1..%d\n", tap_count_run);
    printf("# %d passed, %d failed\n", tap_count_run - tap_count_failed,
           tap_count_failed);
    return tap_count_failed ? 1 : 0;
}

#define TAP_OK(cond, ...) tap_ok(!!(cond), __FILE__, __LINE__, __VA_ARGS__)
#define TAP_IS_STR(got, expected, ...) \
    tap_is_str((got), (expected), __FILE__, __LINE__, __VA_ARGS__)
#define TAP_IS_INT(got, expected, ...)                                      \
    tap_is_int((long long)(got), (long long)(expected), __FILE__, __LINE__, \
               __VA_ARGS__)

#endif /* PL_TAP_H */
