/* Licensed under the Apache License, Version 2.0.
 *
 * pl_api.h: every route handler, grouped by the api_<family>.c file that
 * defines it (the C counterparts of placement/handlers/<family>.py); the
 * route table that binds them to URLs is pl_router.h's.
 */
#ifndef PL_API_H
#define PL_API_H

#include "pl_req.h"

/* api_root.c */
int pl_api_root_home(pl_req_t *req);

/* api_resource_provider.c */
int pl_api_rp_list(pl_req_t *req);
int pl_api_rp_create(pl_req_t *req);
int pl_api_rp_get(pl_req_t *req);
int pl_api_rp_update(pl_req_t *req);
int pl_api_rp_delete(pl_req_t *req);
struct pl_provider_t;
/**
 * The provider of the path (req->params[0]) into *pprov. On failure the
 * error is recorded and its status returned: a 404 worded by fmt, which
 * may use the uuid up to twice (NULL: handler.py's default "No resource
 * provider with uuid %s found"), or a 500. Returns 0 when found, and
 * then req->db is the request's database (acquired on the way): a
 * handler that starts here uses it without asking pl_req_db again.
 */
int pl_api_rp_of_path(pl_req_t *req, const char *fmt,
                      struct pl_provider_t **pprov);

/* api_inventory.c */
int pl_api_inventory_list(pl_req_t *req);
int pl_api_inventory_create(pl_req_t *req);
int pl_api_inventory_set_all(pl_req_t *req);
int pl_api_inventory_delete_all(pl_req_t *req);
int pl_api_inventory_get(pl_req_t *req);
int pl_api_inventory_update(pl_req_t *req);
int pl_api_inventory_delete(pl_req_t *req);

/* api_usage.c */
int pl_api_usage_provider(pl_req_t *req);
int pl_api_usage_totals(pl_req_t *req);

/* api_aggregate.c */
int pl_api_aggregate_list(pl_req_t *req);
int pl_api_aggregate_set(pl_req_t *req);

/* api_allocation.c */
int pl_api_allocation_provider_list(pl_req_t *req);
int pl_api_allocation_post(pl_req_t *req);
int pl_api_allocation_consumer_get(pl_req_t *req);
int pl_api_allocation_consumer_put(pl_req_t *req);
int pl_api_allocation_consumer_delete(pl_req_t *req);

/* api_allocation_candidate.c */
int pl_api_ac_list(pl_req_t *req);

/* api_trait.c */
int pl_api_trait_list(pl_req_t *req);
int pl_api_trait_get(pl_req_t *req);
int pl_api_trait_put(pl_req_t *req);
int pl_api_trait_delete(pl_req_t *req);
int pl_api_trait_provider_list(pl_req_t *req);
int pl_api_trait_provider_set(pl_req_t *req);
int pl_api_trait_provider_delete(pl_req_t *req);

/* api_resource_class.c */
int pl_api_rc_list(pl_req_t *req);
int pl_api_rc_create(pl_req_t *req);
int pl_api_rc_get(pl_req_t *req);
int pl_api_rc_update(pl_req_t *req);
int pl_api_rc_delete(pl_req_t *req);

/* api_reshaper.c */
int pl_api_reshaper_post(pl_req_t *req);

#endif /* PL_API_H */
