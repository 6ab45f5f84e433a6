/* Licensed under the Apache License, Version 2.0.
 *
 * test_id_sets.c: pl_id_sets.c, an AND of any-of sets of ids as one SQL
 * condition: each set kept once (the order of its ids and repeats do
 * not matter), the sets of one id tested together, the smallest sets
 * first when only some are tested; the condition selects, on a real
 * SQLite table, the providers that have one id of each set, and its
 * text grows by a constant a set (issue 23: hundreds of sets).
 */
#include <stdarg.h>
#include <string.h>

#include <apr_general.h>
#include <apr_strings.h>

#include "pl_id_sets.h"
#include "memory_db.h"
#include "tap.h"

static apr_pool_t *pool;

static void add(pl_id_sets_t *s, int n, ...)
{
    apr_int64_t *ids = apr_palloc(pool, (n + 1) * sizeof(*ids));
    va_list ap;
    int i;

    va_start(ap, n);
    for (i = 0; i < n; i++) {
        ids[i] = va_arg(ap, int);
    }
    va_end(ap);
    pl_id_sets_add(s, ids, n);
}

static void test_kept_once(void)
{
    pl_id_sets_t s;
    const char *ids, *test;

    pl_id_sets_init(&s, pool);
    TAP_OK(pl_id_sets_empty(&s), "sets: none at first");
    add(&s, 0);
    TAP_OK(pl_id_sets_empty(&s), "sets: a set of no id is left out");
    add(&s, 1, 7);
    add(&s, 2, 7, 7);
    TAP_IS_INT(pl_id_sets_count(&s), 1, "sets: {7} and {7, 7} are one");
    add(&s, 2, 3, 2);
    add(&s, 3, 2, 3, 2);
    TAP_IS_INT(pl_id_sets_count(&s), 2, "sets: {3, 2} and {2, 3, 2} are one");
    pl_id_sets_sql(&s, -1, "x.id", &ids, &test);
    TAP_IS_STR(ids, "7,2,3", "sql: every id once, for the IN list");
    TAP_IS_STR(test,
               "MAX(CASE WHEN x.id IN (2,3) THEN 1 ELSE 0 END) = 1 AND "
               "COUNT(DISTINCT CASE WHEN x.id IN (7) THEN x.id END) >= 1",
               "sql: one test a set of several, one for all sets of one");

    pl_id_sets_init(&s, pool);
    add(&s, 1, 5);
    pl_id_sets_sql(&s, -1, "x.id", &ids, &test);
    TAP_OK(test == NULL && !strcmp(ids, "5"), "sql: one id needs no test");
    add(&s, 1, 6);
    pl_id_sets_sql(&s, -1, "x.id", &ids, &test);
    TAP_IS_STR(test, "COUNT(DISTINCT x.id) >= 2", "sql: ids alone are counted");
    pl_id_sets_init(&s, pool);
    add(&s, 2, 5, 6);
    pl_id_sets_sql(&s, -1, "x.id", &ids, &test);
    TAP_OK(test == NULL && !strcmp(ids, "5,6"),
           "sql: a single set of several needs no test either");
}

static void test_smallest_first(void)
{
    pl_id_sets_t s;
    const char *ids, *test;

    pl_id_sets_init(&s, pool);
    add(&s, 3, 1, 2, 3);
    add(&s, 2, 4, 5);
    add(&s, 1, 9);
    add(&s, 2, 6, 7);
    pl_id_sets_sql(&s, 1, "v", &ids, &test);
    TAP_IS_STR(ids, "9,4,5", "max 1: the ids of all and the first smallest");
    TAP_IS_STR(test,
               "MAX(CASE WHEN v IN (4,5) THEN 1 ELSE 0 END) = 1 AND "
               "COUNT(DISTINCT CASE WHEN v IN (9) THEN v END) >= 1",
               "max 1: its test and all's");
    pl_id_sets_sql(&s, 0, "v", &ids, &test);
    TAP_OK(!strcmp(ids, "9") && test == NULL, "max 0: only all");
}

/* The providers (1..) of table t (p, v) whose rows pass s, as "1,3". */
static const char *passing(pl_db_t *db, const pl_id_sets_t *s, int max)
{
    const char *ids, *test;
    pl_rows_t *rows;
    char *out = "";
    int i;

    pl_id_sets_sql(s, max, "v", &ids, &test);
    if (pl_db_select_text(db, pool, &rows,
                          apr_pstrcat(pool, "SELECT p FROM t WHERE v IN (", ids,
                                      ")", " GROUP BY p",
                                      test ? " HAVING " : "", test ? test : "",
                                      " ORDER BY p", NULL),
                          PL_DB_TEXT_ONCE) != APR_SUCCESS) {
        return pl_db_errstr(db);
    }
    for (i = 0; i < rows->nrows; i++) {
        out = apr_pstrcat(pool, out, i ? "," : "", PL_CELL(rows, i, 0), NULL);
    }
    return out;
}

static void test_on_rows(void)
{
    pl_db_t *db = apr_dbd_init(pool) == APR_SUCCESS ? memory_db(pool) : NULL;
    const char *ids, *test, *more;
    pl_id_sets_t s;
    int i;

    if (db == NULL) {
        TAP_OK(0, "rows: no SQLite driver");
        return;
    }
    /* provider 1: 1 2; 2: 2 3; 3: 3 4 9; 4: 1 4 9 */
    pl_db_exec_text(db, NULL, "CREATE TABLE t (p INTEGER, v INTEGER)");
    pl_db_exec_text(db, NULL,
                    "INSERT INTO t VALUES (1, 1), (1, 2), (2, 2), (2, 3), "
                    "(3, 3), (3, 4), (3, 9), (4, 1), (4, 4), (4, 9)");
    pl_id_sets_init(&s, pool);
    add(&s, 2, 1, 3);
    TAP_IS_STR(passing(db, &s, -1), "1,2,3,4", "rows: one of {1, 3}");
    add(&s, 2, 2, 4);
    TAP_IS_STR(passing(db, &s, -1), "1,2,3,4", "rows: and one of {2, 4}");
    add(&s, 1, 9);
    TAP_IS_STR(passing(db, &s, -1), "3,4", "rows: and 9");
    add(&s, 3, 1, 2, 8);
    TAP_IS_STR(passing(db, &s, -1), "4", "rows: and one of {1, 2, 8}");
    TAP_IS_STR(passing(db, &s, 2), "3,4",
               "rows: a set left untested lets more pass, never fewer");
    add(&s, 2, 5, 6);
    TAP_IS_STR(passing(db, &s, -1), "", "rows: and one of {5, 6}: none");

    /* 300 sets: the text grows by a constant a set */
    pl_id_sets_init(&s, pool);
    for (i = 0; i < 300; i++) {
        add(&s, 2, 1000 + i, i % 2 ? 2 : 3);
    }
    TAP_IS_STR(passing(db, &s, -1), "2",
               "rows: 300 sets of 2 or 3 and an id nobody has");
    pl_id_sets_sql(&s, 100, "v", &ids, &test);
    pl_id_sets_sql(&s, 200, "v", &ids, &more);
    TAP_OK(strlen(more) - strlen(test) < 100 * 60,
           "rows: 100 more sets, %lu more bytes of test",
           (unsigned long)(strlen(more) - strlen(test)));
}

int main(void)
{
    apr_initialize();
    apr_pool_create(&pool, NULL);
    test_kept_once();
    test_smallest_first();
    test_on_rows();
    apr_pool_destroy(pool);
    apr_terminate();
    return tap_done();
}
