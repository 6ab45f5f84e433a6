/* Licensed under the Apache License, Version 2.0.
 *
 * store_aggregate.c: provider aggregates in the database. Rows of
 * placement_aggregates come into being on first use; the uuid is unique,
 * so two writers meeting a new uuid at once cannot both insert it: the
 * loser's transaction is void (PostgreSQL refuses anything after an error)
 * and the whole set starts over, finding the row the winner made.
 */
#include <string.h>
#include <apr_strings.h>

#include "pl_store_aggregate.h"

static int has_uuid(const apr_array_header_t *uuids, const char *uuid)
{
    int i;

    for (i = 0; i < uuids->nelts; i++) {
        if (!strcmp(APR_ARRAY_IDX(uuids, i, const char *), uuid)) {
            return 1;
        }
    }
    return 0;
}

apr_status_t pl_store_aggregate_list(pl_db_t *db, apr_pool_t *p,
                                     apr_int64_t prov_id,
                                     apr_array_header_t **puuids)
{
    pl_rows_t *rows;
    apr_status_t rv;
    int i;

    rv = pl_db_select(db, p, &rows,
                      "SELECT pa.uuid "
                      "FROM placement_aggregates pa "
                      "JOIN resource_provider_aggregates rpa "
                      "ON rpa.aggregate_id = pa.id "
                      "WHERE rpa.resource_provider_id = %s ORDER BY pa.id",
                      PL_ARGS(pl_db_i64(p, prov_id)));
    if (rv != APR_SUCCESS) {
        return rv;
    }
    *puuids = apr_array_make(p, rows->nrows, sizeof(const char *));
    for (i = 0; i < rows->nrows; i++) {
        APR_ARRAY_PUSH(*puuids, const char *) = PL_CELL(rows, i, 0);
    }
    return APR_SUCCESS;
}

/* The id of aggregate uuid, inserting it when it is new. APR_EEXIST when
 * another writer inserted it first (the transaction is then void). */
static apr_status_t ensure_aggregate(pl_db_t *db, apr_pool_t *p,
                                     const char *uuid, const char *now,
                                     const char **pid)
{
    pl_rows_t *rows;
    apr_status_t rv;
    int pass;

    for (pass = 0; pass < 2; pass++) {
        rv = pl_db_select(db, p, &rows,
                          "SELECT id FROM placement_aggregates "
                          "WHERE uuid = %s",
                          PL_ARGS(uuid));
        if (rv != APR_SUCCESS) {
            return rv;
        }
        if (rows->nrows > 0) {
            *pid = PL_CELL(rows, 0, 0);
            return APR_SUCCESS;
        }
        if (pass == 0) {
            rv = pl_db_exec(db, NULL,
                            "INSERT INTO placement_aggregates "
                            "(uuid, created_at) VALUES (%s, %s)",
                            PL_ARGS(uuid, now));
            if (rv != APR_SUCCESS) {
                return rv;
            }
        }
    }
    return APR_ENOENT;
}

/* One attempt, inside its transaction. */
static apr_status_t set_once(pl_db_t *db, apr_pool_t *p, pl_provider_t *prov,
                             const apr_array_header_t *uuids, int bump)
{
    const char *prov_id = pl_db_i64(p, prov->id);
    const char *now = pl_db_now(p);
    apr_array_header_t *seen = apr_array_make(p, 4, sizeof(const char *));
    pl_rows_t *rows;
    apr_status_t rv;
    int i;

    rv = pl_db_select(db, p, &rows,
                      "SELECT pa.id, pa.uuid "
                      "FROM placement_aggregates pa "
                      "JOIN resource_provider_aggregates rpa "
                      "ON rpa.aggregate_id = pa.id "
                      "WHERE rpa.resource_provider_id = %s",
                      PL_ARGS(prov_id));
    if (rv != APR_SUCCESS) {
        return rv;
    }
    for (i = 0; i < rows->nrows && rv == APR_SUCCESS; i++) {
        APR_ARRAY_PUSH(seen, const char *) = PL_CELL(rows, i, 1);
        if (!has_uuid(uuids, PL_CELL(rows, i, 1))) {
            rv = pl_db_exec(db, NULL,
                            "DELETE FROM "
                            "resource_provider_aggregates "
                            "WHERE resource_provider_id = %s "
                            "AND aggregate_id = %s",
                            PL_ARGS(prov_id, PL_CELL(rows, i, 0)));
        }
    }
    for (i = 0; i < uuids->nelts && rv == APR_SUCCESS; i++) {
        const char *uuid = APR_ARRAY_IDX(uuids, i, const char *);
        const char *agg_id;

        if (has_uuid(seen, uuid)) {
            continue;
        }
        APR_ARRAY_PUSH(seen, const char *) = uuid;
        rv = ensure_aggregate(db, p, uuid, now, &agg_id);
        if (rv == APR_SUCCESS) {
            rv = pl_db_exec(db, NULL,
                            "INSERT INTO "
                            "resource_provider_aggregates "
                            "(resource_provider_id, aggregate_id, "
                            "created_at) VALUES (%s, %s, %s)",
                            PL_ARGS(prov_id, agg_id, now));
        }
    }
    if (rv == APR_SUCCESS && bump) {
        rv = pl_store_provider_bump(db, prov);
    }
    return rv;
}

typedef struct set_args_t {
    pl_provider_t *prov;
    const apr_array_header_t *uuids;
    int bump;
    apr_int64_t generation; /* prov's, before the first try */
} set_args_t;

/* A pl_db_txn_fn: a lost race to create an aggregate (another writer
 * committed the same uuid first) runs the transaction again. */
static apr_status_t set_txn(pl_db_t *db, apr_pool_t *p, void *baton)
{
    set_args_t *a = baton;
    apr_status_t rv;

    a->prov->generation = a->generation;
    rv = set_once(db, p, a->prov, a->uuids, a->bump);
    return rv == APR_EEXIST ? PL_DB_ERETRY : rv;
}

apr_status_t pl_store_aggregate_set(pl_db_t *db, apr_pool_t *p,
                                    pl_provider_t *prov,
                                    const apr_array_header_t *uuids, int bump)
{
    set_args_t a;
    apr_status_t rv;

    a.prov = prov;
    a.uuids = uuids;
    a.bump = bump;
    a.generation = prov->generation;
    rv = pl_db_run_txn(db, p, set_txn, &a, PL_AGGREGATE_SET_RETRIES + 1, NULL);
    if (rv != APR_SUCCESS) {
        prov->generation = a.generation;
    }
    return rv == PL_DB_ERETRY ? APR_EEXIST : rv;
}
