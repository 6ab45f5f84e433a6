/* Licensed under the Apache License, Version 2.0.
 *
 * pl_db.h: the one door to the database. A thin layer over apr_dbd that
 * the store_* files use without knowing httpd or mod_dbd: statements are
 * SQL texts with apr_dbd "%s" placeholders, prepared lazily once per
 * connection and kept with it; results come back whole as a table of
 * strings (NULL for SQL NULL); errors come back classified.
 *
 * Arguments are always strings (NULL = SQL NULL). PL_ARGS("a", b) expands
 * to the count and the array, so a call reads
 *     rv = pl_db_select(db, p, &rows, "SELECT id FROM traits WHERE name = %s",
 *                       PL_ARGS(name));
 */
#ifndef PL_DB_H
#define PL_DB_H

#include <apr_pools.h>
#include <apr_hash.h>
#include <apr_tables.h>
#include <apr_dbd.h>
#include "pl_status.h"
#include "pl_log.h"

typedef enum { PL_DB_SQLITE, PL_DB_PGSQL, PL_DB_MYSQL } pl_db_dialect_e;

typedef struct pl_db_t pl_db_t;

typedef struct pl_rows_t {
    int nrows;
    int ncols;
    const char **cells; /* nrows * ncols, row-major */
} pl_rows_t;

#define PL_CELL(rows, i, j) ((rows)->cells[(i) * (rows)->ncols + (j)])

#define PL_ARGS(...)                                                       \
    (int)(sizeof((const char *[]){ __VA_ARGS__ }) / sizeof(const char *)), \
        (const char *[])                                                   \
    {                                                                      \
        __VA_ARGS__                                                        \
    }
#define PL_NOARGS 0, NULL

/**
 * Wrap an open apr_dbd connection. conn_pool lives as long as the
 * connection (prepared statements and per-connection state go there);
 * p is the pool of this use (a request). statement_timeout: seconds any
 * one statement may run on the server (0 no limit; PostgreSQL and MySQL),
 * set on the connection when it differs from what it has.
 */
pl_db_t *pl_db_wrap(apr_pool_t *p, apr_pool_t *conn_pool,
                    const apr_dbd_driver_t *driver, apr_dbd_t *handle,
                    int statement_timeout);

pl_db_dialect_e pl_db_dialect(const pl_db_t *db);

/** The pool of this use (pl_db_wrap's p: the request's), for the scratch
 *  subpools of a store function that is given no pool of its own. */
apr_pool_t *pl_db_pool(const pl_db_t *db);

/**
 * Where this use logs (NULL: nowhere). At PL_LOG_TRACE1 each statement
 * is logged with its time, its rows (read or changed) and the start of
 * its text, and each transaction's begin and end; at PL_LOG_TRACE2 the
 * whole text too; at PL_LOG_DEBUG each transaction run again. When those
 * levels are off nothing is timed or formatted.
 */
void pl_db_set_log(pl_db_t *db, const pl_log_t *log);

/**
 * Run a query and read all its rows into *prows (allocated from p).
 * @return APR_SUCCESS, APR_EEXIST (unique constraint), PL_EDEADLOCK
 *         (deadlock / serialization failure / busy), PL_EDB (other).
 */
apr_status_t pl_db_select(pl_db_t *db, apr_pool_t *p, pl_rows_t **prows,
                          const char *sql, int nargs, const char *const *args);

/**
 * Run a statement that returns no rows; *pchanged (may be NULL) gets the
 * number of rows changed. Same return codes as pl_db_select.
 */
apr_status_t pl_db_exec(pl_db_t *db, int *pchanged, const char *sql, int nargs,
                        const char *const *args);

/**
 * How a text without arguments (a query shaped by the request, its
 * values written in) runs, for the callers of pl_db_select_text and
 * pl_db_select_each.
 */
typedef enum {
    /* as it is, never prepared: a text that will not come again (ids of
     * the moment in it), DDL, the tools' and tests' statements */
    PL_DB_TEXT_ONCE,
    /* a text that repeats: prepared once per connection at its second
     * run, so that the database keeps its plan. A connection keeps the
     * 64 texts it ran last: a new one takes the place of the one run
     * longest ago. Texts it cannot keep run as PL_DB_TEXT_ONCE: on
     * SQLite past the 64 first (its driver frees a statement only with
     * the connection), and new ones inside a transaction. */
    PL_DB_TEXT_KEPT
} pl_db_text_e;

/**
 * Run SQL text without arguments as kind says and read all its rows
 * into *prows (from p). The caller escapes every value it puts in the
 * text with pl_db_quote or formats integers itself. Return codes as
 * pl_db_select.
 */
apr_status_t pl_db_select_text(pl_db_t *db, apr_pool_t *p, pl_rows_t **prows,
                               const char *sql, pl_db_text_e kind);

