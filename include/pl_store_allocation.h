/* Licensed under the Apache License, Version 2.0.
 *
 * pl_store_allocation.h: allocations (placement's objects/allocation.py
 * and reshaper.py): listing by consumer and by provider, the one write
 * path every allocation change goes through (PUT and POST /allocations,
 * POST /reshaper), and deletion of a consumer's allocations.
 *
 * The write is one transaction that owns everything the request
 * changes, consumers included. It checks capacity per provider and
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
#include "pl_store_inventory.h"

/** One allocation as listed. */
typedef struct pl_alloc_row_t {
    const char *provider_uuid;
    apr_int64_t provider_generation;
    const char *consumer_uuid;
    apr_int64_t consumer_generation;
    const char *rc; /* resource class name */
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

/** Allocations on the provider of this uuid (pl_alloc_row_t), and its
 *  generation. @return APR_SUCCESS; APR_ENOENT: no such provider;
 *  database errors. */
apr_status_t pl_store_allocation_by_provider(pl_db_t *db, apr_pool_t *p,
                                             const char *uuid,
                                             apr_int64_t *pgeneration,
                                             apr_array_header_t **prows);

/** A consumer taking part in a write: what the request asks of it, and
 *  what the write found or made of it. */
typedef struct pl_alloc_consumer_t {
    const char *uuid;
    const char *project_external_id;
    const char *user_external_id;
    const char *type_name; /* NULL: leave the type as it is */
    int check_generation;  /* 1.28+: generation must match */
    int has_generation;    /* an integer was given, not null */
    apr_int64_t generation;
    int clear; /* no allocations given: remove all */
    /* set by the write (its last attempt) */
    pl_consumer_t *consumer;
    apr_int64_t project_id;
    apr_int64_t user_id;
    apr_int64_t type_id; /* 0: leave as is */
    int created;         /* created by this write */
} pl_alloc_consumer_t;

/** One requested allocation. */
typedef struct pl_alloc_item_t {
    pl_alloc_consumer_t *ac;
    const char *provider_uuid;
    const char *rc;
    apr_int64_t used; /* 0: remove */
} pl_alloc_item_t;

/** The new inventories of one provider in a reshape. */
typedef struct pl_alloc_inv_set_t {
    const char *provider_uuid;
    apr_int64_t generation;   /* what the client gave */
    pl_provider_t *prov;      /* set by the write */
    apr_array_header_t *invs; /* pl_inventory_t *, rc_name set */
} pl_alloc_inv_set_t;

/** Which failure it was, where one status stands for several (the api
 *  layer words each its own way). */
typedef enum pl_alloc_why_e {
    PL_ALLOC_NO_REASON = 0,
    /* PL_ECAPACITY */
    PL_ALLOC_NO_INVENTORY,  /* providers without inventory of any class
                               asked: fail.providers, fail.classes */
    PL_ALLOC_BAD_AMOUNT,    /* min_unit, max_unit or step_size refuse the
                               amount: fail.rc, fail.provider */
    PL_ALLOC_OVER_CAPACITY, /* fail.rc, fail.provider */
    /* PL_ECONFLICT */
    PL_ALLOC_PROVIDER_MOVED, /* a provider's generation moved on */
    PL_ALLOC_CONSUMER_MOVED  /* a consumer's generation moved on */
} pl_alloc_why_e;

/** What a failed write found: the arguments of its message, which the
 *  api layer writes (each status below says which fields it sets). */
typedef struct pl_alloc_failure_t {
    pl_alloc_why_e why;
    const char *provider;          /* a provider's uuid */
    const char *rc;                /* a resource class name */
    apr_array_header_t *providers; /* PL_ALLOC_NO_INVENTORY: uuids */
    apr_array_header_t *classes;   /* PL_ALLOC_NO_INVENTORY: class names,
                                      in class id order */
    int has_current;     /* a generation was found (the consumer exists) */
    apr_int64_t current; /* the generation found */
    int has_given;       /* the request gave one (not JSON null) */
    apr_int64_t given;   /* the generation the request gave */
} pl_alloc_failure_t;

typedef struct pl_alloc_write_t {
    apr_array_header_t *consumers;   /* pl_alloc_consumer_t * */
    apr_array_header_t *items;       /* pl_alloc_item_t */
    apr_array_header_t *inventories; /* pl_alloc_inv_set_t *, or NULL */
    int retries;                     /* attempts on provider conflicts */
    /* out */
    pl_alloc_failure_t fail; /* why it failed, and with what */
    int conflicts;           /* provider conflicts retried */
    int deadlocks;           /* deadlocks retried */
} pl_alloc_write_t;

/** A consumer generation did not match what the request gave
 *  (fail.current if the consumer exists, fail.given if one was given):
 *  409. */
#define PL_ALLOC_ECONSUMER (PL_ESTART + 110)
/** An allocation names a provider that does not exist (fail.provider):
 *  400. */
#define PL_ALLOC_ENOPROVIDER (PL_ESTART + 111)
/** A reshape gives inventories of a provider that does not exist
 *  (fail.provider): 400. */
#define PL_ALLOC_ENOINVPROVIDER (PL_ESTART + 112)
/** A reshape gives a provider generation that is not the current one
 *  (fail.provider, fail.current, fail.given): 409. */
#define PL_ALLOC_EPROVGEN (PL_ESTART + 113)

/**
 * The one write of allocations (PUT and POST /allocations, POST
 * /reshaper), all of it in one transaction: every consumer is made to
 * exist (its project, user and type too) and its generation checked as
 * upstream's ensure_consumer does (after the reshaper's providers are
 * read and their generations checked), the providers are looked up, the
 * reshaper's inventories replaced, the allocations of every consumer
 * replaced, capacity checked, generations bumped, consumers left without
 * allocations deleted. Whatever fails, nothing is written: no consumer
 * made for the request stays behind. Provider generation conflicts and
 * deadlocks run the whole transaction again (pl_db_run_txn).
 * On failure w->fail says what was found (its fields per status below).
 * @return APR_SUCCESS;
 *   PL_ALLOC_ECONSUMER, PL_ALLOC_ENOPROVIDER, PL_ALLOC_ENOINVPROVIDER,
 *   PL_ALLOC_EPROVGEN (above);
 *   APR_ENOENT   an unknown resource class (fail.rc);
 *   PL_ECAPACITY no inventory, constraints or capacity (fail.why:
 *                PL_ALLOC_NO_INVENTORY, _BAD_AMOUNT, _OVER_CAPACITY);
 *   PL_EINUSE    a reshape removes inventory still allocated (fail.rc,
 *                fail.provider);
 *   PL_ECONFLICT a generation changed and retrying cannot help, or the
 *                retries ran out (fail.why: PL_ALLOC_PROVIDER_MOVED or
 *                PL_ALLOC_CONSUMER_MOVED);
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
