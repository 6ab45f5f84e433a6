/* Licensed under the Apache License, Version 2.0.
 *
 * ac_build.c: allocation candidates from a pl_ac_world_t, in memory.
 *
 * What a candidate is follows placement 8.0.0 (objects/
 * allocation_candidate.py, research_context.py):
 * - a suffixed group is satisfied by one provider that has every class
 *   of the group with room for the amount, the group's traits itself and
 *   is itself in its aggregates; so is the unsuffixed group when nobody
 *   nests or shares;
 * - otherwise the unsuffixed group may take each class from a different
 *   provider of one tree, or from a sharing provider (the
 *   MISC_SHARES_VIA_AGGREGATE trait) in an aggregate of that tree; the
 *   providers used together must have its required traits between them
 *   and none may have a forbidden one; member_of holds when the provider
 *   or the root of its tree is in the aggregates;
 * - every candidate hangs from one anchor, the root of a tree: all groups
 *   of a candidate share the anchor; a sharing provider can serve every
 *   tree it shares an aggregate with, except that a choice of the
 *   unsuffixed group made only of sharing providers stays at one of
 *   those trees when other groups join it (upstream's set of choices
 *   ignores the tree; ac_pyorder.c);
 * - group_policy=isolate wants a different provider for each suffixed
 *   group, same_subtree wants the providers of the listed groups under
 *   one of them, root_required wants traits on the anchor, and amounts
 *   the groups take from one provider together must still fit.
 *
 * How: per group the choices each anchor offers, then per anchor a
 * depth-first walk over the choices of all groups (issue 12). Before an
 * anchor is walked it is refused when what its slots ask of a class
 * exceeds the room of its providers, when a slot has no provider that can
 * take it, or when its isolate slots cannot be matched to distinct
 * providers. While walking, a partial candidate is cut as soon as a later
 * slot has no provider left that could take it, a class's remaining asks
 * exceed the room left, or more isolate slots remain than free providers.
 * Those are necessary conditions, so they change the work, never the
 * answer. The walk is resumable per anchor: depth-first takes an anchor's
 * candidates before the next's, breadth-first (with a bound) one from each
 * anchor in turn. It stops when limit (without randomization) or the
 * configured maximum is reached, or when a node budget is spent.
 * Upstream builds every combination first and cuts after.
 * Order: anchors by id, choices by provider id (deterministic), unless
 * randomization is on (anchors and choices shuffled, result shuffled).
 *
 * The engine's files (their shared types in pl_ac_private.h): ac_world.c
 * (providers by id, capacity, checks on one provider), ac_group.c (the
 * groups and the choices each anchor offers), ac_walk.c (the walk and its
 * early decisions), ac_pyorder.c (the one tree upstream keeps a choice of
 * the unsuffixed group made only of sharing providers at: an order of
 * Python sets, replayed), and this one: the entry point, which runs them.
 */
#include <stdlib.h>
#include <string.h>
#include <apr_hash.h>
#include <apr_strings.h>
#include <apr_time.h>

#include "pl_ac_private.h"

#define DEFAULT_BUDGET 4000000L

static int cmp_anchor(const void *a, const void *b)
{
    apr_int64_t x = (*(anchor_t *const *)a)->id;
    apr_int64_t y = (*(anchor_t *const *)b)->id;

    return x < y ? -1 : x > y;
}

static int is_full(const anchor_t *a, int nslots)
{
    int s;

    for (s = 0; s < nslots && a->lists[s] && a->lists[s]->nelts; s++) {
    }
    return s == nslots;
}

/* The anchors every slot can be filled at, by id: taken in the order of
 * the world's providers (sorted by id) when each is one of them, which
 * spares sorting the map's order; sorted otherwise (a sharing provider
 * may anchor at a tree that was not read). */
static apr_array_header_t *full_anchors(build_t *b, const pl_ac_world_t *w,
                                        int nslots)
{
    apr_array_header_t *list = apr_array_make(
        b->c->p, (int)pl_idmap_count(b->anchors) + 1, sizeof(anchor_t *));
    apr_size_t pos = 0;
    apr_int64_t last = APR_INT64_MIN;
    anchor_t *a;
    int i, nfull = 0;

    while ((a = pl_idmap_next(b->anchors, &pos, NULL)) != NULL) {
        nfull += is_full(a, nslots);
    }
    for (i = 0; i < w->provs->nelts && list->nelts < nfull; i++) {
        apr_int64_t id = APR_ARRAY_IDX(w->provs, i, pl_ac_prov_t).id;

        if (id <= last) {
            break; /* a world made by hand, out of order */
        }
        last = id;
        a = pl_idmap_get(b->anchors, id);
        if (a && is_full(a, nslots)) {
            APR_ARRAY_PUSH(list, anchor_t *) = a;
        }
    }
    if (list->nelts == nfull) {
        return list;
    }
    list->nelts = 0;
    pos = 0;
    while ((a = pl_idmap_next(b->anchors, &pos, NULL)) != NULL) {
        if (is_full(a, nslots)) {
            APR_ARRAY_PUSH(list, anchor_t *) = a;
        }
    }
    qsort(list->elts, list->nelts, sizeof(anchor_t *), cmp_anchor);
    return list;
}

