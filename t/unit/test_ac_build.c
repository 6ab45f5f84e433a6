/* Licensed under the Apache License, Version 2.0.
 *
 * test_ac_build.c: the allocation-candidate engine (ac_build.c) on
 * hand-built worlds, no database: flat providers, a nested tree, a
 * sharing provider, group_policy, amounts summed over groups, same_subtree,
 * root_required, limit, unknown names, microversion 1.28's blindness to
 * trees.
 */
#include <stdlib.h>
#include <string.h>

#include <apr_general.h>
#include <apr_strings.h>

#include "pl_ac.h"
#include "pl_mv.h"
#include "tap.h"
#include "ac_world.h"

enum { VCPU = 0, MEM = 1, DISK = 2, VF = 6 };
enum { T_AVX = 100, T_SSD = 101, T_SHARE = 102, T_ROOTY = 103 };
enum { AGG1 = 500 };

static pl_ac_world_t *world(apr_pool_t *p)
{
    pl_ac_world_t *w = pl_ac_world_make(p);

    add_name(w->rcs, VCPU, "VCPU");
    add_name(w->rcs, MEM, "MEMORY_MB");
    add_name(w->rcs, DISK, "DISK_GB");
    add_name(w->rcs, VF, "SRIOV_NET_VF");
    add_name(w->traits, T_AVX, "HW_CPU_X86_AVX");
    add_name(w->traits, T_SSD, "CUSTOM_SSD");
    add_name(w->traits, T_ROOTY, "CUSTOM_ROOTY");
    add_name(w->aggs, AGG1, "11111111-2222-3333-4444-555555555555");
    return w;
}

static pl_ac_result_t *build(apr_pool_t *p, const pl_ac_world_t *w, int mv,
                             const char *q, int max)
{
    pl_ac_request_t *req = request(p, mv, q);
    pl_ac_opts_t opts;
    pl_ac_result_t *res;

    memset(&opts, 0, sizeof(opts));
    opts.exclude_nested = mv < PL_MV(1, 29);
    opts.limit = req->limit;
    opts.max_candidates = max;
    pl_ac_build(p, req, w, &opts, &res);
    return res;
}

/* "rp:RC=amount rp:RC=amount" of candidate i, providers in order */
static const char *render(apr_pool_t *p, const pl_ac_result_t *res, int i)
{
    const pl_ac_cand_t *c = APR_ARRAY_IDX(res->cands, i, pl_ac_cand_t *);
    const char *s = "";
    int j;

    for (j = 0; j < c->nallocs; j++) {
        s = apr_psprintf(p, "%s%s%" APR_INT64_T_FMT ":%s=%" APR_INT64_T_FMT, s,
                         j ? " " : "", c->allocs[j].rp_id, c->allocs[j].rc_name,
                         c->allocs[j].amount);
    }
    return s;
}

static void test_flat(apr_pool_t *p)
{
    pl_ac_world_t *w = world(p);
    pl_ac_result_t *res;

    inv(w, 1, 1, VCPU, 4, 0);
    inv(w, 2, 2, VCPU, 4, 3); /* 1 left */
    inv(w, 3, 3, VCPU, 8, 0);
    inv(w, 3, 3, DISK, 100, 0);
    link_(w->rp_traits, 3, 3, T_AVX);

    res = build(p, w, PL_MV(1, 39), "resources=VCPU:2", -1);
    TAP_IS_INT(res->cands->nelts, 2, "flat: providers with room");
    TAP_IS_STR(render(p, res, 0), "1:VCPU=2", "flat: ordered by provider");
    TAP_IS_STR(render(p, res, 1), "3:VCPU=2", "flat: second");
    TAP_IS_INT(res->roots->nelts, 2, "flat: summaries of two trees");

    res = build(p, w, PL_MV(1, 39),
                "resources=VCPU:2&required="
                "HW_CPU_X86_AVX",
                -1);
    TAP_IS_INT(res->cands->nelts, 1, "flat: required trait");

    res = build(p, w, PL_MV(1, 39),
                "resources=VCPU:2&required="
                "!HW_CPU_X86_AVX",
                -1);
    TAP_IS_INT(res->cands->nelts, 1, "flat: forbidden trait");
    TAP_IS_STR(render(p, res, 0), "1:VCPU=2", "flat: the one without it");

    res = build(p, w, PL_MV(1, 39), "resources=VCPU:1,DISK_GB:10", -1);
    TAP_IS_INT(res->cands->nelts, 1, "flat: both classes on one");

    res = build(p, w, PL_MV(1, 39), "resources=VCPU:1&limit=2", -1);
    TAP_IS_INT(res->cands->nelts, 2, "flat: limit");
    TAP_IS_INT(res->truncated, 1, "flat: limit stops the walk");

    res = build(p, w, PL_MV(1, 39), "resources=VCPU:1", 1);
    TAP_IS_INT(res->cands->nelts, 1, "flat: configured maximum");

    res = build(p, w, PL_MV(1, 39), "resources=VCPU:3&resources1=VCPU:3", -1);
    TAP_IS_INT(res->cands->nelts, 1, "flat: amounts of groups add up");
    TAP_IS_STR(render(p, res, 0), "3:VCPU=6", "flat: one summed amount");

    res = build(p, w, PL_MV(1, 39), "resources=CUSTOM_NOPE:1", -1);
    TAP_IS_INT(res->outcome, PL_AC_UNKNOWN_RC, "unknown class");
    TAP_IS_STR(res->unknown, "CUSTOM_NOPE", "its name");

    res = build(p, w, PL_MV(1, 39), "resources=VCPU:1&required=CUSTOM_NO", -1);
    TAP_IS_INT(res->outcome, PL_AC_UNKNOWN_TRAIT, "unknown trait");

    res = build(p, w, PL_MV(1, 39),
                "resources=VCPU:1&member_of="
                "99999999-2222-3333-4444-555555555555",
                -1);
    TAP_IS_INT(res->outcome, PL_AC_OK, "unknown aggregate: no error");
    TAP_IS_INT(res->cands->nelts, 0, "unknown aggregate: nothing");
}

