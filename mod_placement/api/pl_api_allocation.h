/* Licensed under the Apache License, Version 2.0.
 *
 * pl_api_allocation.h: what api_allocation.c shares with api_reshaper.c:
 * reading a POST-style allocations document into the store's write
 * (pl_store_allocation_write does the rest: consumers, providers, the
 * write itself, in one transaction), and the answer to a failed write
 * in upstream's words (the store gives a status and the arguments).
 */
#ifndef PL_API_ALLOCATION_H
#define PL_API_ALLOCATION_H

#include "pl_req.h"
#include "pl_store_allocation.h"

/** An empty write for this request (retries from the configuration). */
void pl_api_allocation_init(pl_req_t *req, pl_alloc_write_t *w);

/**
 * Add to w the consumers and items of a POST-style document (consumer
 * uuid -> {allocations, project_id, user_id[, consumer_generation]
 * [, consumer_type]}), already valid against its schema.
 */
void pl_api_allocation_parse(pl_req_t *req, json_object *doc,
                             pl_alloc_write_t *w);

/** The routes that write allocations: each words some failures its
 *  own way. */
typedef enum pl_api_allocation_route_e {
    PL_API_ALLOCATION_PUT,     /* PUT /allocations/{consumer_uuid} */
    PL_API_ALLOCATION_POST,    /* POST /allocations */
    PL_API_ALLOCATION_RESHAPER /* POST /reshaper */
} pl_api_allocation_route_e;

/**
 * The answer to a failed pl_store_allocation_write (rv, w->fail) in
 * upstream's words for route: records the error and returns its status
 * (a 500 for a database error).
 */
int pl_api_allocation_error(pl_req_t *req, apr_status_t rv,
                            const pl_alloc_write_t *w,
                            pl_api_allocation_route_e route);

/** Log the retries of a write (debug) and count them. */
void pl_api_allocation_log(pl_req_t *req, const pl_alloc_write_t *w);

#endif /* PL_API_ALLOCATION_H */
