/* Licensed under the Apache License, Version 2.0.
 *
 * pl_api_allocation.h: what api_allocation.c shares with api_reshaper.c:
 * reading a POST-style allocations document into the store's write
 * (pl_store_allocation_write does the rest: consumers, providers, the
 * write itself, in one transaction), and the answers to the failures
 * both routes give alike.
 */
#ifndef PL_API_ALLOCATION_H
#define PL_API_ALLOCATION_H

#include "pl_req.h"
#include "pl_store_allocation.h"

/** An empty write for this request (retries from the configuration). */
void pl_api_alloc_init(pl_req_t *req, pl_alloc_write_t *w);

/**
 * Add to w the consumers and items of a POST-style document (consumer
 * uuid -> {allocations, project_id, user_id[, consumer_generation]
 * [, consumer_type]}), already valid against its schema.
 */
void pl_api_alloc_parse(pl_req_t *req, json_object *doc, pl_alloc_write_t *w);

/** The answer to a failure both routes answer alike (a consumer
 *  generation conflict, an unknown provider, capacity), or 0 for any
 *  other. */
int pl_api_alloc_common_error(pl_req_t *req, apr_status_t rv,
                              const pl_alloc_write_t *w);

/** Log the retries of a write (debug) and count them. */
void pl_api_alloc_log(pl_req_t *req, const pl_alloc_write_t *w);

#endif /* PL_API_ALLOCATION_H */
