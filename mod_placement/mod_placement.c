/* Licensed under the Apache License, Version 2.0.
 *
 * mod_placement.c: the module. Declares placement_module, checks at
 * startup that mod_dbd is there, prepares per-process state in
 * child_init, and hooks the "placement" handler (pl_handler.c).
 */
#define PL_MODULE_MAIN
#include <httpd.h>
#include <http_config.h>
#include <http_log.h>
#include <http_protocol.h>
#include <apr_dbd.h>
#include <mod_dbd.h>

#include "pl_private.h"
#include "pl_config.h"
#include "pl_store.h"
#include "pl_req.h"
#include "pl_api.h"

int pl_handler(request_rec *r);

static int pl_post_config(apr_pool_t *pconf, apr_pool_t *plog,
                          apr_pool_t *ptemp, server_rec *s)
{
    (void)plog;
    if (APR_RETRIEVE_OPTIONAL_FN(ap_dbd_acquire) == NULL) {
        ap_log_error(APLOG_MARK, APLOG_CRIT, 0, s, PL_LOGNO(00001)
                     "mod_placement needs mod_dbd: add LoadModule "
                     "dbd_module before placement_module, and DBDriver/"
                     "DBDParams for the server");
        return HTTP_INTERNAL_SERVER_ERROR;
    }
    return pl_policy_post_config(pconf, ptemp, s);
}

static void pl_child_init(apr_pool_t *pchild, server_rec *s)
{
    apr_status_t rv = pl_store_std_sync_init(pchild);

    pl_schema_init(pchild);

    if (rv != APR_SUCCESS) {
        ap_log_error(APLOG_MARK, APLOG_CRIT, rv, s, PL_LOGNO(00002)
                     "cannot create the standard data lock");
    }
}

static void pl_register_hooks(apr_pool_t *p)
{
    (void)p;
    ap_hook_post_config(pl_post_config, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_child_init(pl_child_init, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_handler(pl_handler, NULL, NULL, APR_HOOK_MIDDLE);
}

AP_DECLARE_MODULE(placement) = {
    STANDARD20_MODULE_STUFF,
    pl_config_create_dir,
    pl_config_merge_dir,
    NULL,
    NULL,
    pl_cmds,
    pl_register_hooks
};
