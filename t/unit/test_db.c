/* Licensed under the Apache License, Version 2.0.
 *
 * test_db.c: the transactions of pl_db.c on a real SQLite database
 * (apr_dbd_sqlite3, in memory): begin/end nest and only the outermost
 * pair commits; an inner failure rolls the whole back; a savepoint lets
 * a duplicate INSERT fail alone; a statement after a failed one is
 * that failure; pl_db_run_txn retries PL_DB_ERETRY and
 * deadlocks, and runs a nested transaction once. And pl_db_cell_i64
 * reads every integer cell as apr_atoi64 does; pl_db_exec_list and
 * pl_db_select_list cover every value of a list, in as few statements
 * as their chunks say.
 */
#include <string.h>

#include <apr_general.h>
#include <apr_strings.h>
#include <apr_dbd.h>

#include "pl_db.h"
#include "memory_db.h"
#include "tap.h"

static apr_pool_t *pool;

static pl_db_t *open_db(void)
{
    pl_db_t *db = memory_db(pool);

    if (db) {
        pl_db_exec_text(db, NULL, "CREATE TABLE t (name VARCHAR(20) UNIQUE)");
    }
    return db;
}

static int count(pl_db_t *db)
{
    pl_rows_t *rows;
    apr_int64_t n = -1;

    if (pl_db_select_text(db, pool, &rows, "SELECT COUNT(*) FROM t",
                          PL_DB_TEXT_ONCE) == APR_SUCCESS) {
        pl_db_int64(rows, 0, 0, &n);
    }
    return (int)n;
}

static apr_status_t insert(pl_db_t *db, const char *name)
{
    return pl_db_exec(db, NULL, "INSERT INTO t (name) VALUES (%s)",
                      PL_ARGS(name));
}

typedef struct runs_t {
    int calls;
    int fail_until;       /* calls before which fn asks a retry */
    apr_status_t failure; /* what it returns meanwhile */
} runs_t;

static apr_status_t insert_fn(pl_db_t *db, apr_pool_t *p, void *baton)
{
    static int serial;
    runs_t *r = baton;
    apr_status_t rv;

    r->calls++;
    rv = insert(db, apr_psprintf(p, "run%d", ++serial));
    if (rv == APR_SUCCESS && r->calls < r->fail_until) {
        rv = r->failure;
    }
    return rv;
}

static apr_status_t nested_fn(pl_db_t *db, apr_pool_t *p, void *baton)
{
    runs_t inner = { 0, 5, PL_DB_ERETRY };
    apr_status_t rv;

    (void)baton;
    /* inside a transaction the inner run is part of it: one call, its
     * failure the outer one's */
    rv = pl_db_run_txn(db, p, insert_fn, &inner, 10, NULL);
    TAP_IS_INT(inner.calls, 1, "a nested run_txn runs its work once");
    return rv;
}

/* pl_db_run_txn of insert_fn failing with failure until its call
 * fail_until */
static apr_status_t run(pl_db_t *db, int fail_until, apr_status_t failure,
                        int max_attempts, runs_t *runs,
                        pl_db_txn_stats_t *stats)
{
    memset(runs, 0, sizeof(*runs));
    memset(stats, 0, sizeof(*stats));
    runs->fail_until = fail_until;
    runs->failure = failure;
    return pl_db_run_txn(db, pool, insert_fn, runs, max_attempts, stats);
}

static void test_cell_i64(void)
{
    static const char *const cells[] = {
        "0",
        "7",
        "-7",
        "1700",
        "123456789012345678",
        "-123456789012345678",
        "9223372036854775807",
        "-9223372036854775808",
        "99999999999999999999",
        "-99999999999999999999",
        "12.0",
        "-3.5",
        " 42",
        "+42",
        "",
        "-",
        "7x",
    };
    apr_size_t i;

    TAP_IS_INT(pl_db_cell_i64(NULL), 0, "cell_i64: NULL is 0");
    for (i = 0; i < sizeof(cells) / sizeof(cells[0]); i++) {
        TAP_OK(pl_db_cell_i64(cells[i]) == apr_atoi64(cells[i]),
               "cell_i64 \"%s\": as apr_atoi64 (%" APR_INT64_T_FMT ")",
               cells[i], apr_atoi64(cells[i]));
    }
}

/* The statements a trace1 log saw. */
static void count_statements(void *baton, const char *file, int line, int level,
                             apr_status_t rv, const char *msg)
{
    (void)file;
    (void)line;
    (void)level;
    (void)rv;
    if (strstr(msg, "sql prepared")) {
        ++*(int *)baton;
    }
}

typedef struct seen_t {
    int rows;
    apr_int64_t sum;
} seen_t;

