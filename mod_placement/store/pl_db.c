/* Licensed under the Apache License, Version 2.0.
 *
 * pl_db.c: the apr_dbd wrapper declared in pl_db.h, its session half:
 * the state kept with a connection and its setup, the checks of the
 * session after a failure and the reconnect, the classification of
 * driver errors into the few outcomes callers act on (duplicate,
 * deadlock, other), transactions, savepoints and their retries, and the
 * helpers for values. Statements run in pl_db_stmt.c, lists of values
 * in pl_db_list.c. No httpd headers: unit tests use it on a bare apr_dbd
 * handle.
 */
#include <string.h>
#include <stdlib.h>
#include <apr_lib.h>
#include <apr_strings.h>
#include <apr_time.h>
#include <apr_tables.h>

#include "pl_db_private.h"

#define PREPARED_KEY "pl_db_prepared"

/* The server-side statement timeout (PlacementStatementTimeout), when it
 * differs from what the connection has: once per new connection, again
 * only if a location with another value uses it. A statement past it is
 * cancelled by the server, its transaction rolled back by pl_db_end, and
 * the request answers 500 as upstream's would on any database error.
 * MariaDB: max_statement_time also cuts a row lock wait, and the lock
 * wait timeout is set above it, so such a wait ends in the timeout (not
 * retried) rather than in "Lock wait timeout", which is retried as a
 * deadlock. SQLite: apr_dbd offers no progress handler; busy_timeout
 * bounds its only waits (for a writer). */
static void set_statement_timeout(pl_db_t *db, conn_state_t *cs, int seconds)
{
    int changed;

    if (cs->timeout == seconds) {
        return;
    }
    cs->timeout = seconds;
    switch (db->dialect) {
    case PL_DB_PGSQL:
        /* in ms, at most INT_MAX: 0 is "none" there too */
        apr_dbd_query(
            db->driver, db->handle, &changed,
            apr_psprintf(db->pool, "SET statement_timeout = %" APR_INT64_T_FMT,
                         seconds > 2000000 ? (apr_int64_t)2000000000
                                           : (apr_int64_t)seconds * 1000));
        break;
    case PL_DB_MYSQL:
        apr_dbd_query(db->driver, db->handle, &changed,
                      apr_psprintf(db->pool,
                                   "SET SESSION max_statement_time = %d",
                                   seconds));
        apr_dbd_query(db->driver, db->handle, &changed,
                      apr_psprintf(db->pool,
                                   "SET SESSION innodb_lock_wait_timeout = %d",
                                   seconds > 0 ? seconds + 1 : 50));
        break;
    default:
        break;
    }
}

/* SQLite: write-ahead logging, so that reads go on while a write runs.
 * With the rollback journal, a write that outgrew SQLite's page cache
 * took the exclusive lock until its commit, and every read waited for
 * it; worse, apr_dbd_sqlite3 runs all the connections of a process
 * behind one mutex, which SQLite's busy wait keeps: a read waiting in
 * the same process stopped the write it waited for until busy_timeout
 * ran out, then failed "database is locked" (a PUT of 50,000
 * aggregates stalled 10 to 30 s beside a GET every 0.2 s). The mode
 * stays with the file (scripts/db-init.sh makes it so); switching needs
 * the file alone, else the next new connection tries again. It is tried
 * before busy_timeout is set: a connection that cannot switch at once
 * gives up at once instead of holding its child's threads behind
 * apr_dbd_sqlite3's mutex while another child starts. An in-memory
 * database keeps its own. */
static void sqlite_wal(pl_db_t *db)
{
    apr_dbd_results_t *res = NULL;
    apr_dbd_row_t *row = NULL;

    /* it answers the mode now in force: read to the end */
    if (apr_dbd_select(db->driver, db->pool, db->handle, &res,
                       "PRAGMA journal_mode = WAL", 0) == 0) {
        while (apr_dbd_get_row(db->driver, db->pool, res, &row, -1) == 0) {
            continue;
        }
    }
}

