/* Licensed under the Apache License, Version 2.0.
 *
 * pl_store.h: the domain layer below the HTTP handlers (placement's
 * objects/). No httpd headers: functions take a pl_db_t and pools, and
 * return apr_status_t with results in out-parameters. Each store_<family>.c
 * declares its functions in include/pl_store_<family>.h; this header holds
 * what they share.
 */
#ifndef PL_STORE_H
#define PL_STORE_H

#include <apr_pools.h>
#include "pl_db.h"

/** The first id of custom resource classes (CUSTOM_*). */
#define PL_CUSTOM_RC_MIN_ID 10000

/**
 * Compare-and-swap the generation of row id of table (a literal:
 * "resource_providers" or "consumers"): *pgen must still be the stored
 * generation; on success both are incremented and updated_at is set.
 * (store_provider_base.c)
 * @return APR_SUCCESS; PL_ECONFLICT when someone else changed it first.
 */
apr_status_t pl_store_bump_generation(pl_db_t *db, const char *table,
                                      apr_int64_t id, apr_int64_t *pgen);

/**
 * pl_store_bump_generation for n rows of table at once, in one statement
 * (up to PL_DB_LIST_MAX of them; chunks above): ids[i] (distinct) at
 * *gens[i], each incremented on success.
 * @return APR_SUCCESS; PL_ECONFLICT when any of them moved (nothing is
 *         incremented then; the caller rolls the transaction back).
 */
apr_status_t pl_store_bump_generations(pl_db_t *db, apr_pool_t *p,
                                       const char *table, int n,
                                       const apr_int64_t *ids,
                                       apr_int64_t *const *gens);

#endif /* PL_STORE_H */
