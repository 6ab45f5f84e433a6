/* Licensed under the Apache License, Version 2.0.
 *
 * test_ac_wide.c: the allocation-candidate engine (ac_build.c) on wide
 * hand-built trees (issue 12): requests no tree can satisfy are refused
 * before any walk, partial candidates that cannot complete are cut, the
 * work follows the answer under limit, breadth-first takes the roots in
 * turn, the order is stable, and capacity arithmetic saturates instead of
 * overflowing (issue 13).
 */
#include <stdlib.h>
#include <string.h>

#include <apr_general.h>
#include <apr_hash.h>
#include <apr_strings.h>

#include "pl_ac.h"
#include "pl_idmap.h"
#include "pl_mv.h"
#include "tap.h"
#include "ac_world.h"

enum { VCPU = 0, VF = 6, PF = 7 };
enum { T_ODD = 100 };

/* roots 1000, 2000, ...; children root + 1 .. root + nchildren, each with
 * units of SRIOV_NET_VF; child root + 5 also has 1 CUSTOM_PF and the
 * trait CUSTOM_ODD */
static pl_ac_world_t *wide(apr_pool_t *p, int nroots, int nchildren, int units)
{
    pl_ac_world_t *w = pl_ac_world_make(p);
    int r, c;

    add_name(w->rcs, VCPU, "VCPU");
    add_name(w->rcs, VF, "SRIOV_NET_VF");
    add_name(w->rcs, PF, "CUSTOM_PF");
    add_name(w->traits, T_ODD, "CUSTOM_ODD");
    w->has_trees = 1;
    for (r = 1; r <= nroots; r++) {
        apr_int64_t root = r * 1000;

        for (c = 1; c <= nchildren; c++) {
            inv(w, root + c, root, VF, units, 0);
            link_(w->parents, root + c, root, root);
            if (c == 5) {
                inv(w, root + c, root, PF, 1, 0);
                link_(w->rp_traits, root + c, root, T_ODD);
            }
        }
    }
    return w;
}

/* n groups of one VF each; the last also gets extra (if any) */
static const char *groups(apr_pool_t *p, int n, const char *extra,
                          const char *policy, int limit)
{
    const char *q = "";
    int i;

    for (i = 1; i <= n; i++) {
        q = apr_psprintf(p, "%s%sresources%d=SRIOV_NET_VF:1%s", q,
                         i > 1 ? "&" : "", i, i == n && extra ? extra : "");
    }
    q = apr_psprintf(p, "%s&group_policy=%s", q, policy);
    if (limit > 0) {
        q = apr_psprintf(p, "%s&limit=%d", q, limit);
    }
    return q;
}

static pl_ac_stats_t stats;

static pl_ac_result_t *build(apr_pool_t *p, const pl_ac_world_t *w,
                             const char *q, pl_ac_strategy_e strategy)
{
    pl_ac_request_t *req = request(p, PL_MV(1, 39), q);
    pl_ac_opts_t opts;
    pl_ac_result_t *res;

    memset(&opts, 0, sizeof(opts));
    memset(&stats, 0, sizeof(stats));
    opts.limit = req->limit;
    opts.max_candidates = -1;
    opts.strategy = strategy;
    opts.stats = &stats;
    pl_ac_build(p, req, w, &opts, &res);
    return res;
}

/* the providers of candidate i's mappings, "1001,1002" */
static const char *maps(apr_pool_t *p, const pl_ac_result_t *res, int i)
{
    const pl_ac_cand_t *c = APR_ARRAY_IDX(res->cands, i, pl_ac_cand_t *);
    const char *s = "";
    int j;

    for (j = 0; j < c->nmaps; j++) {
        s = apr_psprintf(p, "%s%s%" APR_INT64_T_FMT, s, j ? "," : "",
                         c->maps[j].rp_ids[0]);
    }
    return s;
}

static const char *all_maps(apr_pool_t *p, const pl_ac_result_t *res)
{
    const char *s = "";
    int i;

    for (i = 0; i < res->cands->nelts; i++) {
        s = apr_psprintf(p, "%s%s%s", s, i ? " " : "", maps(p, res, i));
    }
    return s;
}

static apr_int64_t root_of(const pl_ac_result_t *res, int i)
{
    const pl_ac_cand_t *c = APR_ARRAY_IDX(res->cands, i, pl_ac_cand_t *);

    return c->allocs[0].rp_id / 1000 * 1000;
}

