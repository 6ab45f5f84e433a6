/* Licensed under the Apache License, Version 2.0.
 *
 * pl_api_allocation.h: what api_allocation.c shares with api_reshaper.c:
 * the steps that turn a POST-style
 * allocations document into a store write (upstream's
 * inspect_consumers and create_allocation_list).
 */
#ifndef PL_API_ALLOCATION_H
#define PL_API_ALLOCATION_H

#include "pl_req.h"
#include "pl_store_allocation.h"

/**
 * For a POST-style document (consumer uuid -> {allocations, project_id,
 * user_id[, consumer_generation][, consumer_type]}): ensure every consumer
 * (creating projects, users, types and consumers as needed, checking
 * consumer generations from 1.28), then build the items of the write,
 * looking providers up through provs (uuid -> pl_provider_t *, shared
 * with the caller). Fills w->consumers and w->items. Returns 0 or the
 * HTTP error recorded.
 */
int pl_api_alloc_prepare(pl_req_t *req, json_object *doc, apr_hash_t *provs,
                         pl_alloc_write_t *w);

/** Delete the consumers w created, after a failed write. */
void pl_api_alloc_undo(pl_req_t *req, pl_alloc_write_t *w);

/** Log the retries of a write (debug). */
void pl_api_alloc_log(pl_req_t *req, const pl_alloc_write_t *w);

#endif /* PL_API_ALLOCATION_H */