/* ------------------------------------------------------------------ */
/* Entry point                                                         */
/* ------------------------------------------------------------------ */

static pl_ac_result_t *result_make(apr_pool_t *p)
{
    pl_ac_result_t *res = apr_pcalloc(p, sizeof(*res));

    res->cands = apr_array_make(p, 16, sizeof(pl_ac_cand_t *));
    res->roots = apr_array_make(p, 16, sizeof(apr_int64_t));
    return res;
}

/* RequestWideSearchContext._process_anchor_traits */
static gstat_e prepare_anchors(ctx_t *c, const char **punknown)
{
    const pl_qs_traits_t *rr = c->req->root_required;
    const prov_t *pv;
    gstat_e st;
    int any = 0;
    apr_size_t pos = 0;

    if (rr == NULL || (rr->required->nelts == 0 && rr->forbidden->nelts == 0)) {
        return G_OK;
    }
    if ((st = pl_ac_resolve_traits(c, rr->required, &c->anchor_req,
                                   punknown)) != G_OK ||
        (st = pl_ac_resolve_traits(c, rr->forbidden, &c->anchor_forb,
                                   punknown)) != G_OK) {
        return st;
    }
    c->anchor_filter = 1;
    if (c->world->early_anchor >= 0) {
        return c->world->early_anchor ? G_OK : G_EMPTY;
    }
    if (c->anchor_req.n == 0) {
        return G_OK; /* some root surely lacks them */
    }
    while (!any && (pv = pl_idmap_next(c->provs, &pos, NULL)) != NULL) {
        any = pv->id == pv->root_id && pl_ac_anchor_ok(c, pv->id);
    }
    return any ? G_OK : G_EMPTY;
}

/* The bound and where it comes from: *pby_maximum is 1 when the
 * configured maximum, not the request's limit, sets it. */
static int bound_of(const pl_ac_opts_t *opts, int *pby_maximum)
{
    int bound = opts->limit > 0 ? opts->limit : -1;

    *pby_maximum = 0;
    if (opts->max_candidates >= 0 &&
        (bound < 0 || opts->max_candidates < bound)) {
        bound = opts->max_candidates;
        *pby_maximum = 1;
    }
    return bound;
}

int pl_ac_bound(const pl_ac_opts_t *opts)
{
    int by_maximum;

    return bound_of(opts, &by_maximum);
}

/* The context of one build and its groups, before any is solved;
 * b->nslots is an upper bound on the slots. */
static void build_init(ctx_t *c, build_t *b, apr_pool_t *p,
                       const pl_ac_request_t *req, const pl_ac_world_t *world,
                       const pl_ac_opts_t *opts)
{
    int i;

    memset(c, 0, sizeof(*c));
    c->p = p;
    c->req = req;
    c->world = world;
    c->opts = opts;
    c->rng = (apr_uint64_t)apr_time_now() * 2654435761ULL | 1;
    pl_ac_index_world(c);

    memset(b, 0, sizeof(*b));
    b->c = c;
    b->ngroups = req->groups->nelts;
    b->groups = apr_pcalloc(p, (b->ngroups + 1) * sizeof(gctx_t));
    for (i = 0; i < b->ngroups; i++) {
        const pl_ac_group_t *g = APR_ARRAY_IDX(req->groups, i, pl_ac_group_t *);

        b->nslots += g->resources->nelts > 1 ? g->resources->nelts : 1;
    }
    b->anchors = pl_idmap_make(p, world->provs->nelts);
}

/* The choices each anchor offers, group by group, and the slots they
 * take (*pnslots). G_OK, G_EMPTY when some group has none, or an
 * unknown name (*punknown) upstream would have refused first. */
