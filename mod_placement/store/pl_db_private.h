/* Licensed under the Apache License, Version 2.0.
 *
 * pl_db_private.h: what the three files of the database layer share and
 * nobody else sees: the handle, the state kept with a connection, and
 * the calls between them, from the bottom up: pl_db.c owns the session
 * (setup, the checks after a failure, the reconnect), error
 * classification and the reading of rows; pl_db_stmt.c runs statements,
 * with their caches and tracing; pl_db_txn.c opens and ends
 * transactions and savepoints, and retries; pl_db_list.c cuts
 * statements over lists into chunks.
 */
#ifndef PL_DB_PRIVATE_H
#define PL_DB_PRIVATE_H

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
    /* the transaction's failed statement, outside savepoint regions:
     * the driver's number for it, then what it was classified as */
    int failed_ret;
    apr_status_t failed_rv;
    const char *failed_errstr;
    pl_db_dialect_e dialect;
    const char *errstr;
    const pl_log_t *log; /* NULL: nothing logged */
    int nrows;           /* rows the last pl_db_each_row read */
    int calls;           /* statements sent in this use (first_call) */
    int timeout;         /* PlacementStatementTimeout, seconds */
};

/* PL_DB_TEXT_KEPT: how many texts one connection keeps prepared */
#define CACHED_MAX 64

/* A text of PL_DB_TEXT_KEPT kept prepared, as pl_cached_<its slot>. */
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

/* PostgreSQL: random access (the whole result at once, PQexec), because
 * apr_dbd_pgsql's sequential mode sleeps 100 ms on every empty result.
 * The others: sequential (apr_dbd_mysql's random mode wants row numbers,
 * and pl_db_read_rows asks for "the next one"). */
static inline int pl_db_random_access(const pl_db_t *db)
{
    return db->dialect == PL_DB_PGSQL;
}

/* pl_db.c: a driver error (ret) classified, its text kept in db->errstr */
apr_status_t pl_db_classify(pl_db_t *db, int ret);

/* pl_db.c: call before each statement sent; true for the first of this
 * use of the connection */
int pl_db_first_call(pl_db_t *db);

/* pl_db.c: after a statement failed, whether it is to be sent again on a
 * connection made anew (only the first of a use: first) */
int pl_db_reconnected(pl_db_t *db, int first);

/* pl_db.c: every row of res to fn (read to the end whatever fn says) */
apr_status_t pl_db_each_row(pl_db_t *db, apr_pool_t *p, apr_dbd_results_t *res,
                            pl_db_row_fn *fn, void *baton);

/* pl_db.c: every row of res copied into *prows, from p */
apr_status_t pl_db_read_rows(pl_db_t *db, apr_pool_t *p, apr_dbd_results_t *res,
                             pl_rows_t **prows);

/* pl_db_stmt.c: sql with its arguments, prepared, its driver buffers
 * from p: its rows to fn (a query) or *pchanged (fn NULL); traced */
apr_status_t pl_db_stmt_run_prepared(pl_db_t *db, apr_pool_t *p,
                                     const char *sql, int nargs,
                                     const char **args, pl_db_row_fn *fn,
                                     void *baton, int *pchanged);

#endif /* PL_DB_PRIVATE_H */
