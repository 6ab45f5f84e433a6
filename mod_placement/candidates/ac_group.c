/* Licensed under the Apache License, Version 2.0.
 *
 * ac_group.c: the request groups of a candidate request, resolved (names
 * to ids, in upstream's order) and solved per anchor: for every slot of
 * the walk, the providers of that anchor's tree (or sharing with it) that
 * can take it. See ac_build.c for what a candidate is.
 */
#include <stdlib.h>
#include <string.h>
#include <apr_hash.h>
#include <apr_strings.h>

#include "pl_ac_private.h"

/* ------------------------------------------------------------------ */
/* Groups                                                              */
/* ------------------------------------------------------------------ */

gstat_e pl_ac_resolve_traits(ctx_t *c, const apr_array_header_t *names,
                             ids_t *out, const char **punknown)
{
    int i;

    for (i = 0; i < names->nelts; i++) {
        const char *n = APR_ARRAY_IDX(names, i, const char *);
        pl_ac_name_t *t = apr_hash_get(c->trait_by_name, n,
                                       APR_HASH_KEY_STRING);

        if (t == NULL) {
            *punknown = n;
            return G_UNKNOWN_TRAIT;
        }
        pl_ac_ids_add_unique(c->p, out, t->id);
    }
    return G_OK;
}

int pl_ac_in_all_aggs(const gctx_t *gc, const prov_t *pv)
{
    int i;

    for (i = 0; i < gc->nmo; i++) {
        if (!pv || !pl_ac_has_any(&pv->aggs, &gc->mo[i])) {
            return 0;
        }
    }
    return 1;
}

static int has_required(const gctx_t *gc, const prov_t *pv)
{
    int i;

    for (i = 0; i < gc->nreq; i++) {
        if (!pl_ac_has_any(&pv->traits, &gc->req[i])) {
            return 0;
        }
    }
    return 1;
}

static int forbidden_here(const gctx_t *gc, const prov_t *pv)
{
    return pl_ac_has_any(&pv->traits, &gc->forb) ||
           pl_ac_has_any(&pv->aggs, &gc->forb_aggs);
}

/* RequestGroupSearchContext.__init__: names to ids, in upstream's order,
 * with its early ends. */
