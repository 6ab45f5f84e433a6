/* Licensed under the Apache License, Version 2.0.
 *
 * ac-engine.c: CPU time of the candidate engine alone (pl_ac_build, no
 * database, no JSON) on wide trees: R roots x C children x U units of
 * one class, G one-unit groups, a policy, a limit and a strategy.
 *
 *   make build/ac-engine            (links build/libplacement.a)
 *   build/ac-engine ROOTS CHILDREN UNITS GROUPS none|isolate LIMIT \
 *       [depth|breadth] [REPEAT]
 *
 * Prints candidates, nodes, pruned, refused and the median CPU ms of
 * REPEAT builds (default 5).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <apr_general.h>
#include <apr_strings.h>

#include "pl_ac.h"
#include "pl_mv.h"

static double cpu_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    apr_pool_t *p, *it;
    pl_ac_world_t *w;
    pl_ac_request_t *req;
    pl_ac_opts_t opts;
    pl_ac_stats_t st;
    pl_ac_result_t *res = NULL;
    apr_array_header_t *args;
    const char *err, *code;
    int roots, children, units, groups, limit, repeat, r, c, i;
    double *t;

    if (argc < 7) {
        fprintf(stderr,
                "usage: %s ROOTS CHILDREN UNITS GROUPS "
                "none|isolate LIMIT [depth|breadth] [REPEAT]\n",
                argv[0]);
        return 2;
    }
    roots = atoi(argv[1]);
    children = atoi(argv[2]);
    units = atoi(argv[3]);
    groups = atoi(argv[4]);
    limit = atoi(argv[6]);
    repeat = argc > 8 ? atoi(argv[8]) : 5;
    apr_initialize();
    apr_pool_create(&p, NULL);
    w = pl_ac_world_make(p);
    w->has_trees = 1;
    {
        pl_ac_name_t *n = apr_array_push(w->rcs);

        n->id = 6;
        n->name = "SRIOV_NET_VF";
    }
    for (r = 1; r <= roots; r++) {
        for (c = 1; c <= children; c++) {
            pl_ac_inv_t *iv = apr_array_push(w->invs);
            pl_ac_link_t *l = apr_array_push(w->parents);

            memset(iv, 0, sizeof(*iv));
            iv->rp_id = r * 1000 + c;
            iv->root_id = r * 1000;
            iv->rc_id = 6;
            iv->total = units;
            iv->min_unit = 1;
            iv->max_unit = units;
            iv->step_size = 1;
            iv->allocation_ratio = 1.0;
            l->rp_id = iv->rp_id;
            l->root_id = iv->root_id;
            l->other_id = iv->root_id;
        }
    }
    args = apr_array_make(p, groups + 2, sizeof(pl_ac_arg_t));
    for (i = 1; i <= groups; i++) {
        pl_ac_arg_t *a = apr_array_push(args);

        a->key = apr_psprintf(p, "resources%d", i);
        a->value = "SRIOV_NET_VF:1";
    }
    ((pl_ac_arg_t *)apr_array_push(args))->key = "group_policy";
    APR_ARRAY_IDX(args, args->nelts - 1, pl_ac_arg_t).value = argv[5];
    if (limit > 0) {
        ((pl_ac_arg_t *)apr_array_push(args))->key = "limit";
        APR_ARRAY_IDX(args, args->nelts - 1, pl_ac_arg_t).value = argv[6];
    }
    if (pl_ac_request_parse(p, PL_MV(1, 39), args, &req, &err, &code) !=
        APR_SUCCESS) {
        fprintf(stderr, "parse: %s\n", err);
        return 1;
    }
    memset(&opts, 0, sizeof(opts));
    opts.limit = req->limit;
    opts.max_candidates = -1;
    opts.strategy = argc > 7 && !strcmp(argv[7], "depth") ? PL_AC_DEPTH_FIRST
                                                          : PL_AC_BREADTH_FIRST;
    opts.stats = &st;
    t = calloc(repeat, sizeof(double));
    for (i = 0; i < repeat; i++) {
        double t0;

        apr_pool_create(&it, p);
        t0 = cpu_ms();
        pl_ac_build(it, req, w, &opts, &res);
        t[i] = cpu_ms() - t0;
        if (i < repeat - 1) {
            apr_pool_destroy(it);
        }
    }
    qsort(t, repeat, sizeof(double), cmp_d);
    printf("%dx%dx%d groups=%d %s limit=%d %s: candidates %d nodes %ld "
           "pruned %ld refused %ld truncated %d over_budget %d cpu_ms %.2f\n",
           roots, children, units, groups, argv[5], limit,
           opts.strategy == PL_AC_DEPTH_FIRST ? "depth" : "breadth",
           res->cands->nelts, st.nodes, st.pruned, st.refused, res->truncated,
           res->over_budget, t[repeat / 2]);
    apr_terminate();
    return 0;
}