static apr_status_t add_row(void *baton, int ncols, const char *const *cells)
{
    seen_t *s = baton;

    (void)ncols;
    s->rows++;
    s->sum += apr_atoi64(cells[0]);
    return APR_SUCCESS;
}

/* pl_db_exec_list and pl_db_select_list: every value once, in chunks of
 * at most PL_DB_LIST_MAX, the rest in powers of two until at most 8 are
 * left, those in one. */
static void test_lists(pl_db_t *db)
{
    static const int sizes[] = { 0, 1, 3, 8, 9, 20, 512, 513, 1300 };
    /* chunks: 9 = 8 + 1, 20 = 16 + 4, 1300 = 512 + 512 + 256 + 16 + 4 */
    static const int statements[] = { 0, 1, 1, 1, 2, 2, 1, 2, 5 };
    const char *extra[] = { "x" }, *head_args[] = { "x" };
    const pl_db_list_t insert = {
        "INSERT INTO l (n, tag) VALUES ", 0, NULL, "(%s, %s)", 1, extra, ""
    };
    const pl_db_list_t select = { "SELECT n FROM l WHERE tag = %s AND n IN (",
                                  1,
                                  head_args,
                                  "%s",
                                  0,
                                  NULL,
                                  ")" };
    const pl_db_list_t unique = {
        "INSERT INTO u (n) VALUES ", 0, NULL, "(%s)", 0, NULL, ""
    };
    const char **values = apr_palloc(pool, 1300 * sizeof(*values));
    int statements_seen = 0, changed, i;
    pl_log_t log = { count_statements, &statements_seen, PL_LOG_TRACE1 };
    apr_size_t k;
    seen_t seen;

    pl_db_exec_text(db, NULL, "CREATE TABLE l (n INTEGER, tag VARCHAR(10))");
    pl_db_exec_text(db, NULL, "CREATE TABLE u (n INTEGER UNIQUE)");
    for (i = 0; i < 1300; i++) {
        values[i] = apr_itoa(pool, i + 1);
    }
    pl_db_set_log(db, &log);
    for (k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
        int n = sizes[k];

        pl_db_exec_text(db, NULL, "DELETE FROM l");
        statements_seen = 0;
        changed = -1;
        TAP_IS_INT(pl_db_exec_list(db, pool, &insert, values, n, &changed),
                   APR_SUCCESS, "exec_list of %d values", n);
        TAP_IS_INT(changed, n, "%d rows inserted", n);
        TAP_IS_INT(statements_seen, statements[k], "in %d statements",
                   statements[k]);
        memset(&seen, 0, sizeof(seen));
        TAP_IS_INT(
            pl_db_select_list(db, pool, &select, values, n, add_row, &seen),
            APR_SUCCESS, "select_list of %d values", n);
        TAP_IS_INT(seen.rows, n, "reads the %d rows", n);
        TAP_OK(seen.sum == (apr_int64_t)n * (n + 1) / 2,
               "each once (sum %" APR_INT64_T_FMT ")", seen.sum);
    }
    TAP_IS_INT(pl_db_exec_list(db, pool, &unique, values, 3, NULL), APR_SUCCESS,
               "3 values into a unique column");
    TAP_IS_INT(pl_db_exec_list(db, pool, &unique, values, 5, NULL), APR_EEXIST,
               "a list meeting a duplicate fails as a statement does");
    pl_db_set_log(db, NULL);
}