gstat_e pl_ac_prepare_group(build_t *b, gctx_t *gc, const char **punknown)
{
    ctx_t *c = b->c;
    const pl_ac_group_t *g = gc->g;
    const prov_t *pv;
    apr_size_t pos;
    int i, j, n;

    gc->nres = g->resources->nelts;
    gc->rc_idx = apr_pcalloc(c->p, (gc->nres + 1) * sizeof(int));
    gc->amount = apr_pcalloc(c->p, (gc->nres + 1) * sizeof(apr_int64_t));
    gc->rc_name = apr_pcalloc(c->p, (gc->nres + 1) * sizeof(char *));
    for (i = 0; i < gc->nres; i++) {
        const pl_qs_resource_t *r = &APR_ARRAY_IDX(g->resources, i,
                                                   pl_qs_resource_t);
        pl_ac_name_t *rc = apr_hash_get(c->rc_by_name, r->name,
                                        APR_HASH_KEY_STRING);

        if (rc == NULL) {
            *punknown = r->name;
            return G_UNKNOWN_RC;
        }
        gc->rc_idx[i] = pl_ac_rc_index(c, rc->id);
        gc->amount[i] = r->amount;
        gc->rc_name[i] = rc->name;
    }
    if (g->member_of && g->member_of->any_of->nelts) {
        const apr_array_header_t *sets = g->member_of->any_of;

        gc->has_mo = 1;
        gc->nmo = sets->nelts;
        gc->mo = apr_pcalloc(c->p, sets->nelts * sizeof(ids_t));
        for (i = 0; i < sets->nelts; i++) {
            const apr_array_header_t *set = APR_ARRAY_IDX(sets, i,
                                                          apr_array_header_t *);

            for (j = 0; j < set->nelts; j++) {
                pl_ac_name_t *a = apr_hash_get(
                    c->agg_by_uuid, APR_ARRAY_IDX(set, j, const char *),
                    APR_HASH_KEY_STRING);

                if (a) {
                    pl_ac_ids_add_unique(c->p, &gc->mo[i], a->id);
                }
            }
            if (gc->mo[i].n == 0) {
                return G_EMPTY; /* aggregates nobody knows */
            }
        }
        /* some provider must be in all of them: in the whole database,
         * when read (an unknown trait follows), else in the world */
        n = c->world->early_member_of ? c->world->early_member_of[gc->idx] : -1;
        if (n < 0) {
            n = 0;
            pos = 0;
            while (!n && (pv = pl_idmap_next(c->provs, &pos, NULL)) != NULL) {
                n = pv->aggs.n && pl_ac_in_all_aggs(gc, pv);
            }
        }
        if (!n) {
            return G_EMPTY;
        }
    }
    if (g->member_of) {
        for (j = 0; j < g->member_of->forbidden->nelts; j++) {
            pl_ac_name_t *a = apr_hash_get(
                c->agg_by_uuid,
                APR_ARRAY_IDX(g->member_of->forbidden, j, const char *),
                APR_HASH_KEY_STRING);

            if (a) {
                pl_ac_ids_add_unique(c->p, &gc->forb_aggs, a->id);
            }
        }
    }
    gc->nreq = g->required->nelts;
    gc->req = apr_pcalloc(c->p, (gc->nreq + 1) * sizeof(ids_t));
    for (i = 0; i < gc->nreq; i++) {
        gstat_e st = pl_ac_resolve_traits(
            c, APR_ARRAY_IDX(g->required, i, apr_array_header_t *), &gc->req[i],
            punknown);
        if (st != G_OK) {
            return st;
        }
    }
    if (g->forbidden->nelts) {
        gstat_e st = pl_ac_resolve_traits(c, g->forbidden, &gc->forb, punknown);

        if (st != G_OK) {
            return st;
        }
    }
    if (g->in_tree) {
        pl_ac_name_t *t = apr_hash_get(c->tree_by_uuid, g->in_tree,
                                       APR_HASH_KEY_STRING);

        if (t == NULL) {
            return G_EMPTY;
        }
        gc->has_tree = 1;
        gc->tree_root = t->id;
    }
    /* every class needs some provider with room */
    for (i = 0; i < gc->nres; i++) {
        const apr_array_header_t *provs = c->rc_provs[gc->rc_idx[i]];

        for (n = 0, j = 0; j < provs->nelts && !n; j++) {
            const pl_ac_inv_t *inv = APR_ARRAY_IDX(provs, j, prov_t *)
                                         ->inv[gc->rc_idx[i]];

            n = (!gc->has_tree || inv->root_id == gc->tree_root) &&
                pl_ac_fits(inv, gc->amount[i]);
        }
        if (!n) {
            return G_EMPTY;
        }
    }
    return G_OK;
}

static anchor_t *anchor_of(build_t *b, apr_int64_t id)
{
    anchor_t *a = pl_idmap_get(b->anchors, id);

    if (a == NULL) {
        a = apr_pcalloc(b->c->p, sizeof(*a));
        a->id = id;
        /* an array of pointers: sizeof(pointer) is meant
         * NOLINTNEXTLINE(bugprone-sizeof-expression) */
        a->lists = apr_pcalloc(b->c->p, b->nslots * sizeof(*a->lists));
        pl_idmap_set(b->anchors, id, a);
    }
    return a;
}

static void anchor_add(build_t *b, apr_int64_t anchor, int slot, prov_t *pv)
{
    anchor_t *a = anchor_of(b, anchor);
    apr_array_header_t *l = a->lists[slot];
    int i;

    if (l == NULL) {
        l = a->lists[slot] = apr_array_make(b->c->p, 2, sizeof(prov_t *));
    }
    for (i = 0; i < l->nelts; i++) {
        if (APR_ARRAY_IDX(l, i, prov_t *) == pv) {
            return;
        }
    }
    APR_ARRAY_PUSH(l, prov_t *) = pv;
}

