/* Licensed under the Apache License, Version 2.0.
 *
 * ac_world.c: the candidate engine's view of a pl_ac_world_t: an empty
 * one and room made in its arrays (for the store's reads), capacity
 * (saturated), the providers indexed by id with the requested classes,
 * traits and aggregates resolved, the checks on one provider, and the
 * random order of PlacementRandomizeCandidates. See ac_build.c for what
 * the engine does.
 */
#include <stdlib.h>
#include <string.h>
#include <apr_hash.h>
#include <apr_strings.h>

#include "pl_ac_private.h"

/* ------------------------------------------------------------------ */
/* The world                                                           */
/* ------------------------------------------------------------------ */

pl_ac_world_t *pl_ac_world_make(apr_pool_t *p)
{
    pl_ac_world_t *w = apr_pcalloc(p, sizeof(*w));

    w->rcs = apr_array_make(p, 4, sizeof(pl_ac_name_t));
    w->traits = apr_array_make(p, 4, sizeof(pl_ac_name_t));
    w->aggs = apr_array_make(p, 2, sizeof(pl_ac_name_t));
    w->trees = apr_array_make(p, 1, sizeof(pl_ac_name_t));
    w->sharing = apr_array_make(p, 4, sizeof(pl_ac_link_t));
    w->invs = apr_array_make(p, 64, sizeof(pl_ac_inv_t));
    w->rp_traits = apr_array_make(p, 16, sizeof(pl_ac_link_t));
    w->rp_aggs = apr_array_make(p, 16, sizeof(pl_ac_link_t));
    w->anchors = apr_array_make(p, 4, sizeof(pl_ac_link_t));
    w->parents = apr_array_make(p, 4, sizeof(pl_ac_link_t));
    w->provs = apr_array_make(p, 64, sizeof(pl_ac_prov_t));
    w->early_anchor = -1;
    w->prov_by_id = pl_idmap_make(p, 64);
    w->all_traits = apr_array_make(p, 64, sizeof(pl_ac_link_t));
    w->rc_names = apr_array_make(p, 8, sizeof(pl_ac_name_t));
    w->trait_names = apr_array_make(p, 16, sizeof(pl_ac_name_t));
    return w;
}

void pl_ac_array_reserve(apr_array_header_t *a, int n)
{
    char *elts;

    if (n <= 0 || a->nelts + n <= a->nalloc) {
        return;
    }
    elts = apr_palloc(a->pool, (apr_size_t)(a->nelts + n) * a->elt_size);
    memcpy(elts, a->elts, (apr_size_t)a->nelts * a->elt_size);
    a->elts = elts;
    a->nalloc = a->nelts + n;
}

/* ------------------------------------------------------------------ */
/* Capacity                                                            */
/* ------------------------------------------------------------------ */

/* (total - reserved) * allocation_ratio in doubles, as upstream's SQL
 * compares a single amount with it. */
static double capacity_real(const pl_ac_inv_t *inv)
{
    apr_int64_t d;

    if (__builtin_sub_overflow(inv->total, inv->reserved, &d)) {
        return ((double)inv->total - (double)inv->reserved) *
               inv->allocation_ratio;
    }
    return (double)d * inv->allocation_ratio;
}

apr_int64_t pl_ac_capacity(const pl_ac_inv_t *inv)
{
    double cap = capacity_real(inv);

    /* 2^63 is the first double above APR_INT64_MAX */
    if (cap >= 9223372036854775808.0) {
        return APR_INT64_MAX;
    }
    if (cap <= -9223372036854775808.0) {
        return APR_INT64_MIN;
    }
    if (cap != cap) {
        return 0; /* NaN: nothing fits */
    }
    return (apr_int64_t)cap;
}

/* ------------------------------------------------------------------ */
/* Providers                                                           */
/* ------------------------------------------------------------------ */

static void ids_add(apr_pool_t *p, ids_t *s, apr_int64_t v)
{
    if (s->n == s->cap) {
        int cap = s->cap ? s->cap * 2 : 4;
        apr_int64_t *nv = apr_palloc(p, cap * sizeof(*nv));

        if (s->n) {
            memcpy(nv, s->v, s->n * sizeof(*nv));
        }
        s->v = nv;
        s->cap = cap;
    }
    s->v[s->n++] = v;
}

