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
