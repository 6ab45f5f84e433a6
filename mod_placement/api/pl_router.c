/* Licensed under the Apache License, Version 2.0.
 *
 * pl_router.c: the route table of the Placement API (placement's
 * ROUTE_DECLARATIONS) and the matching of a path against it. Templates
 * take one path segment per {param}; parameters are validated by the
 * handlers, which know the right 404/400 text. A route also names the
 * checks pl_handler.c makes before its handler: a JSON body's content
 * type and the policy rule (placement's context.can() of each handler).
 */
#include <string.h>
#include <apr_strings.h>
#include <http_protocol.h>

#include "pl_private.h"
#include "pl_api.h"
#include "pl_router.h"

/* Shorthands for the table: the policy rules are placement's
 * (placement/policies/), as oslo.policy names them. */
#define RP "placement:resource_providers:"
#define JSON PL_ROUTE_JSON

static const pl_route_t routes[] = {
    // clang-format off
    /* method    path template                                 handler
     * since          policy rule (NULL: the handler checks) flags                largest body */
    { "GET",    "/",                                           pl_api_root_home,
       0,            NULL,                                   PL_ROUTE_ANY_ACCEPT, PL_BODY_NONE },
    { "GET",    "/resource_classes",                           pl_api_rc_list,
       PL_MV(1, 2),  "placement:resource_classes:list",      0,                   PL_BODY_NONE },
    { "POST",   "/resource_classes",                           pl_api_rc_create,
       PL_MV(1, 2),  "placement:resource_classes:create",    JSON,                PL_BODY_SMALL },
    { "GET",    "/resource_classes/{name}",                    pl_api_rc_get,
       PL_MV(1, 2),  "placement:resource_classes:show",      0,                   PL_BODY_NONE },
    /* 1.2-1.6 takes a body (checked first), 1.7+ none: the handler */
    { "PUT",    "/resource_classes/{name}",                    pl_api_rc_update,
       PL_MV(1, 2),  NULL,                                   0,                   PL_BODY_SMALL },
    { "DELETE", "/resource_classes/{name}",                    pl_api_rc_delete,
       PL_MV(1, 2),  "placement:resource_classes:delete",    0,                   PL_BODY_NONE },
    { "GET",    "/resource_providers",                         pl_api_rp_list,
       0,            RP "list",                              0,                   PL_BODY_NONE },
    { "POST",   "/resource_providers",                         pl_api_rp_create,
       0,            RP "create",                            JSON,                PL_BODY_SMALL },
    { "GET",    "/resource_providers/{uuid}",                  pl_api_rp_get,
       0,            RP "show",                              0,                   PL_BODY_NONE },
    { "DELETE", "/resource_providers/{uuid}",                  pl_api_rp_delete,
       0,            RP "delete",                            0,                   PL_BODY_NONE },
    { "PUT",    "/resource_providers/{uuid}",                  pl_api_rp_update,
       0,            RP "update",                            JSON,                PL_BODY_SMALL },
    { "GET",    "/resource_providers/{uuid}/inventories",      pl_api_inventory_list,
       0,            RP "inventories:list",                  0,                   PL_BODY_NONE },
    { "POST",   "/resource_providers/{uuid}/inventories",      pl_api_inventory_create,
       0,            RP "inventories:create",                JSON,                PL_BODY_SMALL },
    { "PUT",    "/resource_providers/{uuid}/inventories",      pl_api_inventory_set_all,
       0,            RP "inventories:update",                JSON,                PL_BODY_MEDIUM },
    /* 405 before 1.5, then the rule: the handler */
    { "DELETE", "/resource_providers/{uuid}/inventories",      pl_api_inventory_delete_all,
       0,            NULL,                                   0,                   PL_BODY_NONE },
    { "GET",    "/resource_providers/{uuid}/inventories/{rc}", pl_api_inventory_get,
       0,            RP "inventories:show",                  0,                   PL_BODY_NONE },
    { "PUT",    "/resource_providers/{uuid}/inventories/{rc}", pl_api_inventory_update,
       0,            RP "inventories:update",                JSON,                PL_BODY_SMALL },
    { "DELETE", "/resource_providers/{uuid}/inventories/{rc}", pl_api_inventory_delete,
       0,            RP "inventories:delete",                0,                   PL_BODY_NONE },
    { "GET",    "/resource_providers/{uuid}/usages",           pl_api_usage_provider,
       0,            RP "usages",                            0,                   PL_BODY_NONE },
    { "GET",    "/resource_providers/{uuid}/aggregates",       pl_api_aggregate_list,
       PL_MV(1, 1),  RP "aggregates:list",                   0,                   PL_BODY_NONE },
    { "PUT",    "/resource_providers/{uuid}/aggregates",       pl_api_aggregate_set,
       PL_MV(1, 1),  RP "aggregates:update",                 JSON,                PL_BODY_LARGE },
    { "GET",    "/resource_providers/{uuid}/allocations",      pl_api_allocation_provider_list,
       0,            RP "allocations:list",                  0,                   PL_BODY_NONE },
    { "POST",   "/allocations",                                pl_api_allocation_post,
       PL_MV(1, 13), "placement:allocations:manage",         JSON,                PL_BODY_LARGE },
    { "GET",    "/allocations/{uuid}",                         pl_api_allocation_consumer_get,
       0,            "placement:allocations:list",           0,                   PL_BODY_NONE },
    { "PUT",    "/allocations/{uuid}",                         pl_api_allocation_consumer_put,
       0,            "placement:allocations:update",         JSON,                PL_BODY_MEDIUM },
    { "DELETE", "/allocations/{uuid}",                         pl_api_allocation_consumer_delete,
       0,            "placement:allocations:delete",         0,                   PL_BODY_NONE },
    { "GET",    "/allocation_candidates",                      pl_api_ac_list,
       PL_MV(1, 10), "placement:allocation_candidates:list", 0,                   PL_BODY_NONE },
    { "GET",    "/traits",                                     pl_api_trait_list,
       PL_MV(1, 6),  "placement:traits:list",                0,                   PL_BODY_NONE },
    { "GET",    "/traits/{name}",                              pl_api_trait_get,
       PL_MV(1, 6),  "placement:traits:show",                0,                   PL_BODY_NONE },
    { "PUT",    "/traits/{name}",                              pl_api_trait_put,
       PL_MV(1, 6),  "placement:traits:update",              0,                   PL_BODY_NONE },
    { "DELETE", "/traits/{name}",                              pl_api_trait_delete,
       PL_MV(1, 6),  "placement:traits:delete",              0,                   PL_BODY_NONE },
    { "GET",    "/resource_providers/{uuid}/traits",           pl_api_trait_provider_list,
       PL_MV(1, 6),  RP "traits:list",                       0,                   PL_BODY_NONE },
    { "PUT",    "/resource_providers/{uuid}/traits",           pl_api_trait_provider_set,
       PL_MV(1, 6),  RP "traits:update",                     JSON,                PL_BODY_LARGE },
    { "DELETE", "/resource_providers/{uuid}/traits",           pl_api_trait_provider_delete,
       PL_MV(1, 6),  RP "traits:delete",                     0,                   PL_BODY_NONE },
    /* its target is the project asked for: the handler */
    { "GET",    "/usages",                                     pl_api_usage_totals,
       PL_MV(1, 9),  NULL,                                   0,                   PL_BODY_NONE },
    { "POST",   "/reshaper",                                   pl_api_reshaper_post,
       PL_MV(1, 30), "placement:reshaper:reshape",           JSON,                PL_BODY_LARGE },
    { NULL, NULL, NULL, 0, NULL, 0, 0 }
    // clang-format on
};

