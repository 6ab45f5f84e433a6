/* Licensed under the Apache License, Version 2.0.
 *
 * pl_db.c: the apr_dbd wrapper declared in pl_db.h. Owns statement
 * preparation (once per connection, cached in the connection's pool),
 * whole-result reads, transactions and the classification of driver
 * errors into the few outcomes callers act on (duplicate, deadlock,
 * other). No httpd headers: unit tests use it on a bare apr_dbd handle.
 */
#include <string.h>
#include <stdlib.h>
#include <apr_lib.h>
#include <apr_strings.h>
#include <apr_time.h>
#include <apr_tables.h>

#include "pl_db.h"

struct pl_db_t {
    apr_pool_t *pool;      /* this use (request) */
    apr_pool_t *conn_pool; /* lives with the connection */
    const apr_dbd_driver_t *driver;
    apr_dbd_t *handle;
    apr_hash_t *prepared; /* sql text -> apr_dbd_prepared_t */
    struct conn_state_t *cs;
    apr_dbd_transaction_t *txn; /* the driver's (not PostgreSQL's) */
    int in_txn;                 /* a transaction is open */
    int depth;                  /* of pl_db_begin/pl_db_end */
    int rollback_only;          /* an inner part failed */
    int savepoints;             /* open pl_db_savepoint regions */
    pl_db_dialect_e dialect;
    const char *errstr;
    const pl_log_t *log; /* NULL: nothing logged */
    int nrows;           /* rows the last each_row() read */
    int calls;           /* statements sent in this use (first_call) */
    int timeout;         /* PlacementStatementTimeout, seconds */
};

#define PREPARED_KEY "pl_db_prepared"

/* pl_db_select_cached: how many texts one connection keeps prepared */
#define CACHED_MAX 64

/* A text pl_db_select_cached keeps prepared, as pl_cached_<its slot>. */
typedef struct cached_t {
    apr_pool_t *pool; /* its text and statement; NULL: a free slot */
    const char *sql;
    apr_dbd_prepared_t *stmt;
    apr_uint64_t used; /* the connection's tick when it last ran */
} cached_t;

/* Fingerprints of texts run once, for a text to be kept only when it
 * comes again: one-off texts (a random shape, a page of a walk) then
 * never push a frequent one out, which would cost a DEALLOCATE and a
 * PREPARE more than running them as text. Direct-mapped: a text whose
 * slot another took meanwhile just waits for its next run. */
#define SEEN_SLOTS 1024

/* PostgreSQL: how many texts with arguments one connection keeps
 * prepared under a name of its own (pl_args_<n>); past this many, a text
 * runs unnamed. The code has a few hundred such texts (its fixed
 * statements and each list statement's bounded shapes), a connection
 * uses far fewer (nova's claims and reads: about a dozen); each costs its
 * server session 4 to 110 KB (pg_log_backend_memory_contexts), so a
 * session's kept statements stay below 30 MB whatever comes. */
#define KEPT_ARGS_MAX 256

/* ... and only those of at most this many arguments: a list statement's
 * big chunks (hundreds of rows) cost little to parse for each of their
 * rows, and much more to keep. */
#define KEPT_ARGS_NARGS 64

/* What lives with the connection. */
typedef struct conn_state_t {
    apr_hash_t *prepared;  /* pl_db_select's and pl_db_exec's texts */
    apr_hash_t *kept_args; /* PostgreSQL: such a text -> its name */
    apr_hash_t *by_sql;    /* text -> cached_t */
    cached_t cached[CACHED_MAX];
    apr_uint32_t seen[SEEN_SLOTS];
    apr_uint64_t ticks;
    int timeout; /* statement timeout set on it, seconds */
    /* the server's name for the session our state was made in (its
     * process or thread id): a driver that reconnected by itself (mod_dbd
     * checks each connection it hands out: PQreset, mysql_ping) shows
     * another, and nothing of ours is in that session */
    char session[24];
    int suspect; /* a statement failed: is it still our session? */
} conn_state_t;

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

