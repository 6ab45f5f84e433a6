/* Licensed under the Apache License, Version 2.0.
 *
 * pl_json_scan.h: one pass over a JSON text before json-c builds it
 * (pl_json_scan.c): what building it would cost, priced per value, key,
 * array slot and object table as json-c 0.16 spends them (measured by
 * bench/json-cost.c), and the string escapes a C string or a database
 * cannot hold. Pure: APR only.
 */
#ifndef PL_JSON_SCAN_H
#define PL_JSON_SCAN_H

#include <apr_pools.h>

/** What one pass over a JSON text finds. The counts are of what json-c
 *  would build: nothing nested deeper than the depth it may go to. */
typedef struct {
    apr_uint64_t objects, arrays; /* containers */
    apr_uint64_t keys;            /* members of objects */
    apr_uint64_t strings;         /* strings that are values, not keys */
    apr_uint64_t numbers;         /* numbers, doubles among them */
    apr_uint64_t doubles;         /* numbers with ".", "e" or "E" */
    apr_uint64_t literals;        /* true, false and null */
    apr_uint64_t cost;            /* bytes json-c would hold at its peak */
    apr_uint64_t quoted_keys;     /* keys in single quotes: json-c takes
                                     them even strict, Python does not */
    const char *refused;          /* why the text is refused, or NULL */
} pl_json_scan_t;

/**
 * Scan the len bytes at buf (valid UTF-8 or not, JSON or not) into
 * *scan. max_depth: the depth the parser stops at (json_tokener_new_ex's):
 * what lies deeper is never built, so not counted. Escapes refused
 * (scan->refused, allocated from p, the scan stopped there): \u0000 (it
 * would end a C string) and a surrogate not in a pair (no UTF-8 can hold
 * it). scan->cost prices what json-c would hold at the peak of building
 * the text, the text itself included (pl_json_scan.c gives the figures).
 * For text that is not JSON, it prices what json-c could build of it at
 * most: each value at the place a value may start.
 */
void pl_json_scan(apr_pool_t *p, const char *buf, apr_size_t len, int max_depth,
                  pl_json_scan_t *scan);

#endif /* PL_JSON_SCAN_H */
