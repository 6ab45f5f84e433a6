/* Licensed under the Apache License, Version 2.0.
 *
 * store_std.c: the standard resource classes (id = index in
 * os-resource-classes) and traits (os-traits, and the operator's
 * PlacementStandardTraitsFile), inserted where missing. Upstream does
 * this at application start; we do it on the first use of each database
 * in each process, which also covers a database created after httpd
 * started. Never deletes anything: a name a newer list brought stays.
 */
#include <string.h>
#include <apr_strings.h>
#include <apr_hash.h>
#include <apr_thread_mutex.h>

#include "pl_store.h"
#include "pl_store_std.h"
#include "pl_std_data.h"

typedef struct insert_baton_t {
    const apr_array_header_t *extra_traits;
    apr_array_header_t *added_classes; /* may be NULL */
    apr_array_header_t *added_traits;  /* may be NULL */
} insert_baton_t;

static apr_hash_t *names_of(pl_rows_t *rows, apr_pool_t *p)
{
    apr_hash_t *h = apr_hash_make(p);
    int i;

    for (i = 0; i < rows->nrows; i++) {
        apr_hash_set(h, PL_CELL(rows, i, 0), APR_HASH_KEY_STRING, "");
    }
    return h;
}

/* The INSERT that skips a row another process inserted first, so that
 * many children and hosts starting at once never fail on the unique
 * name: each dialect's form around the same "INTO ..." text. */
static const char *insert_ignoring(pl_db_t *db, apr_pool_t *p, const char *into)
{
    if (pl_db_dialect(db) == PL_DB_MYSQL) {
        return apr_pstrcat(p, "INSERT IGNORE ", into, NULL);
    }
    return apr_pstrcat(p, "INSERT ", into, " ON CONFLICT DO NOTHING", NULL);
}

/* Run sql (args hold name) unless have holds name; a name inserted goes
 * to added. */
static apr_status_t insert_name(pl_db_t *db, const char *sql, apr_hash_t *have,
                                apr_array_header_t *added, const char *name,
                                int nargs, const char **args)
{
    apr_status_t rv;
    int changed = 0;

    if (apr_hash_get(have, name, APR_HASH_KEY_STRING)) {
        return APR_SUCCESS;
    }
    rv = pl_db_exec(db, &changed, sql, nargs, args);
    if (rv == APR_SUCCESS) {
        apr_hash_set(have, name, APR_HASH_KEY_STRING, "");
        if (changed > 0 && added) {
            APR_ARRAY_PUSH(added, const char *) = name;
        }
    }
    return rv;
}

static apr_status_t insert_classes(pl_db_t *db, apr_pool_t *p, const char *now,
                                   apr_array_header_t *added)
{
    const char *sql = insert_ignoring(db, p,
                                      "INTO resource_classes "
                                      "(id, name, created_at) "
                                      "VALUES (%s, %s, %s)");
    pl_rows_t *rows;
    apr_hash_t *have;
    apr_status_t rv;
    int i;

    rv = pl_db_select(db, p, &rows,
                      "SELECT name FROM resource_classes WHERE id < 10000",
                      PL_NOARGS);
    have = rv == APR_SUCCESS ? names_of(rows, p) : NULL;
    for (i = 0; i < pl_std_resource_classes_n && rv == APR_SUCCESS; i++) {
        const char *args[3] = { apr_itoa(p, i), pl_std_resource_classes[i],
                                now };

        rv = insert_name(db, sql, have, added, args[1], 3, args);
    }
    return rv;
}

static apr_status_t insert_traits(pl_db_t *db, apr_pool_t *p, const char *now,
                                  const apr_array_header_t *extra,
                                  apr_array_header_t *added)
{
    const char *sql = insert_ignoring(db, p,
                                      "INTO traits (name, created_at) "
                                      "VALUES (%s, %s)");
    int n_extra = extra ? extra->nelts : 0;
    pl_rows_t *rows;
    apr_hash_t *have;
    apr_status_t rv;
    int i;

    rv = pl_db_select(db, p, &rows, "SELECT name FROM traits", PL_NOARGS);
    have = rv == APR_SUCCESS ? names_of(rows, p) : NULL;
    for (i = 0; i < pl_std_traits_n + n_extra && rv == APR_SUCCESS; i++) {
        const char *args[2] = { i < pl_std_traits_n
                                    ? pl_std_traits[i]
                                    : APR_ARRAY_IDX(extra, i - pl_std_traits_n,
                                                    const char *),
                                now };

        rv = insert_name(db, sql, have, added, args[0], 2, args);
    }
    return rv;
}

