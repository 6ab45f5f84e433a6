/* Licensed under the Apache License, Version 2.0.
 *
 * pl_db.c: the apr_dbd wrapper declared in pl_db.h, its bottom half:
 * the state kept with a connection and its setup, the checks of the
 * session after a failure and the reconnect, the classification of
 * driver errors into the few outcomes callers act on (duplicate,
 * deadlock, other), reading a result's rows, and the helpers for values.
 * Statements run in pl_db_stmt.c, lists of values in pl_db_list.c,
 * transactions in pl_db_txn.c. No httpd headers: unit tests use it on a bare apr_dbd
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
        pl_db_read_rows(db, db->pool, res, &rows) == APR_SUCCESS &&
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

/* Map a driver error onto what callers act upon, by its text. Drivers
 * only give us text, so we look for the phrases each database uses.
 * apr_dbd_mysql ends a transaction with COMMIT then "SET autocommit=1",
 * whose success clears the COMMIT's error text; ret is then mysql_commit's
 * flag, 1. Such a COMMIT was refused by a server that stayed up (a lost
 * connection fails the second statement too, with text) and rolled back:
 * on Galera a certification failure (1213), retried as the deadlock it
 * is. Another number without text in a transaction is the driver
 * repeating an earlier failure: pl_db_classify says which. */
static apr_status_t classify_text(pl_db_t *db, int ret)
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

/* Classify a failure, and remember a transaction's first one. After a
 * failed statement, apr_dbd's transaction (MySQL, SQLite; PostgreSQL's
 * is our own BEGIN) sends nothing more: it answers each later statement
 * with the failure's number. The connection's text is by then another
 * call's, often empty (a new statement's PREPARE clears it), so that
 * answer is taken as the failure it repeats: a deadlock stays a
 * deadlock, retried, where "error 1213" made a 500 (a Galera BF abort,
 * CI's t/galera/run). Inside a savepoint region failures are not
 * noticed, hence not repeated. */
apr_status_t pl_db_classify(pl_db_t *db, int ret)
{
    apr_status_t rv;

    if (db->txn != NULL && db->failed_ret != 0 && ret == db->failed_ret) {
        db->errstr = db->failed_errstr;
        return db->failed_rv;
    }
    rv = classify_text(db, ret);
    if (db->txn != NULL && db->savepoints == 0 && db->failed_ret == 0) {
        db->failed_ret = ret;
        db->failed_rv = rv;
        db->failed_errstr = db->errstr;
    }
    return rv;
}

const char *pl_db_quote(pl_db_t *db, apr_pool_t *p, const char *value)
{
    return apr_pstrcat(p, "'", apr_dbd_escape(db->driver, p, value, db->handle),
                       "'", NULL);
}

/* Call fn for every row of res, its cells NULL for SQL NULL. Reads to
 * the end (-1) even once fn failed: drivers only release a result once
 * it has been read through. */
apr_status_t pl_db_each_row(pl_db_t *db, apr_pool_t *p, apr_dbd_results_t *res,
                            pl_db_row_fn *fn, void *baton)
{
    apr_dbd_row_t *row = NULL;
    const char **cells = NULL;
    apr_status_t rv = APR_SUCCESS;
    int ncols = 0, j, ret;

    db->nrows = 0;
    while ((ret = apr_dbd_get_row(db->driver, p, res, &row, -1)) == 0) {
        db->nrows++;
        if (cells == NULL) {
            /* pgsql sequential results know their columns only once
             * the first row is fetched */
            ncols = apr_dbd_num_cols(db->driver, res);
            cells = apr_palloc(p, (ncols + 1) * sizeof(*cells));
        }
        if (rv != APR_SUCCESS) {
            continue;
        }
        for (j = 0; j < ncols; j++) {
            const char *v = apr_dbd_get_entry(db->driver, row, j);
            char *s = NULL;

            /* pgsql gives "" for SQL NULL; datum_get tells them apart */
            if (v && *v == '\0' &&
                apr_dbd_datum_get(db->driver, row, j, APR_DBD_TYPE_STRING,
                                  &s) == APR_ENOENT) {
                v = NULL;
            }
            cells[j] = v;
        }
        rv = fn(baton, ncols, cells);
    }
    return ret == -1 ? rv : pl_db_classify(db, ret);
}

typedef struct copy_rows_t {
    apr_pool_t *p;
    pl_rows_t *rows;
    apr_array_header_t *cells;
} copy_rows_t;

/* Every cell copied: drivers reuse their row buffers, and apr_dbd_pgsql
 * clears a whole result once its last row is read. */
static apr_status_t copy_row(void *baton, int ncols, const char *const *cells)
{
    copy_rows_t *c = baton;
    int j;

    c->rows->ncols = ncols;
    for (j = 0; j < ncols; j++) {
        APR_ARRAY_PUSH(c->cells,
                       const char *) = cells[j] ? apr_pstrdup(c->p, cells[j])
                                                : NULL;
    }
    c->rows->nrows++;
    return APR_SUCCESS;
}

apr_status_t pl_db_read_rows(pl_db_t *db, apr_pool_t *p, apr_dbd_results_t *res,
                             pl_rows_t **prows)
{
    copy_rows_t c;
    apr_status_t rv;

    c.p = p;
    c.rows = apr_pcalloc(p, sizeof(*c.rows));
    c.rows->ncols = apr_dbd_num_cols(db->driver, res);
    c.cells = apr_array_make(p, 16 * (c.rows->ncols ? c.rows->ncols : 1),
                             sizeof(const char *));
    rv = pl_db_each_row(db, p, res, copy_row, &c);
    c.rows->cells = (const char **)c.cells->elts;
    *prows = c.rows;
    return rv;
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
