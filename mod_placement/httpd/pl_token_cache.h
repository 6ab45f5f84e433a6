/* Licensed under the Apache License, Version 2.0.
 *
 * pl_token_cache.h: validated Keystone tokens, kept in a mod_socache
 * provider (shmcb by default) shared by every child of the server, so a
 * token costs one call to Keystone per cache time, not one per request
 * or per process.
 */
#ifndef PL_TOKEN_CACHE_H
#define PL_TOKEN_CACHE_H

#include <httpd.h>
#include <http_config.h>

/** PlacementTokenCache PROVIDER[:ARGS] (server config). */
const char *pl_token_cache_set(cmd_parms *cmd, void *dc, const char *arg);

/** Note that some <Location> authenticates with Keystone: the cache is
 *  then required. Called while the configuration is read. */
void pl_token_cache_wanted(void);

/** pre_config: forget the previous configuration's choices; register
 *  the cache's mutex type. */
int pl_token_cache_pre_config(apr_pool_t *pconf);

/** post_config: create the cache when wanted; an error when its
 *  provider is missing (the module is not loaded). */
int pl_token_cache_post_config(apr_pool_t *pconf, apr_pool_t *ptemp,
                               server_rec *s);

/** child_init: attach the child to the cache's mutex. */
void pl_token_cache_child_init(apr_pool_t *pchild, server_rec *s);

/**
 * The cached text for token, or NULL (no cache, not cached, expired).
 */
const char *pl_token_cache_get(request_rec *r, const char *token);

/** Keep text for token until expiry (absolute). */
void pl_token_cache_put(request_rec *r, const char *token, const char *text,
                        apr_time_t expiry);

#endif /* PL_TOKEN_CACHE_H */
