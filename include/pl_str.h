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

#endif /* PL_STR_H */