/*   10 (root, CUSTOM_ROOTY)
 *   +-- 11  VCPU 8, AVX
 *   +-- 12  VF 2
 *   +-- 13  VF 2
 */
static pl_ac_world_t *tree(apr_pool_t *p)
{
    pl_ac_world_t *w = world(p);

    w->has_trees = 1;
    inv(w, 11, 10, VCPU, 8, 0);
    inv(w, 12, 10, VF, 2, 0);
    inv(w, 13, 10, VF, 2, 0);
    link_(w->rp_traits, 11, 10, T_AVX);
    link_(w->rp_traits, 10, 10, T_ROOTY);
    link_(w->parents, 11, 10, 10);
    link_(w->parents, 12, 10, 10);
    link_(w->parents, 13, 10, 10);
    return w;
}

static void test_nested(apr_pool_t *p)
{
    pl_ac_world_t *w = tree(p);
    pl_ac_result_t *res;

    res = build(p, w, PL_MV(1, 29), "resources=VCPU:1,SRIOV_NET_VF:1", -1);
    TAP_IS_INT(res->cands->nelts, 2, "nested: one VF provider each");
    TAP_IS_STR(render(p, res, 0), "11:VCPU=1 12:SRIOV_NET_VF=1",
               "nested: spans the tree");
    TAP_IS_INT(res->roots->nelts, 1, "nested: one tree summarized");

    res = build(p, w, PL_MV(1, 28), "resources=VCPU:1,SRIOV_NET_VF:1", -1);
    TAP_IS_INT(res->cands->nelts, 0, "1.28: one provider per tree");

    res = build(p, w, PL_MV(1, 29),
                "resources=VCPU:1,SRIOV_NET_VF:1"
                "&required=HW_CPU_X86_AVX",
                -1);
    TAP_IS_INT(res->cands->nelts, 2, "nested: trait on one of them");

    res = build(p, w, PL_MV(1, 35),
                "resources=VCPU:1&root_required="
                "CUSTOM_ROOTY",
                -1);
    TAP_IS_INT(res->cands->nelts, 1, "root_required on the root");
    res = build(p, w, PL_MV(1, 35),
                "resources=VCPU:1&root_required="
                "!CUSTOM_ROOTY",
                -1);
    TAP_IS_INT(res->cands->nelts, 0, "root_required forbidden");

    res = build(p, w, PL_MV(1, 33),
                "resources1=SRIOV_NET_VF:1"
                "&resources2=SRIOV_NET_VF:1&group_policy=isolate",
                -1);
    TAP_IS_INT(res->cands->nelts, 2, "isolate: different providers");

    res = build(p, w, PL_MV(1, 33),
                "resources1=SRIOV_NET_VF:1"
                "&resources2=SRIOV_NET_VF:1&group_policy=none",
                -1);
    TAP_IS_INT(res->cands->nelts, 4, "none: the same provider too");

    res = build(p, w, PL_MV(1, 33),
                "resources1=SRIOV_NET_VF:2"
                "&resources2=SRIOV_NET_VF:1&group_policy=none",
                -1);
    TAP_IS_INT(res->cands->nelts, 2, "none: but amounts must fit");

    res = build(p, w, PL_MV(1, 36),
                "resources_C=VCPU:1"
                "&resources_N=SRIOV_NET_VF:1&group_policy=none"
                "&same_subtree=_C,_N",
                -1);
    TAP_IS_INT(res->cands->nelts, 0, "same_subtree: siblings are not");

    res = build(p, w, PL_MV(1, 36),
                "resources_N=SRIOV_NET_VF:1"
                "&required_R=CUSTOM_ROOTY&group_policy=none"
                "&same_subtree=_N,_R",
                -1);
    TAP_IS_INT(res->cands->nelts, 2,
               "same_subtree: under a resourceless "
               "root");
    if (res->cands->nelts) {
        const pl_ac_cand_t *c = APR_ARRAY_IDX(res->cands, 0, pl_ac_cand_t *);

        TAP_IS_INT(c->nmaps, 2, "mappings of both groups");
        TAP_IS_INT(c->maps[1].rp_ids[0], 10, "the root for _R");
    }
}