static void test_infeasible(apr_pool_t *p)
{
    pl_ac_world_t *w = wide(p, 1, 64, 1);
    pl_ac_result_t *res;

    res = build(p, w, groups(p, 65, NULL, "none", 1000), PL_AC_DEPTH_FIRST);
    TAP_IS_INT(res->cands->nelts, 0,
               "65 groups on 64 one-unit children, "
               "none: no candidate");
    TAP_IS_INT(stats.nodes, 0, "... decided without walking");
    TAP_IS_INT(stats.refused, 1, "... the tree refused up front");
    TAP_IS_INT(res->truncated, 0, "... and not cut by the budget");

    res = build(p, w, groups(p, 65, NULL, "isolate", 0), PL_AC_DEPTH_FIRST);
    TAP_IS_INT(res->cands->nelts, 0, "65 groups, isolate, no limit: none");
    TAP_IS_INT(stats.nodes, 0, "... decided without walking");

    /* room enough (4 units each) but isolate wants 65 providers */
    w = wide(p, 1, 64, 4);
    res = build(p, w, groups(p, 65, NULL, "isolate", 1000), PL_AC_DEPTH_FIRST);
    TAP_IS_INT(res->cands->nelts, 0,
               "65 isolated groups on 64 providers "
               "of 4 units: none");
    TAP_IS_INT(stats.nodes, 0, "... decided by the matching");
    res = build(p, w, groups(p, 65, NULL, "none", 10), PL_AC_DEPTH_FIRST);
    TAP_IS_INT(res->cands->nelts, 10, "... while none finds them");

    /* two groups need the one child with CUSTOM_PF: room for PF is 1 */
    w = wide(p, 1, 64, 4);
    res = build(p, w,
                apr_pstrcat(p, groups(p, 63, ",CUSTOM_PF:1", "none", 1000),
                            "&resources64=CUSTOM_PF:1", NULL),
                PL_AC_DEPTH_FIRST);
    TAP_IS_INT(res->cands->nelts, 0,
               "two groups wanting the one PF unit: "
               "none");
    TAP_IS_INT(stats.nodes, 0, "... decided without walking");

    /* isolate: two groups that only the odd child can serve */
    w = wide(p, 1, 64, 1);
    res = build(p, w,
                apr_pstrcat(p, groups(p, 62, NULL, "isolate", 10),
                            "&resources63=SRIOV_NET_VF:1"
                            "&required63=CUSTOM_ODD"
                            "&resources64=SRIOV_NET_VF:1"
                            "&required64=CUSTOM_ODD",
                            NULL),
                PL_AC_DEPTH_FIRST);
    TAP_IS_INT(res->cands->nelts, 0,
               "isolate: two groups, one provider "
               "with the trait: none");
    TAP_IS_INT(stats.nodes, 0, "... decided by the matching");
}

static void test_pruning(apr_pool_t *p)
{
    pl_ac_world_t *w = wide(p, 1, 64, 1);
    pl_ac_result_t *res;
    int i, ok;

    /* the last group needs child 1005, which group 5 takes first: the
     * walk must give it back early rather than try 63! orders */
    res = build(p, w, groups(p, 64, ",CUSTOM_PF:1", "isolate", 5),
                PL_AC_DEPTH_FIRST);
    TAP_IS_INT(res->cands->nelts, 5,
               "last group needs the odd child, "
               "isolate: 5 candidates");
    TAP_IS_INT(res->truncated, 1, "... stopped by the limit");
    TAP_OK(stats.pruned > 0, "... partial candidates were cut (%ld)",
           stats.pruned);
    TAP_OK(stats.nodes < 5 * 64 * 4, "... in few steps (%ld)", stats.nodes);
    for (ok = 1, i = 0; i < res->cands->nelts; i++) {
        const pl_ac_cand_t *c = APR_ARRAY_IDX(res->cands, i, pl_ac_cand_t *);

        ok &= c->nmaps == 64 && c->maps[63].rp_ids[0] == 1005;
    }
    TAP_OK(ok, "... the last group on the odd child in each");

    res = build(p, w, groups(p, 64, ",CUSTOM_PF:1", "none", 5),
                PL_AC_DEPTH_FIRST);
    TAP_IS_INT(res->cands->nelts, 5, "the same with none: 5 candidates");
    TAP_OK(stats.nodes < 5 * 64 * 4, "... in few steps (%ld)", stats.nodes);

    /* isolate with the trait: a matching exists (the others elsewhere) */
    res = build(p, w,
                apr_pstrcat(p, groups(p, 63, NULL, "isolate", 3),
                            "&resources64=SRIOV_NET_VF:1"
                            "&required64=CUSTOM_ODD",
                            NULL),
                PL_AC_DEPTH_FIRST);
    TAP_IS_INT(res->cands->nelts, 3,
               "isolate, last group needs the trait: "
               "3 candidates");
    TAP_OK(stats.nodes < 3 * 64 * 4, "... in few steps (%ld)", stats.nodes);
}