static void session_of(pl_db_t *db, char *buf, apr_size_t size);

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
static int first_call(pl_db_t *db)
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
static int reconnected(pl_db_t *db, int first)
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
static apr_status_t classify(pl_db_t *db, int ret)
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

/* The statement of sql (with arguments), prepared once per connection:
 * on the server for MySQL and SQLite. PostgreSQL's (apr_dbd_pgsql runs
 * it as a one-off query each time, parsed and planned again) is only
 * the fallback of kept_args_name's. */
static apr_status_t prepare(pl_db_t *db, const char *sql,
                            apr_dbd_prepared_t **pstmt)
{
    apr_dbd_prepared_t *stmt = apr_hash_get(db->prepared, sql,
                                            APR_HASH_KEY_STRING);
    int ret;

    if (stmt == NULL) {
        const char *key = apr_pstrdup(db->conn_pool, sql);

        ret = apr_dbd_prepare(db->driver, db->conn_pool, db->handle, key, NULL,
                              &stmt);
        if (ret != 0) {
            return classify(db, ret);
        }
        apr_hash_set(db->prepared, key, APR_HASH_KEY_STRING, stmt);
    }
    *pstmt = stmt;
    return APR_SUCCESS;
}

/* sql with PostgreSQL's $1, $2... for its "%s" and '%' for "%%"; NULL
 * when it has another apr_dbd argument (%d, %pDt...: the store's texts
 * have none; such a text runs unnamed). */
static char *dollar_text(apr_pool_t *p, const char *sql)
{
    /* "%s" becomes at most "$65535" (PostgreSQL's most arguments) */
    char *text = apr_palloc(p, strlen(sql) * 3 + 1), *w = text;
    const char *q;
    int n = 0;

    for (q = sql; *q; q++) {
        if (q[0] != '%' || (q[1] != '%' && !apr_isalpha(q[1]))) {
            *w++ = *q;
        }
        else if (q[1] == '%') {
            *w++ = *q++;
        }
        else if (q[1] != 's') {
            return NULL;
        }
        else {
            w += apr_snprintf(w, 16, "$%d", ++n);
            q++;
        }
    }
    *w = '\0';
    return text;
}

/* PostgreSQL: the name sql (a text with arguments) is kept prepared
 * under on this connection (*pname), prepared at its first run; *pname
 * NULL when it runs unnamed (past KEPT_ARGS_MAX, more than
 * KEPT_ARGS_NARGS arguments, or one not "%s"). The server reads the
 * arguments' types from the text, as it does for an unnamed statement
 * (apr_dbd_pgsql's own named statements would type every "%s" varchar,
 * and an id compared with a varchar is an error); parsing and planning
 * then happen once, not at every run: half of a claim's database CPU.
 * A PREPARE outlives a transaction rolled back around it. */
static apr_status_t kept_args_name(pl_db_t *db, const char *sql, int nargs,
                                   const char **pname)
{
    conn_state_t *cs = db->cs;
    const char *name = apr_hash_get(cs->kept_args, sql, APR_HASH_KEY_STRING);
    const char *text;
    int changed, ret;

    *pname = name;
    if (name != NULL || nargs > KEPT_ARGS_NARGS ||
        apr_hash_count(cs->kept_args) >= KEPT_ARGS_MAX ||
        (text = dollar_text(db->pool, sql)) == NULL) {
        return APR_SUCCESS;
    }
    name = apr_psprintf(db->conn_pool, "pl_args_%u",
                        apr_hash_count(cs->kept_args));
    ret = apr_dbd_query(
        db->driver, db->handle, &changed,
        apr_pstrcat(db->pool, "PREPARE ", name, " AS ", text, NULL));
    if (ret != 0) {
        return classify(db, ret);
    }
    apr_hash_set(cs->kept_args, apr_pstrdup(db->conn_pool, sql),
                 APR_HASH_KEY_STRING, name);
    *pname = name;
    return APR_SUCCESS;
}

