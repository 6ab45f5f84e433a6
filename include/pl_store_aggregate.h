/* Licensed under the Apache License, Version 2.0.
 *
 * pl_store_aggregate.h: the aggregates a resource provider belongs to
 * (placement's placement_aggregates and resource_provider_aggregates
 * tables, handled in objects/resource_provider.py). Aggregates are bare
 * uuids: a row in placement_aggregates is made the first time a uuid is
 * used and never removed.
 */
#ifndef PL_STORE_AGGREGATE_H
#define PL_STORE_AGGREGATE_H

#include <apr_tables.h>
#include "pl_store.h"
#include "pl_store_provider.h"

/** How many times pl_store_aggregate_set starts over when a concurrent
 *  writer created the same aggregate first (upstream: 10). */
#define PL_AGGREGATE_SET_RETRIES 10

/**
 * The uuids (const char *, as stored) of the aggregates of provider
 * prov_id, ordered by aggregate id.
 * @return APR_SUCCESS and *puuids (from p); database errors.
 */
apr_status_t pl_store_aggregate_list(pl_db_t *db, apr_pool_t *p,
                                     apr_int64_t prov_id,
                                     apr_array_header_t **puuids);

/**
 * Make uuids (const char *, stored as given; one sent twice counts
 * once) the aggregates of prov, creating the aggregates never seen
 * before; with bump, also bump the generation of prov (1.19+). One
 * transaction, in time linear in the uuids (statements of up to
 * PL_DB_LIST_MAX of them); an aggregate or association a concurrent
 * writer made first is taken as it is.
 * @return APR_SUCCESS; PL_ECONFLICT (bump only); APR_EEXIST when the
 *         retries ran out; database errors.
 */
apr_status_t pl_store_aggregate_set(pl_db_t *db, apr_pool_t *p,
                                    pl_provider_t *prov,
                                    const apr_array_header_t *uuids, int bump);

#endif /* PL_STORE_AGGREGATE_H */