static gstat_e solve_groups(build_t *b, int *pnslots, const char **punknown)
{
    ctx_t *c = b->c;
    gstat_e st = prepare_anchors(c, punknown);
    int i, s = 0;
    int multi_ok = c->world->sharing->nelts > 0 || c->world->has_trees;

    for (i = 0; i < b->ngroups && st == G_OK; i++) {
        gctx_t *gc = &b->groups[i];

        gc->g = APR_ARRAY_IDX(c->req->groups, i, pl_ac_group_t *);
        gc->idx = i;
        if ((st = pl_ac_prepare_group(b, gc, punknown)) != G_OK) {
            break;
        }
        gc->multi = !gc->g->same_provider && multi_ok && gc->nres > 0;
        gc->slot0 = s;
        gc->width = gc->multi && gc->nres > 1 ? gc->nres : 1;
        s += gc->width;
        st = gc->multi ? pl_ac_solve_multi(b, gc) : pl_ac_solve_single(b, gc);
    }
    /* upstream ends at a group without a choice before it reads the
     * names of the next: an unknown name there is no error then */
    if (st == G_UNKNOWN_RC || st == G_UNKNOWN_TRAIT) {
        int j;

        for (j = 0; j < i; j++) {
            if (b->groups[j].multi &&
                !pl_ac_group_has_choice(b, &b->groups[j])) {
                st = G_EMPTY;
            }
        }
    }
    *pnslots = s;
    return st;
}

/* The walk over nslots slots: which group and class each slot is, what
 * is asked from each slot on, and where candidates go (res). */
static void walk_init(walk_t *w, build_t *b, int nslots, int bound,
                      pl_ac_result_t *res)
{
    ctx_t *c = b->c;
    apr_pool_t *p = c->p;
    const pl_ac_opts_t *opts = c->opts;
    const char *policy = c->req->group_policy;
    int isolate = policy && !strcmp(policy, "isolate");
    int i, s;

    memset(w, 0, sizeof(*w));
    w->b = b;
    w->nslots = nslots;
    w->slot_group = apr_palloc(p, (nslots + 1) * sizeof(int));
    w->slot_res = apr_palloc(p, (nslots + 1) * sizeof(int));
    w->slot_iso = apr_pcalloc(p, (nslots + 1) * sizeof(int));
    w->iso_after = apr_pcalloc(p, (nslots + 1) * sizeof(int));
    for (i = 0; i < b->ngroups; i++) {
        const gctx_t *gc = &b->groups[i];

        for (s = 0; s < gc->width; s++) {
            w->slot_group[gc->slot0 + s] = i;
            w->slot_res[gc->slot0 + s] = gc->multi ? gc->order[s] : -1;
            w->slot_iso[gc->slot0 + s] = isolate && gc->g->same_provider;
        }
    }
    /* from each slot on: what is asked per class, how many isolate */
    w->need = apr_pcalloc(p, (apr_size_t)(nslots + 1) * (c->nrc + 1) *
                                 sizeof(apr_int64_t));
    for (s = nslots - 1; s >= 0; s--) {
        memcpy(w->need + (apr_size_t)s * c->nrc,
               w->need + (apr_size_t)(s + 1) * c->nrc,
               c->nrc * sizeof(apr_int64_t));
        pl_ac_slot_demand(w, s, w->need + (apr_size_t)s * c->nrc);
        w->iso_after[s] = w->iso_after[s + 1] + w->slot_iso[s];
    }
    w->niso = w->iso_after[0];
    w->deep = nslots > 1;
    w->fitbuf = apr_palloc(p, nslots + 1);
    w->budget = opts->budget > 0 ? opts->budget : DEFAULT_BUDGET;
    /* with randomize a random sample: the anchors were shuffled */
    w->bound = bound > 0 ? bound : 0;
    w->out = res->cands;
    w->seen = c->world->sharing->nelts ? apr_hash_make(p) : NULL;
    w->kept_at = apr_hash_make(p);
    w->roots_seen = pl_idmap_make(p, 64);
    w->roots = res->roots;
    if (opts->exclude_nested && c->world->has_trees) {
        w->nested_blind = 1;
        w->rps_seen = pl_idmap_make(p, 64);
        w->rps = res->only_rps = apr_array_make(p, 16, sizeof(apr_int64_t));
    }
    w->need_subtree = c->req->same_subtrees->nelts > 0;
    if (bound == 0) {
        w->stop = 1;
    }
}

/* Every anchor of b->anchor_list walked until the walk stops: one
 * candidate from each in turn (breadth-first with a bound), or all of an
 * anchor's before the next's. */
static void walk_anchors(walk_t *w, int nres)
{
    build_t *b = w->b;
    int i, nanchors = b->anchor_list->nelts;

    if (b->c->opts->strategy == PL_AC_BREADTH_FIRST && w->bound > 0) {
        /* every anchor its own walk */
        wstate_t *sts = apr_pcalloc(b->c->p, (nanchors + 1) * sizeof(wstate_t));
        int live = 0;

        for (i = 0; i < nanchors && !w->stop; i++) {
            pl_ac_start_anchor(
                w, &sts[i], APR_ARRAY_IDX(b->anchor_list, i, anchor_t *), nres);
            pl_ac_state_unapply(w);
            if (sts[i].depth >= 0) {
                sts[live++] = sts[i];
            }
        }
        while (live > 0 && !w->stop) {
            int kept = 0;

            for (i = 0; i < live && !w->stop; i++) {
                pl_ac_state_apply(w, &sts[i]);
                pl_ac_step(w);
                pl_ac_state_unapply(w);
                if (sts[i].depth >= 0) {
                    sts[kept++] = sts[i];
                }
            }
            live = kept;
        }
    }
    else {
        wstate_t st;

        memset(&st, 0, sizeof(st));
        for (i = 0; i < nanchors && !w->stop; i++) {
            pl_ac_start_anchor(
                w, &st, APR_ARRAY_IDX(b->anchor_list, i, anchor_t *), nres);
            while (st.depth >= 0 && pl_ac_step(w)) {
            }
            pl_ac_state_unapply(w);
        }
    }
}

