/* Licensed under the Apache License, Version 2.0.
 *
 * pl_store_ac.h: the database side of allocation candidates (store_ac.c):
 * the world a candidate request can touch, read in two statements, for
 * the pure engine of pl_ac.h, which knows nothing of the database.
 */
#ifndef PL_STORE_AC_H
#define PL_STORE_AC_H

#include "pl_ac.h"
#include "pl_store.h"

/**
 * Read the world req can touch. max_trees > 0: at most that many of the
 * candidate trees, those of the lowest root ids (the engine's order),
 * when no sharing provider can join trees; w->truncated then tells
 * whether more were left.
 * @return APR_SUCCESS and *pworld; database errors.
 */
apr_status_t pl_store_ac_world(pl_db_t *db, apr_pool_t *p,
                               const pl_ac_request_t *req, int max_trees,
                               pl_ac_world_t **pworld);

#endif /* PL_STORE_AC_H */
