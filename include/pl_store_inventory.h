/* Licensed under the Apache License, Version 2.0.
 *
 * pl_store_inventory.h: the inventories of a resource provider (the
 * inventory parts of placement's objects/resource_provider.py and
 * objects/inventory.py). Every write runs in one transaction that ends
 * with the compare-and-swap of the provider generation, so a write either
 * happens whole, with the generation bumped, or not at all.
 *
 * Resource classes are given by id: callers resolve names first
 * (pl_store_rc_id), which is also where upstream reports an unknown class.
 */
#ifndef PL_STORE_INVENTORY_H
#define PL_STORE_INVENTORY_H

#include <apr_tables.h>
#include "pl_store.h"
#include "pl_store_provider.h"

/** The largest value of an integer column (total, reserved, ...). */
#define PL_INVENTORY_MAX_INT 2147483647

typedef struct pl_inventory_t {
    apr_int64_t rc_id;
    const char *rc_name;
    apr_int64_t total;
    apr_int64_t reserved;
    apr_int64_t min_unit;
    apr_int64_t max_unit;
    apr_int64_t step_size;
    double allocation_ratio;
    const char *created_at; /* SQL text; NULL when not read back */
    const char *updated_at;
} pl_inventory_t;

/**
 * The inventories of provider prov_id, ordered by resource class id.
 * @return APR_SUCCESS and *pinvs (pl_inventory_t *, from p); database
 *         errors.
 */
apr_status_t pl_store_inventory_list(pl_db_t *db, apr_pool_t *p,
                                     apr_int64_t prov_id,
                                     apr_array_header_t **pinvs);

/**
 * The inventory of class rc_name on provider prov_id.
 * @return APR_SUCCESS and *pinv; APR_ENOENT when there is none; database
 *         errors.
 */
apr_status_t pl_store_inventory_get(pl_db_t *db, apr_pool_t *p,
                                    apr_int64_t prov_id, const char *rc_name,
                                    pl_inventory_t **pinv);

/**
 * Add inv (rc_id set) to prov and bump its generation.
 * @return APR_SUCCESS; APR_EEXIST when prov already has inventory of that
 *         class; PL_ECONFLICT when the generation changed; database
 *         errors.
 */
apr_status_t pl_store_inventory_add(pl_db_t *db, apr_pool_t *p,
                                    pl_provider_t *prov,
                                    const pl_inventory_t *inv);

/**
 * Replace the inventory of class inv->rc_id of prov and bump its
 * generation. Usage above the new capacity is allowed (as upstream: it
 * only warns); *pexceeded (may be NULL) says whether that happened.
 * @return APR_SUCCESS; APR_ENOENT when prov has no inventory of that
 *         class; PL_ECONFLICT; database errors.
 */
apr_status_t pl_store_inventory_update(pl_db_t *db, apr_pool_t *p,
                                       pl_provider_t *prov,
                                       const pl_inventory_t *inv,
                                       int *pexceeded);

/**
 * Remove the inventory of class rc_id from prov and bump its generation.
 * @return APR_SUCCESS; APR_ENOENT when there is none; PL_EINUSE when
 *         allocations use it, with *pinuse the class name; PL_ECONFLICT;
 *         database errors.
 */
apr_status_t pl_store_inventory_delete(pl_db_t *db, apr_pool_t *p,
                                       pl_provider_t *prov, apr_int64_t rc_id,
                                       const char **pinuse);

/**
 * Make invs (pl_inventory_t *, rc_id set, classes distinct) the whole
 * inventory of prov: classes not in invs are removed, the others added or
 * replaced; then the generation is bumped (also when nothing changed).
 * *pexceeded (may be NULL) lists the classes (const char *) whose usage is
 * now above capacity.
 * @return APR_SUCCESS; PL_EINUSE when a class to remove has allocations,
 *         with *pinuse their names joined by ", "; APR_EEXIST or
 *         APR_ENOENT when a concurrent writer added or removed a class
 *         meanwhile; PL_ECONFLICT; database errors.
 */
apr_status_t pl_store_inventory_set(pl_db_t *db, apr_pool_t *p,
                                    pl_provider_t *prov,
                                    const apr_array_header_t *invs,
                                    const char **pinuse,
                                    apr_array_header_t **pexceeded);

/**
 * Capacity as upstream computes it, int((total - reserved) * ratio): the
 * product truncated toward zero, kept a double because a ratio up to
 * 3.4e38 takes it far beyond any integer type (callers only compare it).
 */
double pl_store_inventory_capacity(const pl_inventory_t *inv);

#endif /* PL_STORE_INVENTORY_H */
