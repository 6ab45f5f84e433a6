/* Licensed under the Apache License, Version 2.0.
 *
 * pl_store_provider.h: resource providers in the database (placement's
 * objects/resource_provider.py): lookup, generation compare-and-swap,
 * and (store_provider.c) create, update, delete and filtered listing.
 */
#ifndef PL_STORE_PROVIDER_H
#define PL_STORE_PROVIDER_H

#include <apr_tables.h>

#include "pl_store.h"
#include "pl_qs.h"

typedef struct pl_provider_t {
    apr_int64_t id;
    const char *uuid;
    const char *name;
    apr_int64_t generation;
    apr_int64_t parent_id; /* 0: none */
    apr_int64_t root_id;
    const char *parent_uuid; /* NULL: none */
    const char *root_uuid;
    const char *created_at; /* SQL text, may be NULL */
    const char *updated_at;
} pl_provider_t;

/** The columns pl_store_provider_from_row reads, in order, for SQL that
 *  selects from "resource_providers rp" joined to its parent "pp" and
 *  root "rr" (LEFT JOIN). */
#define PL_PROVIDER_COLUMNS                                           \
    "rp.id, rp.uuid, rp.name, rp.generation, rp.parent_provider_id, " \
    "rp.root_provider_id, pp.uuid, rr.uuid, rp.created_at, rp.updated_at"
#define PL_PROVIDER_FROM                                                \
    "resource_providers rp "                                            \
    "LEFT JOIN resource_providers pp ON pp.id = rp.parent_provider_id " \
    "LEFT JOIN resource_providers rr ON rr.id = rp.root_provider_id"

/** Fill *prov (allocated from p) from row i of rows selected with
 *  PL_PROVIDER_COLUMNS starting at column col. */
pl_provider_t *pl_store_provider_from_row(apr_pool_t *p, const pl_rows_t *rows,
                                          int i, int col);

/**
 * The provider with this (canonical) uuid.
 * @return APR_SUCCESS and *pprov; APR_ENOENT; database errors.
 */
apr_status_t pl_store_provider_get(pl_db_t *db, apr_pool_t *p, const char *uuid,
                                   pl_provider_t **pprov);

/**
 * Compare-and-swap the generation of prov: prov->generation must still be
 * the stored one; on success it is incremented (in prov too).
 * @return APR_SUCCESS; PL_ECONFLICT when someone else changed it first.
 */
apr_status_t pl_store_provider_bump(pl_db_t *db, pl_provider_t *prov);

/* ------------------------------------------------------------------ */
/* store_provider.c: the provider family itself                        */
/* ------------------------------------------------------------------ */

/** A provider that still has child providers cannot be deleted: 409
 *  placement.resource_provider.cannot_delete_parent. */
#define PL_EPARENT (PL_ESTART + 200)

/**
 * What GET /resource_providers filters on (placement's get_all_by_filters).
 * Every member is optional (NULL: no constraint); all given constraints
 * must hold at once.
 */
typedef struct pl_provider_filter_t {
    const char *name;                   /**< exact name; "" is no filter */
    const char *uuid;                   /**< exact uuid, compared as given */
    const char *in_tree;                /**< uuid of any provider of the tree */
    const pl_qs_member_of_t *member_of; /**< aggregates (1.3+) */
    const pl_qs_traits_t *traits;       /**< required= (1.18+) */
    /** pl_qs_resource_t: capacity left for each (1.4+) */
    const apr_array_header_t *resources;
} pl_provider_filter_t;

/** The name a filter used that the database does not know (APR_ENOENT
 *  of pl_store_provider_list); exactly one member is set. */
typedef struct pl_provider_unknown_t {
    const char *trait;
    const char *resource_class;
} pl_provider_unknown_t;

/**
 * The providers f selects, ordered by id, into *pprovs (pl_provider_t *).
 * Conditions are resolved as placement does and in its order (in_tree,
 * required traits, forbidden traits, member_of, forbidden aggregates,
 * resources), stopping early when one alone matches no provider.
 * @return APR_SUCCESS; APR_ENOENT with *punknown for an unknown trait or
 *         resource class; database errors.
 */
apr_status_t pl_store_provider_list(pl_db_t *db, apr_pool_t *p,
                                    const pl_provider_filter_t *f,
                                    apr_array_header_t **pprovs,
                                    pl_provider_unknown_t *punknown);

/**
 * Create a provider (uuid canonical) under parent_uuid (NULL: a new root;
 * compared as given), with generation 0, and read it back into *pprov.
 * @return APR_SUCCESS; APR_ENOENT when the parent does not exist;
 *         APR_EEXIST with *pdup "uuid" or "name" (the column already
 *         taken); database errors.
 */
apr_status_t pl_store_provider_create(pl_db_t *db, apr_pool_t *p,
                                      const char *name, const char *uuid,
                                      const char *parent_uuid,
                                      pl_provider_t **pprov, const char **pdup);

/** Why pl_store_provider_update refused a new parent (APR_EINVAL). */
typedef enum {
    PL_PROVIDER_PARENT_MISSING, /**< no provider has that uuid */
    PL_PROVIDER_REPARENT,       /**< another parent, before 1.37 */
    PL_PROVIDER_UNPARENT,       /**< parent to none, before 1.37 */
    PL_PROVIDER_LOOP            /**< parent inside its own subtree */
} pl_provider_refusal_e;

/**
 * Rename prov and set its parent to parent_uuid (NULL: none; compared as
 * given). Its generation does not change (as upstream). When the root
 * changes, the whole subtree moves to the new root. prov is updated.
 * allow_reparent (1.37+): a parent may change or be removed; otherwise a
 * parent may only be set on a provider that has none.
 * @return APR_SUCCESS; APR_EINVAL with *prefusal; APR_EEXIST when the
 *         name is taken; database errors.
 */
apr_status_t pl_store_provider_update(pl_db_t *db, apr_pool_t *p,
                                      pl_provider_t *prov, const char *name,
                                      const char *parent_uuid,
                                      int allow_reparent,
                                      pl_provider_refusal_e *prefusal);

/**
 * Delete prov with its inventories and its trait and aggregate
 * associations.
 * @return APR_SUCCESS; APR_ENOENT when it is already gone; PL_EPARENT
 *         when it has children; PL_EINUSE when it has allocations;
 *         database errors.
 */
apr_status_t pl_store_provider_delete(pl_db_t *db, apr_pool_t *p,
                                      const pl_provider_t *prov);

#endif /* PL_STORE_PROVIDER_H */
