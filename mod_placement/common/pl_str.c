/* Licensed under the Apache License, Version 2.0.
 *
 * pl_str.c: string helpers shared by the layers (pure: APR only).
 */
#include <string.h>

#include "pl_str.h"

char *pl_str_join(apr_pool_t *p, const apr_array_header_t *strs,
                  const char *sep)
{
    apr_size_t seplen = strlen(sep), total = 1, len;
    char *out, *at;
    int i;

    for (i = 0; i < strs->nelts; i++) {
        total += strlen(APR_ARRAY_IDX(strs, i, const char *)) + seplen;
    }
    out = at = apr_palloc(p, total);
    for (i = 0; i < strs->nelts; i++) {
        if (i) {
            memcpy(at, sep, seplen);
            at += seplen;
        }
        len = strlen(APR_ARRAY_IDX(strs, i, const char *));
        memcpy(at, APR_ARRAY_IDX(strs, i, const char *), len);
        at += len;
    }
    *at = '\0';
    return out;
}

int pl_str_is_clean_utf8(const char *s, apr_size_t len)
{
    const unsigned char *u = (const unsigned char *)s;
    apr_size_t i = 0;

    while (i < len) {
        unsigned c = u[i];
        unsigned lo = 0x80, hi = 0xBF; /* range of the second byte */
        int more;

        if (c == 0) {
            return 0;
        }
        if (c < 0x80) {
            i++;
            continue;
        }
        if (c >= 0xC2 && c <= 0xDF) {
            more = 1;
        }
        else if (c >= 0xE0 && c <= 0xEF) {
            more = 2;
            lo = c == 0xE0 ? 0xA0 : 0x80; /* no overlong forms */
            hi = c == 0xED ? 0x9F : 0xBF; /* no surrogates */
        }
        else if (c >= 0xF0 && c <= 0xF4) {
            more = 3;
            lo = c == 0xF0 ? 0x90 : 0x80;
            hi = c == 0xF4 ? 0x8F : 0xBF; /* up to U+10FFFF */
        }
        else {
            return 0;
        }
        if (i + more >= len) {
            return 0; /* cut short */
        }
        if (u[i + 1] < lo || u[i + 1] > hi) {
            return 0;
        }
        for (int k = 2; k <= more; k++) {
            if (u[i + k] < 0x80 || u[i + k] > 0xBF) {
                return 0;
            }
        }
        i += more + 1;
    }
    return 1;
}