/* has room for every class of the group (in its tree, if asked) */
static int serves_all(const gctx_t *gc, const prov_t *pv)
{
    int i;

    if (gc->has_tree && pv->root_id != gc->tree_root) {
        return 0;
    }
    for (i = 0; i < gc->nres; i++) {
        const pl_ac_inv_t *inv = pv->inv ? pv->inv[gc->rc_idx[i]] : NULL;

        if (inv == NULL || !pl_ac_fits(inv, gc->amount[i])) {
            return 0;
        }
    }
    return 1;
}

static int cmp_prov(const void *a, const void *b)
{
    apr_int64_t x = (*(prov_t *const *)a)->id, y = (*(prov_t *const *)b)->id;

    return x < y ? -1 : x > y;
}

/* get_provider_ids_matching + _alloc_candidates_single_provider: one
 * provider serves the whole group. */
gstat_e pl_ac_solve_single(build_t *b, gctx_t *gc)
{
    ctx_t *c = b->c;
    apr_array_header_t *hits = apr_array_make(c->p, 64, sizeof(prov_t *));
    int i, j, any = 0;

    if (gc->nres == 0 && gc->nreq == 0 && !gc->has_mo) {
        return G_EMPTY; /* upstream filters on nothing */
    }
    if (gc->nres) {
        const apr_array_header_t *provs = c->rc_provs[gc->rc_idx[0]];

        for (i = 0; i < provs->nelts; i++) {
            prov_t *pv = APR_ARRAY_IDX(provs, i, prov_t *);

            if (serves_all(gc, pv) && has_required(gc, pv) &&
                (!gc->has_mo || pl_ac_in_all_aggs(gc, pv)) &&
                !forbidden_here(gc, pv)) {
                APR_ARRAY_PUSH(hits, prov_t *) = pv;
            }
        }
    }
    else {
        /* resourceless (1.36): providers with the traits / aggregates;
         * upstream ignores in_tree here */
        apr_size_t pos = 0;
        prov_t *pv;

        while ((pv = pl_idmap_next(c->provs, &pos, NULL)) != NULL) {
            if ((pv->traits.n || pv->aggs.n) && has_required(gc, pv) &&
                (!gc->has_mo || pl_ac_in_all_aggs(gc, pv)) &&
                !forbidden_here(gc, pv)) {
                APR_ARRAY_PUSH(hits, prov_t *) = pv;
            }
        }
    }
    qsort(hits->elts, hits->nelts, sizeof(prov_t *), cmp_prov);
    for (i = 0; i < hits->nelts; i++) {
        prov_t *pv = APR_ARRAY_IDX(hits, i, prov_t *);

        if (pl_ac_anchor_ok(c, pv->root_id)) {
            anchor_add(b, pv->root_id, gc->slot0, pv);
            any = 1;
        }
        if (!pv->sharing) {
            continue;
        }
        for (j = 0; j < pv->anchors.n; j++) {
            apr_int64_t a = pv->anchors.v[j];

            if (a != pv->root_id && pl_ac_anchor_ok(c, a)) {
                anchor_add(b, a, gc->slot0, pv);
                any = 1;
            }
        }
    }
    return any ? G_OK : G_EMPTY;
}

static int root_in_aggs(const ctx_t *c, const gctx_t *gc, apr_int64_t root)
{
    return pl_ac_in_all_aggs(gc, pl_idmap_get(c->provs, root));
}

static int root_in_bad(const ctx_t *c, const gctx_t *gc, apr_int64_t root)
{
    const prov_t *r = pl_idmap_get(c->provs, root);

    return r && pl_ac_has_any(&r->aggs, &gc->forb_aggs);
}

/* One (provider, anchor) entry of get_trees_matching_all, filtered as
 * upstream filters its RPCandidateList. */
