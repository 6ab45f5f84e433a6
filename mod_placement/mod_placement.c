/* Licensed under the Apache License, Version 2.0.
 *
 * mod_placement.c: the module. Declares placement_module, checks the
 * configuration where httpd -t checks it too (mod_dbd there, the token
 * cache's provider, policy files and loops), makes the Keystone token
 * cache, prepares
 * per-process state in child_init (the provider caches among it), and
 * hooks the "placement" handler
 * (pl_handler.c).
 */
#define PL_MODULE_MAIN
#include <string.h>
#include <httpd.h>
#include <http_config.h>
#include <http_log.h>
#include <http_protocol.h>
#include <apr_strings.h>
#include <http_core.h>
#include <http_request.h>
#include <ap_expr.h>
#include <apr_dbd.h>
#include <mod_dbd.h>

#include "pl_private.h"
#include "pl_config.h"
#include "pl_cors.h"
#include "pl_store.h"
#include "pl_store_std.h"
#include "pl_req.h"
#include "pl_keystone.h"
#include "pl_token_cache.h"
#include "pl_provider_cache.h"
#include "pl_memory.h"
#include "pl_coalesce.h"
#include "pl_body_budget.h"
#include "pl_metrics.h"
#include "pl_authorize.h"
#include "pl_router.h"
#include "pl_handler.h"

static int pl_pre_config(apr_pool_t *pconf, apr_pool_t *plog, apr_pool_t *ptemp)
{
    pl_provider_cache_pre_config();
    return pl_token_cache_pre_config(pconf);
}

/* Every check a configuration can fail runs here, not in post_config:
 * httpd -t (apache2ctl configtest) runs check_config and stops before
 * post_config, so a check made only there would let configtest say
 * "Syntax OK" to a configuration the server then refuses. Directive
 * handlers check what one line says; this checks what lines say
 * together and what they need of other modules. */
static int pl_check_config(apr_pool_t *pconf, apr_pool_t *plog,
                           apr_pool_t *ptemp, server_rec *s)
{
    (void)plog;
    if (APR_RETRIEVE_OPTIONAL_FN(ap_dbd_acquire) == NULL) {
        ap_log_error(
            APLOG_MARK, APLOG_CRIT, 0, s,
            PL_LOGNO(00001) "mod_placement needs mod_dbd: add LoadModule "
                            "dbd_module before placement_module, and DBDriver/"
                            "DBDParams for the server");
        return HTTP_INTERNAL_SERVER_ERROR;
    }
    if (pl_token_cache_check_config(ptemp, s) != OK) {
        return HTTP_INTERNAL_SERVER_ERROR;
    }
    return pl_authorize_check_config(pconf, ptemp, s);
}

/* The metrics count a request under the index of its route in the table
 * (pl_handler.c), and name route i by its method and template. */
static const char **route_labels(apr_pool_t *pconf)
{
    int i, n = pl_router_count();
    const char **labels = apr_palloc(pconf, sizeof(*labels) * (apr_size_t)n);

    for (i = 0; i < n; i++) {
        const pl_route_t *route = pl_router_route(i);

        labels[i] = apr_pstrcat(pconf, route->method, " ", route->path, NULL);
    }
    return labels;
}

static int pl_post_config(apr_pool_t *pconf, apr_pool_t *plog,
                          apr_pool_t *ptemp, server_rec *s)
{
    const char *bad = NULL;
    apr_status_t rv;

    (void)plog;
    /* every built-in JSON schema, once: a broken one refuses to start */
    if ((rv = pl_schema_compile_all(pconf, &bad)) != APR_SUCCESS) {
        ap_log_error(
            APLOG_MARK, APLOG_CRIT, rv, s,
            PL_LOGNO(00008) "a built-in JSON schema does not compile: %.120s",
            bad);
        return HTTP_INTERNAL_SERVER_ERROR;
    }
    /* libcurl's global state, before any child thread exists */
    if (pl_ks_global_init() != APR_SUCCESS) {
        ap_log_error(APLOG_MARK, APLOG_CRIT, 0, s,
                     PL_LOGNO(00003) "cannot initialise libcurl");
        return HTTP_INTERNAL_SERVER_ERROR;
    }
    pl_req_post_config();
    if (pl_metrics_post_config(pconf, s, route_labels(pconf),
                               pl_router_count()) != OK ||
        pl_authorize_post_config(pconf, ptemp, s) != OK) {
        return HTTP_INTERNAL_SERVER_ERROR;
    }
    return pl_token_cache_post_config(pconf, ptemp, s);
}