#undef RP
#undef JSON

/* Match one template against path; fills params. A {param} takes one
 * non-empty segment. */
static int template_match(apr_pool_t *p, const char *tmpl, const char *path,
                          const char **params)
{
    int n = 0;

    while (*tmpl && *path) {
        if (*tmpl == '{') {
            const char *end = strchr(path, '/');
            apr_size_t len = end ? (apr_size_t)(end - path) : strlen(path);

            if (len == 0 || n >= PL_MAX_PATH_PARAMS) {
                return 0;
            }
            params[n++] = apr_pstrmemdup(p, path, len);
            path += len;
            tmpl = strchr(tmpl, '}') + 1;
            continue;
        }
        if (*tmpl != *path) {
            return 0;
        }
        tmpl++;
        path++;
    }
    return *tmpl == '\0' && *path == '\0';
}

int pl_router_match(pl_req_t *req, const char *method,
                    const pl_route_t **proute, const char **pallow)
{
    const char *path = req->path;
    const char *params[PL_MAX_PATH_PARAMS];
    const char *allow = NULL;
    const pl_route_t *rt;

    /* "/placement" and "/placement/" are both the root (placement's
     * '' route). */
    if (*path == '\0') {
        path = "/";
    }
    for (rt = routes; rt->method; rt++) {
        if (!template_match(req->pool, rt->path, path, params)) {
            continue;
        }
        if (!strcmp(rt->method, method)) {
            memcpy(req->params, params, sizeof(params));
            *proute = rt;
            return 0;
        }
        allow = allow ? apr_pstrcat(req->pool, allow, ", ", rt->method, NULL)
                      : rt->method;
    }
    if (allow) {
        *pallow = allow;
        return HTTP_METHOD_NOT_ALLOWED;
    }
    return HTTP_NOT_FOUND;
}

int pl_router_count(void)
{
    return (int)(sizeof(routes) / sizeof(routes[0])) - 1;
}

const pl_route_t *pl_router_route(int i)
{
    return i >= 0 && i < pl_router_count() ? &routes[i] : NULL;
}

int pl_router_index(const pl_route_t *route)
{
    return route ? (int)(route - routes) : -1;
}