static int ids_has(const ids_t *s, apr_int64_t v)
{
    int i;

    for (i = 0; i < s->n; i++) {
        if (s->v[i] == v) {
            return 1;
        }
    }
    return 0;
}

void pl_ac_ids_add_unique(apr_pool_t *p, ids_t *s, apr_int64_t v)
{
    if (!ids_has(s, v)) {
        ids_add(p, s, v);
    }
}

static prov_t *prov_of(ctx_t *c, apr_int64_t id, apr_int64_t root_id)
{
    prov_t *pv = pl_idmap_get(c->provs, id);

    if (pv == NULL) {
        pv = apr_pcalloc(c->p, sizeof(*pv));
        pv->id = id;
        pv->root_id = root_id;
        pl_idmap_set(c->provs, id, pv);
    }
    return pv;
}

int pl_ac_rc_index(const ctx_t *c, apr_int64_t rc_id)
{
    int i;

    for (i = 0; i < c->nrc; i++) {
        if (c->rc_ids[i] == rc_id) {
            return i;
        }
    }
    return -1;
}

/* What the groups of one candidate may take from inv together: upstream's
 * exceeds_capacity (used + sum <= capacity, sum <= max_unit) as one bound
 * on the sum, saturated. */
static apr_int64_t room_of(const pl_ac_inv_t *inv)
{
    apr_int64_t cap = pl_ac_capacity(inv), room;

    if (__builtin_sub_overflow(cap, inv->used, &room)) {
        room = inv->used < 0 ? APR_INT64_MAX : APR_INT64_MIN;
    }
    return room < inv->max_unit ? room : inv->max_unit;
}

static apr_hash_t *name_map(apr_pool_t *p, const apr_array_header_t *names)
{
    apr_hash_t *h = apr_hash_make(p);
    int i;

    for (i = 0; names && i < names->nelts; i++) {
        pl_ac_name_t *n = &APR_ARRAY_IDX(names, i, pl_ac_name_t);

        apr_hash_set(h, n->name, APR_HASH_KEY_STRING, n);
    }
    return h;
}

void pl_ac_index_world(ctx_t *c)
{
    const pl_ac_world_t *w = c->world;
    int i, k, *count;

    c->provs = pl_idmap_make(c->p, w->provs->nelts);
    c->rc_by_name = name_map(c->p, w->rcs);
    c->trait_by_name = name_map(c->p, w->traits);
    c->agg_by_uuid = name_map(c->p, w->aggs);
    c->tree_by_uuid = name_map(c->p, w->trees);

    c->nrc = 0;
    c->rc_ids = apr_palloc(c->p, (w->rcs->nelts + 1) * sizeof(apr_int64_t));
    for (i = 0; i < w->rcs->nelts; i++) {
        apr_int64_t id = APR_ARRAY_IDX(w->rcs, i, pl_ac_name_t).id;

        if (pl_ac_rc_index(c, id) < 0) {
            c->rc_ids[c->nrc++] = id;
        }
    }
    /* an array of pointers: sizeof(pointer) is meant
     * NOLINTNEXTLINE(bugprone-sizeof-expression) */
    c->rc_provs = apr_palloc(c->p, (c->nrc + 1) * sizeof(*c->rc_provs));
    /* each list sized once: a world holds thousands of inventories */
    count = apr_pcalloc(c->p, (c->nrc + 1) * sizeof(*count));
    for (i = 0; i < w->invs->nelts; i++) {
        if ((k = pl_ac_rc_index(
                 c, APR_ARRAY_IDX(w->invs, i, pl_ac_inv_t).rc_id)) >= 0) {
            count[k]++;
        }
    }
    for (k = 0; k < c->nrc; k++) {
        c->rc_provs[k] = apr_array_make(c->p, count[k] + 1, sizeof(prov_t *));
    }
    for (i = 0; i < w->invs->nelts; i++) {
        const pl_ac_inv_t *inv = &APR_ARRAY_IDX(w->invs, i, pl_ac_inv_t);
        prov_t *pv;

        if ((k = pl_ac_rc_index(c, inv->rc_id)) < 0) {
            continue;
        }
        pv = prov_of(c, inv->rp_id, inv->root_id);
        if (pv->inv == NULL) {
            int j;

            /* an array of pointers: sizeof(pointer) is meant
             * NOLINTNEXTLINE(bugprone-sizeof-expression) */
            pv->inv = apr_pcalloc(c->p, c->nrc * sizeof(*pv->inv));
            pv->room = apr_pcalloc(c->p, c->nrc * sizeof(*pv->room));
            pv->taken = apr_pcalloc(c->p, c->nrc * sizeof(*pv->taken));
            pv->acc_at = apr_palloc(c->p, c->nrc * sizeof(*pv->acc_at));
            for (j = 0; j < c->nrc; j++) {
                pv->acc_at[j] = -1;
            }
        }
        pv->inv[k] = inv;
        pv->room[k] = room_of(inv);
        APR_ARRAY_PUSH(c->rc_provs[k], prov_t *) = pv;
    }
    for (i = 0; w->rp_traits && i < w->rp_traits->nelts; i++) {
        const pl_ac_link_t *l = &APR_ARRAY_IDX(w->rp_traits, i, pl_ac_link_t);

        pl_ac_ids_add_unique(c->p, &prov_of(c, l->rp_id, l->root_id)->traits,
                             l->other_id);
    }
    for (i = 0; w->rp_aggs && i < w->rp_aggs->nelts; i++) {
        const pl_ac_link_t *l = &APR_ARRAY_IDX(w->rp_aggs, i, pl_ac_link_t);

        pl_ac_ids_add_unique(c->p, &prov_of(c, l->rp_id, l->root_id)->aggs,
                             l->other_id);
    }
    for (i = 0; w->sharing && i < w->sharing->nelts; i++) {
        const pl_ac_link_t *l = &APR_ARRAY_IDX(w->sharing, i, pl_ac_link_t);

        prov_of(c, l->rp_id, l->root_id)->sharing = 1;
    }
    for (i = 0; w->anchors && i < w->anchors->nelts; i++) {
        const pl_ac_link_t *l = &APR_ARRAY_IDX(w->anchors, i, pl_ac_link_t);

        pl_ac_ids_add_unique(c->p, &prov_of(c, l->rp_id, l->root_id)->anchors,
                             l->other_id);
    }
    for (i = 0; w->parents && i < w->parents->nelts; i++) {
        const pl_ac_link_t *l = &APR_ARRAY_IDX(w->parents, i, pl_ac_link_t);

        prov_of(c, l->rp_id, l->root_id)->parent_id = l->other_id;
    }
}