/* "EXECUTE name('value', NULL...)": each value a quoted literal, which
 * the server reads as the type its statement has for it. */
static const char *execute_text(pl_db_t *db, apr_pool_t *p, const char *name,
                                int nargs, const char *const *args)
{
    struct iovec *vec = apr_palloc(p,
                                   (apr_size_t)(4 * nargs + 3) * sizeof(*vec));
    apr_size_t n = 0;
    int i;

#define PUT(s) (vec[n].iov_base = (void *)(s), vec[n].iov_len = strlen(s), n++)
    PUT("EXECUTE ");
    PUT(name);
    for (i = 0; i < nargs; i++) {
        PUT(i == 0 ? "(" : ", ");
        if (args[i] == NULL) {
            PUT("NULL");
        }
        else {
            PUT("'");
            PUT(apr_dbd_escape(db->driver, p, args[i], db->handle));
            PUT("'");
        }
    }
    if (nargs > 0) {
        PUT(")");
    }
#undef PUT
    return apr_pstrcatv(p, vec, n, NULL);
}

/* PostgreSQL: random access (the whole result at once, PQexec), because
 * apr_dbd_pgsql's sequential mode sleeps 100 ms on every empty result.
 * The others: sequential (apr_dbd_mysql's random mode wants row numbers,
 * and read_rows asks for "the next one"). */
static int random_access(const pl_db_t *db)
{
    return db->dialect == PL_DB_PGSQL;
}

/* Call fn for every row of res, its cells NULL for SQL NULL. Reads to
 * the end (-1) even once fn failed: drivers only release a result once
 * it has been read through. */
static apr_status_t each_row(pl_db_t *db, apr_pool_t *p, apr_dbd_results_t *res,
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
    return ret == -1 ? rv : classify(db, ret);
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

static apr_status_t read_rows(pl_db_t *db, apr_pool_t *p,
                              apr_dbd_results_t *res, pl_rows_t **prows)
{
    copy_rows_t c;
    apr_status_t rv;

    c.p = p;
    c.rows = apr_pcalloc(p, sizeof(*c.rows));
    c.rows->ncols = apr_dbd_num_cols(db->driver, res);
    c.cells = apr_array_make(p, 16 * (c.rows->ncols ? c.rows->ncols : 1),
                             sizeof(const char *));
    rv = each_row(db, p, res, copy_row, &c);
    c.rows->cells = (const char **)c.cells->elts;
    *prows = c.rows;
    return rv;
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
                       random_access(db)) == 0 &&
        read_rows(db, db->pool, res, &rows) == APR_SUCCESS &&
        rows->nrows == 1 && rows->ncols == 1 && PL_CELL(rows, 0, 0)) {
        apr_cpystrn(buf, PL_CELL(rows, 0, 0), size);
    }
}

/* The bytes of a statement's text a trace1 line shows. */
#define SQL_HEAD 160

/* When a statement starts, taken only when its line will be logged
 * (0 otherwise: a server with trace off pays nothing). */
static apr_time_t trace_start(const pl_db_t *db)
{
    return PL_LOG_ON(db->log, PL_LOG_TRACE1) ? apr_time_now() : 0;
}

/* sql on one line (runs of white space as one space), at most
 * size - 1 bytes, "..." at the end when cut. */
static const char *sql_line(char *buf, apr_size_t size, const char *sql)
{
    apr_size_t n = 0;
    int space = 0;

    for (; *sql && n + 4 < size; sql++) {
        if (apr_isspace(*sql)) {
            space = n > 0;
            continue;
        }
        if (space) {
            buf[n++] = ' ';
            space = 0;
        }
        buf[n++] = *sql;
    }
    if (*sql) {
        memcpy(buf + n, "...", 3);
        n += 3;
    }
    buf[n] = '\0';
    return buf;
}

