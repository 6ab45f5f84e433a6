/* Licensed under the Apache License, Version 2.0.
 *
 * pl_store_allocation.h: allocations (placement's objects/allocation.py
 * and reshaper.py): listing by consumer and by provider, the one write
 * path every allocation change goes through (PUT and POST /allocations,
 * POST /reshaper), and deletion of a consumer's allocations.
 *
 * The write is one transaction. It checks capacity per provider and
 * class, bumps the generation of every provider it touches by
 * compare-and-swap and, when another writer got there first, starts the
 * whole transaction again on fresh data (up to 'retries' times); deadlocks
 * and serialization failures are retried the same way.
 */
#ifndef PL_STORE_ALLOCATION_H
#define PL_STORE_ALLOCATION_H

#include <apr_tables.h>
#include "pl_store.h"
#include "pl_store_provider.h"
#include "pl_store_consumer.h"

/** One allocation as listed. */
typedef struct pl_alloc_row_t {
    const char *provider_uuid;
    apr_int64_t provider_generation;
    const char *consumer_uuid;
    apr_int64_t consumer_generation;
    const char *rc;                 /* resource class name */
    apr_int64_t used;
    const char *created_at;
    const char *updated_at;
} pl_alloc_row_t;

/**
 * Allocations of a consumer (pl_alloc_row_t), and the consumer itself
 * in *pc (NULL when it has no allocation).
 */
apr_status_t pl_store_allocation_by_consumer(pl_db_t *db, apr_pool_t *p,
                                             const char *uuid,
                                             apr_array_header_t **prows,
                                             pl_consumer_t **pc);

/** Allocations on provider prov_id (pl_alloc_row_t). */
apr_status_t pl_store_allocation_by_provider(pl_db_t *db, apr_pool_t *p,
                                             apr_int64_t prov_id,
                                             apr_array_header_t **prows);

/** A consumer taking part in a write, with what the request asks of it. */
typedef struct pl_alloc_consumer_t {
    pl_consumer_t *consumer;        /* as read or created before the write */
    apr_int64_t project_id;         /* requested */
    apr_int64_t user_id;
    const char *project_external_id;
    const char *user_external_id;
    apr_int64_t type_id;            /* requested; 0: leave as is */
    int clear;                      /* no allocations given: remove all */
    int created;                    /* created for this request */
} pl_alloc_consumer_t;

/** One requested allocation. */
typedef struct pl_alloc_item_t {
    pl_alloc_consumer_t *ac;
    pl_provider_t *prov;
    const char *rc;
    apr_int64_t used;               /* 0: remove */
} pl_alloc_item_t;

/** One inventory record of a reshape. */
typedef struct pl_alloc_inv_t {
    const char *rc;
    apr_int64_t total, reserved, min_unit, max_unit, step_size;
    double allocation_ratio;
} pl_alloc_inv_t;

/** The new inventories of one provider in a reshape. */
typedef struct pl_alloc_inv_set_t {
    pl_provider_t *prov;
    apr_int64_t generation;         /* what the client gave */
    apr_array_header_t *invs;       /* pl_alloc_inv_t */
} pl_alloc_inv_set_t;

typedef struct pl_alloc_write_t {
    apr_array_header_t *consumers;  /* pl_alloc_consumer_t * */
    apr_array_header_t *items;      /* pl_alloc_item_t */
    apr_array_header_t *inventories; /* pl_alloc_inv_set_t *, or NULL */
    int retries;                    /* attempts on provider conflicts */
    /* out */
    const char *msg;                /* the failure, upstream's text */
    int conflicts;                  /* provider conflicts retried */
    int deadlocks;                  /* deadlocks retried */
} pl_alloc_write_t;

/**
 * Replace the allocations of every consumer of w (and, for a reshape,
 * the inventories of w->inventories), all or nothing.
 * @return APR_SUCCESS;
 *   APR_ENOENT   an unknown resource class (w->msg "No such resource
 *                class X.");
 *   PL_ECAPACITY no inventory, constraints or capacity (w->msg);
 *   PL_EINUSE    a reshape removes inventory still allocated (w->msg);
 *   PL_ECONFLICT a generation changed and retrying cannot help, or the
 *                retries ran out (w->msg);
 *   database errors.
 */
apr_status_t pl_store_allocation_write(pl_db_t *db, apr_pool_t *p,
                                       pl_alloc_write_t *w);

/**
 * Delete every allocation of consumer uuid, and the consumer.
 * @return APR_SUCCESS; APR_ENOENT if it had none; database errors.
 */
apr_status_t pl_store_allocation_delete_consumer(pl_db_t *db, apr_pool_t *p,
                                                 const char *uuid);

#endif /* PL_STORE_ALLOCATION_H */
