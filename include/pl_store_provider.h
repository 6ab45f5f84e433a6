/* Licensed under the Apache License, Version 2.0.
 *
 * pl_store_provider.h: resource providers in the database (placement's
 * objects/resource_provider.py): lookup, generation compare-and-swap,
 * and (store_provider.c) create, update, delete and filtered listing.
 */
#ifndef PL_STORE_PROVIDER_H
#define PL_STORE_PROVIDER_H

#include "pl_store.h"

typedef struct pl_provider_t {
    apr_int64_t id;
    const char *uuid;
    const char *name;
    apr_int64_t generation;
    apr_int64_t parent_id;      /* 0: none */
    apr_int64_t root_id;
    const char *parent_uuid;    /* NULL: none */
    const char *root_uuid;
    const char *created_at;     /* SQL text, may be NULL */
    const char *updated_at;
} pl_provider_t;

/** The columns pl_store_provider_from_row reads, in order, for SQL that
 *  selects from "resource_providers rp" joined to its parent "pp" and
 *  root "rr" (LEFT JOIN). */
#define PL_PROVIDER_COLUMNS \
    "rp.id, rp.uuid, rp.name, rp.generation, rp.parent_provider_id, " \
    "rp.root_provider_id, pp.uuid, rr.uuid, rp.created_at, rp.updated_at"
#define PL_PROVIDER_FROM \
    "resource_providers rp " \
    "LEFT JOIN resource_providers pp ON pp.id = rp.parent_provider_id " \
    "LEFT JOIN resource_providers rr ON rr.id = rp.root_provider_id"

/** Fill *prov (allocated from p) from row i of rows selected with
 *  PL_PROVIDER_COLUMNS starting at column col. */
pl_provider_t *pl_store_provider_from_row(apr_pool_t *p,
                                          const pl_rows_t *rows, int i,
                                          int col);

/**
 * The provider with this (canonical) uuid.
 * @return APR_SUCCESS and *pprov; APR_ENOENT; database errors.
 */
apr_status_t pl_store_provider_get(pl_db_t *db, apr_pool_t *p,
                                   const char *uuid, pl_provider_t **pprov);

/**
 * Compare-and-swap the generation of prov: prov->generation must still be
 * the stored one; on success it is incremented (in prov too).
 * @return APR_SUCCESS; PL_ECONFLICT when someone else changed it first.
 */
apr_status_t pl_store_provider_bump(pl_db_t *db, pl_provider_t *prov);

#endif /* PL_STORE_PROVIDER_H */
