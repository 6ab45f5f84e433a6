/* Licensed under the Apache License, Version 2.0.
 *
 * pl_store_ac_private.h: what the files of the candidates' database side
 * share: store_ac.c (the request's names, the entry points),
 * store_ac_roots.c (which trees) and store_ac_trees.c (the trees).
 */
#ifndef PL_STORE_AC_PRIVATE_H
#define PL_STORE_AC_PRIVATE_H

#include "pl_store_ac.h"

/** "1,2,3": the ids of names (pl_ac_name_t). */
const char *pl_store_ac_ids_of_names(apr_pool_t *p,
                                     const apr_array_header_t *names);

/**
 * The text of a query of the root ids of the trees req may use, NULL if
 * none can serve. max_trees > 0 and no sharing provider: the first
 * max_trees of them by id, after the root id after; else all of them.
 */
const char *pl_store_ac_roots(apr_pool_t *p, const pl_ac_request_t *req,
                              const pl_ac_world_t *w, int max_trees,
                              apr_int64_t after);

/**
 * Add to w the trees whose roots the query roots gives, whole, with
 * their providers' facts from cache (may be NULL) or the database, and
 * leave w sorted and indexed. once: the query's text will not come
 * again (not worth preparing). *pnroots: how many roots they were;
 * *plast: the highest root id among them (unchanged when none).
 */
apr_status_t pl_store_ac_read_trees(pl_db_t *db, apr_pool_t *p,
                                    pl_ac_cache_t *cache, const char *roots,
                                    int once, pl_ac_world_t *w, int *pnroots,
                                    apr_int64_t *plast);

#endif /* PL_STORE_AC_PRIVATE_H */