static void test_bounded(apr_pool_t *p)
{
    pl_ac_world_t *w = wide(p, 1, 64, 1);
    pl_ac_result_t *res;
    long n10, n1000;

    res = build(p, w, groups(p, 64, NULL, "none", 10), PL_AC_DEPTH_FIRST);
    TAP_IS_INT(res->cands->nelts, 10, "64 groups, limit 10: 10");
    n10 = stats.nodes;
    res = build(p, w, groups(p, 64, NULL, "none", 1000), PL_AC_DEPTH_FIRST);
    TAP_IS_INT(res->cands->nelts, 1000, "64 groups, limit 1000: 1000");
    n1000 = stats.nodes;
    TAP_OK(n10 <= 64 + 10 * 8, "limit 10: work of the answer (%ld nodes)", n10);
    TAP_OK(n1000 <= 64 + 1000 * 8,
           "limit 1000: work of the answer "
           "(%ld nodes)",
           n1000);
    res = build(p, w, groups(p, 64, NULL, "isolate", 1000),
                PL_AC_BREADTH_FIRST);
    TAP_IS_INT(res->cands->nelts, 1000, "isolate, limit 1000: 1000");
    TAP_OK(stats.nodes <= 64 + 1000 * 8,
           "... work of the answer "
           "(%ld nodes)",
           stats.nodes);
}

static void test_order(apr_pool_t *p)
{
    pl_ac_world_t *w = wide(p, 3, 3, 1);
    pl_ac_result_t *res, *res2;
    int i, ok;

    res = build(p, w, groups(p, 2, NULL, "none", 0), PL_AC_DEPTH_FIRST);
    TAP_IS_INT(res->cands->nelts, 18, "3 roots x 3 children, 2 groups: 18");
    TAP_IS_STR(all_maps(p, res),
               "1001,1002 1001,1003 1002,1001 1002,1003 "
               "1003,1001 1003,1002 2001,2002 2001,2003 2002,2001 2002,2003 "
               "2003,2001 2003,2002 3001,3002 3001,3003 3002,3001 3002,3003 "
               "3003,3001 3003,3002",
               "depth-first: root by root, choices "
               "by provider id");
    res2 = build(p, w, groups(p, 2, NULL, "none", 0), PL_AC_BREADTH_FIRST);
    TAP_IS_STR(all_maps(p, res2), all_maps(p, res),
               "no bound: "
               "breadth-first answers as depth-first");
    res2 = build(p, w, groups(p, 2, NULL, "none", 0), PL_AC_DEPTH_FIRST);
    TAP_IS_STR(all_maps(p, res2), all_maps(p, res),
               "the same request: "
               "the same order");

    res = build(p, w, groups(p, 2, NULL, "none", 7), PL_AC_BREADTH_FIRST);
    TAP_IS_STR(all_maps(p, res),
               "1001,1002 2001,2002 3001,3002 1001,1003 "
               "2001,2003 3001,3003 1002,1001",
               "breadth-first, limit 7: "
               "the roots in turn");
    TAP_IS_INT(res->truncated, 1, "... cut by the limit");
    TAP_IS_INT(res->roots->nelts, 3, "... every root summarized");
    res = build(p, w, groups(p, 2, NULL, "none", 7), PL_AC_DEPTH_FIRST);
    for (ok = res->cands->nelts == 7, i = 0; i < res->cands->nelts; i++) {
        ok &= root_of(res, i) == (i < 6 ? 1000 : 2000);
    }
    TAP_OK(ok, "depth-first, limit 7: the first root's 6, then one of the "
               "next");

    /* a root with nothing left: breadth-first skips it */
    w = wide(p, 3, 3, 1);
    for (i = 0; i < w->invs->nelts; i++) {
        pl_ac_inv_t *iv = &APR_ARRAY_IDX(w->invs, i, pl_ac_inv_t);

        if (iv->root_id == 2000) {
            iv->used = 1;
        }
    }
    res = build(p, w, groups(p, 2, NULL, "isolate", 4), PL_AC_BREADTH_FIRST);
    TAP_IS_STR(all_maps(p, res), "1001,1002 3001,3002 1001,1003 3001,3003",
               "breadth-first: a full root gives nothing, the others turn");

    /* 64 wide, two roots, limit 10: five of each */
    w = wide(p, 2, 64, 1);
    res = build(p, w, groups(p, 64, NULL, "isolate", 10), PL_AC_BREADTH_FIRST);
    for (ok = res->cands->nelts == 10, i = 0; i < res->cands->nelts; i++) {
        ok &= root_of(res, i) == (i % 2 ? 2000 : 1000);
    }
    TAP_OK(ok, "64 wide, 2 roots, limit 10, breadth-first: 5 each, in "
               "turn");
}

