/* Licensed under the Apache License, Version 2.0.
 *
 * pl_store_rc.h: resource classes (placement's objects/resource_class.py).
 * Standard classes have fixed ids (their index in os-resource-classes);
 * custom ones (CUSTOM_*) start at PL_CUSTOM_RC_MIN_ID. Nothing is cached:
 * every call reads the database, so any number of processes may share it.
 */
#ifndef PL_STORE_RC_H
#define PL_STORE_RC_H

#include <apr_tables.h>
#include "pl_store.h"

typedef struct pl_rc_t {
    apr_int64_t id;
    const char *name;
    const char *created_at; /* SQL text, may be NULL */
    const char *updated_at;
} pl_rc_t;

/**
 * The id of the resource class called name.
 * @return APR_SUCCESS and *pid; APR_ENOENT; database errors.
 */
apr_status_t pl_store_rc_id(pl_db_t *db, apr_pool_t *p, const char *name,
                            apr_int64_t *pid);

/**
 * Every resource class, by id (standard ones first).
 * @return APR_SUCCESS and *prcs (pl_rc_t *); database errors.
 */
apr_status_t pl_store_rc_list(pl_db_t *db, apr_pool_t *p,
                              apr_array_header_t **prcs);

/**
 * The resource class called name.
 * @return APR_SUCCESS and *prc; APR_ENOENT; database errors.
 */
apr_status_t pl_store_rc_get(pl_db_t *db, apr_pool_t *p, const char *name,
                             pl_rc_t **prc);

/**
 * Create the custom class name (the caller has checked the CUSTOM_ form)
 * with the next free custom id. Concurrent creators may pick the same id:
 * the loser retries with a fresh one, a few times.
 * @return APR_SUCCESS and *prc; APR_EEXIST when the name is taken;
 *         PL_ECONFLICT when every retry lost the race for an id;
 *         database errors.
 */
apr_status_t pl_store_rc_create(pl_db_t *db, apr_pool_t *p, const char *name,
                                pl_rc_t **prc);

/**
 * Rename the custom class rc to name (1.2 - 1.6); rc is updated.
 * @return APR_SUCCESS; APR_EINVAL when rc is a standard class;
 *         APR_EEXIST when name is taken; database errors.
 */
apr_status_t pl_store_rc_rename(pl_db_t *db, apr_pool_t *p, pl_rc_t *rc,
                                const char *name);

/**
 * Delete the custom class rc.
 * @return APR_SUCCESS; APR_EINVAL when rc is a standard class;
 *         PL_EINUSE when an inventory or allocation uses it; APR_ENOENT
 *         if it vanished; database errors.
 */
apr_status_t pl_store_rc_delete(pl_db_t *db, apr_pool_t *ptemp,
                                const pl_rc_t *rc);

#endif /* PL_STORE_RC_H */