/* A pl_db_txn_fn: each attempt reports only its own inserts. */
static apr_status_t insert_txn(pl_db_t *db, apr_pool_t *p, void *baton)
{
    insert_baton_t *b = baton;
    const char *now = pl_db_now(p);
    apr_status_t rv;

    if (b->added_classes) {
        apr_array_clear(b->added_classes);
    }
    if (b->added_traits) {
        apr_array_clear(b->added_traits);
    }
    rv = insert_classes(db, p, now, b->added_classes);
    if (rv == APR_SUCCESS) {
        rv = insert_traits(db, p, now, b->extra_traits, b->added_traits);
    }
    return rv;
}

apr_status_t pl_store_std_insert(pl_db_t *db, apr_pool_t *p,
                                 const apr_array_header_t *extra_traits,
                                 apr_array_header_t *added_classes,
                                 apr_array_header_t *added_traits)
{
    insert_baton_t b = { extra_traits, added_classes, added_traits };

    return pl_db_run_txn(db, p, insert_txn, &b, 1, NULL);
}

/* Whether every standard class and trait (extra too) is in the database
 * already, as it is for every process but the first on it: then no
 * transaction is opened, nothing written or committed. */
static int all_present(pl_db_t *db, apr_pool_t *p,
                       const apr_array_header_t *extra)
{
    pl_rows_t *rows;
    apr_hash_t *have;
    int i;

    if (pl_db_select(db, p, &rows,
                     "SELECT name FROM resource_classes WHERE id < 10000",
                     PL_NOARGS) != APR_SUCCESS) {
        return 0;
    }
    have = names_of(rows, p);
    for (i = 0; i < pl_std_resource_classes_n; i++) {
        if (!apr_hash_get(have, pl_std_resource_classes[i],
                          APR_HASH_KEY_STRING)) {
            return 0;
        }
    }
    if (pl_db_select(db, p, &rows, "SELECT name FROM traits", PL_NOARGS) !=
        APR_SUCCESS) {
        return 0;
    }
    have = names_of(rows, p);
    for (i = 0; i < pl_std_traits_n; i++) {
        if (!apr_hash_get(have, pl_std_traits[i], APR_HASH_KEY_STRING)) {
            return 0;
        }
    }
    for (i = 0; extra && i < extra->nelts; i++) {
        if (!apr_hash_get(have, APR_ARRAY_IDX(extra, i, const char *),
                          APR_HASH_KEY_STRING)) {
            return 0;
        }
    }
    return 1;
}

/* Which (database, list) pairs this process has synced. */
typedef struct sync_key_t {
    const void *where;
    const void *extra_traits;
} sync_key_t;

#if APR_HAS_THREADS
static apr_thread_mutex_t *sync_mutex;
#endif
static apr_pool_t *sync_pool;
static apr_hash_t *synced;

apr_status_t pl_store_std_sync_init(apr_pool_t *pchild)
{
    sync_pool = pchild;
    synced = apr_hash_make(pchild);
#if APR_HAS_THREADS
    return apr_thread_mutex_create(&sync_mutex, APR_THREAD_MUTEX_DEFAULT,
                                   pchild);
#else
    return APR_SUCCESS;
#endif
}

apr_status_t pl_store_std_sync(pl_db_t *db, apr_pool_t *ptemp,
                               const void *where,
                               const apr_array_header_t *extra_traits)
{
    sync_key_t key = { where, extra_traits };
    apr_status_t rv = APR_SUCCESS;

    if (synced == NULL) { /* a tool, or a test, without child_init */
        return pl_store_std_insert(db, ptemp, extra_traits, NULL, NULL);
    }
#if APR_HAS_THREADS
    apr_thread_mutex_lock(sync_mutex);
#endif
    if (!apr_hash_get(synced, &key, sizeof(key))) {
        rv = all_present(db, ptemp, extra_traits)
                 ? APR_SUCCESS
                 : pl_store_std_insert(db, ptemp, extra_traits, NULL, NULL);
        if (rv == APR_SUCCESS) {
            sync_key_t *kept = apr_pmemdup(sync_pool, &key, sizeof(key));

            apr_hash_set(synced, kept, sizeof(*kept), "");
        }
    }
#if APR_HAS_THREADS
    apr_thread_mutex_unlock(sync_mutex);
#endif
    return rv;
}
