/* Licensed under the Apache License, Version 2.0.
 *
 * pl_provider_cache.c: PlacementProviderCache and the caches of a child,
 * one per server (mod_dbd's databases are per server), made in
 * child_init and only read afterwards, so finding one takes no lock.
 */
#include <stdlib.h>
#include <apr_hash.h>
#include <apr_strings.h>
#include <httpd.h>
#include <http_config.h>
#include <http_log.h>

#include "pl_private.h"
#include "pl_provider_cache.h"

/* 100,000 providers: about 45 MB per child when all are kept (450 bytes
 * for a uuid, three inventories and three traits, measured); a cloud of
 * 1,000 computes needs 1/100 of it. */
#define DEFAULT_SIZE 100000

static int size = DEFAULT_SIZE;
static apr_hash_t *caches; /* server_rec * -> pl_store_ac_cache_t */

const char *pl_provider_cache_set(cmd_parms *cmd, void *dc, const char *arg)
{
    const char *err = ap_check_cmd_context(cmd, GLOBAL_ONLY);
    char *end;
    long v;

    if (err) {
        return err;
    }
    v = strtol(arg, &end, 10);
    if (*arg == '\0' || *end != '\0' || v < 0 || v > 100000000L) {
        return apr_psprintf(cmd->pool,
                            "PlacementProviderCache: '%s' is not a whole "
                            "number from 0 to 100000000",
                            arg);
    }
    size = (int)v;
    return NULL;
}

void pl_provider_cache_pre_config(void)
{
    size = DEFAULT_SIZE;
    caches = NULL;
}

void pl_provider_cache_child_init(apr_pool_t *pchild, server_rec *s)
{
    caches = apr_hash_make(pchild);
    for (; s; s = s->next) {
        pl_store_ac_cache_t *c = pl_store_ac_cache_make(pchild, size);

        if (c == NULL && size > 0) {
            ap_log_error(APLOG_MARK, APLOG_ERR, 0, s,
                         PL_LOGNO(01300) "cannot make the provider cache: "
                                         "allocation candidates read every "
                                         "provider from the database");
        }
        if (c) {
            /* the caches are keyed by the pointer s itself: sizeof(s) is
             * meant, here and in pl_provider_cache()
             * NOLINTNEXTLINE(bugprone-sizeof-expression) */
            server_rec **key = apr_pmemdup(pchild, &s, sizeof(s));

            /* NOLINTNEXTLINE(bugprone-sizeof-expression) */
            apr_hash_set(caches, key, sizeof(*key), c);
        }
    }
}

pl_store_ac_cache_t *pl_provider_cache(server_rec *s)
{
    /* keyed by the pointer s: NOLINTNEXTLINE(bugprone-sizeof-expression) */
    return caches ? apr_hash_get(caches, &s, sizeof(s)) : NULL;
}
