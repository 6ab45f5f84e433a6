/* Licensed under the Apache License, Version 2.0.
 *
 * pl_str.h: string helpers shared by the layers (pure: APR only).
 */
#ifndef PL_STR_H
#define PL_STR_H

#include <apr_pools.h>
#include <apr_tables.h>

/** The strings of strs (const char *) joined by sep, in one allocation:
 *  linear in the total length, where a loop of apr_pstrcat is
 *  quadratic. "" for an empty array. */
char *pl_str_join(apr_pool_t *p, const apr_array_header_t *strs,
                  const char *sep);

/** Is s[0..len) well-formed UTF-8 (RFC 3629: no overlong forms, no
 *  surrogates, nothing above U+10FFFF) without NUL bytes? */
int pl_str_is_clean_utf8(const char *s, apr_size_t len);

#endif /* PL_STR_H */
