/* Licensed under the Apache License, Version 2.0.
 *
 * pl_store_ac_private.h: what the files of the candidates' database side
 * share: store_ac.c (the request's names, the entry points),
 * store_ac_roots.c (which trees), store_ac_trees.c (the trees) and
 * store_ac_early.c (upstream's early ends, when a name is unknown).
 */
#ifndef PL_STORE_AC_PRIVATE_H
#define PL_STORE_AC_PRIVATE_H

#include <apr_hash.h>

#include "pl_id_sets.h"
#include "pl_store_ac.h"

/** "1,2,3": the ids of names (pl_ac_name_t). */
const char *pl_store_ac_ids_of_names(apr_pool_t *p,
                                     const apr_array_header_t *names);

/** names (pl_ac_name_t) by name */
apr_hash_t *pl_store_ac_names_by_name(apr_pool_t *p,
                                      const apr_array_header_t *names);

/** Each set of sets (apr_array_header_t * of const char *) into s, as the
 *  ids of its names in by_name (pl_ac_name_t): names the database does
 *  not know are left out (the engine answers for them). by_name NULL:
 *  none. */
void pl_store_ac_add_named_sets(apr_pool_t *p, pl_id_sets_t *s,
                                apr_hash_t *by_name,
                                const apr_array_header_t *sets);

/** The traits the groups' filters may test, by name (pl_ac_name_t);
 *  NULL when a group names a trait the database does not know: then
 *  no trait filter is applied. */
apr_hash_t *pl_store_ac_filter_traits(apr_pool_t *p, const pl_ac_request_t *req,
                                      const pl_ac_world_t *w);

/**
 * When req names a trait the database does not know, the answers over
 * the whole database of upstream's checks that may end the request
 * before that name does (w->early_*); nothing otherwise.
 */
apr_status_t pl_store_ac_early_ends(pl_db_t *db, apr_pool_t *p,
                                    const pl_ac_request_t *req,
                                    pl_ac_world_t *w);

/**
 * The text of a query of the root ids of the trees req may use, NULL if
 * none can serve. max_trees > 0 and no sharing provider: the first
 * max_trees of them by id, after the root id after; else all of them.
 * In the words of the dialect whose planner walks them best.
 */
const char *pl_store_ac_roots(apr_pool_t *p, const pl_ac_request_t *req,
                              const pl_ac_world_t *w, int max_trees,
                              apr_int64_t after, pl_db_dialect_e dialect);

/** The kinds of the trees statement's rows are below this; a statement
 *  riding with it has its own kinds from here. */
#define PL_STORE_AC_RIDER_KIND 10

/**
 * A statement run with the trees statement, in the same round trip and
 * snapshot (UNION ALL): seven columns like it, the first its kind (at
 * least PL_STORE_AC_RIDER_KIND), the next four integers, the sixth text,
 * the last an integer. accept gets its rows (from the pool of the read)
 * once read: when it says 0, the trees read are not to be used
 * (rejected is set, w left as it is).
 */
typedef struct pl_store_ac_rider_t {
    const char *sql;
    int (*accept)(void *baton, const pl_rows_t *rows);
    void *baton;
    int rejected;
} pl_store_ac_rider_t;

/**
 * Add to w the trees whose roots the query roots gives, whole, with
 * their providers' facts from cache (may be NULL) or the database, and
 * leave w sorted and indexed. once: the query's text will not come
 * again (not worth preparing). rider: NULL, or what rides with the
 * trees statement (on MariaDB, with the roots, which are read first).
 * *pnroots: how many roots they were; *plast: the highest root id among
 * them (unchanged when none).
 */
apr_status_t
pl_store_ac_read_trees(pl_db_t *db, apr_pool_t *p, pl_store_ac_cache_t *cache,
                       const char *roots, int once, pl_store_ac_rider_t *rider,
                       pl_ac_world_t *w, int *pnroots, apr_int64_t *plast);

#endif /* PL_STORE_AC_PRIVATE_H */