/* A statement's line: how it ran ("prepared": by pl_db_select or
 * pl_db_exec; "kept": a text pl_db_select_cached keeps prepared;
 * "text": run as it is), its time, its rows (read, or changed) and its
 * text, cut at SQL_HEAD bytes at trace1, whole at trace2. */
static void trace_statement(const pl_db_t *db, apr_time_t start,
                            const char *how, const char *sql, int rows,
                            apr_status_t rv)
{
    char text[4000];
    int whole = PL_LOG_ON(db->log, PL_LOG_TRACE2);
    double ms;

    if (start == 0) {
        return;
    }
    ms = (double)(apr_time_now() - start) / 1000.0;
    sql_line(text, whole ? sizeof(text) : SQL_HEAD + 4, sql);
    pl_log(db->log, whole ? PL_LOG_TRACE2 : PL_LOG_TRACE1, rv,
           PL_LOGNO(05000) "sql %s %.3f ms, %d rows%s: %s", how, ms, rows,
           rv == APR_SUCCESS ? "" : ", failed", text);
}

void pl_db_set_log(pl_db_t *db, const pl_log_t *log)
{
    db->log = log;
}

/* Run sql with its arguments: a query (pres set) leaves its result in
 * *pres, from p; a statement (pres NULL) its rows changed in *pchanged.
 * *phow: how it ran, for the trace: "prepared" (on the server), or
 * "text" (PostgreSQL, a text it does not keep: parsed and planned each run). */
static apr_status_t execute_once(pl_db_t *db, apr_pool_t *p, const char *sql,
                                 int nargs, const char *const *args,
                                 apr_dbd_results_t **pres, int *pchanged,
                                 const char **phow)
{
    apr_dbd_prepared_t *stmt = NULL;
    const char *name = NULL;
    apr_status_t rv = APR_SUCCESS;
    int ret;

    *phow = "prepared";
    if (db->dialect == PL_DB_PGSQL) {
        rv = kept_args_name(db, sql, nargs, &name);
    }
    if (rv == APR_SUCCESS && name != NULL) {
        const char *text = execute_text(db, p, name, nargs, args);

        ret = pres ? apr_dbd_select(db->driver, p, db->handle, pres, text,
                                    random_access(db))
                   : apr_dbd_query(db->driver, db->handle, pchanged, text);
        return ret ? classify(db, ret) : APR_SUCCESS;
    }
    if (rv == APR_SUCCESS) {
        *phow = db->dialect == PL_DB_PGSQL ? "text" : "prepared";
        rv = prepare(db, sql, &stmt);
    }
    if (rv != APR_SUCCESS) {
        return rv;
    }
    ret = pres ? apr_dbd_pselect(db->driver, p, db->handle, pres, stmt,
                                 random_access(db), nargs, (const char **)args)
               : apr_dbd_pquery(db->driver, p, db->handle, pchanged, stmt,
                                nargs, (const char **)args);
    return ret ? classify(db, ret) : APR_SUCCESS;
}

static apr_status_t execute(pl_db_t *db, apr_pool_t *p, const char *sql,
                            int nargs, const char *const *args,
                            apr_dbd_results_t **pres, int *pchanged,
                            const char **phow)
{
    int first = first_call(db);
    apr_status_t rv = execute_once(db, p, sql, nargs, args, pres, pchanged,
                                   phow);

    if (rv != APR_SUCCESS && reconnected(db, first)) {
        rv = execute_once(db, p, sql, nargs, args, pres, pchanged, phow);
    }
    return rv;
}