static int entry_ok(const ctx_t *c, const gctx_t *gc, const prov_t *pv,
                    apr_int64_t anchor)
{
    if (!pl_ac_anchor_ok(c, anchor)) {
        return 0;
    }
    /* an aggregate on the root spans the whole tree */
    if (gc->has_mo && !pl_ac_in_all_aggs(gc, pv) &&
        !root_in_aggs(c, gc, anchor)) {
        return 0;
    }
    if (gc->forb_aggs.n && (pl_ac_has_any(&pv->aggs, &gc->forb_aggs) ||
                            root_in_bad(c, gc, anchor))) {
        return 0;
    }
    return 1;
}

/* get_trees_matching_all + _alloc_candidates_multiple_providers: each
 * class from any provider of the anchor's tree or a sharing provider. */
gstat_e pl_ac_solve_multi(build_t *b, gctx_t *gc)
{
    ctx_t *c = b->c;
    pl_idmap_t *trees = NULL; /* anchors in every class so far */
    anchor_t *anchor;
    apr_size_t pos = 0;
    int i, j, k, r;

    /* the walk takes the classes by class id, as upstream's product */
    gc->order = apr_palloc(c->p, gc->nres * sizeof(int));
    for (i = 0; i < gc->nres; i++) {
        gc->order[i] = i;
    }
    for (i = 1; i < gc->nres; i++) {
        for (j = i; j > 0 && c->rc_ids[gc->rc_idx[gc->order[j]]] <
                                 c->rc_ids[gc->rc_idx[gc->order[j - 1]]];
             j--) {
            int t = gc->order[j];

            gc->order[j] = gc->order[j - 1];
            gc->order[j - 1] = t;
        }
    }
    for (r = 0; r < gc->nres; r++) {
        int ri = gc->order[r];
        const apr_array_header_t *provs = c->rc_provs[gc->rc_idx[ri]];
        pl_idmap_t *here = pl_idmap_make(c->p, provs->nelts);
        int slot = gc->slot0 + r;

        for (i = 0; i < provs->nelts; i++) {
            prov_t *pv = APR_ARRAY_IDX(provs, i, prov_t *);
            const pl_ac_inv_t *inv = pv->inv[gc->rc_idx[ri]];

            if ((gc->has_tree && inv->root_id != gc->tree_root) ||
                !pl_ac_fits(inv, gc->amount[ri])) {
                continue;
            }
            /* the tree of the provider itself */
            if (entry_ok(c, gc, pv, pv->root_id) &&
                (!trees || pl_idmap_has(trees, pv->root_id))) {
                /* a provider with a forbidden trait spoils every
                 * combination it is in: leave it out */
                pl_idmap_set(here, pv->root_id, pv);
                if (!pl_ac_has_any(&pv->traits, &gc->forb)) {
                    anchor_add(b, pv->root_id, slot, pv);
                }
            }
            /* and every tree it shares with (not with in_tree) */
            if (!pv->sharing || gc->has_tree ||
                (gc->has_mo && !pl_ac_in_all_aggs(gc, pv))) {
                continue;
            }
            for (k = 0; k < pv->anchors.n; k++) {
                apr_int64_t a = pv->anchors.v[k];

                if (!entry_ok(c, gc, pv, a) ||
                    (trees && !pl_idmap_has(trees, a))) {
                    continue;
                }
                pl_idmap_set(here, a, pv);
                if (!pl_ac_has_any(&pv->traits, &gc->forb)) {
                    anchor_add(b, a, slot, pv);
                    gc->shared_abroad |= a != pv->root_id;
                }
            }
        }
        if (pl_idmap_count(here) == 0) {
            return G_EMPTY;
        }
        trees = here;
    }
    /* anchors missing a class lose the classes they had */
    while ((anchor = pl_idmap_next(b->anchors, &pos, NULL)) != NULL) {
        if (!pl_idmap_has(trees, anchor->id)) {
            for (r = 0; r < gc->nres; r++) {
                anchor->lists[gc->slot0 + r] = NULL;
            }
        }
    }
    return G_OK;
}
