/* Licensed under the Apache License, Version 2.0.
 *
 * pl_token_cache.c: the Keystone token cache on mod_socache (as mod_ssl
 * keeps sessions): one instance per server, made in post_config so that
 * every child shares it, behind a global mutex when the provider needs
 * one (shmcb does). Keys are the SHA-1 of the token, so that long tokens
 * fit every provider (memcache keys are short) and no token is stored.
 *
 * Validations in flight are shared per child: the first request that
 * misses the cache for a token validates it, the others that miss it
 * meanwhile wait for that outcome instead of asking Keystone too (40
 * parallel first uses of a token cost one call per child, not one per
 * thread).
 */
#include <string.h>
#include <apr_strings.h>
#include <apr_sha1.h>
#include <stdlib.h>
#include <apr_global_mutex.h>
#include <apr_thread_mutex.h>
#include <apr_thread_cond.h>
#include <apr_hash.h>
#include <ap_provider.h>
#include <ap_socache.h>
#include <util_mutex.h>

#include "pl_private.h"
#include "pl_token_cache.h"

#define MUTEX_TYPE "placement-tokens"

/* A cached identity is a line of JSON of a few hundred bytes; more
 * means a token with very many roles, which is simply not cached. */
#define MAX_ENTRY 8192

static const char *spec; /* PlacementTokenCache, NULL: shmcb */
static int wanted;       /* some <Location> uses keystone */
static const ap_socache_provider_t *provider;
static ap_socache_instance_t *instance;
static apr_global_mutex_t *lock;

/* The validations in flight in this child: key -> flight_t, guarded by
 * flight_lock; flight_cond is signalled when one ends. */
struct pl_token_flight_t {
    unsigned char key[APR_SHA1_DIGESTSIZE];
    int done;
    int waiters;
    apr_status_t rv;
    char *text; /* the outcome (malloc), NULL with a failure */
};
static apr_hash_t *flights;
static apr_thread_mutex_t *flight_lock;
static apr_thread_cond_t *flight_cond;

const char *pl_token_cache_set(cmd_parms *cmd, void *dc, const char *arg)
{
    const char *err = ap_check_cmd_context(cmd, GLOBAL_ONLY);

    if (err) {
        return err;
    }
    spec = apr_pstrdup(cmd->pool, arg);
    return NULL;
}

void pl_token_cache_wanted(void)
{
    wanted = 1;
}

int pl_token_cache_pre_config(apr_pool_t *pconf)
{
    spec = NULL;
    wanted = 0;
    provider = NULL;
    instance = NULL;
    lock = NULL;
    return ap_mutex_register(pconf, MUTEX_TYPE, NULL, APR_LOCK_DEFAULT, 0);
}

static apr_status_t destroy_cache(void *data)
{
    server_rec *s = data;

    if (instance) {
        provider->destroy(instance, s);
    }
    instance = NULL;
    provider = NULL;
    lock = NULL;
    return APR_SUCCESS;
}

/* The provider PlacementTokenCache names, and an instance of it made in
 * p from the directive's arguments; OK, or an error logged. Both the check
 * (httpd -t) and the start go through here. */
static int make_instance(apr_pool_t *p, apr_pool_t *ptemp, server_rec *s,
                         ap_socache_instance_t **pinst)
{
    const char *name = spec ? spec : "shmcb";
    const char *args = NULL, *colon = strchr(name, ':'), *err;

    if (colon) {
        args = colon + 1;
        name = apr_pstrmemdup(ptemp, name, colon - name);
    }
    provider = ap_lookup_provider(AP_SOCACHE_PROVIDER_GROUP, name,
                                  AP_SOCACHE_PROVIDER_VERSION);
    if (provider == NULL) {
        ap_log_error(
            APLOG_MARK, APLOG_CRIT, 0, s,
            PL_LOGNO(
                01201) "PlacementAuthStrategy keystone keeps validated tokens "
                       "in the socache provider '%s', which is not loaded: "
                       "LoadModule socache_%s_module, or choose another with "
                       "PlacementTokenCache",
            name, name);
        return HTTP_INTERNAL_SERVER_ERROR;
    }
    err = provider->create(pinst, args, ptemp, p);
    if (err) {
        ap_log_error(APLOG_MARK, APLOG_CRIT, 0, s,
                     PL_LOGNO(01202) "PlacementTokenCache %s: %s",
                     spec ? spec : name, err);
        return HTTP_INTERNAL_SERVER_ERROR;
    }
    return OK;
}

int pl_token_cache_check_config(apr_pool_t *ptemp, server_rec *s)
{
    ap_socache_instance_t *unused = NULL;

    /* the instance is made again, to be kept, in post_config */
    return wanted ? make_instance(ptemp, ptemp, s, &unused) : OK;
}

int pl_token_cache_post_config(apr_pool_t *pconf, apr_pool_t *ptemp,
                               server_rec *s)
{
    const char *name = spec ? spec : "shmcb";
    struct ap_socache_hints hints = { 0 };
    apr_status_t rv;
    int st;

    if (!wanted) {
        return OK;
    }
    if ((st = make_instance(pconf, ptemp, s, &instance)) != OK) {
        return st;
    }
    if (provider->flags & AP_SOCACHE_FLAG_NOTMPSAFE) {
        rv = ap_global_mutex_create(&lock, NULL, MUTEX_TYPE, NULL, s, pconf, 0);
        if (rv != APR_SUCCESS) {
            return HTTP_INTERNAL_SERVER_ERROR;
        }
    }
    hints.avg_id_len = APR_SHA1_DIGESTSIZE;
    hints.avg_obj_size = 300;
    hints.expiry_interval = 300;
    rv = provider->init(instance, "placement-tok", &hints, s, pconf);
    if (rv != APR_SUCCESS) {
        ap_log_error(APLOG_MARK, APLOG_CRIT, rv, s,
                     PL_LOGNO(01203) "cannot initialise the token cache (%s)",
                     name);
        return HTTP_INTERNAL_SERVER_ERROR;
    }
    apr_pool_cleanup_register(pconf, s, destroy_cache, apr_pool_cleanup_null);
    return OK;
}