apr_status_t pl_db_select(pl_db_t *db, apr_pool_t *p, pl_rows_t **prows,
                          const char *sql, int nargs, const char *const *args)
{
    apr_dbd_results_t *res = NULL;
    apr_time_t start = trace_start(db);
    const char *how;
    apr_status_t rv = execute(db, p, sql, nargs, args, &res, NULL, &how);

    if (rv == APR_SUCCESS) {
        rv = read_rows(db, p, res, prows);
    }
    trace_statement(db, start, how, sql,
                    rv == APR_SUCCESS ? (*prows)->nrows : 0, rv);
    return rv;
}

apr_status_t pl_db_exec(pl_db_t *db, int *pchanged, const char *sql, int nargs,
                        const char *const *args)
{
    int changed = 0;
    apr_time_t start = trace_start(db);
    const char *how;
    apr_status_t rv = execute(db, db->pool, sql, nargs, args, NULL, &changed,
                              &how);

    trace_statement(db, start, how, sql, changed, rv);
    if (rv == APR_SUCCESS && pchanged) {
        *pchanged = changed;
    }
    return rv;
}

apr_status_t pl_db_select_text(pl_db_t *db, apr_pool_t *p, pl_rows_t **prows,
                               const char *sql)
{
    apr_dbd_results_t *res = NULL;
    apr_time_t start = trace_start(db);
    int first = first_call(db);
    int ret = apr_dbd_select(db->driver, p, db->handle, &res, sql,
                             random_access(db));
    apr_status_t rv;

    if (ret != 0 && (classify(db, ret), reconnected(db, first))) {
        ret = apr_dbd_select(db->driver, p, db->handle, &res, sql,
                             random_access(db));
    }
    rv = ret ? classify(db, ret) : read_rows(db, p, res, prows);

    trace_statement(db, start, "text", sql,
                    rv == APR_SUCCESS ? (*prows)->nrows : 0, rv);
    return rv;
}

/* A slot for one more text: a free one, or the one run longest ago,
 * its statement dropped. NULL when none can be had: SQLite's driver
 * frees a statement only with its connection, and inside a transaction
 * a failed DEALLOCATE would end it. */
static cached_t *free_slot(pl_db_t *db)
{
    conn_state_t *cs = db->cs;
    cached_t *c = &cs->cached[0];
    int i, changed;

    for (i = 0; i < CACHED_MAX; i++) {
        if (cs->cached[i].pool == NULL) {
            return &cs->cached[i];
        }
        if (cs->cached[i].used < c->used) {
            c = &cs->cached[i];
        }
    }
    if (db->dialect == PL_DB_SQLITE || db->in_txn) {
        return NULL;
    }
    if (db->dialect == PL_DB_PGSQL) {
        int ret = apr_dbd_query(db->driver, db->handle, &changed,
                                apr_psprintf(c->pool, "DEALLOCATE pl_cached_%d",
                                             (int)(c - cs->cached)));

        if (ret != 0) {
            classify(db, ret); /* a session gone is set up again */
            return NULL;
        }
    }
    apr_hash_set(cs->by_sql, c->sql, APR_HASH_KEY_STRING, NULL);
    apr_pool_destroy(c->pool); /* MySQL: closes the statement */
    memset(c, 0, sizeof(*c));
    return c;
}

/* Whether sql ran on this connection before (as far as seen says);
 * noted for next time. */
static int seen_before(conn_state_t *cs, const char *sql)
{
    apr_uint32_t h = 2166136261u; /* FNV-1a */
    const unsigned char *u;
    apr_uint32_t *slot;

    for (u = (const unsigned char *)sql; *u; u++) {
        h = (h ^ *u) * 16777619u;
    }
    h |= 1; /* 0 marks an empty slot */
    slot = &cs->seen[h % SEEN_SLOTS];
    if (*slot == h) {
        return 1;
    }
    *slot = h;
    return 0;
}

/* The statement kept prepared for sql on this connection (*pc), made
 * at its second run; *pc NULL when sql is to run as it is. Past
 * CACHED_MAX texts, the one run longest ago makes room: a server's few
 * hot texts (the candidate requests of its flavors) stay prepared
 * whatever else comes, where a planned text costs the database twice
 * its run. */