/* The server's name for the session (buf, "" when it cannot say):
 * PostgreSQL's backend process id, MariaDB's connection id; SQLite's
 * sessions are never remade. */
static void session_of(pl_db_t *db, char *buf, apr_size_t size)
{
    const char *sql = db->dialect == PL_DB_PGSQL   ? "SELECT pg_backend_pid()"
                      : db->dialect == PL_DB_MYSQL ? "SELECT CONNECTION_ID()"
                                                   : NULL;
    apr_dbd_results_t *res = NULL;
    pl_rows_t *rows;

    buf[0] = '\0';
    if (sql == NULL) {
        apr_cpystrn(buf, "sqlite", size);
        return;
    }
    /* as every read: apr_dbd_pgsql's sequential results are not safe */
    if (apr_dbd_select(db->driver, db->pool, db->handle, &res, sql,
                       pl_db_random_access(db)) == 0 &&
        pl_db_stmt_read_rows(db, db->pool, res, &rows) == APR_SUCCESS &&
        rows->nrows == 1 && rows->ncols == 1 && PL_CELL(rows, 0, 0)) {
        apr_cpystrn(buf, PL_CELL(rows, 0, 0), size);
    }
}

/* Once per new connection: what each dialect needs to behave like
 * upstream's sessions. MySQL: TRADITIONAL as oslo.db sets it, plus
 * NO_AUTO_VALUE_ON_ZERO so resource class id 0 (VCPU) can be inserted;
 * READ COMMITTED so a retried transaction sees what others committed;
 * on a Galera node, reads, updates and deletes that wait until the node
 * has applied what the cluster committed before them (wsrep_sync_wait 3:
 * a client that wrote through one node and reads or deletes through
 * another sees its write; apr_dbd_mysql opens transactions with
 * autocommit=0, not BEGIN, so their first statement may be a DELETE), and an
 * autocommit statement that loses certification (two nodes inserting the
 * same project at once) retried by the server itself, as its callers do
 * not retry; both are ignored without Galera. SQLite: wait for a writer
 * instead of failing at once, and write ahead (sqlite_wal). PostgreSQL:
 * no JIT (it compiled for 19 ms a 30 ms candidate query at 100,000
 * providers), and random_page_cost
 * as for data in memory, which placement's indexes are: with the default
 * of 4 (a spinning disk) the planner reads whole tables into hash joins
 * where a few thousand index probes answer ten times faster (the
 * providers of 2,000 trees: 25 ms instead of 2.4 ms); and the plan a
 * statement kept with its arguments (kept_args_name) has for any values,
 * made once: these are the fixed statements, lookups by key and lists of
 * ids, whose best plan does not change with their values (texts whose
 * plan does are written with their values). PostgreSQL's own choice
 * planned the claim's capacity read at every run, 0.47 ms where its
 * generic plan runs in 0.10: it prices "= ANY($1)" at ten values. */
static void session_setup(pl_db_t *db, conn_state_t *cs)
{
    int changed;

    switch (db->dialect) {
    case PL_DB_PGSQL:
        apr_dbd_query(db->driver, db->handle, &changed, "SET jit = off");
        apr_dbd_query(db->driver, db->handle, &changed,
                      "SET random_page_cost = 1.1");
        apr_dbd_query(db->driver, db->handle, &changed,
                      "SET plan_cache_mode = force_generic_plan");
        break;
    case PL_DB_MYSQL:
        apr_dbd_query(db->driver, db->handle, &changed,
                      "SET SESSION sql_mode = "
                      "'TRADITIONAL,NO_AUTO_VALUE_ON_ZERO'");
        apr_dbd_query(db->driver, db->handle, &changed,
                      "SET SESSION TRANSACTION ISOLATION LEVEL "
                      "READ COMMITTED");
        apr_dbd_query(db->driver, db->handle, &changed,
                      "SET SESSION wsrep_retry_autocommit = 10");
        apr_dbd_query(db->driver, db->handle, &changed,
                      "SET SESSION wsrep_sync_wait = 3");
        break;
    case PL_DB_SQLITE:
        sqlite_wal(db); /* before the busy wait: no waiting for it */
        apr_dbd_query(db->driver, db->handle, &changed,
                      "PRAGMA busy_timeout = 10000");
        break;
    default:
        break;
    }
    /* what the server has before we set anything */
    cs->timeout = 0;
    cs->suspect = 0;
    session_of(db, cs->session, sizeof(cs->session));
}