static void flights_init(apr_pool_t *pchild, server_rec *s)
{
    apr_pool_t *p;

    flights = NULL;
    flight_lock = NULL;
    if (apr_pool_create(&p, pchild) != APR_SUCCESS ||
        apr_thread_mutex_create(&flight_lock, APR_THREAD_MUTEX_DEFAULT, p) ||
        apr_thread_cond_create(&flight_cond, p)) {
        ap_log_error(APLOG_MARK, APLOG_ERR, 0, s,
                     PL_LOGNO(01206) "cannot share token validations in this "
                                     "process: each request validates alone");
        flight_lock = NULL;
        return;
    }
    apr_pool_tag(p, "pl_token_flights");
    flights = apr_hash_make(p);
}

void pl_token_cache_child_init(apr_pool_t *pchild, server_rec *s)
{
    apr_status_t rv;

    if (wanted) {
        flights_init(pchild, s);
    }
    if (lock == NULL) {
        return;
    }
    rv = apr_global_mutex_child_init(&lock, apr_global_mutex_lockfile(lock),
                                     pchild);
    if (rv != APR_SUCCESS) {
        ap_log_error(
            APLOG_MARK, APLOG_CRIT, rv, s,
            PL_LOGNO(
                01204) "cannot attach to the token cache's mutex: tokens will "
                       "not be cached in this process");
        lock = NULL;
        instance = NULL;
    }
}

static void token_key(const char *token, unsigned char *key)
{
    apr_sha1_ctx_t ctx;

    apr_sha1_init(&ctx);
    apr_sha1_update(&ctx, token, (unsigned int)strlen(token));
    apr_sha1_final(key, &ctx);
}

const char *pl_token_cache_get(request_rec *r, const char *token)
{
    unsigned char key[APR_SHA1_DIGESTSIZE];
    unsigned char *buf;
    unsigned int len = MAX_ENTRY;
    apr_status_t rv;

    if (instance == NULL) {
        return NULL;
    }
    token_key(token, key);
    buf = apr_palloc(r->pool, MAX_ENTRY + 1);
    if (lock) {
        apr_global_mutex_lock(lock);
    }
    rv = provider->retrieve(instance, r->server, key, sizeof(key), buf, &len,
                            r->pool);
    if (lock) {
        apr_global_mutex_unlock(lock);
    }
    if (rv != APR_SUCCESS || len == 0 || len > MAX_ENTRY) {
        return NULL;
    }
    buf[len] = '\0';
    return (const char *)buf;
}

void pl_token_cache_put(request_rec *r, const char *token, const char *text,
                        apr_time_t expiry)
{
    unsigned char key[APR_SHA1_DIGESTSIZE];
    apr_size_t len = strlen(text);
    apr_status_t rv;

    if (instance == NULL || len > MAX_ENTRY) {
        return;
    }
    token_key(token, key);
    if (lock) {
        apr_global_mutex_lock(lock);
    }
    rv = provider->store(instance, r->server, key, sizeof(key), expiry,
                         (unsigned char *)apr_pstrmemdup(r->pool, text, len),
                         (unsigned int)len, r->pool);
    if (lock) {
        apr_global_mutex_unlock(lock);
    }
    if (rv != APR_SUCCESS) {
        ap_log_rerror(APLOG_MARK, APLOG_DEBUG, rv, r,
                      PL_LOGNO(01205) "token not cached");
    }
}

int pl_token_flight_join(request_rec *r, const char *token,
                         pl_token_flight_t **pf, const char **ptext,
                         apr_status_t *prv)
{
    unsigned char key[APR_SHA1_DIGESTSIZE];
    pl_token_flight_t *f;

    *pf = NULL;
    if (flight_lock == NULL) {
        return 1;
    }
    token_key(token, key);
    apr_thread_mutex_lock(flight_lock);
    f = apr_hash_get(flights, key, sizeof(key));
    if (f == NULL) {
        f = calloc(1, sizeof(*f));
        if (f) {
            memcpy(f->key, key, sizeof(key));
            apr_hash_set(flights, f->key, sizeof(f->key), f);
        }
        apr_thread_mutex_unlock(flight_lock);
        *pf = f;
        return 1;
    }
    f->waiters++;
    while (!f->done) {
        apr_thread_cond_wait(flight_cond, flight_lock);
    }
    *prv = f->rv;
    *ptext = f->text ? apr_pstrdup(r->pool, f->text) : NULL;
    if (--f->waiters == 0) {
        free(f->text);
        free(f);
    }
    apr_thread_mutex_unlock(flight_lock);
    return 0;
}

void pl_token_flight_done(pl_token_flight_t *f, apr_status_t rv,
                          const char *text)
{
    if (f == NULL) {
        return;
    }
    apr_thread_mutex_lock(flight_lock);
    apr_hash_set(flights, f->key, sizeof(f->key), NULL);
    f->done = 1;
    f->rv = rv;
    f->text = text && rv == APR_SUCCESS ? strdup(text) : NULL;
    if (f->text == NULL && rv == APR_SUCCESS) {
        f->rv = APR_ENOMEM; /* the waiters validate nothing: a 503 */
    }
    apr_thread_cond_broadcast(flight_cond);
    if (f->waiters == 0) {
        free(f->text);
        free(f);
    }
    apr_thread_mutex_unlock(flight_lock);
}