static void test_overflow(apr_pool_t *p)
{
    pl_ac_world_t *w;
    pl_ac_result_t *res;
    pl_ac_inv_t big;

    memset(&big, 0, sizeof(big));
    big.total = APR_INT64_MAX;
    big.allocation_ratio = 16.0;
    TAP_OK(pl_ac_capacity(&big) == APR_INT64_MAX, "capacity above 2^63 "
                                                  "saturates");
    big.total = 1000;
    big.reserved = -APR_INT64_MAX;
    big.allocation_ratio = 1.0;
    TAP_OK(pl_ac_capacity(&big) == APR_INT64_MAX, "total - reserved above "
                                                  "2^63 saturates");
    big.total = 10;
    big.reserved = 2;
    big.allocation_ratio = 1.5;
    TAP_IS_INT(pl_ac_capacity(&big), 12, "int((10 - 2) * 1.5)");

    w = pl_ac_world_make(p);
    add_name(w->rcs, VCPU, "VCPU");
    inv(w, 1, 1, VCPU, APR_INT64_MAX, 0);
    APR_ARRAY_IDX(w->invs, 0, pl_ac_inv_t).allocation_ratio = 16.0;
    inv(w, 2, 2, VCPU, APR_INT64_MAX, APR_INT64_MAX - 10);
    res = build(p, w, "resources=VCPU:1000", PL_AC_DEPTH_FIRST);
    TAP_IS_STR(res->cands->nelts == 1 ? "1" : "", "1",
               "a provider of "
               "capacity above 2^63 stays a candidate; used + amount past "
               "2^63 does not fit");
    if (res->cands->nelts == 1) {
        TAP_IS_INT(
            APR_ARRAY_IDX(res->cands, 0, pl_ac_cand_t *)->allocs[0].rp_id, 1,
            "... the first one");
    }
    res = build(p, w,
                "resources1=VCPU:4611686018427387904"
                "&resources2=VCPU:4611686018427387904&group_policy=none",
                PL_AC_DEPTH_FIRST);
    TAP_IS_INT(res->cands->nelts, 0,
               "two amounts of 2^62 on one provider "
               "with max_unit 2^63-1: no candidate (their sum exceeds it)");
    {
        apr_array_header_t *sums;
        pl_idmap_t *by_id;
        const pl_ac_summary_t *s;

        pl_ac_prov_t *pv = apr_array_push(w->provs);

        memset(pv, 0, sizeof(*pv));
        pv->id = 1;
        pv->root_id = 1;
        pv->uuid = "11111111-1111-1111-1111-111111111111";
        pl_idmap_set(w->prov_by_id, pv->id, pv);
        res = build(p, w, "resources=VCPU:1000", PL_AC_DEPTH_FIRST);
        pl_ac_summaries(p, w, res, 0, &sums, &by_id);
        s = sums->nelts ? APR_ARRAY_IDX(sums, 0, pl_ac_summary_t *) : NULL;
        TAP_OK(s && s->res->nelts == 1 &&
                   APR_ARRAY_IDX(s->res, 0, pl_ac_summary_res_t).capacity ==
                       APR_INT64_MAX,
               "summary capacity saturates");
    }
}

int main(void)
{
    apr_pool_t *p;

    apr_initialize();
    apr_pool_create(&p, NULL);
    test_infeasible(p);
    test_pruning(p);
    test_bounded(p);
    test_order(p);
    test_overflow(p);
    apr_pool_destroy(p);
    apr_terminate();
    return tap_done();
}
