/* Licensed under the Apache License, Version 2.0.
 *
 * pl_router.h: the route table (placement's ROUTE_DECLARATIONS) as the
 * pipeline sees it: pl_handler.c matches a request against it and runs
 * the checks each row names; the metrics count per route (their labels
 * made from it in post_config, mod_placement.c).
 */
#ifndef PL_ROUTER_H
#define PL_ROUTER_H

#include "pl_req.h"

/** The route takes a JSON body: upstream's require_content
 *  ('application/json'), checked before the policy rule (415). */
#define PL_ROUTE_JSON 0x01
/** The route answers whatever the client accepts (the root: upstream
 *  checks Accept on every other GET, 406). */
#define PL_ROUTE_ANY_ACCEPT 0x02

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
    /* The largest body the route takes (PL_BODY_* of pl_req.h): what its
     * largest real request needs; PlacementMaxBodySize replaces it. */
    apr_size_t max_body;
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

#endif /* PL_ROUTER_H */