/* A new session under the old handle: forget what we made in the old one
 * (its statements stay in conn_pool until the connection goes) and set
 * the new one up. */
static void session_renew(pl_db_t *db, conn_state_t *cs)
{
    apr_hash_clear(cs->prepared);
    apr_hash_clear(cs->by_sql);
    apr_hash_clear(cs->kept_args);
    memset(cs->cached, 0, sizeof(cs->cached));
    memset(cs->seen, 0, sizeof(cs->seen));
    session_setup(db, cs);
}

pl_db_t *pl_db_wrap(apr_pool_t *p, apr_pool_t *conn_pool,
                    const apr_dbd_driver_t *driver, apr_dbd_t *handle,
                    int statement_timeout)
{
    pl_db_t *db = apr_pcalloc(p, sizeof(*db));
    const char *name = apr_dbd_name(driver);
    void *cache = NULL;
    conn_state_t *cs;

    db->pool = p;
    db->conn_pool = conn_pool;
    db->driver = driver;
    db->handle = handle;
    db->errstr = "";
    if (!strcmp(name, "pgsql")) {
        db->dialect = PL_DB_PGSQL;
    }
    else if (!strcmp(name, "mysql")) {
        db->dialect = PL_DB_MYSQL;
    }
    else {
        db->dialect = PL_DB_SQLITE;
    }
    /* The statement cache belongs to the connection, not to the request:
     * a prepared statement is only valid on the handle that prepared it. */
    apr_pool_userdata_get(&cache, PREPARED_KEY, conn_pool);
    cs = cache;
    if (cs == NULL) {
        cs = apr_pcalloc(conn_pool, sizeof(*cs));
        cs->prepared = apr_hash_make(conn_pool);
        cs->by_sql = apr_hash_make(conn_pool);
        cs->kept_args = apr_hash_make(conn_pool);
        apr_pool_userdata_set(cs, PREPARED_KEY, NULL, conn_pool);
        db->cs = cs; /* what an error in the setup marks */
        session_setup(db, cs);
    }
    db->prepared = cs->prepared;
    db->cs = cs;
    db->timeout = statement_timeout;
    return db;
}

/* Whether the session our state was made in is still the connection's;
 * if not, set the new one up. */
static void session_check(pl_db_t *db)
{
    char now[sizeof(db->cs->session)];

    session_of(db, now, sizeof(now));
    if (now[0] == '\0' || strcmp(now, db->cs->session) != 0) {
        pl_log(db->log, PL_LOG_INFO, 0,
               PL_LOGNO(05005) "database session %s replaced by %s: "
                               "set up again",
               db->cs->session[0] ? db->cs->session : "(unknown)",
               now[0] ? now : "(none yet)");
        session_renew(db, db->cs);
    }
    db->cs->suspect = 0;
}

/* Call before each statement sent to the server: true for the first of
 * this use of the connection. Then, if a statement failed in an earlier
 * use, the session is checked (one query: the driver may have reconnected
 * since, whatever the error said), and the statement timeout set. */
int pl_db_first_call(pl_db_t *db)
{
    if (db->calls++ > 0) {
        return 0;
    }
    if (db->cs->suspect) {
        session_check(db);
    }
    set_statement_timeout(db, db->cs, db->timeout);
    return 1;
}