/* compute node 20 (VCPU) and sharing disk 30, both in agg-1 */
static void test_sharing(apr_pool_t *p)
{
    pl_ac_world_t *w = world(p);
    pl_ac_result_t *res;

    inv(w, 20, 20, VCPU, 8, 0);
    inv(w, 21, 21, VCPU, 8, 0); /* not in the aggregate */
    inv(w, 30, 30, DISK, 1000, 0);
    link_(w->sharing, 30, 30, 0);
    link_(w->rp_aggs, 20, 20, AGG1);
    link_(w->rp_aggs, 30, 30, AGG1);
    link_(w->anchors, 30, 30, 20);
    link_(w->anchors, 30, 30, 30);
    link_(w->rp_traits, 30, 30, T_SSD);

    res = build(p, w, PL_MV(1, 34), "resources=VCPU:1,DISK_GB:10", -1);
    TAP_IS_INT(res->cands->nelts, 1, "sharing: disk from the share");
    TAP_IS_STR(render(p, res, 0), "20:VCPU=1 30:DISK_GB=10",
               "sharing: two providers");
    TAP_IS_INT(res->roots->nelts, 2, "sharing: both trees summarized");

    res = build(p, w, PL_MV(1, 34),
                "resources=VCPU:1,DISK_GB:10"
                "&required=CUSTOM_SSD",
                -1);
    TAP_IS_INT(res->cands->nelts, 1, "sharing: trait of the share counts");

    res = build(p, w, PL_MV(1, 34), "resources=DISK_GB:10", -1);
    TAP_IS_INT(res->cands->nelts, 1,
               "sharing alone: one candidate, "
               "whatever the anchor");

    res = build(p, w, PL_MV(1, 34),
                "resources=VCPU:1"
                "&resources1=DISK_GB:10",
                -1);
    TAP_IS_INT(res->cands->nelts, 1, "sharing: in a suffixed group");
}

/* pl_ac_bound: the lower of limit and the maximum, whatever the order */
static void test_bound(apr_pool_t *p)
{
    pl_ac_world_t *w = world(p);
    pl_ac_opts_t o;

    inv(w, 1, 1, VCPU, 4, 0);
    memset(&o, 0, sizeof(o));
    o.max_candidates = -1;
    TAP_IS_INT(pl_ac_bound(&o), -1, "bound: none without limit or maximum");
    o.limit = 5;
    TAP_IS_INT(pl_ac_bound(&o), 5, "bound: the limit");
    o.max_candidates = 3;
    TAP_IS_INT(pl_ac_bound(&o), 3, "bound: a lower maximum");
    o.max_candidates = 9;
    TAP_IS_INT(pl_ac_bound(&o), 5, "bound: a lower limit");
    o.randomize = 1;
    TAP_IS_INT(pl_ac_bound(&o), 5, "bound: the same when randomized");
    o.limit = 0;
    TAP_IS_INT(pl_ac_bound(&o), 9, "bound: the maximum alone");
    o.max_candidates = 0;
    TAP_IS_INT(pl_ac_bound(&o), 0, "bound: a maximum of 0 gives none");
    o.limit = 4;
    TAP_IS_INT(pl_ac_bound(&o), 0, "bound: whatever the limit");
    TAP_IS_INT(build(p, w, PL_MV(1, 39), "resources=VCPU:1", -1)->cands->nelts,
               1, "bound: none, the one candidate");
    TAP_IS_INT(build(p, w, PL_MV(1, 39), "resources=VCPU:1", 0)->cands->nelts,
               0, "bound: a maximum of 0 builds nothing");
}

int main(void)
{
    apr_pool_t *p;

    apr_initialize();
    apr_pool_create(&p, NULL);
    test_flat(p);
    test_nested(p);
    test_sharing(p);
    test_bound(p);
    apr_pool_destroy(p);
    apr_terminate();
    return tap_done();
}
