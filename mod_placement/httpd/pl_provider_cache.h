/* Licensed under the Apache License, Version 2.0.
 *
 * pl_provider_cache.h: the providers' facts each httpd child keeps for
 * allocation candidates (pl_store_ac_cache.h), one cache per server (virtual
 * host), since mod_dbd's database is chosen per server.
 */
#ifndef PL_PROVIDER_CACHE_H
#define PL_PROVIDER_CACHE_H

#include <httpd.h>
#include <http_config.h>
#include "pl_store_ac_cache.h"

/** PlacementProviderCache N (server config): providers kept at most per
 *  child and server, 0 for none. */
const char *pl_provider_cache_set(cmd_parms *cmd, void *dc, const char *arg);

/** pre_config: back to the default size. */
void pl_provider_cache_pre_config(void);

/** child_init: one cache for each server. */
void pl_provider_cache_child_init(apr_pool_t *pchild, server_rec *s);

/** The cache of s, NULL when there is none. */
pl_store_ac_cache_t *pl_provider_cache(server_rec *s);

#endif /* PL_PROVIDER_CACHE_H */
