/* Licensed under the Apache License, Version 2.0.
 *
 * pl_db_txn.c: transactions (pl_db_begin/pl_db_end, nested by a depth
 * counter), savepoint regions, and the retries of a whole transaction
 * after a deadlock or a lost race (pl_db_run_txn).
 */
#include <apr_strings.h>
#include <apr_time.h>

#include "pl_db_private.h"

/* BEGIN, once. PostgreSQL's is a statement of ours, not apr_dbd's
 * transaction: apr_dbd_transaction_start registers the driver's end of
 * the transaction as a cleanup of the pool whenever it has a block, and
 * apr_dbd_pgsql (apr-util 1.6) ties its block to the connection only when
 * BEGIN got an answer; on a connection that died idle in the pool it gets
 * none, and that cleanup followed the untied block's NULL handle when the
 * request ended (children crashed so). Without the driver's transaction
 * it neither remembers a failed statement nor wraps statements in
 * savepoints: pl_db does both itself (classify marks the transaction
 * rollback-only, pl_db_savepoint and pl_db_release its regions). The
 * other drivers allocate their own block and tie it at once. */
static apr_status_t begin_once(pl_db_t *db)
{
    int changed, ret;

    pl_log(db->log, PL_LOG_TRACE1, 0, PL_LOGNO(05003) "sql begin");
    db->txn = NULL;
    db->failed_ret = 0;
    if (db->dialect == PL_DB_PGSQL) {
        ret = apr_dbd_query(db->driver, db->handle, &changed, "BEGIN");
    }
    else {
        ret = apr_dbd_transaction_start(db->driver, db->pool, db->handle,
                                        &db->txn);
    }
    if (ret == 0) {
        db->in_txn = 1;
        if (db->txn != NULL) {
            apr_dbd_transaction_mode_set(db->driver, db->txn,
                                         APR_DBD_TRANSACTION_COMMIT);
        }
        return APR_SUCCESS;
    }
    if (db->txn != NULL) {
        apr_dbd_transaction_mode_set(db->driver, db->txn,
                                     APR_DBD_TRANSACTION_ROLLBACK);
        apr_dbd_transaction_end(db->driver, db->pool, db->txn);
        db->txn = NULL;
    }
    return pl_db_classify(db, ret);
}

apr_status_t pl_db_begin(pl_db_t *db)
{
    apr_status_t rv;
    int first;

    if (db->depth++ > 0) {
        return APR_SUCCESS;
    }
    db->rollback_only = 0;
    db->savepoints = 0;
    first = pl_db_first_call(db);
    rv = begin_once(db);
    if (rv != APR_SUCCESS && pl_db_reconnected(db, first)) {
        rv = begin_once(db);
    }
    if (rv != APR_SUCCESS) {
        db->depth = 0;
    }
    return rv;
}

apr_status_t pl_db_end(pl_db_t *db, apr_status_t rv)
{
    int ret;

    if (db->depth == 0) {
        return rv;
    }
    if (rv != APR_SUCCESS) {
        db->rollback_only = 1;
    }
    if (--db->depth > 0) {
        return rv;
    }
    if (!db->in_txn) {
        return rv;
    }
    if (db->rollback_only && rv == APR_SUCCESS) {
        /* an inner failure its caller ignored: nothing was written */
        db->errstr = "an inner part of the transaction failed";
        rv = PL_EDB;
    }
    pl_log(db->log, PL_LOG_TRACE1, rv, PL_LOGNO(05004) "sql %s",
           db->rollback_only ? "rollback" : "commit");
    if (db->txn == NULL) {
        int changed;

        ret = apr_dbd_query(db->driver, db->handle, &changed,
                            db->rollback_only ? "ROLLBACK" : "COMMIT");
    }
    else {
        apr_dbd_transaction_mode_set(db->driver, db->txn,
                                     db->rollback_only
                                         ? APR_DBD_TRANSACTION_ROLLBACK
                                         : APR_DBD_TRANSACTION_COMMIT);
        ret = apr_dbd_transaction_end(db->driver, db->pool, db->txn);
    }
    db->txn = NULL;
    db->in_txn = 0;
    if (ret != 0 && rv == APR_SUCCESS) {
        return pl_db_classify(db, ret);
    }
    if (ret != 0) {
        /* a ROLLBACK that failed: the session may be gone, and mod_dbd
         * may make a new one under the handle before its next use */
        db->cs->suspect = 1;
    }
    return rv;
}

int pl_db_depth(const pl_db_t *db)
{
    return db->depth;
}

/* apr_dbd's drivers (MySQL's, SQLite's: PostgreSQL's transactions are
 * pl_db's own) remember the first failed statement of a transaction and
 * refuse every later one (and roll back at the end) unless the
 * transaction ignores errors; inside a savepoint region it does, and the
 * region rolls back to its savepoint itself. */