/** SQL text that returns no rows (DDL, session settings) run as it is,
 *  never prepared; *pchanged (may be NULL) as pl_db_exec. */
apr_status_t pl_db_exec_text(pl_db_t *db, int *pchanged, const char *sql);

/** A row of pl_db_select_each: cells[0 .. ncols - 1], NULL for SQL NULL,
 *  valid during the call only (copy what you keep). Anything but
 *  APR_SUCCESS stops the calls and becomes pl_db_select_each's result. */
typedef apr_status_t pl_db_row_fn(void *baton, int ncols,
                                  const char *const *cells);

/**
 * pl_db_select_text, row by row: nothing is copied, and the driver's
 * result is freed before this returns, so a large result costs its
 * reader only what it keeps.
 */
apr_status_t pl_db_select_each(pl_db_t *db, apr_pool_t *p, const char *sql,
                               pl_db_text_e kind, pl_db_row_fn *fn,
                               void *baton);

/** The most items pl_db_exec_list and pl_db_select_list put in one
 *  statement: a statement's round trip is then small beside its rows, and
 *  its arguments stay far below every driver's limit (SQLite 32766,
 *  PostgreSQL and MySQL 65535) with a few per item. */
#define PL_DB_LIST_MAX 512

/**
 * A statement over a list of values: head, then one item per value
 * joined by ", ", then tail; e.g. head "DELETE FROM t WHERE id IN (",
 * item "%s", tail ")"; or head "INSERT INTO t (name, created_at) VALUES ",
 * item "(%s, %s)" with extra { now }, tail "".
 * Arguments: head_args (nhead of them, for the "%s" of head), then for
 * each item its value (its nvalues values when nvalues > 1, e.g. item
 * "(%s, %s, %s)" with nvalues 2 and one extra) and the nextra extra
 * arguments (the same for every item), in that order.
 */
typedef struct pl_db_list_t {
    const char *head;
    int nhead;
    const char *const *head_args;
    const char *item;
    int nextra;
    const char *const *extra;
    const char *tail;
    int nvalues;     /* values per item (0: one), each item's in a row of
                    values; n counts items */
    const char *sep; /* between items; NULL: ", " */
    int pad;         /* the last chunk filled up to its text's size by repeating
                its last item, so that any n up to PL_DB_LIST_MAX is one
                statement: only for statements a repeated item does not
                change (IN lists, ORs of conditions) */
    const char *again; /* not NULL: after the items this text, then the
                          items a second time with the same values (one
                          list for two IN clauses), then tail */
} pl_db_list_t;

/**
 * Run the statement of l over values[0 .. n - 1], as few statements as
 * it takes: chunks of PL_DB_LIST_MAX values, the rest in chunks of
 * decreasing powers of two until at most 8 are left, those in one, so
 * that each list statement has at most 18 texts, each prepared once per
 * connection (with pad: the smallest power of two at least n, at most
 * PL_DB_LIST_MAX, in one statement). Nothing is run for n == 0.
 * The driver's buffers of each chunk are freed before the next: the
 * cost in memory is one chunk's. *pchanged (may be NULL): the rows all
 * chunks changed. Return codes as pl_db_exec; a failure stops the run.
 */
apr_status_t pl_db_exec_list(pl_db_t *db, apr_pool_t *p, const pl_db_list_t *l,
                             const char *const *values, int n, int *pchanged);

/** The values of an apr_array_header_t of const char *, as the two
 *  arguments pl_db_exec_list and pl_db_select_list take them. */
#define PL_DB_ARRAY(a) ((const char *const *)(a)->elts), (a)->nelts

/**
 * The same for a query: every row of every chunk to fn (as
 * pl_db_select_each gives them: valid during the call only).
 */
apr_status_t pl_db_select_list(pl_db_t *db, apr_pool_t *p,
                               const pl_db_list_t *l, const char *const *values,
                               int n, pl_db_row_fn *fn, void *baton);

/** 'value' quoted and escaped for this connection, allocated from p. */
const char *pl_db_quote(pl_db_t *db, apr_pool_t *p, const char *value);

/**
 * "In the set list" (list: SQL values, comma-separated), as a dialect
 * writes it: "IN (list)"; on PostgreSQL "= ANY(%s)" with the array
 * "{list}" pushed on args, list then holding the values bare (ids and
 * UUIDs need no quoting in an array). The text is then one for any
 * number of values, which the server keeps prepared, where values in
 * the text made a new one for each call, parsed and planned again
 * (0.4 ms of the 1 ms of database CPU of a claim). The text is a
 * constant or from p.
 */
const char *pl_db_in_set(pl_db_t *db, apr_pool_t *p, const char *list,
                         apr_array_header_t *args);