static apr_status_t cached_statement(pl_db_t *db, const char *sql,
                                     cached_t **pc)
{
    conn_state_t *cs = db->cs;
    cached_t *c = apr_hash_get(cs->by_sql, sql, APR_HASH_KEY_STRING);
    int ret;

    *pc = NULL;
    if (c == NULL) {
        if (!seen_before(cs, sql) || (c = free_slot(db)) == NULL) {
            return APR_SUCCESS;
        }
        apr_pool_create(&c->pool, db->conn_pool);
        c->sql = apr_pstrdup(c->pool, sql);
        ret = apr_dbd_prepare(
            db->driver, c->pool, db->handle, c->sql,
            apr_psprintf(c->pool, "pl_cached_%d", (int)(c - cs->cached)),
            &c->stmt);
        if (ret != 0) {
            apr_pool_destroy(c->pool);
            memset(c, 0, sizeof(*c));
            return classify(db, ret);
        }
        apr_hash_set(cs->by_sql, c->sql, APR_HASH_KEY_STRING, c);
    }
    c->used = ++cs->ticks;
    *pc = c;
    return APR_SUCCESS;
}

/* Run sql, prepared once and kept when cache is set (as
 * pl_db_select_cached says), the result from p. */
static apr_status_t run_once(pl_db_t *db, apr_pool_t *p, const char *sql,
                             int cache, apr_dbd_results_t **pres,
                             const char **phow)
{
    cached_t *c = NULL;
    apr_status_t rv;
    int ret;

    *pres = NULL;
    *phow = "text";
    /* '%' would read as an argument */
    if (cache && !strchr(sql, '%') &&
        (rv = cached_statement(db, sql, &c)) != APR_SUCCESS) {
        return rv;
    }
    if (c == NULL) {
        ret = apr_dbd_select(db->driver, p, db->handle, pres, sql,
                             random_access(db));
        return ret ? classify(db, ret) : APR_SUCCESS;
    }
    *phow = "kept";
    ret = apr_dbd_pselect(db->driver, p, db->handle, pres, c->stmt,
                          random_access(db), 0, NULL);
    return ret ? classify(db, ret) : APR_SUCCESS;
}

static apr_status_t run(pl_db_t *db, apr_pool_t *p, const char *sql, int cache,
                        apr_dbd_results_t **pres, const char **phow)
{
    int first = first_call(db);
    apr_status_t rv = run_once(db, p, sql, cache, pres, phow);

    if (rv != APR_SUCCESS && reconnected(db, first)) {
        rv = run_once(db, p, sql, cache, pres, phow);
    }
    return rv;
}

apr_status_t pl_db_select_cached(pl_db_t *db, apr_pool_t *p, pl_rows_t **prows,
                                 const char *sql)
{
    apr_dbd_results_t *res;
    const char *how;
    apr_time_t start = trace_start(db);
    apr_status_t rv = run(db, p, sql, 1, &res, &how);

    if (rv == APR_SUCCESS) {
        rv = read_rows(db, p, res, prows);
    }
    trace_statement(db, start, how, sql,
                    rv == APR_SUCCESS ? (*prows)->nrows : 0, rv);
    return rv;
}

/* Every row of sql to fn, nothing copied. */
static apr_status_t select_each(pl_db_t *db, apr_pool_t *p, const char *sql,
                                int cache, pl_db_row_fn *fn, void *baton)
{
    apr_dbd_results_t *res;
    apr_pool_t *scratch;
    apr_status_t rv;
    const char *how;
    apr_time_t start = trace_start(db);

    /* the driver's result and row buffers live in scratch, and go with
     * it as soon as the rows are read */
    apr_pool_create(&scratch, p);
    db->nrows = 0;
    if ((rv = run(db, scratch, sql, cache, &res, &how)) == APR_SUCCESS) {
        rv = each_row(db, scratch, res, fn, baton);
    }
    apr_pool_destroy(scratch);
    trace_statement(db, start, how, sql, db->nrows, rv);
    return rv;
}

