/* Licensed under the Apache License, Version 2.0.
 *
 * pl_api.h: every route handler, grouped by the api_<family>.c file that
 * defines it (the C counterparts of placement/handlers/<family>.py), and
 * the route table that binds them to URLs.
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
 * provider with uuid %s found"), or a 500. Returns 0 when found.
 */
int pl_api_provider_of_path(pl_req_t *req, const char *fmt,
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

/* pl_router.c */
/** The route takes a JSON body: upstream's require_content
 *  ('application/json'), checked before the policy rule (415). */
#define PL_ROUTE_JSON 0x01

typedef struct pl_route_t {
    const char *method;
    const char *path; /* template; {x} matches one segment */
    pl_handler_fn handler;
    int since; /* microversion the route appears in */
    /* Checked by pl_handler.c before the handler, in upstream's order:
     * the route's microversion, the content type (flags), then the
     * policy rule for the caller's own project and user. NULL: the
     * handler checks its rule itself (one with a target, or one that
     * comes after a check of the microversion). */
    const char *rule;
    int flags; /* PL_ROUTE_* */
} pl_route_t;

/**
 * Find the handler for method and path. Returns 0 and *proute (path
 * parameters in req->params), or HTTP_NOT_FOUND, or HTTP_METHOD_NOT_ALLOWED
 * with *pallow = the methods the path has ("GET, POST").
 */
int pl_router_match(pl_req_t *req, const char *method,
                    const pl_route_t **proute, const char **pallow);

/** How many routes there are; route i (NULL past the end); the index
 *  of a route (for per-route metrics). */
int pl_router_count(void);
const pl_route_t *pl_router_route(int i);
int pl_router_index(const pl_route_t *route);

/* pl_policy.c */
/**
 * Enforce policy rule (e.g. "placement:resource_providers:list") for the
 * caller; target_project may be NULL (the caller's own). Returns 0 when
 * allowed, else records the 403 and returns it.
 */
int pl_policy_check(pl_req_t *req, const char *rule,
                    const char *target_project);
/**
 * post_config: compile the rule defaults and refuse configurations whose
 * rules refer to each other in a loop. Returns OK or an HTTP error (the
 * reason logged).
 */
int pl_policy_post_config(apr_pool_t *pconf, apr_pool_t *ptemp, server_rec *s);

#endif /* PL_API_H */
