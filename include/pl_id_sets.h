/* Licensed under the Apache License, Version 2.0.
 *
 * pl_id_sets.h: what a provider (or a tree) must have of one kind of ids,
 * traits or aggregates: an AND of any-of sets, as required= and
 * member_of= give them, each set kept once, and the one SQL condition
 * that tests them all on one join. A request may name hundreds of sets:
 * a subquery per set made PostgreSQL plan a join of each (seconds for
 * a hundred, issue 23); tests of a group's rows cost a little a set.
 */
#ifndef PL_ID_SETS_H
#define PL_ID_SETS_H

#include <apr_pools.h>
#include <apr_hash.h>
#include <apr_tables.h>

/** A set of several ids, sorted, each once. */
typedef struct pl_id_list_t {
    const apr_int64_t *ids;
    int n;
    const char *text; /**< "1,2" */
    int order;        /**< how many sets of several came before it */
} pl_id_list_t;

typedef struct pl_id_sets_t {
    apr_pool_t *p;
    apr_array_header_t *all;   /**< apr_int64_t: the sets of one id */
    apr_array_header_t *lists; /**< pl_id_list_t: the sets of several */
    apr_hash_t *seen;          /**< the sets kept, by text */
} pl_id_sets_t;

/** An empty s, its arrays from p. */
void pl_id_sets_init(pl_id_sets_t *s, apr_pool_t *p);

/** Add the set of the n ids (any order, repeats allowed; n 0: nothing),
 *  unless the same set is in s already. ids is sorted in place, and kept
 *  by s when n > 1. */
void pl_id_sets_add(pl_id_sets_t *s, apr_int64_t *ids, int n);

/** Whether s asks for nothing. */
int pl_id_sets_empty(const pl_id_sets_t *s);

/** How many sets s holds. */
int pl_id_sets_count(const pl_id_sets_t *s);

/**
 * The SQL of s on at most max of its sets of several (the smallest first,
 * then as they came; max < 0: all of them; every set of one is always
 * tested): *pids, "1,2,3", every id the sets tested name, each once, for
 * the IN list of the rows to read; *ptest, the test on the rows of a
 * group (GROUP BY) whose col is one of those ids that they hold each set
 * tested, NULL when any one of the rows will do (a single set).
 */
void pl_id_sets_sql(const pl_id_sets_t *s, int max, const char *col,
                    const char **pids, const char **ptest);

#endif /* PL_ID_SETS_H */