apr_status_t pl_db_select_each(pl_db_t *db, apr_pool_t *p, const char *sql,
                               pl_db_row_fn *fn, void *baton)
{
    return select_each(db, p, sql, 1, fn, baton);
}

apr_status_t pl_db_select_each_text(pl_db_t *db, apr_pool_t *p, const char *sql,
                                    pl_db_row_fn *fn, void *baton)
{
    return select_each(db, p, sql, 0, fn, baton);
}

apr_status_t pl_db_exec_text(pl_db_t *db, int *pchanged, const char *sql)
{
    int changed = 0;
    apr_time_t start = trace_start(db);
    int first = first_call(db);
    int ret = apr_dbd_query(db->driver, db->handle, &changed, sql);
    apr_status_t rv;

    if (ret != 0 && (classify(db, ret), reconnected(db, first))) {
        ret = apr_dbd_query(db->driver, db->handle, &changed, sql);
    }
    rv = ret ? classify(db, ret) : APR_SUCCESS;

    trace_statement(db, start, "text", sql, changed, rv);
    if (rv == APR_SUCCESS && pchanged) {
        *pchanged = changed;
    }
    return rv;
}

/* ------------------------------------------------------------------ */
/* statements over lists                                               */
/* ------------------------------------------------------------------ */

/* Chunk sizes are powers of two up to PL_DB_LIST_MAX (2^9): this many. */
#define LIST_SHAPES 10

/* A list of at most this many items (unpadded) is one statement of its
 * own size: a claim of three classes is one INSERT, not two. Each list
 * statement still has a bounded number of texts (LIST_SHAPES more). */
#define LIST_EXACT 8

/* The items of l, k of them, at w: the end. */
static char *list_items(char *w, const pl_db_list_t *l, int k)
{
    const char *sep = l->sep ? l->sep : ", ";
    apr_size_t item = strlen(l->item);
    int i;

    for (i = 0; i < k; i++) {
        if (i > 0) {
            const char *c;

            for (c = sep; *c; c++) { /* no terminator: the text goes on */
                *w++ = *c;
            }
        }
        memcpy(w, l->item, item);
        w += item;
    }
    return w;
}

/* The text of l for k items. */
static const char *list_text(apr_pool_t *p, const pl_db_list_t *l, int k)
{
    apr_size_t head = strlen(l->head), item = strlen(l->item);
    apr_size_t tail = strlen(l->tail);
    apr_size_t nsep = strlen(l->sep ? l->sep : ", ");
    apr_size_t again = l->again ? strlen(l->again) : 0;
    apr_size_t items = (apr_size_t)k * (item + nsep);
    char *text = apr_palloc(p, head + items * (l->again ? 2 : 1) + again +
                                   tail + 1);
    char *w = text;

    memcpy(w, l->head, head);
    w = list_items(w + head, l, k);
    if (l->again) {
        memcpy(w, l->again, again);
        w = list_items(w + again, l, k);
    }
    memcpy(w, l->tail, tail + 1);
    return text;
}

/* The next chunk out of n values left: all of them if at most
 * LIST_EXACT, else PL_DB_LIST_MAX or the largest power of two no
 * greater than n (with pad: the smallest no less than n); *pshape its
 * index among the texts. */
static int list_chunk(int n, int pad, int *pshape)
{
    int k = PL_DB_LIST_MAX, shape = LIST_SHAPES - 1;

    if (!pad && n <= LIST_EXACT) {
        *pshape = LIST_SHAPES + n - 1;
        return n;
    }

    while (k > n && !(pad && k / 2 < n)) {
        k >>= 1;
        shape--;
    }
    *pshape = shape;
    return k;
}