/* ------------------------------------------------------------------ */
/* Checks on one provider                                              */
/* ------------------------------------------------------------------ */

/* upstream's SQL capacity check for one amount, in doubles as the
 * database computes it (no integer sum that could overflow) */
int pl_ac_fits(const pl_ac_inv_t *inv, apr_int64_t amount)
{
    return (double)inv->used + (double)amount <= capacity_real(inv) &&
           inv->min_unit <= amount && inv->max_unit >= amount &&
           (inv->step_size <= 0 || amount % inv->step_size == 0);
}

int pl_ac_has_any(const ids_t *have, const ids_t *want)
{
    int i;

    for (i = 0; i < want->n; i++) {
        if (ids_has(have, want->v[i])) {
            return 1;
        }
    }
    return 0;
}

int pl_ac_anchor_ok(const ctx_t *c, apr_int64_t root_id)
{
    const prov_t *r;
    int i;

    if (!c->anchor_filter) {
        return 1;
    }
    r = pl_idmap_get(c->provs, root_id);
    for (i = 0; i < c->anchor_req.n; i++) {
        if (!r || !ids_has(&r->traits, c->anchor_req.v[i])) {
            return 0;
        }
    }
    return !r || !pl_ac_has_any(&r->traits, &c->anchor_forb);
}

/* ------------------------------------------------------------------ */
/* Randomness (PlacementRandomizeCandidates)                           */
/* ------------------------------------------------------------------ */

static apr_uint64_t rnd(ctx_t *c)
{
    c->rng ^= c->rng << 13;
    c->rng ^= c->rng >> 7;
    c->rng ^= c->rng << 17;
    return c->rng;
}

void pl_ac_shuffle(ctx_t *c, void *elts, int n, apr_size_t size)
{
    char *e = elts, tmp[64];
    int i;

    if (size > sizeof(tmp)) {
        return;
    }
    for (i = n - 1; i > 0; i--) {
        int j = (int)(rnd(c) % (apr_uint64_t)(i + 1));

        memcpy(tmp, e + i * size, size);
        memcpy(e + i * size, e + j * size, size);
        memcpy(e + j * size, tmp, size);
    }
}