int main(void)
{
    pl_db_txn_stats_t stats;
    runs_t runs;
    pl_db_t *db;
    apr_status_t rv;

    apr_initialize();
    apr_pool_create(&pool, NULL);
    apr_dbd_init(pool);
    test_cell_i64();
    db = open_db();
    TAP_OK(db != NULL, "an in-memory SQLite database opens");
    if (db == NULL) {
        return tap_done();
    }

    /* nesting: only the outermost end commits */
    TAP_IS_INT(pl_db_begin(db), APR_SUCCESS, "outer begin");
    TAP_IS_INT(pl_db_begin(db), APR_SUCCESS, "inner begin");
    TAP_IS_INT(pl_db_depth(db), 2, "depth 2");
    insert(db, "a");
    TAP_IS_INT(pl_db_end(db, APR_SUCCESS), APR_SUCCESS, "inner end");
    TAP_IS_INT(pl_db_depth(db), 1, "depth 1 after the inner end");
    TAP_IS_INT(pl_db_end(db, APR_SUCCESS), APR_SUCCESS, "outer end commits");
    TAP_IS_INT(count(db), 1, "the row is there");

    /* an inner failure rolls everything back, even if the outer says ok */
    pl_db_begin(db);
    insert(db, "b");
    pl_db_begin(db);
    insert(db, "c");
    TAP_IS_INT(pl_db_end(db, APR_ENOENT), APR_ENOENT,
               "inner end passes its failure on");
    TAP_IS_INT(pl_db_end(db, APR_SUCCESS), PL_EDB,
               "outer end after an inner failure fails");
    TAP_IS_INT(count(db), 1, "nothing of the failed transaction stays");
    TAP_IS_INT(pl_db_depth(db), 0, "depth 0 at the end");

    /* a savepoint lets a duplicate fail alone */
    pl_db_begin(db);
    insert(db, "d");
    TAP_IS_INT(pl_db_savepoint(db, "sp"), APR_SUCCESS, "savepoint");
    rv = insert(db, "a");
    TAP_IS_INT(rv, APR_EEXIST, "the duplicate is a duplicate");
    TAP_IS_INT(pl_db_release(db, "sp", rv), APR_EEXIST,
               "release gives the failure back");
    TAP_IS_INT(insert(db, "e"), APR_SUCCESS,
               "the transaction goes on after the savepoint");
    TAP_IS_INT(pl_db_end(db, APR_SUCCESS), APR_SUCCESS, "and commits");
    TAP_IS_INT(count(db), 3, "d and e are there, the duplicate is not");

    /* a duplicate without a savepoint spoils the transaction */
    pl_db_begin(db);
    insert(db, "f");
    rv = insert(db, "a");
    TAP_IS_INT(pl_db_end(db, rv), APR_EEXIST,
               "a failed statement fails "
               "the transaction");
    TAP_IS_INT(count(db), 3, "f went with it");

    /* after a failed statement the driver sends nothing more of the
     * transaction: it answers each later statement with the failure's
     * number, and the connection's text is by then another call's (a
     * new statement's PREPARE). That answer is the same failure: a
     * deadlock victim's next statement must not turn its retry into a
     * 500 (a Galera BF abort did, in CI's t/galera/run) */
    pl_db_begin(db);
    rv = insert(db, "a");
    TAP_IS_INT(rv, APR_EEXIST, "a duplicate in a transaction");
    TAP_IS_INT(pl_db_exec(db, NULL, "UPDATE t SET name = %s WHERE name = %s",
                          PL_ARGS("x", "a")),
               APR_EEXIST, "the next statement, never sent, fails alike");
    TAP_OK(strstr(pl_db_errstr(db), "UNIQUE constraint") != NULL,
           "with the failure's own words");
    TAP_IS_INT(pl_db_end(db, rv), APR_EEXIST, "the transaction fails so");
    TAP_IS_INT(count(db), 3, "and wrote nothing");

    /* outside a transaction savepoints do nothing */
    TAP_IS_INT(pl_db_savepoint(db, "sp"), APR_SUCCESS,
               "savepoint outside a transaction");
    TAP_IS_INT(pl_db_release(db, "sp", APR_EINVAL), APR_EINVAL,
               "release outside a transaction passes the status on");

    /* run_txn: retries until the work succeeds, each attempt rolled back */
    rv = run(db, 3, PL_DB_ERETRY, 5, &runs, &stats);
    TAP_IS_INT(rv, APR_SUCCESS, "run_txn succeeds on the third attempt");
    TAP_IS_INT(runs.calls, 3, "three attempts");
    TAP_IS_INT(stats.retries, 2, "two retries counted");
    TAP_IS_INT(count(db), 4, "only the last attempt's row stays");

    /* run_txn: gives up after max_attempts */
    rv = run(db, 100, PL_DB_ERETRY, 4, &runs, &stats);
    TAP_IS_INT(rv, PL_DB_ERETRY, "run_txn gives up with PL_DB_ERETRY");
    TAP_IS_INT(runs.calls, 4, "after max_attempts attempts");
    TAP_IS_INT(count(db), 4, "and wrote nothing");

    /* run_txn: deadlocks are retried apart from max_attempts */
    rv = run(db, 3, PL_EDEADLOCK, 1, &runs, &stats);
    TAP_IS_INT(rv, APR_SUCCESS, "a deadlock victim is run again");
    TAP_IS_INT(stats.deadlocks, 2, "two deadlocks counted");
    rv = run(db, 100, PL_EDEADLOCK, 1, &runs, &stats);
    TAP_IS_INT(rv, PL_EDEADLOCK, "deadlocks without end give up");
    TAP_IS_INT(runs.calls, PL_DB_DEADLOCK_RETRIES + 1,
               "after PL_DB_DEADLOCK_RETRIES retries");

    /* run_txn inside a transaction: part of it */
    rv = pl_db_run_txn(db, pool, nested_fn, NULL, 1, NULL);
    TAP_IS_INT(rv, PL_DB_ERETRY, "the inner failure is the outer's");

    test_lists(db);
    apr_pool_destroy(pool);
    apr_terminate();
    return tap_done();
}