/* A prepared statement of sql with its arguments, its driver buffers
 * from p: its rows to fn (a query) or *pchanged (fn NULL). */
static apr_status_t run_prepared(pl_db_t *db, apr_pool_t *p, const char *sql,
                                 int nargs, const char **args, pl_db_row_fn *fn,
                                 void *baton, int *pchanged)
{
    apr_dbd_results_t *res = NULL;
    apr_time_t start = trace_start(db);
    const char *how;
    apr_status_t rv;

    *pchanged = 0;
    db->nrows = 0;
    rv = execute(db, p, sql, nargs, args, fn ? &res : NULL, pchanged, &how);
    if (rv == APR_SUCCESS && fn) {
        rv = each_row(db, p, res, fn, baton);
        *pchanged = db->nrows;
    }
    trace_statement(db, start, how, sql, *pchanged, rv);
    return rv;
}

static apr_status_t run_list(pl_db_t *db, apr_pool_t *p, const pl_db_list_t *l,
                             const char *const *values, int n, pl_db_row_fn *fn,
                             void *baton, int *pchanged)
{
    const char *texts[LIST_SHAPES + LIST_EXACT] = { NULL };
    int nv = l->nvalues > 1 ? l->nvalues : 1;
    int per = nv + l->nextra, done, changed, i, k, shape;
    const char **args;
    apr_pool_t *scratch;
    apr_status_t rv = APR_SUCCESS;

    if (pchanged) {
        *pchanged = 0;
    }
    if (n <= 0) {
        return APR_SUCCESS;
    }
    args = apr_palloc(p, (apr_size_t)(l->nhead + 2 * PL_DB_LIST_MAX * per) *
                             sizeof(*args));
    if (l->nhead > 0) {
        memcpy(args, l->head_args, (apr_size_t)l->nhead * sizeof(*args));
    }
    apr_pool_create(&scratch, p);
    for (done = 0; done < n && rv == APR_SUCCESS; done += k) {
        k = list_chunk(n - done, l->pad, &shape);
        if (texts[shape] == NULL) {
            texts[shape] = list_text(p, l, k);
        }
        for (i = 0; i < k; i++) {
            const char **a = args + l->nhead + (apr_size_t)i * (apr_size_t)per;
            /* padding: the chunk's last value again */
            int from = done + i < n ? done + i : n - 1;

            memcpy(a, values + (apr_size_t)from * (apr_size_t)nv,
                   (apr_size_t)nv * sizeof(*a));
            if (l->nextra > 0) {
                memcpy(a + nv, l->extra, (apr_size_t)l->nextra * sizeof(*a));
            }
        }
        if (l->again) {
            memcpy(args + l->nhead + (apr_size_t)k * (apr_size_t)per,
                   args + l->nhead,
                   (apr_size_t)k * (apr_size_t)per * sizeof(*args));
        }
        apr_pool_clear(scratch);
        rv = run_prepared(db, scratch, texts[shape],
                          l->nhead + k * per * (l->again ? 2 : 1), args, fn,
                          baton, &changed);
        if (rv == APR_SUCCESS && pchanged) {
            *pchanged += changed;
        }
    }
    apr_pool_destroy(scratch);
    return rv;
}

apr_status_t pl_db_exec_list(pl_db_t *db, apr_pool_t *p, const pl_db_list_t *l,
                             const char *const *values, int n, int *pchanged)
{
    return run_list(db, p, l, values, n, NULL, NULL, pchanged);
}

apr_status_t pl_db_select_list(pl_db_t *db, apr_pool_t *p,
                               const pl_db_list_t *l, const char *const *values,
                               int n, pl_db_row_fn *fn, void *baton)
{
    return run_list(db, p, l, values, n, fn, baton, NULL);
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
    return classify(db, ret);
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
    first = first_call(db);
    rv = begin_once(db);
    if (rv != APR_SUCCESS && reconnected(db, first)) {
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
        return classify(db, ret);
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
