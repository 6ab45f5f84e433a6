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

/** check_config (httpd -t runs it): when the cache is wanted, an error
 *  (logged) if its provider is missing (the module is not loaded) or
 *  refuses PlacementTokenCache's arguments; else OK. */
int pl_token_cache_check_config(apr_pool_t *ptemp, server_rec *s);

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

/** A validation of one token in flight in this child. */
typedef struct pl_token_flight_t pl_token_flight_t;

/**
 * Join the validation of token in flight in this child, or start one.
 * Returns 1 when the caller leads: it validates, then must call
 * pl_token_flight_done(*pf, ...) (*pf may be NULL: nothing is shared).
 * Returns 0 when another thread led: it waited for that outcome, *prv
 * (and on success *ptext, the cached text, from r->pool) say what it was.
 */
int pl_token_flight_join(request_rec *r, const char *token,
                         pl_token_flight_t **pf, const char **ptext,
                         apr_status_t *prv);

/** End the flight f with the outcome rv and (on success) text: the
 *  waiters wake with it, and f is freed when the last has read it. */
void pl_token_flight_done(pl_token_flight_t *f, apr_status_t rv,
                          const char *text);

#endif /* PL_TOKEN_CACHE_H */
