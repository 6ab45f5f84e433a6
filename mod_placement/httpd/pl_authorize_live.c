/* Licensed under the Apache License, Version 2.0.
 *
 * pl_authorize_live.c: PlacementPolicyFile and PlacementPolicyDir re-read
 * while the server runs, as oslo.policy re-reads them at its next check.
 *
 * Each distinct (file, directory) pair of the configuration has one live
 * source, made in check_config. In each child, the first request of a new
 * second stats the file and the directory's files (pl_policy_sources_stamp)
 * and, when the fingerprint changed, reads them into a new pool with no
 * lock held; the new rules replace the current ones under a mutex held
 * only to swap a pointer. A request takes a reference to the rules it
 * started with (released with its pool), so it decides every check by one
 * set of rules, and an old set is freed when its last request ends. A
 * broken file is logged at error level with its file and line, once per
 * change, and the last good rules stay in force.
 */
#include <string.h>
#include <stdlib.h>
#include <apr_strings.h>
#include <apr_atomic.h>
#include <apr_thread_mutex.h>

#include "pl_private.h"
#include "pl_authorize_live.h"

/* One set of rules read from the sources, in a pool of its own. */
typedef struct pl_policy_snap_t {
    apr_pool_t *pool;
    apr_hash_t *exprs;
    char *stamp; /* the fingerprint it was read at */
    int refs;    /* the source's own reference + requests using it */
} pl_policy_snap_t;

typedef struct live_t {
    const char *file, *dir;
    const pl_policy_t *check; /* defaults and overrides for loop checks */
    apr_thread_mutex_t *mu;   /* guards cur and refs */
    pl_policy_snap_t *cur;
    volatile apr_uint32_t checked; /* the second of the last check */
    volatile apr_uint32_t busy;    /* 1 while one thread re-reads */
    char *bad_stamp;               /* fingerprint of the last broken read */
} live_t;

/* (file "\n" dir) -> live_t: written in check_config, read-only after */
static apr_hash_t *sources;

static const char *key_of(apr_pool_t *p, const char *file, const char *dir)
{
    return apr_pstrcat(p, file ? file : "", "\n", dir ? dir : "", NULL);
}

static void snap_release(live_t *lv, pl_policy_snap_t *snap)
{
    int last;

    apr_thread_mutex_lock(lv->mu);
    last = --snap->refs == 0;
    apr_thread_mutex_unlock(lv->mu);
    if (last) {
        free(snap->stamp);
        apr_pool_destroy(snap->pool); /* snap lives in it */
    }
}

/* Read the sources into a new snapshot, or NULL with *perr. */
static pl_policy_snap_t *snap_read(const live_t *lv, const char *stamp,
                                   const char **perr, apr_pool_t *ptemp)
{
    apr_pool_t *np;
    apr_hash_t *exprs;
    pl_policy_snap_t *snap;
    const char *err = NULL, *loop;

    if (apr_pool_create_unmanaged_ex(&np, NULL, NULL) != APR_SUCCESS) {
        *perr = "out of memory";
        return NULL;
    }
    apr_pool_tag(np, "pl_policy_snap");
    if (pl_policy_sources_read(np, lv->file, lv->dir, &exprs, &err) ==
        APR_SUCCESS) {
        pl_policy_t pol = *lv->check;

        pol.file = exprs;
        if ((loop = pl_policy_find_loop(np, &pol)) != NULL) {
            err = apr_psprintf(np, "rules refer to each other in a loop: %s",
                               loop);
        }
    }
    if (err) {
        *perr = apr_pstrdup(ptemp, err);
        apr_pool_destroy(np);
        return NULL;
    }
    snap = apr_pcalloc(np, sizeof(*snap));
    snap->pool = np;
    snap->exprs = exprs;
    snap->stamp = strdup(stamp);
    snap->refs = 1;
    if (snap->stamp == NULL) {
        apr_pool_destroy(np);
        *perr = "out of memory";
        return NULL;
    }
    return snap;
}

static apr_status_t forget_sources(void *unused)
{
    apr_hash_index_t *hi;

    for (hi = apr_hash_first(NULL, sources); hi; hi = apr_hash_next(hi)) {
        live_t *lv = apr_hash_this_val(hi);

        /* no requests run now, and lv->mu may already be gone: cleanups
         * run in reverse order and the mutex was made after this one */
        if (--lv->cur->refs == 0) {
            free(lv->cur->stamp);
            apr_pool_destroy(lv->cur->pool);
        }
        free(lv->bad_stamp);
    }
    sources = NULL;
    return APR_SUCCESS;
}