/* Providers only in mappings, outside the summarized trees. */
static void note_extra_rps(const ctx_t *c, walk_t *w, pl_ac_result_t *res)
{
    int i;

    res->extra_rps = apr_array_make(c->p, 1, sizeof(apr_int64_t));
    for (i = 0; i < res->cands->nelts && !res->only_rps; i++) {
        pl_ac_cand_t *cand = APR_ARRAY_IDX(res->cands, i, pl_ac_cand_t *);
        int j, k;

        for (j = 0; j < cand->nmaps; j++) {
            for (k = 0; k < cand->maps[j].nrps; k++) {
                apr_int64_t id = cand->maps[j].rp_ids[k];
                const prov_t *pv = pl_idmap_get(c->provs, id);

                if (pv && !pl_idmap_has(w->roots_seen, pv->root_id)) {
                    pl_ac_note_id(w->roots_seen, res->extra_rps, id);
                }
            }
        }
    }
}

/* The class names of every amount, for the output. */
static void name_classes(const pl_ac_world_t *world, pl_ac_result_t *res)
{
    int i;

    for (i = 0; i < res->cands->nelts; i++) {
        pl_ac_cand_t *cand = APR_ARRAY_IDX(res->cands, i, pl_ac_cand_t *);
        int j, k;

        for (j = 0; j < cand->nallocs; j++) {
            for (k = 0; k < world->rcs->nelts; k++) {
                const pl_ac_name_t *rc = &APR_ARRAY_IDX(world->rcs, k,
                                                        pl_ac_name_t);

                if (rc->id == cand->allocs[j].rc_id) {
                    cand->allocs[j].rc_name = rc->name;
                    break;
                }
            }
        }
    }
}

void pl_ac_build(apr_pool_t *p, const pl_ac_request_t *req,
                 const pl_ac_world_t *world, const pl_ac_opts_t *opts,
                 pl_ac_result_t **pres)
{
    pl_ac_result_t *res = result_make(p);
    ctx_t c;
    build_t b;
    walk_t w;
    const char *unknown = NULL;
    gstat_e st;
    int i, nslots, nres = 0, by_maximum;
    int bound = bound_of(opts, &by_maximum);

    *pres = res;
    build_init(&c, &b, p, req, world, opts);
    st = solve_groups(&b, &nslots, &unknown);
    if (st == G_UNKNOWN_RC || st == G_UNKNOWN_TRAIT) {
        res->outcome = st == G_UNKNOWN_RC ? PL_AC_UNKNOWN_RC
                                          : PL_AC_UNKNOWN_TRAIT;
        res->unknown = unknown;
        return;
    }
    if (st != G_OK) {
        return;
    }
    /* where upstream keeps the unsuffixed group's choices made only of
     * sharing providers: seen only beside other groups */
    for (i = 0; i < b.ngroups && b.ngroups > 1; i++) {
        gctx_t *gc = &b.groups[i];

        if (gc->multi && gc->shared_abroad) {
            gc->up_order = pl_ac_upstream_tree_order(&b, gc);
        }
    }

    b.anchor_list = full_anchors(&b, world, nslots);
    if (opts->randomize) {
        pl_ac_shuffle(&c, b.anchor_list->elts, b.anchor_list->nelts,
                      sizeof(anchor_t *));
    }
    walk_init(&w, &b, nslots, bound, res);
    for (i = 0; i < b.ngroups; i++) {
        nres += b.groups[i].nres;
    }
    walk_anchors(&w, nres);
    if (opts->stats) {
        opts->stats->pruned = w.pruned;
        opts->stats->refused = w.refused;
        opts->stats->nodes = (opts->budget > 0 ? opts->budget
                                               : DEFAULT_BUDGET) -
                             w.budget;
    }
    res->truncated = w.truncated;
    res->over_budget = w.budget < 0; /* the walk stops at -1 */
    res->at_maximum = w.truncated && !res->over_budget && by_maximum;
    if (opts->randomize) {
        pl_ac_shuffle(&c, res->cands->elts, res->cands->nelts,
                      sizeof(pl_ac_cand_t *));
    }
    note_extra_rps(&c, &w, res);
    name_classes(world, res);
}