/* After the first statement of a use failed: whether the connection had
 * died while it waited in the pool (a database restart, a proxy's idle
 * timeout, pg_terminate_backend) and has been made again, its session set
 * up, so that the caller sends the statement again. Nothing of this use
 * reached the database before, so nothing is done twice: the client sees
 * a fresh connection, as oslo.db's ping at checkout gives upstream. */
int pl_db_reconnected(pl_db_t *db, int first)
{
    char before[sizeof(db->cs->session)];

    if (!first || db->dialect == PL_DB_SQLITE) {
        return 0;
    }
    /* PQreset / mysql_ping with reconnect: as mod_dbd's check does */
    if (apr_dbd_check_conn(db->driver, db->pool, db->handle) != APR_SUCCESS) {
        return 0; /* the database is not back: the error stands */
    }
    memcpy(before, db->cs->session, sizeof(before));
    session_check(db);
    if (strcmp(before, db->cs->session) == 0) {
        return 0; /* the same session: the statement itself failed */
    }
    set_statement_timeout(db, db->cs, db->timeout);
    pl_log(db->log, PL_LOG_NOTICE, 0,
           PL_LOGNO(05006) "the pooled database connection had died (%s): "
                           "reconnected, the statement sent again",
           db->errstr);
    return 1;
}

pl_db_dialect_e pl_db_dialect(const pl_db_t *db)
{
    return db->dialect;
}

apr_pool_t *pl_db_pool(const pl_db_t *db)
{
    return db->pool;
}

const char *pl_db_errstr(const pl_db_t *db)
{
    return db->errstr ? db->errstr : "";
}

/* Whether the error says the session is gone (connection lost, or the
 * driver dropped our prepared statements): the driver may reconnect on
 * its own afterwards. MySQL: the client library's own errors (CR_*,
 * 2000-2999, e.g. 2013 lost connection, 2030 statement not prepared). */
static int session_gone(const pl_db_t *db, int ret)
{
    const char *e = db->errstr;

    if (db->dialect == PL_DB_MYSQL) {
        return (ret >= 2000 && ret < 3000) || strstr(e, "Lost connection") ||
               strstr(e, "gone away") || strstr(e, "Can't connect");
    }
    return db->dialect == PL_DB_PGSQL &&
           (strstr(e, "server closed the connection") ||
            strstr(e, "terminating connection") ||
            strstr(e, "no connection to the server") ||
            (strstr(e, "prepared statement \"pl_") &&
             strstr(e, "does not exist")));
}

/* Map a driver error onto what callers act upon. Drivers only give us
 * text, so we look for the phrases each database uses.
 * apr_dbd_mysql ends a transaction with COMMIT then "SET autocommit=1",
 * whose success clears the COMMIT's error text; ret is then mysql_commit's
 * flag, 1. Such a COMMIT was refused by a server that stayed up (a lost
 * connection fails the second statement too, with text) and rolled back:
 * on Galera a certification failure (1213), retried as the deadlock it
 * is. A prepared statement's error number (ret) stays on the statement:
 * its text is not the connection's either. */
