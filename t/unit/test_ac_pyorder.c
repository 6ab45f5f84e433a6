/* Licensed under the Apache License, Version 2.0.
 *
 * test_ac_pyorder.c: ac_pyorder.c, the order upstream meets trees in.
 * The set's order against CPython 3.11's own (the expected orders were
 * printed by python3.11 for the same operations), then the rule it
 * decides on a hand-built world: the sharing provider beside a
 * numbered group (the counts the reference answers on that world).
 */
#include <stdlib.h>
#include <string.h>

#include <apr_general.h>
#include <apr_strings.h>

#include "pl_ac_private.h"
#include "pl_mv.h"
#include "tap.h"
#include "ac_world.h"

/* the set's keys in iteration order, "(a, b, c)(...)", first n of them */
static const char *keys(apr_pool_t *p, const pl_pyset_t *s, int n)
{
    const apr_int64_t *k;
    apr_size_t pos = 0;
    const char *out = "";

    while (n-- > 0 && (k = pl_pyset_next(s, &pos)) != NULL) {
        out = apr_psprintf(p,
                           "%s(%" APR_INT64_T_FMT ", %" APR_INT64_T_FMT
                           ", %" APR_INT64_T_FMT ")",
                           out, k[0], k[1], k[2]);
    }
    return out;
}

static void add3(pl_pyset_t *s, apr_int64_t a, apr_int64_t b, apr_int64_t c)
{
    apr_int64_t k[3];

    k[0] = a;
    k[1] = b;
    k[2] = c;
    pl_pyset_add(s, k);
}

static void test_set_order(apr_pool_t *p)
{
    static const apr_int64_t rows[][2] = { { 1, 1 }, { 3, 3 }, { 5, 5 } };
    static const apr_int64_t anchors[][2] = {
        { 5, 1 }, { 5, 2 }, { 5, 5 }, { 5, 6 }
    };
    pl_pyset_t *pairs = pl_pyset_make(p, 2), *e = pl_pyset_make(p, 3);
    pl_pyset_t *t = pl_pyset_make(p, 3), *big, *small, *f;
    const apr_int64_t *k;
    apr_size_t pos;
    int i;

    /* E |= set((a, b, 2) for a, b in S1); the same with the anchors */
    for (i = 0; i < 3; i++) {
        pl_pyset_add(pairs, rows[i]);
    }
    for (pos = 0; (k = pl_pyset_next(pairs, &pos)) != NULL;) {
        add3(t, k[0], k[1], 2);
    }
    pl_pyset_merge(e, t);
    pairs = pl_pyset_make(p, 2);
    t = pl_pyset_make(p, 3);
    for (i = 0; i < 4; i++) {
        pl_pyset_add(pairs, anchors[i]);
    }
    for (pos = 0; (k = pl_pyset_next(pairs, &pos)) != NULL;) {
        add3(t, k[0], k[1], 2);
    }
    pl_pyset_merge(e, t);
    TAP_IS_STR(keys(p, e, 6),
               "(5, 2, 2)(5, 5, 2)(5, 6, 2)(5, 1, 2)(3, 3, 2)(1, 1, 2)",
               "pyset: the issue's entries in CPython's order");

    /* 40 added one by one (growing), merged into a set of 3 */
    big = pl_pyset_make(p, 3);
    for (i = 1; i <= 40; i++) {
        add3(big, i, i / 3 + 1, 7);
    }
    small = pl_pyset_make(p, 3);
    add3(small, 100, 1, 7);
    add3(small, 101, 2, 7);
    add3(small, 102, 3, 7);
    pl_pyset_merge(small, big);
    TAP_IS_INT((int)pl_pyset_count(small), 43, "pyset: merged, 43");
    TAP_IS_STR(keys(p, small, 6),
               "(38, 13, 7)(4, 2, 7)(14, 5, 7)(8, 3, 7)(5, 2, 7)(33, 12, 7)",
               "pyset: merged, in CPython's order");

    /* set(x for x in small if x[1] % 2 == 1) */
    f = pl_pyset_make(p, 3);
    for (pos = 0; (k = pl_pyset_next(small, &pos)) != NULL;) {
        if (k[1] % 2 == 1) {
            pl_pyset_add(f, k);
        }
    }
    TAP_IS_INT((int)pl_pyset_count(f), 22, "pyset: filtered, 22");
    TAP_IS_STR(keys(p, f, 6),
               "(38, 13, 7)(14, 5, 7)(8, 3, 7)(25, 9, 7)(24, 9, 7)(26, 9, 7)",
               "pyset: filtered, in CPython's order");
}