static void ignore_errors(pl_db_t *db, int on)
{
    if (db->txn) {
        apr_dbd_transaction_mode_set(db->driver, db->txn,
                                     on ? APR_DBD_TRANSACTION_COMMIT |
                                              APR_DBD_TRANSACTION_IGNORE_ERRORS
                                        : APR_DBD_TRANSACTION_COMMIT);
    }
}

apr_status_t pl_db_savepoint(pl_db_t *db, const char *name)
{
    apr_status_t rv;

    if (db->depth == 0) {
        return APR_SUCCESS;
    }
    rv = pl_db_exec_text(db, NULL,
                         apr_pstrcat(db->pool, "SAVEPOINT ", name, NULL));
    if (rv == APR_SUCCESS && db->savepoints++ == 0) {
        ignore_errors(db, 1);
    }
    return rv;
}

apr_status_t pl_db_release(pl_db_t *db, const char *name, apr_status_t rv)
{
    apr_status_t rv2;

    if (db->depth == 0 || db->savepoints == 0) {
        return rv;
    }
    /* errors noticed again before closing the region: apr_dbd_pgsql
     * wraps each statement of an error-ignoring transaction in a
     * savepoint of its own, which RELEASE / ROLLBACK TO ours would drop
     * from under it */
    ignore_errors(db, 0);
    if (rv == APR_SUCCESS) {
        rv2 = pl_db_exec_text(
            db, NULL, apr_pstrcat(db->pool, "RELEASE SAVEPOINT ", name, NULL));
    }
    else if (rv == PL_EDEADLOCK) {
        /* the victim's transaction is gone (MySQL) or unusable
         * (PostgreSQL): only the whole of it can be retried */
        rv2 = rv;
    }
    else {
        rv2 = pl_db_exec_text(
            db, NULL,
            apr_pstrcat(db->pool, "ROLLBACK TO SAVEPOINT ", name, NULL));
        rv2 = rv2 != APR_SUCCESS ? rv2 : rv;
    }
    if (--db->savepoints > 0) {
        ignore_errors(db, 1);
    }
    if (rv2 != APR_SUCCESS && rv2 != rv) {
        /* the region could not be closed: nothing more may commit */
        db->rollback_only = 1;
    }
    return rv2;
}

/* The pause before the n-th retry after a deadlock: n times 5 ms, give
 * or take half, so that writers a deadlock released together (a herd
 * after a database restart) do not meet again at the same moment. */
static apr_interval_time_t deadlock_pause(const pl_db_t *db, int n)
{
    apr_uint64_t x = (apr_uint64_t)apr_time_now() ^
                     ((apr_uint64_t)(apr_uintptr_t)db << 16);

    /* splitmix64's finaliser: the clock's and the address's bits mixed */
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return (apr_interval_time_t)n * (2500 + (apr_interval_time_t)(x % 5000));
}

apr_status_t pl_db_run_txn_prep(pl_db_t *db, apr_pool_t *p, pl_db_txn_fn *fn,
                                pl_db_txn_fn *prep, void *baton,
                                int max_attempts, pl_db_txn_stats_t *stats)
{
    pl_db_txn_stats_t local = { 0, 0 };
    apr_pool_t *attempt;
    apr_status_t rv;
    int tries = 1;

    if (stats == NULL) {
        stats = &local;
    }
    if (db->depth > 0) {
        /* part of a larger write: its owner retries the whole of it */
        return fn(db, p, baton);
    }
    apr_pool_create(&attempt, p);
    apr_pool_tag(attempt, "pl_db_txn_attempt");
    for (;;) {
        apr_pool_clear(attempt);
        rv = pl_db_begin(db);
        if (rv == APR_SUCCESS) {
            rv = pl_db_end(db, fn(db, attempt, baton));
        }
        if (rv == PL_DB_ERETRY && tries < max_attempts) {
            tries++;
            stats->retries++;
            pl_log(db->log, PL_LOG_DEBUG, 0,
                   PL_LOGNO(05001) "transaction run again (attempt %d of "
                                   "%d): a concurrent writer came first",
                   tries, max_attempts);
            continue;
        }
        if (rv == PL_EDEADLOCK && stats->deadlocks < PL_DB_DEADLOCK_RETRIES) {
            stats->deadlocks++;
            pl_log(db->log, PL_LOG_DEBUG, 0,
                   PL_LOGNO(05002) "transaction run again after a deadlock "
                                   "or serialization failure (%d of %d): %s",
                   stats->deadlocks, PL_DB_DEADLOCK_RETRIES, db->errstr);
            apr_sleep(deadlock_pause(db, stats->deadlocks));
            if (prep != NULL) {
                apr_pool_clear(attempt);
                prep(db, attempt, baton); /* a failure shows in fn again */
            }
            continue;
        }
        break;
    }
    /* attempt stays (a child of p): the last attempt's results live in it */
    return rv;
}

apr_status_t pl_db_run_txn(pl_db_t *db, apr_pool_t *p, pl_db_txn_fn *fn,
                           void *baton, int max_attempts,
                           pl_db_txn_stats_t *stats)
{
    return pl_db_run_txn_prep(db, p, fn, NULL, baton, max_attempts, stats);
}
