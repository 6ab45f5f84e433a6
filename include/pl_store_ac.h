/* Licensed under the Apache License, Version 2.0.
 *
 * pl_store_ac.h: the database side of allocation candidates (store_ac*.c):
 * the world a candidate request can touch, read in a few statements, for
 * the pure engine of pl_ac.h, which knows nothing of the database.
 * pl_store_ac_candidates is the entry the api calls: it reads and builds
 * as the bound needs; pl_store_ac_world and pl_store_ac_more are its
 * parts (the unit tests read worlds with them).
 */
#ifndef PL_STORE_AC_H
#define PL_STORE_AC_H

#include "pl_ac.h"
#include "pl_store_ac_cache.h"
#include "pl_store.h"

/**
 * Read the world req can touch, the providers' facts through cache (may
 * be NULL). max_trees > 0: at most that many of the candidate trees,
 * those of the lowest root ids (the engine's order), when no sharing
 * provider can join trees; w->truncated then tells whether more may be
 * left.
 * @return APR_SUCCESS and *pworld; database errors.
 */
apr_status_t pl_store_ac_world(pl_db_t *db, apr_pool_t *p,
                               const pl_ac_request_t *req,
                               pl_store_ac_cache_t *cache, int max_trees,
                               pl_ac_world_t **pworld);

/**
 * Add the next max_trees candidate trees of a truncated world to it
 * (those after the last root read), setting w->truncated again.
 */
apr_status_t pl_store_ac_more(pl_db_t *db, apr_pool_t *p,
                              const pl_ac_request_t *req,
                              pl_store_ac_cache_t *cache, int max_trees,
                              pl_ac_world_t *w);

/**
 * The allocation candidates of req, the engine's whole strategy in one
 * call: with a bound (pl_ac_bound, not a random sample) read the first
 * bound + 16 trees, build, and while they gave too few candidates and
 * more trees are left, read four times as many more after the last one
 * and build again; without one, read every tree once. The providers'
 * facts come through cache (may be NULL). opts->stats, when set, gets
 * the work of every build summed; opts->log a line with the counters at
 * debug (PL05100), or at warning when the node budget cut the answer
 * (PL05101).
 * @return APR_SUCCESS with *pworld (for the provider summaries) and
 *         *pres (pl_ac_build's outcome); database errors, with both
 *         NULL.
 */
apr_status_t
pl_store_ac_candidates(pl_db_t *db, apr_pool_t *p, const pl_ac_request_t *req,
                       const pl_ac_opts_t *opts, pl_store_ac_cache_t *cache,
                       pl_ac_world_t **pworld, pl_ac_result_t **pres);

/**
 * A text that names the state of the database's data as a new statement
 * sees it: two reads give the same text only when no commit became
 * visible between them (PostgreSQL: the server's start time and its
 * snapshot, whose transaction ids are never reused). *version is NULL
 * where the database has no such text (SQLite, MySQL/MariaDB).
 * @return APR_SUCCESS; database errors.
 */
apr_status_t pl_store_ac_version(pl_db_t *db, apr_pool_t *p,
                                 const char **version);

#endif /* PL_STORE_AC_H */