apr_status_t pl_authorize_live_add(apr_pool_t *pconf, apr_pool_t *ptemp,
                                   server_rec *s, const pl_dir_conf_t *c,
                                   const pl_policy_t *check)
{
    const char *key = key_of(ptemp, c->policy_file, c->policy_dir);
    const char *err = NULL, *stamp;
    live_t *lv;

    if (sources == NULL) {
        sources = apr_hash_make(pconf);
        apr_pool_cleanup_register(pconf, NULL, forget_sources,
                                  apr_pool_cleanup_null);
    }
    if (apr_hash_get(sources, key, APR_HASH_KEY_STRING)) {
        return APR_SUCCESS;
    }
    lv = apr_pcalloc(pconf, sizeof(*lv));
    lv->file = c->policy_file;
    lv->dir = c->policy_dir;
    lv->check = apr_pmemdup(pconf, check, sizeof(*check));
    if (apr_thread_mutex_create(&lv->mu, APR_THREAD_MUTEX_DEFAULT, pconf)) {
        return APR_ENOMEM;
    }
    stamp = pl_policy_sources_stamp(ptemp, lv->file, lv->dir);
    if ((lv->cur = snap_read(lv, stamp, &err, ptemp)) == NULL) {
        ap_log_error(APLOG_MARK, APLOG_CRIT, 0, s,
                     PL_LOGNO(01509) "%s: policy: %s",
                     c->dir ? c->dir : "the server", err);
        return APR_EINVAL;
    }
    apr_hash_set(sources, apr_pstrdup(pconf, key), APR_HASH_KEY_STRING, lv);
    return APR_SUCCESS;
}

/* The current rules of lv, checked against the files first if this
 * child has not looked this second. */
static void live_check(live_t *lv, request_rec *r)
{
    apr_pool_t *tmp;
    const char *stamp, *err = NULL;
    pl_policy_snap_t *snap, *old;

    apr_pool_create(&tmp, r->pool);
    stamp = pl_policy_sources_stamp(tmp, lv->file, lv->dir);
    /* cur changes only here, under busy: reading its stamp is safe */
    if (!strcmp(stamp, lv->cur->stamp) ||
        (lv->bad_stamp && !strcmp(stamp, lv->bad_stamp))) {
        apr_pool_destroy(tmp);
        return;
    }
    snap = snap_read(lv, stamp, &err, tmp);
    /* a file still being written: try again at the next check */
    if (strcmp(stamp, pl_policy_sources_stamp(tmp, lv->file, lv->dir)) != 0) {
        if (snap) {
            snap_release(lv, snap);
        }
        apr_pool_destroy(tmp);
        return;
    }
    if (snap == NULL) {
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r,
                      PL_LOGNO(01510) "policy not re-read, the last good "
                                      "rules stay in force: %s",
                      err);
        free(lv->bad_stamp);
        lv->bad_stamp = strdup(stamp);
        apr_pool_destroy(tmp);
        return;
    }
    apr_thread_mutex_lock(lv->mu);
    old = lv->cur;
    lv->cur = snap;
    apr_thread_mutex_unlock(lv->mu);
    snap_release(lv, old);
    ap_log_rerror(APLOG_MARK, APLOG_NOTICE, 0, r,
                  PL_LOGNO(01511) "policy re-read: %u rules from %s%s%s",
                  apr_hash_count(snap->exprs), lv->file ? lv->file : "",
                  lv->file && lv->dir ? " and " : "", lv->dir ? lv->dir : "");
    apr_pool_destroy(tmp);
}

typedef struct {
    live_t *lv;
    pl_policy_snap_t *snap;
} hold_t;

static apr_status_t hold_release(void *data)
{
    hold_t *h = data;

    snap_release(h->lv, h->snap);
    return APR_SUCCESS;
}

apr_hash_t *pl_authorize_live_rules(request_rec *r, const pl_dir_conf_t *c)
{
    live_t *lv;
    hold_t *h;
    apr_uint32_t now, last;

    /* one set of rules for the whole request, however many checks */
    if (apr_pool_userdata_get((void **)&h, "pl_policy_rules", r->pool) ==
            APR_SUCCESS &&
        h != NULL) {
        return h->snap->exprs;
    }
    if (sources == NULL ||
        (lv = apr_hash_get(sources,
                           key_of(r->pool, c->policy_file, c->policy_dir),
                           APR_HASH_KEY_STRING)) == NULL) {
        return c->policy_file_exprs; /* as read at startup */
    }
    now = (apr_uint32_t)apr_time_sec(apr_time_now());
    last = apr_atomic_read32(&lv->checked);
    if (now != last && apr_atomic_cas32(&lv->checked, now, last) == last &&
        apr_atomic_cas32(&lv->busy, 1, 0) == 0) {
        live_check(lv, r);
        apr_atomic_set32(&lv->busy, 0);
    }
    h = apr_palloc(r->pool, sizeof(*h));
    h->lv = lv;
    apr_thread_mutex_lock(lv->mu);
    h->snap = lv->cur;
    h->snap->refs++;
    apr_thread_mutex_unlock(lv->mu);
    apr_pool_cleanup_register(r->pool, h, hold_release, apr_pool_cleanup_null);
    apr_pool_userdata_setn(h, "pl_policy_rules", NULL, r->pool);
    return h->snap->exprs;
}