static void pl_child_init(apr_pool_t *pchild, server_rec *s)
{
    apr_status_t rv = pl_store_std_sync_init(pchild);

    pl_memory_child_init(pchild);
    pl_coalesce_child_init(pchild);
    pl_body_budget_child_init(pchild, s);
    pl_token_cache_child_init(pchild, s);
    pl_provider_cache_child_init(pchild, s);
    if (pl_ks_child_init(pchild) != APR_SUCCESS) {
        ap_log_error(
            APLOG_MARK, APLOG_CRIT, 0, s,
            PL_LOGNO(00004) "cannot create the Keystone client's lock");
    }

    if (rv != APR_SUCCESS) {
        ap_log_error(APLOG_MARK, APLOG_CRIT, rv, s,
                     PL_LOGNO(00002) "cannot create the standard data lock");
    }
}

/* API paths are not files. In translate_name the location's config is
 * in place: note a request that SetHandler gives to placement, and let
 * map_to_storage skip the directory walk for it (as mod_proxy does), so
 * no <Directory> or .htaccess applies and a path segment longer than a
 * file name gets the API's JSON 404, not a 403 from the filesystem. */
static int pl_translate_name(request_rec *r)
{
    core_dir_config *d = ap_get_core_module_config(r->per_dir_config);
    const char *err = NULL, *handler;

    if (d == NULL || d->expr_handler == NULL) {
        return DECLINED;
    }
    handler = ap_expr_str_exec(r, d->expr_handler, &err);
    if (err == NULL && handler && !strcmp(handler, "placement")) {
        apr_table_setn(r->notes, "pl-api", "1");
    }
    return DECLINED;
}

/* The request's own name, when no module mapped it: core's translation
 * (the document root plus the path) never runs for the API, which failed
 * on a path of 4096 bytes or more (over PATH_MAX: ENAMETOOLONG) with
 * httpd's HTML 403 and the whole request line in an error-level line
 * (AH00127), for anyone, without a token. Last of the translators, so
 * that Alias, RewriteRule and the like still see API paths first. */
static int pl_translate_api(request_rec *r)
{
    if (apr_table_get(r->notes, "pl-api") == NULL) {
        return DECLINED;
    }
    r->filename = apr_pstrcat(r->pool, "placement:", r->uri, NULL);
    return OK;
}

static int pl_map_to_storage(request_rec *r)
{
    if (apr_table_get(r->notes, "pl-api") == NULL) {
        return DECLINED;
    }
    /* a name no filesystem module takes for a file (mod_proxy's way) */
    r->filename = apr_pstrcat(r->pool, "placement:", r->uri, NULL);
    return OK;
}

static void pl_register_hooks(apr_pool_t *p)
{
    (void)p;
    ap_hook_pre_config(pl_pre_config, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_check_config(pl_check_config, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_post_config(pl_post_config, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_child_init(pl_child_init, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_translate_name(pl_translate_name, NULL, NULL, APR_HOOK_FIRST);
    ap_hook_translate_name(pl_translate_api, NULL, NULL, APR_HOOK_LAST);
    ap_hook_map_to_storage(pl_map_to_storage, NULL, NULL, APR_HOOK_FIRST);
    ap_hook_handler(pl_handler, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_handler(pl_metrics_handler, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_handler(pl_health_handler, NULL, NULL, APR_HOOK_MIDDLE);
    pl_cors_register();
}

AP_DECLARE_MODULE(placement) = { STANDARD20_MODULE_STUFF,
                                 pl_config_create_dir,
                                 pl_config_merge_dir,
                                 NULL,
                                 NULL,
                                 pl_cmds,
                                 pl_register_hooks };