apr_status_t pl_db_classify(pl_db_t *db, int ret)
{
    const char *msg = apr_dbd_error(db->driver, db->handle, ret);

    if (msg == NULL || *msg == '\0') {
        if (db->dialect == PL_DB_MYSQL && ret == 1) {
            db->errstr = "COMMIT refused and rolled back (deadlock or "
                         "Galera certification failure)";
            return PL_EDEADLOCK;
        }
        /* the client library's own errors (CR_*: 2013 lost, 2006 gone
         * away...) reach us as a bare number when the server went away
         * between statements */
        db->errstr = db->dialect == PL_DB_MYSQL && ret >= 2000 && ret < 3000
                         ? apr_psprintf(db->pool,
                                        "client error %d: the connection to "
                                        "the server was lost or refused",
                                        ret)
                         : apr_psprintf(db->pool, "error %d", ret);
    }
    else {
        db->errstr = apr_pstrdup(db->pool, msg);
    }
    /* whatever the text says, the driver may reconnect before the next
     * use (first_call checks) */
    db->cs->suspect = 1;
    /* a failure in a transaction, outside a savepoint region, leaves it
     * good for nothing but ROLLBACK (PostgreSQL refuses all else) */
    if (db->in_txn && db->savepoints == 0) {
        db->rollback_only = 1;
    }
    if (session_gone(db, ret)) {
        return PL_EDB;
    }
    if (strstr(db->errstr, "duplicate key") ||
        strstr(db->errstr, "Duplicate entry") ||
        strstr(db->errstr, "UNIQUE constraint") ||
        strstr(db->errstr, "unique constraint")) {
        return APR_EEXIST;
    }
    if (strstr(db->errstr, "deadlock") || strstr(db->errstr, "Deadlock") ||
        strstr(db->errstr, "could not serialize") ||
        strstr(db->errstr, "Lock wait timeout") ||
        strstr(db->errstr, "try restarting transaction") ||
        strstr(db->errstr, "database is locked") ||
        strstr(db->errstr, "database table is locked")) {
        return PL_EDEADLOCK;
    }
    return PL_EDB;
}

const char *pl_db_quote(pl_db_t *db, apr_pool_t *p, const char *value)
{
    return apr_pstrcat(p, "'", apr_dbd_escape(db->driver, p, value, db->handle),
                       "'", NULL);
}

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

apr_status_t pl_db_int64(const pl_rows_t *rows, int i, int j, apr_int64_t *pval)
{
    const char *v;

    if (rows == NULL || i >= rows->nrows || j >= rows->ncols) {
        return APR_ENOENT;
    }
    v = PL_CELL(rows, i, j);
    if (v == NULL) {
        return APR_ENOENT;
    }
    *pval = apr_atoi64(v);
    return APR_SUCCESS;
}

apr_int64_t pl_db_cell_i64(const char *cell)
{
    const char *d;
    apr_int64_t v = 0;
    int n;

    if (cell == NULL) {
        return 0;
    }
    d = cell + (*cell == '-');
    /* up to 18 digits cannot overflow; anything else goes to apr_atoi64 */
    for (n = 0; n <= 18 && d[n] >= '0' && d[n] <= '9'; n++) {
        v = v * 10 + (d[n] - '0');
    }
    if (n == 0 || n > 18 || (d[n] != '\0' && d[n] != '.')) {
        return apr_atoi64(cell);
    }
    return *cell == '-' ? -v : v;
}

const char *pl_db_i64(apr_pool_t *p, apr_int64_t v)
{
    return apr_psprintf(p, "%" APR_INT64_T_FMT, v);
}

const char *pl_db_id_list(apr_pool_t *p, const apr_int64_t *ids, int n)
{
    char *buf = apr_palloc(p, (apr_size_t)n * 21 + 1), *s = buf;
    int i;

    *s = '\0';
    for (i = 0; i < n; i++) {
        s += apr_snprintf(s, 22, i ? ",%" APR_INT64_T_FMT : "%" APR_INT64_T_FMT,
                          ids[i]);
    }
    return buf;
}

const char *pl_db_id_array(apr_pool_t *p, const apr_array_header_t *ids)
{
    return pl_db_id_list(p, (const apr_int64_t *)ids->elts, ids->nelts);
}

void pl_db_now_buf(char *buf, apr_size_t size)
{
    apr_time_exp_t t;
    apr_size_t len;

    apr_time_exp_gmt(&t, apr_time_now());
    apr_strftime(buf, &len, size, "%Y-%m-%d %H:%M:%S", &t);
}

const char *pl_db_now(apr_pool_t *p)
{
    char buf[32];

    pl_db_now_buf(buf, sizeof(buf));
    return apr_pstrdup(p, buf);
}