enum { VCPU = 0, MEM = 1, DISK = 2 };
enum { T_SHARE = 102 };
enum { AGG_A = 500, AGG_B = 501 };

/* The world of t/api/allocation-candidates-sharing.yaml, ids as there:
 * cn1..cn4 (1-4; 1 and 3 with disk; 1, 2 in A), ss1 (5, sharing disk,
 * in A), nroot (6, in A) with numa0, numa1 (7, 8). */
static pl_ac_world_t *sharing_world(apr_pool_t *p)
{
    pl_ac_world_t *w = pl_ac_world_make(p);
    apr_int64_t id;

    add_name(w->rcs, VCPU, "VCPU");
    add_name(w->rcs, MEM, "MEMORY_MB");
    add_name(w->rcs, DISK, "DISK_GB");
    add_name(w->aggs, AGG_A, "5a5a0000-0000-4000-8000-0000000000aa");
    for (id = 1; id <= 4; id++) {
        inv(w, id, id, VCPU, 8, 0);
        inv(w, id, id, MEM, 4096, 0);
        if (id % 2) {
            inv(w, id, id, DISK, 100, 0);
        }
        link_(w->rp_aggs, id, id, id <= 2 ? AGG_A : AGG_B);
    }
    inv(w, 5, 5, DISK, 1000, 0);
    link_(w->sharing, 5, 5, 0);
    link_(w->rp_aggs, 5, 5, AGG_A);
    link_(w->rp_aggs, 6, 6, AGG_A);
    for (id = 7; id <= 8; id++) {
        inv(w, id, 6, VCPU, 4, 0);
        inv(w, id, 6, MEM, 2048, 0);
        link_(w->parents, id, 6, 6);
    }
    w->has_trees = 1;
    /* the trees of aggregate A, ss1's anchors */
    link_(w->anchors, 5, 5, 1);
    link_(w->anchors, 5, 5, 2);
    link_(w->anchors, 5, 5, 5);
    link_(w->anchors, 5, 5, 6);
    return w;
}

static pl_ac_result_t *build(apr_pool_t *p, const pl_ac_world_t *w,
                             const char *q)
{
    pl_ac_request_t *req = request(p, PL_MV(1, 39), q);
    pl_ac_opts_t opts;
    pl_ac_result_t *res;

    memset(&opts, 0, sizeof(opts));
    opts.limit = req->limit;
    opts.max_candidates = -1;
    pl_ac_build(p, req, w, &opts, &res);
    return res;
}

/* the provider that takes class rc in the candidate that has ss1, or 0 */
static apr_int64_t beside_share(const pl_ac_result_t *res, apr_int64_t rc)
{
    int i, j, k;

    for (i = 0; i < res->cands->nelts; i++) {
        const pl_ac_cand_t *c = APR_ARRAY_IDX(res->cands, i, pl_ac_cand_t *);

        for (j = 0; j < c->nallocs; j++) {
            if (c->allocs[j].rp_id != 5) {
                continue;
            }
            for (k = 0; k < c->nallocs; k++) {
                if (c->allocs[k].rc_id == rc) {
                    return c->allocs[k].rp_id;
                }
            }
        }
    }
    return 0;
}

static void test_sharing_beside_numbered(apr_pool_t *p)
{
    const pl_ac_world_t *w = sharing_world(p);
    pl_ac_result_t *res;

    res = build(p, w, "resources=DISK_GB:1&resources1=MEMORY_MB:2");
    TAP_IS_INT(res->cands->nelts, 3,
               "sharing beside a numbered group: 3, as upstream");
    TAP_IS_INT((int)beside_share(res, MEM), 2,
               "ss1's disk with cn2's memory only");
    res = build(p, w, "resources=DISK_GB:1&resources1=VCPU:1");
    TAP_IS_INT(res->cands->nelts, 3, "the same with VCPU");
    res = build(p, w, "resources=DISK_GB:1,MEMORY_MB:2");
    TAP_IS_INT(res->cands->nelts, 6, "one group: every tree of A");
    res = build(p, w,
                "resources1=DISK_GB:1&resources2=MEMORY_MB:2"
                "&group_policy=none");
    TAP_IS_INT(res->cands->nelts, 6, "two numbered groups: every tree of A");
    res = build(p, w, "resources=DISK_GB:1,VCPU:1&resources1=MEMORY_MB:2");
    TAP_IS_INT(res->cands->nelts, 8,
               "a choice with a provider of the tree: in its tree");
}

int main(void)
{
    apr_pool_t *p;

    apr_initialize();
    apr_pool_create(&p, NULL);
    test_set_order(p);
    test_sharing_beside_numbered(p);
    apr_pool_destroy(p);
    apr_terminate();
    return tap_done();
}
