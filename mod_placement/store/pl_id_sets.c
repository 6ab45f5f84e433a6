/* Licensed under the Apache License, Version 2.0.
 *
 * pl_id_sets.c: an AND of any-of sets of ids, each set once, and the one
 * SQL condition that tests them (pl_id_sets.h). Every value in the text
 * is an integer formatted here.
 */
#include <stdlib.h>
#include <string.h>
#include <apr_strings.h>

#include "pl_db.h"
#include "pl_id_sets.h"
#include "pl_str.h"

void pl_id_sets_init(pl_id_sets_t *s, apr_pool_t *p)
{
    s->p = p;
    s->all = apr_array_make(p, 4, sizeof(apr_int64_t));
    s->lists = apr_array_make(p, 4, sizeof(pl_id_list_t));
    s->seen = apr_hash_make(p);
}

static int by_id(const void *a, const void *b)
{
    apr_int64_t x = *(const apr_int64_t *)a, y = *(const apr_int64_t *)b;

    return x < y ? -1 : x > y;
}

/* 1 the first time key is met in seen */
static int first_seen(apr_hash_t *seen, const char *key)
{
    if (apr_hash_get(seen, key, APR_HASH_KEY_STRING)) {
        return 0;
    }
    apr_hash_set(seen, key, APR_HASH_KEY_STRING, "");
    return 1;
}

void pl_id_sets_add(pl_id_sets_t *s, apr_int64_t *ids, int n)
{
    const char *text;
    pl_id_list_t *l;
    int i, m = 0;

    qsort(ids, (size_t)n, sizeof(*ids), by_id);
    for (i = 0; i < n; i++) {
        if (m == 0 || ids[m - 1] != ids[i]) {
            ids[m++] = ids[i];
        }
    }
    if (m == 0 || !first_seen(s->seen, text = pl_db_id_list(s->p, ids, m))) {
        return;
    }
    if (m == 1) {
        APR_ARRAY_PUSH(s->all, apr_int64_t) = ids[0];
        return;
    }
    l = apr_array_push(s->lists);
    l->ids = ids;
    l->n = m;
    l->text = text;
    l->order = s->lists->nelts;
}

int pl_id_sets_empty(const pl_id_sets_t *s)
{
    return s->all->nelts == 0 && s->lists->nelts == 0;
}

int pl_id_sets_count(const pl_id_sets_t *s)
{
    return s->all->nelts + s->lists->nelts;
}

static int by_size(const void *a, const void *b)
{
    const pl_id_list_t *x = a, *y = b;

    return x->n != y->n ? x->n - y->n : x->order - y->order;
}

/*
 * The test: n distinct ids of all among the rows (when there is a set of
 * several beside them, the rows also hold its ids: only those of all
 * count), and for each set of several, one row in it. The tests of a
 * row's value are planned at once by every database, where PostgreSQL
 * planned a subquery per set as a join (and in GEQO beyond a dozen).
 */
void pl_id_sets_sql(const pl_id_sets_t *s, int max, const char *col,
                    const char **pids, const char **ptest)
{
    apr_pool_t *p = s->p;
    apr_array_header_t *lists = apr_array_copy(p, s->lists);
    apr_array_header_t *ids = apr_array_copy(p, s->all);
    apr_array_header_t *tests;
    apr_hash_t *seen = apr_hash_make(p);
    const char *all = pl_db_id_array(p, s->all);
    int i, j, n = s->all->nelts;

    qsort(lists->elts, (size_t)lists->nelts, sizeof(pl_id_list_t), by_size);
    if (max >= 0 && lists->nelts > max) {
        lists->nelts = max;
    }
    tests = apr_array_make(p, lists->nelts + 1, sizeof(const char *));
    for (i = 0; i < lists->nelts; i++) {
        const pl_id_list_t *l = &APR_ARRAY_IDX(lists, i, pl_id_list_t);

        for (j = 0; j < l->n; j++) {
            if (first_seen(seen, pl_db_i64(p, l->ids[j]))) {
                APR_ARRAY_PUSH(ids, apr_int64_t) = l->ids[j];
            }
        }
        APR_ARRAY_PUSH(tests, const char *) = apr_psprintf(
            p, "MAX(CASE WHEN %s IN (%s) THEN 1 ELSE 0 END) = 1", col, l->text);
    }
    *pids = pl_db_id_array(p, ids);
    if (n + lists->nelts <= 1) {
        *ptest = NULL;
        return;
    }
    if (lists->nelts == 0) {
        *ptest = apr_psprintf(p, "COUNT(DISTINCT %s) >= %d", col, n);
        return;
    }
    if (n) {
        APR_ARRAY_PUSH(tests, const char *) = apr_psprintf(
            p, "COUNT(DISTINCT CASE WHEN %s IN (%s) THEN %s END) >= %d", col,
            all, col, n);
    }
    *ptest = pl_str_join(p, tests, " AND ");
}
