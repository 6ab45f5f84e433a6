/* Licensed under the Apache License, Version 2.0.
 *
 * store_std.c: the standard resource classes (id = index in
 * os-resource-classes) and traits (os-traits), inserted where missing.
 * Upstream does this at application start; we do it on the first use of
 * the database in each process, which also covers a database created
 * after httpd started. Never deletes anything.
 */
#include <string.h>
#include <apr_strings.h>
#include <apr_hash.h>
#include <apr_thread_mutex.h>

#include "pl_store.h"
#include "pl_std_data.h"

static apr_hash_t *names_of(pl_rows_t *rows, apr_pool_t *p)
{
    apr_hash_t *h = apr_hash_make(p);
    int i;

    for (i = 0; i < rows->nrows; i++) {
        apr_hash_set(h, PL_CELL(rows, i, 0), APR_HASH_KEY_STRING, "");
    }
    return h;
}

static apr_status_t insert_missing(pl_db_t *db, apr_pool_t *ptemp)
{
    const char *now = pl_db_now(ptemp);
    pl_rows_t *rows;
    apr_hash_t *have;
    apr_status_t rv;
    int i;

    rv = pl_db_select(db, ptemp, &rows,
                      "SELECT name FROM resource_classes "
                      "WHERE id < 10000",
                      PL_NOARGS);
    if (rv != APR_SUCCESS) {
        return rv;
    }
    have = names_of(rows, ptemp);
    for (i = 0; i < pl_std_resource_classes_n && rv == APR_SUCCESS; i++) {
        const char *name = pl_std_resource_classes[i];

        if (!apr_hash_get(have, name, APR_HASH_KEY_STRING)) {
            rv = pl_db_exec(db, NULL,
                            "INSERT INTO resource_classes "
                            "(id, name, created_at) VALUES (%s, %s, %s)",
                            PL_ARGS(apr_itoa(ptemp, i), name, now));
        }
    }
    if (rv != APR_SUCCESS) {
        return rv;
    }
    rv = pl_db_select(db, ptemp, &rows, "SELECT name FROM traits", PL_NOARGS);
    if (rv != APR_SUCCESS) {
        return rv;
    }
    have = names_of(rows, ptemp);
    for (i = 0; i < pl_std_traits_n && rv == APR_SUCCESS; i++) {
        const char *name = pl_std_traits[i];

        if (!apr_hash_get(have, name, APR_HASH_KEY_STRING)) {
            rv = pl_db_exec(db, NULL,
                            "INSERT INTO traits (name, created_at)"
                            " VALUES (%s, %s)",
                            PL_ARGS(name, now));
        }
    }
    return rv;
}

#if APR_HAS_THREADS
static apr_thread_mutex_t *sync_mutex;
#endif
static volatile int synced;

apr_status_t pl_store_std_sync_init(apr_pool_t *pchild)
{
#if APR_HAS_THREADS
    return apr_thread_mutex_create(&sync_mutex, APR_THREAD_MUTEX_DEFAULT,
                                   pchild);
#else
    (void)pchild;
    return APR_SUCCESS;
#endif
}

/* A pl_db_txn_fn: a lost race runs the transaction again. */
static apr_status_t insert_txn(pl_db_t *db, apr_pool_t *p, void *baton)
{
    apr_status_t rv = insert_missing(db, p);

    (void)baton;
    return rv == APR_EEXIST ? PL_DB_ERETRY : rv;
}

apr_status_t pl_store_std_sync(pl_db_t *db, apr_pool_t *ptemp)
{
    apr_status_t rv = APR_SUCCESS;

    if (synced) {
        return APR_SUCCESS;
    }
#if APR_HAS_THREADS
    if (sync_mutex) {
        apr_thread_mutex_lock(sync_mutex);
    }
#endif
    /* Another process may insert the same rows at the same moment: its
     * commit makes ours fail on the unique constraint; read again. */
    if (!synced) {
        rv = pl_db_run_txn(db, ptemp, insert_txn, NULL, 5, NULL);
        if (rv == APR_SUCCESS) {
            synced = 1;
        }
        else if (rv == PL_DB_ERETRY) {
            rv = APR_EEXIST;
        }
    }
#if APR_HAS_THREADS
    if (sync_mutex) {
        apr_thread_mutex_unlock(sync_mutex);
    }
#endif
    return rv;
}