/**
 * Transactions: one per write request, owned by whoever began first.
 * begin/end nest: only the outermost pair talks to the database, so a
 * store writer can run alone or as part of a larger write. end() takes
 * the status of the work and gives back the final one; an inner end
 * with a failure makes the whole transaction roll back at the outermost
 * end (which then fails even if its own work said success).
 */
apr_status_t pl_db_begin(pl_db_t *db);
apr_status_t pl_db_end(pl_db_t *db, apr_status_t rv);

/** How deep in begin/end we are (0: no transaction). */
int pl_db_depth(const pl_db_t *db);

/**
 * A part of a transaction that may fail alone (an INSERT that loses a
 * unique-constraint race, on PostgreSQL, would otherwise abort the whole
 * transaction): pl_db_savepoint() before it, pl_db_release() after it
 * with its status; a failure rolls back to the savepoint and leaves the
 * transaction usable. Outside a transaction both do nothing. Names are
 * literals (SQL identifiers). Inside a region apr_dbd_pgsql rolls each
 * failed statement back to a savepoint of its own, which loses the
 * error's text: there a failure may come back as PL_EDB whatever it was
 * (a duplicate, a deadlock), and the caller decides by reading again.
 */
apr_status_t pl_db_savepoint(pl_db_t *db, const char *name);
apr_status_t pl_db_release(pl_db_t *db, const char *name, apr_status_t rv);

/** What a pl_db_txn_fn returns to have its transaction run again from
 *  the start on fresh data (a generation compare-and-swap lost, a unique
 *  id taken by a concurrent writer). */
#define PL_DB_ERETRY (PL_ESTART + 50)

/** The work of one transaction; p is cleared between attempts. */
typedef apr_status_t pl_db_txn_fn(pl_db_t *db, apr_pool_t *p, void *baton);

typedef struct pl_db_txn_stats_t {
    int retries;   /* attempts run again on PL_DB_ERETRY */
    int deadlocks; /* attempts run again on PL_EDEADLOCK */
} pl_db_txn_stats_t;

/** Deadlocks and serialization failures retried per transaction. */
#define PL_DB_DEADLOCK_RETRIES 10

/**
 * Run fn in a transaction, the one place where whole transactions are
 * retried: on PL_EDEADLOCK (up to PL_DB_DEADLOCK_RETRIES times, with a
 * short growing pause, of a random length around it) and on PL_DB_ERETRY (up to max_attempts attempts
 * in all; then PL_DB_ERETRY is returned). Inside a transaction already
 * begun, fn runs once as part of it and its owner retries.
 * stats (may be NULL) gets the counts.
 */
apr_status_t pl_db_run_txn(pl_db_t *db, apr_pool_t *p, pl_db_txn_fn *fn,
                           void *baton, int max_attempts,
                           pl_db_txn_stats_t *stats);

/**
 * pl_db_run_txn, and after a deadlock, before the next attempt, prep runs
 * outside any transaction (its statements commit one by one): the place
 * to make alone the rows that concurrent attempts would all insert, whose
 * inserts in each transaction deadlocked them (MariaDB: projects and
 * users of new consumers, after a restart released a herd).
 */
apr_status_t pl_db_run_txn_prep(pl_db_t *db, apr_pool_t *p, pl_db_txn_fn *fn,
                                pl_db_txn_fn *prep, void *baton,
                                int max_attempts, pl_db_txn_stats_t *stats);

/** The text of the last database error (for the log), or "". */
const char *pl_db_errstr(const pl_db_t *db);

/** The first cell of the first row as apr_int64_t; APR_ENOENT if none. */
apr_status_t pl_db_int64(const pl_rows_t *rows, int i, int j,
                         apr_int64_t *pval);

/** An integer as the text argument SQL statements take, from p. */
const char *pl_db_i64(apr_pool_t *p, apr_int64_t v);

/** A cell the database wrote as an integer, as apr_atoi64 reads it (NULL:
 *  0), the common short forms parsed in place: the candidate statements
 *  return a few thousand per request. */
apr_int64_t pl_db_cell_i64(const char *cell);

/** "1,2,3": n integers for an IN list in SQL text, from p ("" for none). */
const char *pl_db_id_list(apr_pool_t *p, const apr_int64_t *ids, int n);

/** The same from an apr_array_header_t of apr_int64_t. */
const char *pl_db_id_array(apr_pool_t *p, const apr_array_header_t *ids);

/** Current time as the SQL text every dialect stores in DATETIME columns. */
const char *pl_db_now(apr_pool_t *p);
/** The same into a caller's buffer (at least 20 bytes). */
void pl_db_now_buf(char *buf, apr_size_t size);

#endif /* PL_DB_H */
