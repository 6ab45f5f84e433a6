/* Licensed under the Apache License, Version 2.0.
 *
 * pl_uuid.c: what counts as a UUID for placement (oslo's is_uuid_like),
 * its canonical spelling, and new random UUIDs and request ids (libuuid).
 */
#include <stdlib.h>
#include <string.h>

#include <apr_lib.h>
#include <apr_strings.h>
#include <uuid/uuid.h>

#include "pl_uuid.h"

/* Copy src into dst (same size or larger) without every occurrence of
 * pat, scanning left to right without overlap, as Python's
 * str.replace(pat, ''). */
static void uuid_remove_all(char *dst, const char *src, const char *pat)
{
    apr_size_t plen = strlen(pat);

    /* clang's analyzer reads a "garbage value" here when src is the
     * buffer the previous call wrote: it does not know that strncmp()
     * == 0 means plen non-NUL bytes, so it lets src += plen jump past
     * the '\0'. It cannot; a false positive.
     * NOLINTNEXTLINE(clang-analyzer-core.uninitialized.Branch) */
    while (*src) {
        if (strncmp(src, pat, plen) == 0) {
            src += plen;
        }
        else {
            *dst++ = *src++;
        }
    }
    *dst = '\0';
}

/* The 32 hex digits of s, lower case, into hex[33], or -1 if s is not
 * uuid-like. Mirrors uuid.UUID(s) and oslo's _format_uuid_string(s):
 * both remove "urn:", then "uuid:", strip "{}" at both ends and drop
 * '-'; UUID() then needs 32 characters int(x, 16) accepts, and the
 * comparison of its str() with the lower-cased string only succeeds
 * when those 32 characters are plain hex digits (a sign, "0x", '_' or
 * blanks make int() happy but the comparison fail). */
static int uuid_hex(const char *s, char hex[33])
{
    char stack1[128], stack2[128];
    char *b1 = stack1, *b2 = stack2;
    const char *start, *end;
    apr_size_t len, n = 0;
    int rv = 0;

    if (s == NULL) {
        return -1;
    }
    len = strlen(s);
    if (len >= sizeof(stack1)) {
        /* Long strings can still shrink to 32 digits ("-" * 500 + hex). */
        b1 = malloc(len + 1);
        b2 = malloc(len + 1);
        if (b1 == NULL || b2 == NULL) {
            free(b1);
            free(b2);
            return -1;
        }
    }
    uuid_remove_all(b1, s, "urn:");
    uuid_remove_all(b2, b1, "uuid:");
    start = b2;
    end = b2 + strlen(b2);
    while (start < end && (*start == '{' || *start == '}')) {
        start++;
    }
    while (end > start && (end[-1] == '{' || end[-1] == '}')) {
        end--;
    }
    for (; start < end; start++) {
        /* end = b2 + strlen(b2): every byte below it was written, whatever
         * clang's analyzer (which does not model strlen) says: a false
         * positive.
         * NOLINTNEXTLINE(clang-analyzer-core.UndefinedBinaryOperatorResult) */
        if (*start == '-') {
            continue;
        }
        if (n == 32 || !apr_isxdigit(*start)) {
            rv = -1;
            break;
        }
        hex[n++] = (char)apr_tolower(*start);
    }
    if (n != 32) {
        rv = -1;
    }
    hex[n < 32 ? n : 32] = '\0';
    if (b1 != stack1) {
        free(b1);
        free(b2);
    }
    return rv;
}

int pl_uuid_is_like(const char *s)
{
    char hex[33];

    return uuid_hex(s, hex) == 0;
}

apr_status_t pl_uuid_normalize(apr_pool_t *p, const char *in, const char **pout)
{
    char hex[33];

    if (uuid_hex(in, hex) != 0) {
        return APR_EINVAL;
    }
    *pout = apr_psprintf(p, "%.8s-%.4s-%.4s-%.4s-%.12s", hex, hex + 8, hex + 12,
                         hex + 16, hex + 20);
    return APR_SUCCESS;
}

const char *pl_uuid_new(apr_pool_t *p)
{
    uuid_t u;
    char *out = apr_palloc(p, 37);

    uuid_generate_random(u);
    uuid_unparse_lower(u, out);
    return out;
}

const char *pl_uuid_request_id(apr_pool_t *p)
{
    return apr_pstrcat(p, "req-", pl_uuid_new(p), NULL);
}
