/* Licensed under the Apache License, Version 2.0.
 *
 * test_idmap.c: pl_idmap.c, the id -> pointer map of the candidate
 * engine: what goes in comes out, through growth, for dense, sparse and
 * negative ids; replacing, the set form, walking every entry once, and
 * clearing.
 */
#include <apr_general.h>
#include <apr_strings.h>

#include "tap.h"
#include "pl_idmap.h"

/* ids as a cloud has them: dense from 1, and a few far apart */
static apr_int64_t id_at(int i)
{
    return i % 10 == 9 ? (apr_int64_t)i * 1000003 - 7 : (apr_int64_t)i + 1;
}

static void test_get_set(apr_pool_t *p)
{
    enum { N = 20000 };
    pl_idmap_t *m = pl_idmap_make(p, 0);
    apr_int64_t *vals = apr_palloc(p, N * sizeof(*vals));
    int i, wrong = 0;

    TAP_OK(pl_idmap_get(m, 1) == NULL, "empty: nothing there");
    for (i = 0; i < N; i++) {
        vals[i] = id_at(i);
        pl_idmap_set(m, id_at(i), &vals[i]);
    }
    TAP_IS_INT(pl_idmap_count(m), N, "count after %d sets", N);
    for (i = 0; i < N; i++) {
        const apr_int64_t *v = pl_idmap_get(m, id_at(i));

        wrong += v != &vals[i];
    }
    TAP_IS_INT(wrong, 0, "every id gives its value after growing");
    TAP_OK(pl_idmap_get(m, 0) == NULL && pl_idmap_get(m, -1) == NULL &&
               pl_idmap_get(m, N + 1) == NULL,
           "ids never set are absent");

    pl_idmap_set(m, id_at(5), &vals[0]);
    TAP_OK(pl_idmap_get(m, id_at(5)) == &vals[0], "set again replaces");
    TAP_IS_INT(pl_idmap_count(m), N, "replacing does not count");

    pl_idmap_set(m, -42, &vals[1]);
    pl_idmap_set(m, APR_INT64_MIN, &vals[2]);
    TAP_OK(pl_idmap_get(m, -42) == &vals[1] &&
               pl_idmap_get(m, APR_INT64_MIN) == &vals[2],
           "negative ids are ids too");
}

static void test_set_form(apr_pool_t *p)
{
    pl_idmap_t *m = pl_idmap_make(p, 4);

    TAP_IS_INT(pl_idmap_add(m, 7), 1, "add: new");
    TAP_IS_INT(pl_idmap_add(m, 7), 0, "add: already in");
    TAP_OK(pl_idmap_has(m, 7) && !pl_idmap_has(m, 8), "has");
    TAP_IS_INT(pl_idmap_count(m), 1, "one member");
}

static void test_walk_and_clear(apr_pool_t *p)
{
    enum { N = 1000 };
    pl_idmap_t *m = pl_idmap_make(p, 10);
    int *seen = apr_pcalloc(p, N * sizeof(*seen));
    int *vals = apr_palloc(p, N * sizeof(*vals));
    apr_size_t pos = 0;
    apr_int64_t id;
    int i, n = 0, wrong = 0;
    int *v;

    for (i = 0; i < N; i++) {
        vals[i] = i;
        pl_idmap_set(m, (apr_int64_t)i * 3, &vals[i]);
    }
    while ((v = pl_idmap_next(m, &pos, &id)) != NULL) {
        wrong += id != (apr_int64_t)*v * 3 || seen[*v]++;
        n++;
    }
    TAP_IS_INT(n, N, "the walk gives every entry");
    TAP_IS_INT(wrong, 0, "each once, with its own id");

    pl_idmap_clear(m);
    pos = 0;
    TAP_IS_INT(pl_idmap_count(m), 0, "cleared: empty");
    TAP_OK(pl_idmap_get(m, 3) == NULL && pl_idmap_next(m, &pos, NULL) == NULL,
           "cleared: nothing found, nothing walked");
    pl_idmap_set(m, 3, &vals[1]);
    TAP_OK(pl_idmap_get(m, 3) == &vals[1], "cleared: usable again");
}

int main(void)
{
    apr_pool_t *p;

    apr_initialize();
    apr_pool_create(&p, NULL);
    apr_pool_tag(p, "test_idmap");
    test_get_set(p);
    test_set_form(p);
    test_walk_and_clear(p);
    apr_pool_destroy(p);
    apr_terminate();
    return tap_done();
}
