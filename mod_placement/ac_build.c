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
 *   tree it shares an aggregate with;
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
 */
#include <stdlib.h>
#include <string.h>
#include <apr_hash.h>
#include <apr_strings.h>
#include <apr_time.h>

#include "pl_ac.h"
#include "pl_mv.h"

#define DEFAULT_BUDGET 4000000L

/* ------------------------------------------------------------------ */
/* Capacity                                                            */
/* ------------------------------------------------------------------ */

double pl_ac_capacity_real(const pl_ac_inv_t *inv)
{
    apr_int64_t d;

    if (__builtin_sub_overflow(inv->total, inv->reserved, &d)) {
        return ((double)inv->total - (double)inv->reserved)
               * inv->allocation_ratio;
    }
    return (double)d * inv->allocation_ratio;
}

apr_int64_t pl_ac_capacity(const pl_ac_inv_t *inv)
{
    double cap = pl_ac_capacity_real(inv);

    /* 2^63 is the first double above APR_INT64_MAX */
    if (cap >= 9223372036854775808.0) {
        return APR_INT64_MAX;
    }
    if (cap <= -9223372036854775808.0) {
        return APR_INT64_MIN;
    }
    if (cap != cap) {
        return 0;                   /* NaN: nothing fits */
    }
    return (apr_int64_t)cap;
}

/* ------------------------------------------------------------------ */
/* Providers                                                           */
/* ------------------------------------------------------------------ */

typedef struct ids_t {
    int n, cap;
    apr_int64_t *v;
} ids_t;

typedef struct prov_t {
    apr_int64_t id;
    apr_int64_t root_id;
    apr_int64_t parent_id;          /* 0: none known */
    int sharing;
    ids_t traits;                   /* requested traits it has */
    ids_t aggs;                     /* requested aggregates it is in */
    ids_t anchors;                  /* sharing: roots it serves */
    const pl_ac_inv_t **inv;        /* per requested class index */
    /* per requested class index, with inv: what the groups of one
     * candidate may take together (min(capacity - used, max_unit)), what
     * the walk on hold has taken, and its entry in the walk's acc (-1) */
    apr_int64_t *room;
    apr_int64_t *taken;
    int *acc_at;
    int mark;                       /* scratch */
    int stamp;                      /* scratch: last counted in */
    int match;                      /* scratch: isolate slot + 1, or 0 */
    int iso_n;                      /* isolate slots of the walk on it */
    /* the slots of the walk on hold whose lists hold it */
    const int *slots;
    int nslots_in;
} prov_t;

/* open addressing, id -> prov_t * */
typedef struct ptab_t {
    apr_size_t n, size;
    prov_t **slots;
} ptab_t;

typedef struct ctx_t {
    apr_pool_t *p;
    const pl_ac_request_t *req;
    const pl_ac_world_t *world;
    const pl_ac_opts_t *opts;
    ptab_t provs;
    int nrc;                        /* distinct requested class ids */
    apr_int64_t *rc_ids;
    apr_array_header_t **rc_invs;   /* per class index: pl_ac_inv_t * */
    apr_hash_t *rc_by_name, *trait_by_name, *agg_by_uuid, *tree_by_uuid;
    /* root_required, resolved */
    ids_t anchor_req, anchor_forb;
    int anchor_filter;
    apr_uint64_t rng;
} ctx_t;

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

static void ids_add_unique(apr_pool_t *p, ids_t *s, apr_int64_t v)
{
    if (!ids_has(s, v)) {
        ids_add(p, s, v);
    }
}

static apr_size_t hash_id(apr_int64_t id)
{
    apr_uint64_t x = (apr_uint64_t)id;

    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return (apr_size_t)x;
}

static prov_t *ptab_get(const ptab_t *t, apr_int64_t id)
{
    apr_size_t i;

    if (t->size == 0) {
        return NULL;
    }
    for (i = hash_id(id) & (t->size - 1); t->slots[i];
         i = (i + 1) & (t->size - 1)) {
        if (t->slots[i]->id == id) {
            return t->slots[i];
        }
    }
    return NULL;
}

static void ptab_put(apr_pool_t *p, ptab_t *t, prov_t *pv)
{
    apr_size_t i;

    if ((t->n + 1) * 2 > t->size) {
        ptab_t nt;
        apr_size_t j;

        nt.size = t->size ? t->size * 2 : 256;
        nt.n = 0;
        nt.slots = apr_pcalloc(p, nt.size * sizeof(prov_t *));
        for (j = 0; j < t->size; j++) {
            if (t->slots[j]) {
                ptab_put(p, &nt, t->slots[j]);
            }
        }
        *t = nt;
    }
    for (i = hash_id(pv->id) & (t->size - 1); t->slots[i];
         i = (i + 1) & (t->size - 1)) {
    }
    t->slots[i] = pv;
    t->n++;
}

static prov_t *prov_of(ctx_t *c, apr_int64_t id, apr_int64_t root_id)
{
    prov_t *pv = ptab_get(&c->provs, id);

    if (pv == NULL) {
        pv = apr_pcalloc(c->p, sizeof(*pv));
        pv->id = id;
        pv->root_id = root_id;
        ptab_put(c->p, &c->provs, pv);
    }
    return pv;
}

static int rc_index(const ctx_t *c, apr_int64_t rc_id)
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

static void index_world(ctx_t *c)
{
    const pl_ac_world_t *w = c->world;
    int i, k;

    c->rc_by_name = name_map(c->p, w->rcs);
    c->trait_by_name = name_map(c->p, w->traits);
    c->agg_by_uuid = name_map(c->p, w->aggs);
    c->tree_by_uuid = name_map(c->p, w->trees);

    c->nrc = 0;
    c->rc_ids = apr_palloc(c->p, (w->rcs->nelts + 1) * sizeof(apr_int64_t));
    for (i = 0; i < w->rcs->nelts; i++) {
        apr_int64_t id = APR_ARRAY_IDX(w->rcs, i, pl_ac_name_t).id;

        if (rc_index(c, id) < 0) {
            c->rc_ids[c->nrc++] = id;
        }
    }
    c->rc_invs = apr_palloc(c->p, (c->nrc + 1) * sizeof(*c->rc_invs));
    for (k = 0; k < c->nrc; k++) {
        c->rc_invs[k] = apr_array_make(c->p, 64, sizeof(pl_ac_inv_t *));
    }
    for (i = 0; i < w->invs->nelts; i++) {
        const pl_ac_inv_t *inv = &APR_ARRAY_IDX(w->invs, i, pl_ac_inv_t);
        prov_t *pv;

        if ((k = rc_index(c, inv->rc_id)) < 0) {
            continue;
        }
        pv = prov_of(c, inv->rp_id, inv->root_id);
        if (pv->inv == NULL) {
            int j;

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
        APR_ARRAY_PUSH(c->rc_invs[k], const pl_ac_inv_t *) = inv;
    }
    for (i = 0; w->rp_traits && i < w->rp_traits->nelts; i++) {
        const pl_ac_link_t *l = &APR_ARRAY_IDX(w->rp_traits, i,
                                               pl_ac_link_t);

        ids_add_unique(c->p, &prov_of(c, l->rp_id, l->root_id)->traits,
                       l->other_id);
    }
    for (i = 0; w->rp_aggs && i < w->rp_aggs->nelts; i++) {
        const pl_ac_link_t *l = &APR_ARRAY_IDX(w->rp_aggs, i, pl_ac_link_t);

        ids_add_unique(c->p, &prov_of(c, l->rp_id, l->root_id)->aggs,
                       l->other_id);
    }
    for (i = 0; w->sharing && i < w->sharing->nelts; i++) {
        const pl_ac_link_t *l = &APR_ARRAY_IDX(w->sharing, i, pl_ac_link_t);

        prov_of(c, l->rp_id, l->root_id)->sharing = 1;
    }
    for (i = 0; w->anchors && i < w->anchors->nelts; i++) {
        const pl_ac_link_t *l = &APR_ARRAY_IDX(w->anchors, i, pl_ac_link_t);

        ids_add_unique(c->p, &prov_of(c, l->rp_id, l->root_id)->anchors,
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
static int fits(const pl_ac_inv_t *inv, apr_int64_t amount)
{
    return (double)inv->used + (double)amount <= pl_ac_capacity_real(inv)
           && inv->min_unit <= amount && inv->max_unit >= amount
           && (inv->step_size <= 0 || amount % inv->step_size == 0);
}

static int has_any(const ids_t *have, const ids_t *want)
{
    int i;

    for (i = 0; i < want->n; i++) {
        if (ids_has(have, want->v[i])) {
            return 1;
        }
    }
    return 0;
}

static int anchor_ok(const ctx_t *c, apr_int64_t root_id)
{
    const prov_t *r;
    int i;

    if (!c->anchor_filter) {
        return 1;
    }
    r = ptab_get(&c->provs, root_id);
    for (i = 0; i < c->anchor_req.n; i++) {
        if (!r || !ids_has(&r->traits, c->anchor_req.v[i])) {
            return 0;
        }
    }
    return !r || !has_any(&r->traits, &c->anchor_forb);
}

/* ------------------------------------------------------------------ */
/* Groups                                                              */
/* ------------------------------------------------------------------ */

typedef struct gctx_t {
    const pl_ac_group_t *g;
    int idx;
    int nres;
    int *rc_idx;                    /* per resource: class index */
    apr_int64_t *amount;
    const char **rc_name;
    int nreq;
    ids_t *req;                     /* AND of any-of sets */
    ids_t forb;                     /* forbidden traits */
    int has_mo;
    ids_t *mo;                      /* AND of any-of aggregate sets */
    int nmo;
    ids_t forb_aggs;
    int has_tree;
    apr_int64_t tree_root;
    int multi;                      /* several providers may serve it */
    int slot0, width;               /* its slots in the walk */
    int *order;                     /* multi: resources by class id */
} gctx_t;

/* Each anchor: for every slot of the walk, the providers it may take. */
typedef struct anchor_t {
    apr_int64_t id;
    apr_array_header_t **lists;     /* prov_t *, per slot */
    /* once walked (with several slots): its providers, each with the
     * slots whose lists hold it */
    int nprovs;
    prov_t **provs;
    int **pslots;
    int *npslots;
} anchor_t;

typedef struct build_t {
    ctx_t *c;
    int ngroups;
    gctx_t *groups;
    int nslots;                     /* at most: lists per anchor */
    apr_hash_t *anchors;            /* id -> anchor_t */
    apr_array_header_t *anchor_list;
} build_t;

typedef enum { G_OK, G_EMPTY, G_UNKNOWN_RC, G_UNKNOWN_TRAIT } gstat_e;

static gstat_e resolve_traits(ctx_t *c, const apr_array_header_t *names,
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
        ids_add_unique(c->p, out, t->id);
    }
    return G_OK;
}

static int in_all_aggs(const gctx_t *gc, const prov_t *pv)
{
    int i;

    for (i = 0; i < gc->nmo; i++) {
        if (!pv || !has_any(&pv->aggs, &gc->mo[i])) {
            return 0;
        }
    }
    return 1;
}

static int has_required(const gctx_t *gc, const prov_t *pv)
{
    int i;

    for (i = 0; i < gc->nreq; i++) {
        if (!has_any(&pv->traits, &gc->req[i])) {
            return 0;
        }
    }
    return 1;
}

static int forbidden_here(const gctx_t *gc, const prov_t *pv)
{
    return has_any(&pv->traits, &gc->forb)
           || has_any(&pv->aggs, &gc->forb_aggs);
}

/* RequestGroupSearchContext.__init__: names to ids, in upstream's order,
 * with its early ends. */
static gstat_e prepare_group(build_t *b, gctx_t *gc, const char **punknown)
{
    ctx_t *c = b->c;
    const pl_ac_group_t *g = gc->g;
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
        gc->rc_idx[i] = rc_index(c, rc->id);
        gc->amount[i] = r->amount;
        gc->rc_name[i] = rc->name;
    }
    if (g->member_of && g->member_of->any_of->nelts) {
        const apr_array_header_t *sets = g->member_of->any_of;

        gc->has_mo = 1;
        gc->nmo = sets->nelts;
        gc->mo = apr_pcalloc(c->p, sets->nelts * sizeof(ids_t));
        for (i = 0; i < sets->nelts; i++) {
            const apr_array_header_t *set =
                APR_ARRAY_IDX(sets, i, apr_array_header_t *);

            for (j = 0; j < set->nelts; j++) {
                pl_ac_name_t *a = apr_hash_get(c->agg_by_uuid,
                    APR_ARRAY_IDX(set, j, const char *),
                    APR_HASH_KEY_STRING);

                if (a) {
                    ids_add_unique(c->p, &gc->mo[i], a->id);
                }
            }
            if (gc->mo[i].n == 0) {
                return G_EMPTY;     /* aggregates nobody knows */
            }
        }
        /* some provider must be in all of them */
        for (n = 0, i = 0; i < (int)c->provs.size && !n; i++) {
            prov_t *pv = c->provs.slots[i];

            n = pv && pv->aggs.n && in_all_aggs(gc, pv);
        }
        if (!n) {
            return G_EMPTY;
        }
    }
    if (g->member_of) {
        for (j = 0; j < g->member_of->forbidden->nelts; j++) {
            pl_ac_name_t *a = apr_hash_get(c->agg_by_uuid,
                APR_ARRAY_IDX(g->member_of->forbidden, j, const char *),
                APR_HASH_KEY_STRING);

            if (a) {
                ids_add_unique(c->p, &gc->forb_aggs, a->id);
            }
        }
    }
    gc->nreq = g->required->nelts;
    gc->req = apr_pcalloc(c->p, (gc->nreq + 1) * sizeof(ids_t));
    for (i = 0; i < gc->nreq; i++) {
        gstat_e st = resolve_traits(c, APR_ARRAY_IDX(g->required, i,
                                                     apr_array_header_t *),
                                    &gc->req[i], punknown);
        if (st != G_OK) {
            return st;
        }
    }
    if (g->forbidden->nelts) {
        gstat_e st = resolve_traits(c, g->forbidden, &gc->forb, punknown);

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
        const apr_array_header_t *invs = c->rc_invs[gc->rc_idx[i]];

        for (n = 0, j = 0; j < invs->nelts && !n; j++) {
            const pl_ac_inv_t *inv = APR_ARRAY_IDX(invs, j,
                                                   const pl_ac_inv_t *);

            n = (!gc->has_tree || inv->root_id == gc->tree_root)
                && fits(inv, gc->amount[i]);
        }
        if (!n) {
            return G_EMPTY;
        }
    }
    return G_OK;
}

static anchor_t *anchor_of(build_t *b, apr_int64_t id)
{
    anchor_t *a = apr_hash_get(b->anchors, &id, sizeof(id));

    if (a == NULL) {
        a = apr_pcalloc(b->c->p, sizeof(*a));
        a->id = id;
        a->lists = apr_pcalloc(b->c->p, b->nslots * sizeof(*a->lists));
        apr_hash_set(b->anchors, &a->id, sizeof(a->id), a);
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

        if (inv == NULL || !fits(inv, gc->amount[i])) {
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
static gstat_e solve_single(build_t *b, gctx_t *gc)
{
    ctx_t *c = b->c;
    apr_array_header_t *hits = apr_array_make(c->p, 64, sizeof(prov_t *));
    int i, j, any = 0;

    if (gc->nres == 0 && gc->nreq == 0 && !gc->has_mo) {
        return G_EMPTY;             /* upstream filters on nothing */
    }
    if (gc->nres) {
        const apr_array_header_t *invs = c->rc_invs[gc->rc_idx[0]];

        for (i = 0; i < invs->nelts; i++) {
            const pl_ac_inv_t *inv = APR_ARRAY_IDX(invs, i,
                                                   const pl_ac_inv_t *);
            prov_t *pv = ptab_get(&c->provs, inv->rp_id);

            if (serves_all(gc, pv) && has_required(gc, pv)
                && (!gc->has_mo || in_all_aggs(gc, pv))
                && !forbidden_here(gc, pv)) {
                APR_ARRAY_PUSH(hits, prov_t *) = pv;
            }
        }
    }
    else {
        /* resourceless (1.36): providers with the traits / aggregates;
         * upstream ignores in_tree here */
        for (i = 0; i < (int)c->provs.size; i++) {
            prov_t *pv = c->provs.slots[i];

            if (pv && (pv->traits.n || pv->aggs.n) && has_required(gc, pv)
                && (!gc->has_mo || in_all_aggs(gc, pv))
                && !forbidden_here(gc, pv)) {
                APR_ARRAY_PUSH(hits, prov_t *) = pv;
            }
        }
    }
    qsort(hits->elts, hits->nelts, sizeof(prov_t *), cmp_prov);
    for (i = 0; i < hits->nelts; i++) {
        prov_t *pv = APR_ARRAY_IDX(hits, i, prov_t *);

        if (anchor_ok(c, pv->root_id)) {
            anchor_add(b, pv->root_id, gc->slot0, pv);
            any = 1;
        }
        if (!pv->sharing) {
            continue;
        }
        for (j = 0; j < pv->anchors.n; j++) {
            apr_int64_t a = pv->anchors.v[j];

            if (a != pv->root_id && anchor_ok(c, a)) {
                anchor_add(b, a, gc->slot0, pv);
                any = 1;
            }
        }
    }
    return any ? G_OK : G_EMPTY;
}

static int root_in_aggs(const ctx_t *c, const gctx_t *gc, apr_int64_t root)
{
    return in_all_aggs(gc, ptab_get(&c->provs, root));
}

static int root_in_bad(const ctx_t *c, const gctx_t *gc, apr_int64_t root)
{
    const prov_t *r = ptab_get(&c->provs, root);

    return r && has_any(&r->aggs, &gc->forb_aggs);
}

/* One (provider, anchor) entry of get_trees_matching_all, filtered as
 * upstream filters its RPCandidateList. */
static int entry_ok(const ctx_t *c, const gctx_t *gc, const prov_t *pv,
                    apr_int64_t anchor)
{
    if (!anchor_ok(c, anchor)) {
        return 0;
    }
    /* an aggregate on the root spans the whole tree */
    if (gc->has_mo && !in_all_aggs(gc, pv) && !root_in_aggs(c, gc, anchor)) {
        return 0;
    }
    if (gc->forb_aggs.n && (has_any(&pv->aggs, &gc->forb_aggs)
                            || root_in_bad(c, gc, anchor))) {
        return 0;
    }
    return 1;
}

/* get_trees_matching_all + _alloc_candidates_multiple_providers: each
 * class from any provider of the anchor's tree or a sharing provider. */
static gstat_e solve_multi(build_t *b, gctx_t *gc)
{
    ctx_t *c = b->c;
    apr_hash_t *trees = NULL;       /* anchors in every class so far */
    apr_hash_index_t *hi;
    int i, j, k, r;

    /* the walk takes the classes by class id, as upstream's product */
    gc->order = apr_palloc(c->p, gc->nres * sizeof(int));
    for (i = 0; i < gc->nres; i++) {
        gc->order[i] = i;
    }
    for (i = 1; i < gc->nres; i++) {
        for (j = i; j > 0 && c->rc_ids[gc->rc_idx[gc->order[j]]]
                             < c->rc_ids[gc->rc_idx[gc->order[j - 1]]]; j--) {
            int t = gc->order[j];

            gc->order[j] = gc->order[j - 1];
            gc->order[j - 1] = t;
        }
    }
    for (r = 0; r < gc->nres; r++) {
        int ri = gc->order[r];
        const apr_array_header_t *invs = c->rc_invs[gc->rc_idx[ri]];
        apr_hash_t *here = apr_hash_make(c->p);
        int slot = gc->slot0 + r;

        for (i = 0; i < invs->nelts; i++) {
            const pl_ac_inv_t *inv = APR_ARRAY_IDX(invs, i,
                                                   const pl_ac_inv_t *);
            prov_t *pv;

            if ((gc->has_tree && inv->root_id != gc->tree_root)
                || !fits(inv, gc->amount[ri])) {
                continue;
            }
            pv = ptab_get(&c->provs, inv->rp_id);
            /* the tree of the provider itself */
            if (entry_ok(c, gc, pv, pv->root_id)
                && (!trees || apr_hash_get(trees, &pv->root_id,
                                           sizeof(apr_int64_t)))) {
                /* a provider with a forbidden trait spoils every
                 * combination it is in: leave it out */
                apr_hash_set(here, &pv->root_id, sizeof(apr_int64_t), pv);
                if (!has_any(&pv->traits, &gc->forb)) {
                    anchor_add(b, pv->root_id, slot, pv);
                }
            }
            /* and every tree it shares with (not with in_tree) */
            if (!pv->sharing || gc->has_tree
                || (gc->has_mo && !in_all_aggs(gc, pv))) {
                continue;
            }
            for (k = 0; k < pv->anchors.n; k++) {
                apr_int64_t a = pv->anchors.v[k];

                if (!entry_ok(c, gc, pv, a)
                    || (trees && !apr_hash_get(trees, &a, sizeof(a)))) {
                    continue;
                }
                apr_hash_set(here, &pv->anchors.v[k], sizeof(a), pv);
                if (!has_any(&pv->traits, &gc->forb)) {
                    anchor_add(b, a, slot, pv);
                }
            }
        }
        if (apr_hash_count(here) == 0) {
            return G_EMPTY;
        }
        trees = here;
    }
    /* anchors missing a class lose the classes they had */
    for (hi = apr_hash_first(c->p, b->anchors); hi; hi = apr_hash_next(hi)) {
        anchor_t *a = apr_hash_this_val(hi);

        if (!apr_hash_get(trees, &a->id, sizeof(a->id))) {
            for (r = 0; r < gc->nres; r++) {
                a->lists[gc->slot0 + r] = NULL;
            }
        }
    }
    return G_OK;
}

/* ------------------------------------------------------------------ */
/* The walk                                                            */
/* ------------------------------------------------------------------ */

typedef struct acc_t {
    prov_t *pv;
    int rc;                         /* class index */
    apr_int64_t sum;
} acc_t;

/* One anchor's walk, resumable: breadth-first keeps one per anchor and
 * takes a candidate from each in turn; depth-first reuses one. */
typedef struct wstate_t {
    anchor_t *anchor;
    int depth;                      /* slots filled; -1: exhausted */
    int *idx;                       /* per slot: the next choice to try */
    prov_t **chosen;
    acc_t *acc;
    int nacc;
    apr_int64_t *left;              /* per class: room left in the tree */
    int *viable;                    /* per slot: providers of its list
                                     * that could still take it */
    int iso_union;                  /* providers isolate slots may take */
    int started;
} wstate_t;

typedef struct walk_t {
    build_t *b;
    anchor_t *anchor;
    wstate_t *st;                   /* the walk on hold (applied) */
    int nslots;
    int *slot_group;                /* slot -> group index */
    int *slot_res;                  /* slot -> resource (-1: all) */
    int *slot_iso;                  /* slot -> 1: an isolate slot */
    int *iso_after;                 /* slot -> isolate slots from it on */
    apr_int64_t *need;              /* [slot * nrc + class]: asked from
                                     * that slot on (saturated) */
    int niso;
    int deep;                       /* several slots: prune as we go */
    char *fitbuf;                   /* per slot of a provider: before */
    /* the state's, while it is applied */
    prov_t **chosen;
    acc_t *acc;
    int nacc;
    apr_int64_t *left;
    long budget;
    int bound;                      /* 0: none */
    apr_array_header_t *out;        /* pl_ac_cand_t * */
    apr_hash_t *seen;               /* dedup of all-sharing candidates */
    apr_hash_t *roots_seen;
    apr_array_header_t *roots;
    apr_hash_t *rps_seen;
    apr_array_header_t *rps;
    int stop;
    int truncated;
    int need_subtree, nested_blind;
    int epoch;                      /* for prov_t.stamp */
    long pruned;                    /* partial candidates cut (tests) */
    long refused;                   /* anchors refused before the walk */
} walk_t;

/* take amount of class rc from pv for the candidate being built, if the
 * sum the candidate takes from pv still fits (upstream's
 * exceeds_capacity); acc keeps the sums in the order first taken */
static int acc_push(walk_t *w, prov_t *pv, int rc, apr_int64_t amount)
{
    int i = pv->acc_at[rc];

    if (amount > pv->room[rc] - pv->taken[rc]) {
        return 0;
    }
    if (i >= 0) {
        w->acc[i].sum += amount;
    }
    else {
        i = w->nacc++;
        w->acc[i].pv = pv;
        w->acc[i].rc = rc;
        w->acc[i].sum = amount;
        pv->acc_at[rc] = i;
    }
    pv->taken[rc] += amount;
    w->left[rc] -= amount;
    return 1;
}

static void acc_pop(walk_t *w, prov_t *pv, int rc, apr_int64_t amount)
{
    int i = pv->acc_at[rc];

    w->acc[i].sum -= amount;
    pv->taken[rc] -= amount;
    w->left[rc] += amount;
    if (w->acc[i].sum == 0 && i == w->nacc - 1) {
        w->nacc--;
        pv->acc_at[rc] = -1;
    }
}

/* take the amounts of slot s from pv; 0 if they do not fit */
static int take(walk_t *w, int s, prov_t *pv)
{
    const gctx_t *gc = &w->b->groups[w->slot_group[s]];
    int ri = w->slot_res[s], i;

    if (ri >= 0) {
        return acc_push(w, pv, gc->rc_idx[ri], gc->amount[ri]);
    }
    for (i = 0; i < gc->nres; i++) {
        if (!acc_push(w, pv, gc->rc_idx[i], gc->amount[i])) {
            while (--i >= 0) {
                acc_pop(w, pv, gc->rc_idx[i], gc->amount[i]);
            }
            return 0;
        }
    }
    return 1;
}

static void untake(walk_t *w, int s, prov_t *pv)
{
    const gctx_t *gc = &w->b->groups[w->slot_group[s]];
    int ri = w->slot_res[s], i;

    if (ri >= 0) {
        acc_pop(w, pv, gc->rc_idx[ri], gc->amount[ri]);
        return;
    }
    for (i = gc->nres - 1; i >= 0; i--) {
        acc_pop(w, pv, gc->rc_idx[i], gc->amount[i]);
    }
}

static int group_traits_ok(const walk_t *w, const gctx_t *gc)
{
    int i, s;

    for (i = 0; i < gc->nreq; i++) {
        int hit = 0;

        for (s = gc->slot0; s < gc->slot0 + gc->width && !hit; s++) {
            hit = has_any(&w->chosen[s]->traits, &gc->req[i]);
        }
        if (!hit) {
            return 0;
        }
    }
    return 1;
}

static int is_ancestor_or_self(const ctx_t *c, const prov_t *x,
                               const prov_t *y)
{
    int hops = 0;

    while (y && hops++ < 1000) {
        if (y == x) {
            return 1;
        }
        y = y->parent_id ? ptab_get(&c->provs, y->parent_id) : NULL;
    }
    return 0;
}

static int same_subtree_ok(const walk_t *w)
{
    const build_t *b = w->b;
    const apr_array_header_t *sets = b->c->req->same_subtrees;
    prov_t *rps[64];
    int i, j, k, n;

    for (i = 0; i < sets->nelts; i++) {
        const apr_array_header_t *set =
            APR_ARRAY_IDX(sets, i, apr_array_header_t *);

        for (n = 0, j = 0; j < set->nelts; j++) {
            const char *suffix = APR_ARRAY_IDX(set, j, const char *);

            for (k = 0; k < b->ngroups; k++) {
                const gctx_t *gc = &b->groups[k];
                int s;

                if (strcmp(gc->g->suffix, suffix)) {
                    continue;
                }
                for (s = gc->slot0; s < gc->slot0 + gc->width; s++) {
                    int m, dup = 0;

                    for (m = 0; m < n; m++) {
                        dup |= rps[m] == w->chosen[s];
                    }
                    if (!dup && n < 64) {
                        rps[n++] = w->chosen[s];
                    }
                }
            }
        }
        if (n > 1) {
            int found = 0;

            for (j = 0; j < n && !found; j++) {
                for (found = 1, k = 0; k < n && found; k++) {
                    found = is_ancestor_or_self(b->c, rps[j], rps[k]);
                }
            }
            if (!found) {
                return 0;
            }
        }
    }
    return 1;
}

/* before 1.29 a client cannot see trees: one provider per tree */
static int nested_blind_ok(const walk_t *w)
{
    int i, j;

    for (i = 0; i < w->nacc; i++) {
        for (j = 0; j < i; j++) {
            if (w->acc[i].pv != w->acc[j].pv
                && w->acc[i].pv->root_id == w->acc[j].pv->root_id) {
                return 0;
            }
        }
    }
    return 1;
}

static int cmp_id(const void *a, const void *b)
{
    apr_int64_t x = *(const apr_int64_t *)a, y = *(const apr_int64_t *)b;

    return x < y ? -1 : x > y;
}

static void note_id(apr_pool_t *p, apr_hash_t *seen, apr_array_header_t *a,
                    apr_int64_t id)
{
    if (!apr_hash_get(seen, &id, sizeof(id))) {
        apr_int64_t *k = apr_palloc(p, sizeof(*k));

        *k = id;
        apr_hash_set(seen, k, sizeof(*k), k);
        APR_ARRAY_PUSH(a, apr_int64_t) = id;
    }
}

/* A candidate made only of sharing providers can come from several
 * anchors: keep it once (upstream's set of AllocationRequest). */
static int duplicate(walk_t *w)
{
    apr_pool_t *p = w->b->c->p;
    apr_int64_t *trip;
    const char *key = "";
    int i, j;

    for (i = 0; i < w->nslots; i++) {
        if (!w->chosen[i]->sharing) {
            return 0;
        }
    }
    trip = apr_palloc(p, (w->nacc + 1) * 3 * sizeof(*trip));
    for (i = 0; i < w->nacc; i++) {
        trip[i * 3] = w->acc[i].pv->id;
        trip[i * 3 + 1] = w->acc[i].rc;
        trip[i * 3 + 2] = w->acc[i].sum;
    }
    /* a few entries: insertion sort on (provider, class) */
    for (i = 1; i < w->nacc; i++) {
        for (j = i; j > 0 && (trip[j * 3] < trip[j * 3 - 3]
                              || (trip[j * 3] == trip[j * 3 - 3]
                                  && trip[j * 3 + 1] < trip[j * 3 - 2]));
             j--) {
            apr_int64_t t[3];

            memcpy(t, &trip[j * 3], sizeof(t));
            memcpy(&trip[j * 3], &trip[j * 3 - 3], sizeof(t));
            memcpy(&trip[j * 3 - 3], t, sizeof(t));
        }
    }
    for (i = 0; i < w->nacc; i++) {
        key = apr_psprintf(p, "%s%" APR_INT64_T_FMT ":%" APR_INT64_T_FMT
                           ":%" APR_INT64_T_FMT ";", key, trip[i * 3],
                           trip[i * 3 + 1], trip[i * 3 + 2]);
    }
    for (i = 0; i < w->b->ngroups; i++) {
        const gctx_t *gc = &w->b->groups[i];
        apr_int64_t ids[64];
        int n = 0, s;

        for (s = gc->slot0; s < gc->slot0 + gc->width && n < 64; s++) {
            ids[n++] = w->chosen[s]->id;
        }
        qsort(ids, n, sizeof(ids[0]), cmp_id);
        key = apr_pstrcat(p, key, "|", NULL);
        for (s = 0; s < n; s++) {
            if (s == 0 || ids[s] != ids[s - 1]) {
                key = apr_psprintf(p, "%s%" APR_INT64_T_FMT ",", key,
                                   ids[s]);
            }
        }
    }
    if (apr_hash_get(w->seen, key, APR_HASH_KEY_STRING)) {
        return 1;
    }
    apr_hash_set(w->seen, key, APR_HASH_KEY_STRING, key);
    return 0;
}

static void emit(walk_t *w)
{
    build_t *b = w->b;
    apr_pool_t *p = b->c->p;
    pl_ac_cand_t *cand = apr_pcalloc(p, sizeof(*cand));
    int i, j, n;

    /* allocations grouped by provider, in the order first taken */
    cand->allocs = apr_palloc(p, (w->nacc + 1) * sizeof(pl_ac_alloc_t));
    for (n = 0, i = 0; i < w->nacc; i++) {
        if (w->acc[i].pv->mark == 1) {
            continue;
        }
        for (j = i; j < w->nacc; j++) {
            if (w->acc[j].pv == w->acc[i].pv && w->acc[j].sum > 0) {
                pl_ac_alloc_t *al = &cand->allocs[n++];

                al->rp_id = w->acc[j].pv->id;
                al->rc_id = b->c->rc_ids[w->acc[j].rc];
                al->rc_name = NULL;
                al->amount = w->acc[j].sum;
            }
        }
        w->acc[i].pv->mark = 1;
        note_id(p, w->roots_seen, w->roots, w->acc[i].pv->root_id);
        if (w->rps) {
            note_id(p, w->rps_seen, w->rps, w->acc[i].pv->id);
        }
    }
    for (i = 0; i < w->nacc; i++) {
        w->acc[i].pv->mark = 0;
    }
    cand->nallocs = n;
    cand->nmaps = b->ngroups;
    cand->maps = apr_pcalloc(p, b->ngroups * sizeof(pl_ac_mapping_t));
    for (i = 0; i < b->ngroups; i++) {
        const gctx_t *gc = &b->groups[i];
        pl_ac_mapping_t *m = &cand->maps[i];
        int s;

        m->suffix = gc->g->suffix;
        m->rp_ids = apr_palloc(p, gc->width * sizeof(apr_int64_t));
        for (s = gc->slot0; s < gc->slot0 + gc->width; s++) {
            apr_int64_t id = w->chosen[s]->id;

            for (j = 0; j < m->nrps && m->rp_ids[j] != id; j++) {
            }
            if (j == m->nrps) {
                m->rp_ids[m->nrps++] = id;
            }
        }
    }
    APR_ARRAY_PUSH(w->out, pl_ac_cand_t *) = cand;
    if (w->bound && w->out->nelts >= w->bound) {
        w->stop = 1;
        w->truncated = 1;
    }
}

/* ------------------------------------------------------------------ */
/* Deciding early: what the remaining slots ask against what is left    */
/* ------------------------------------------------------------------ */

static apr_int64_t sat_add(apr_int64_t a, apr_int64_t b)
{
    apr_int64_t r;

    return __builtin_add_overflow(a, b, &r) ? APR_INT64_MAX : r;
}

/* what slot s asks of each class, added to row (nrc entries) */
static void slot_demand(const walk_t *w, int s, apr_int64_t *row)
{
    const gctx_t *gc = &w->b->groups[w->slot_group[s]];
    int ri = w->slot_res[s], i;

    if (ri >= 0) {
        row[gc->rc_idx[ri]] = sat_add(row[gc->rc_idx[ri]], gc->amount[ri]);
        return;
    }
    for (i = 0; i < gc->nres; i++) {
        row[gc->rc_idx[i]] = sat_add(row[gc->rc_idx[i]], gc->amount[i]);
    }
}

static int slot_asks(const walk_t *w, int s, int k)
{
    const gctx_t *gc = &w->b->groups[w->slot_group[s]];
    int ri = w->slot_res[s], i;

    if (ri >= 0) {
        return gc->rc_idx[ri] == k;
    }
    for (i = 0; i < gc->nres; i++) {
        if (gc->rc_idx[i] == k) {
            return 1;
        }
    }
    return 0;
}

/* can slots s.. still be filled? Per class, what they ask against the
 * room left in the providers of the anchor's lists; with isolate, their
 * number against the providers isolate slots have not taken yet.
 * Necessary conditions only: a candidate they cut could not exist. */
static int completable(walk_t *w, int s)
{
    const apr_int64_t *need = w->need + (apr_size_t)s * w->b->c->nrc;
    int k;

    for (k = 0; k < w->b->c->nrc; k++) {
        if (need[k] > w->left[k]) {
            return 0;
        }
    }
    return !w->niso
           || w->iso_after[s] <= w->st->iso_union - (w->niso
                                                      - w->iso_after[s]);
}

/* Kuhn's augmenting path for isolate slot s (index among isolate slots
 * in islots); providers remember their slot + 1 in match */
static int augment(walk_t *w, const int *islots, int s)
{
    const apr_array_header_t *l = w->anchor->lists[islots[s]];
    int i;

    for (i = 0; i < l->nelts; i++) {
        prov_t *pv = APR_ARRAY_IDX(l, i, prov_t *);

        if (pv->stamp == w->epoch) {
            continue;
        }
        pv->stamp = w->epoch;
        if (pv->match == 0 || augment(w, islots, pv->match - 1)) {
            pv->match = s + 1;
            return 1;
        }
    }
    return 0;
}

/* Before walking an anchor: the room of its providers per class (each
 * provider once), the providers its isolate slots can use, and whether
 * its isolate slots can go to distinct providers at all (a bipartite
 * matching). 0: no candidate can come from it. */
static int anchor_feasible(walk_t *w)
{
    const ctx_t *c = w->b->c;
    wstate_t *st = w->st;
    anchor_t *a = w->anchor;
    int k, s, i, n, ok = 1;
    int *islots;

    for (k = 0; k < c->nrc; k++) {
        st->left[k] = 0;
        w->epoch++;
        for (s = 0; s < w->nslots; s++) {
            const apr_array_header_t *l = a->lists[s];

            if (!slot_asks(w, s, k)) {
                continue;
            }
            for (i = 0; i < l->nelts; i++) {
                prov_t *pv = APR_ARRAY_IDX(l, i, prov_t *);

                if (pv->stamp != w->epoch) {
                    pv->stamp = w->epoch;
                    if (pv->room[k] > 0) {
                        st->left[k] = sat_add(st->left[k], pv->room[k]);
                    }
                }
            }
        }
        if (w->need[k] > st->left[k]) {
            return 0;
        }
    }
    if (!w->niso) {
        return 1;
    }
    islots = apr_palloc(c->p, w->niso * sizeof(int));
    w->epoch++;
    for (n = 0, s = 0; s < w->nslots; s++) {
        const apr_array_header_t *l = a->lists[s];

        if (!w->slot_iso[s]) {
            continue;
        }
        islots[n++] = s;
        for (i = 0; i < l->nelts; i++) {
            prov_t *pv = APR_ARRAY_IDX(l, i, prov_t *);

            if (pv->stamp != w->epoch) {
                pv->stamp = w->epoch;
                pv->match = 0;
                st->iso_union++;
            }
        }
    }
    if (st->iso_union < w->niso) {
        return 0;
    }
    for (s = 0; s < n && ok; s++) {
        w->epoch++;
        ok = augment(w, islots, s);
    }
    return ok;
}

/* make st the walk on hold: its sums onto the providers */
static void state_apply(walk_t *w, wstate_t *st)
{
    int i;

    w->st = st;
    w->anchor = st->anchor;
    for (i = 0; i < st->anchor->nprovs; i++) {
        st->anchor->provs[i]->slots = st->anchor->pslots[i];
        st->anchor->provs[i]->nslots_in = st->anchor->npslots[i];
    }
    w->chosen = st->chosen;
    w->acc = st->acc;
    w->nacc = st->nacc;
    w->left = st->left;
    for (i = 0; i < w->nacc; i++) {
        w->acc[i].pv->taken[w->acc[i].rc] += w->acc[i].sum;
        w->acc[i].pv->acc_at[w->acc[i].rc] = i;
    }
    for (i = 0; i < st->depth; i++) {
        if (w->slot_iso[i]) {
            w->chosen[i]->iso_n++;
        }
    }
}

static void state_unapply(walk_t *w)
{
    int i;

    if (w->st == NULL) {
        return;
    }
    w->st->nacc = w->nacc;
    for (i = 0; i < w->nacc; i++) {
        w->acc[i].pv->taken[w->acc[i].rc] -= w->acc[i].sum;
        w->acc[i].pv->acc_at[w->acc[i].rc] = -1;
    }
    for (i = 0; i < w->st->depth; i++) {
        if (w->slot_iso[i]) {
            w->chosen[i]->iso_n--;
        }
    }
    w->st = NULL;
}

static void fit_before(walk_t *w, const prov_t *pv);
static int fit_after(walk_t *w, const prov_t *pv, int d);

/* undo slot d of the walk on hold */
static void unchoose(walk_t *w, int d)
{
    prov_t *pv = w->chosen[d];

    if (w->deep) {
        fit_before(w, pv);
    }
    untake(w, d, pv);
    if (w->slot_iso[d]) {
        pv->iso_n--;
    }
    if (w->deep) {
        fit_after(w, pv, w->nslots);
    }
}

static void state_init(walk_t *w, wstate_t *st, anchor_t *a, int nres)
{
    apr_pool_t *p = w->b->c->p;

    if (st->idx == NULL) {
        st->idx = apr_pcalloc(p, (w->nslots + 1) * sizeof(int));
        st->chosen = apr_pcalloc(p, (w->nslots + 1) * sizeof(prov_t *));
        st->acc = apr_palloc(p, (nres + 1) * sizeof(acc_t));
        st->left = apr_pcalloc(p, (w->b->c->nrc + 1) * sizeof(apr_int64_t));
        st->viable = apr_pcalloc(p, (w->nslots + 1) * sizeof(int));
    }
    st->anchor = a;
    st->depth = 0;
    st->idx[0] = 0;
    st->nacc = 0;
    st->iso_union = 0;
    st->started = 1;
}

static void shuffle(ctx_t *c, void *elts, int n, apr_size_t size);

/* could pv still take slot t, the candidate being built as it is? */
static int fit_slot(const walk_t *w, int t, const prov_t *pv)
{
    const gctx_t *gc = &w->b->groups[w->slot_group[t]];
    int ri = w->slot_res[t], i;

    if (w->slot_iso[t] && pv->iso_n) {
        return 0;
    }
    if (ri >= 0) {
        int k = gc->rc_idx[ri];

        return gc->amount[ri] <= pv->room[k] - pv->taken[k];
    }
    for (i = 0; i < gc->nres; i++) {
        int k = gc->rc_idx[i];

        if (gc->amount[i] > pv->room[k] - pv->taken[k]) {
            return 0;
        }
    }
    return 1;
}

/* before pv changes: whether it fits each slot that lists it */
static void fit_before(walk_t *w, const prov_t *pv)
{
    int j;

    for (j = 0; j < pv->nslots_in; j++) {
        w->fitbuf[j] = (char)fit_slot(w, pv->slots[j], pv);
    }
}

/* after pv changed: the slots' counts of providers that could take them;
 * 0 when a slot after d has none left (no candidate below this node) */
static int fit_after(walk_t *w, const prov_t *pv, int d)
{
    int j, ok = 1;

    for (j = 0; j < pv->nslots_in; j++) {
        int t = pv->slots[j], now = fit_slot(w, t, pv);

        if (now != w->fitbuf[j]) {
            w->st->viable[t] += now - w->fitbuf[j];
            if (w->st->viable[t] == 0 && t > d) {
                ok = 0;
            }
        }
    }
    return ok;
}

/* the providers of a, each with the slots whose lists hold it */
static void index_anchor(walk_t *w, anchor_t *a)
{
    apr_pool_t *p = w->b->c->p;
    int s, i, n = 0;

    w->epoch++;
    for (s = 0; s < w->nslots; s++) {
        for (i = 0; i < a->lists[s]->nelts; i++) {
            prov_t *pv = APR_ARRAY_IDX(a->lists[s], i, prov_t *);

            if (pv->stamp != w->epoch) {
                pv->stamp = w->epoch;
                pv->match = n++;    /* its index, for now */
            }
        }
    }
    a->nprovs = n;
    a->provs = apr_palloc(p, (n + 1) * sizeof(prov_t *));
    a->pslots = apr_palloc(p, (n + 1) * sizeof(int *));
    a->npslots = apr_pcalloc(p, (n + 1) * sizeof(int));
    for (s = 0; s < w->nslots; s++) {
        for (i = 0; i < a->lists[s]->nelts; i++) {
            prov_t *pv = APR_ARRAY_IDX(a->lists[s], i, prov_t *);

            a->provs[pv->match] = pv;
            a->npslots[pv->match]++;
        }
    }
    for (i = 0; i < n; i++) {
        a->pslots[i] = apr_palloc(p, a->npslots[i] * sizeof(int));
        a->npslots[i] = 0;
    }
    for (s = 0; s < w->nslots; s++) {
        for (i = 0; i < a->lists[s]->nelts; i++) {
            prov_t *pv = APR_ARRAY_IDX(a->lists[s], i, prov_t *);

            a->pslots[pv->match][a->npslots[pv->match]++] = s;
        }
    }
    for (i = 0; i < n; i++) {
        a->provs[i]->match = 0;
    }
}

/* Set st up for anchor a and apply it; st->depth is -1 when no candidate
 * can come from a (decided without walking). */
static void start_anchor(walk_t *w, wstate_t *st, anchor_t *a, int nres)
{
    int s;

    if (w->deep && a->provs == NULL) {
        index_anchor(w, a);
    }
    state_init(w, st, a, nres);
    state_apply(w, st);
    if (w->b->c->opts->randomize) {
        for (s = 0; s < w->nslots; s++) {
            shuffle(w->b->c, a->lists[s]->elts, a->lists[s]->nelts,
                    sizeof(prov_t *));
        }
    }
    if (!anchor_feasible(w)) {
        st->depth = -1;
        w->refused++;
        return;
    }
    for (s = 0; s < w->nslots && w->deep; s++) {
        int i;

        st->viable[s] = 0;
        for (i = 0; i < a->lists[s]->nelts; i++) {
            st->viable[s] += fit_slot(w, s, APR_ARRAY_IDX(a->lists[s], i,
                                                          prov_t *));
        }
        if (st->viable[s] == 0) {
            st->depth = -1;
            w->refused++;
            return;
        }
    }
}

/* Advance the walk on hold until it gives one candidate (1), or ends or
 * everything stops (0). Depth-first over the slots, choices in list
 * order, as the recursive walk upstream's product amounts to. */
static int step(walk_t *w)
{
    wstate_t *st = w->st;
    int d = st->depth;

    while (!w->stop && d >= 0) {
        const apr_array_header_t *opts;
        const gctx_t *gc;
        prov_t *pv;

        if (d == w->nslots) {
            int ok = !((w->need_subtree && !same_subtree_ok(w))
                       || (w->nested_blind && !nested_blind_ok(w))
                       || (w->seen && duplicate(w)));

            if (ok) {
                emit(w);
            }
            if (--d >= 0) {
                unchoose(w, d);
            }
            if (ok) {
                st->depth = d;
                return 1;
            }
            continue;
        }
        opts = w->anchor->lists[d];
        if (st->idx[d] >= opts->nelts) {
            if (--d >= 0) {
                unchoose(w, d);
            }
            continue;
        }
        pv = APR_ARRAY_IDX(opts, st->idx[d], prov_t *);
        st->idx[d]++;
        gc = &w->b->groups[w->slot_group[d]];
        if (w->slot_iso[d] && pv->iso_n) {
            continue;
        }
        if (!fit_slot(w, d, pv)) {
            continue;               /* take() would refuse it */
        }
        if (w->deep) {
            fit_before(w, pv);
        }
        if (!take(w, d, pv)) {
            continue;
        }
        w->chosen[d] = pv;
        /* the last class of a multi group: its traits, all together */
        if ((gc->multi && gc->nreq && d == gc->slot0 + gc->width - 1
             && !group_traits_ok(w, gc))) {
            untake(w, d, pv);
            continue;
        }
        if (w->slot_iso[d]) {
            pv->iso_n++;
        }
        if ((w->deep && !fit_after(w, pv, d)) || !completable(w, d + 1)) {
            w->pruned++;
            unchoose(w, d);
            continue;
        }
        if (--w->budget < 0) {
            w->stop = 1;
            w->truncated = 1;
            break;
        }
        d++;
        if (d < w->nslots) {
            st->idx[d] = 0;
        }
    }
    st->depth = w->stop ? st->depth : -1;
    return 0;
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

static void shuffle(ctx_t *c, void *elts, int n, apr_size_t size)
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

static int cmp_anchor(const void *a, const void *b)
{
    apr_int64_t x = (*(anchor_t *const *)a)->id;
    apr_int64_t y = (*(anchor_t *const *)b)->id;

    return x < y ? -1 : x > y;
}

/* ------------------------------------------------------------------ */
/* Entry point                                                         */
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
    w->prov_by_id = apr_hash_make(p);
    w->all_traits = apr_array_make(p, 64, sizeof(pl_ac_link_t));
    w->rc_names = apr_array_make(p, 8, sizeof(pl_ac_name_t));
    w->trait_names = apr_array_make(p, 16, sizeof(pl_ac_name_t));
    return w;
}

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
    gstat_e st;
    int any = 0;
    apr_size_t i;

    if (rr == NULL || (rr->required->nelts == 0 && rr->forbidden->nelts == 0)) {
        return G_OK;
    }
    if ((st = resolve_traits(c, rr->required, &c->anchor_req, punknown))
        != G_OK
        || (st = resolve_traits(c, rr->forbidden, &c->anchor_forb,
                                punknown)) != G_OK) {
        return st;
    }
    c->anchor_filter = 1;
    if (c->anchor_req.n == 0) {
        return G_OK;                /* some root surely lacks them */
    }
    for (i = 0; i < c->provs.size && !any; i++) {
        const prov_t *pv = c->provs.slots[i];

        any = pv && pv->id == pv->root_id && anchor_ok(c, pv->id);
    }
    return any ? G_OK : G_EMPTY;
}

apr_status_t pl_ac_build(apr_pool_t *p, const pl_ac_request_t *req,
                         const pl_ac_world_t *world,
                         const pl_ac_opts_t *opts, pl_ac_result_t **pres)
{
    pl_ac_result_t *res = result_make(p);
    ctx_t c;
    build_t b;
    walk_t w;
    apr_hash_index_t *hi;
    const char *unknown = NULL;
    gstat_e st;
    int i, s, nslots = 0, multi_ok, isolate, nres = 0, nanchors;

    *pres = res;
    memset(&c, 0, sizeof(c));
    c.p = p;
    c.req = req;
    c.world = world;
    c.opts = opts;
    c.rng = (apr_uint64_t)apr_time_now() * 2654435761ULL | 1;
    index_world(&c);

    memset(&b, 0, sizeof(b));
    b.c = &c;
    b.ngroups = req->groups->nelts;
    b.groups = apr_pcalloc(p, (b.ngroups + 1) * sizeof(gctx_t));
    for (i = 0; i < b.ngroups; i++) {
        const pl_ac_group_t *g = APR_ARRAY_IDX(req->groups, i,
                                               pl_ac_group_t *);

        nslots += g->resources->nelts > 1 ? g->resources->nelts : 1;
    }
    b.nslots = nslots;
    b.anchors = apr_hash_make(p);

    st = prepare_anchors(&c, &unknown);
    multi_ok = world->sharing->nelts > 0 || world->has_trees;
    for (i = 0, s = 0; i < b.ngroups && st == G_OK; i++) {
        gctx_t *gc = &b.groups[i];

        gc->g = APR_ARRAY_IDX(req->groups, i, pl_ac_group_t *);
        gc->idx = i;
        if ((st = prepare_group(&b, gc, &unknown)) != G_OK) {
            break;
        }
        gc->multi = !gc->g->same_provider && multi_ok && gc->nres > 0;
        gc->slot0 = s;
        gc->width = gc->multi && gc->nres > 1 ? gc->nres : 1;
        s += gc->width;
        st = gc->multi ? solve_multi(&b, gc) : solve_single(&b, gc);
    }
    if (st == G_UNKNOWN_RC || st == G_UNKNOWN_TRAIT) {
        res->outcome = st == G_UNKNOWN_RC ? PL_AC_UNKNOWN_RC
                                          : PL_AC_UNKNOWN_TRAIT;
        res->unknown = unknown;
        return APR_SUCCESS;
    }
    if (st != G_OK) {
        return APR_SUCCESS;
    }
    nslots = s;                     /* b.nslots was an upper bound */

    /* the anchors every slot can be filled at */
    b.anchor_list = apr_array_make(p, apr_hash_count(b.anchors) + 1,
                                   sizeof(anchor_t *));
    for (hi = apr_hash_first(p, b.anchors); hi; hi = apr_hash_next(hi)) {
        anchor_t *a = apr_hash_this_val(hi);

        for (s = 0; s < nslots && a->lists[s] && a->lists[s]->nelts; s++) {
        }
        if (s == nslots) {
            APR_ARRAY_PUSH(b.anchor_list, anchor_t *) = a;
        }
    }
    if (opts->randomize) {
        shuffle(&c, b.anchor_list->elts, b.anchor_list->nelts,
                sizeof(anchor_t *));
    }
    else {
        qsort(b.anchor_list->elts, b.anchor_list->nelts, sizeof(anchor_t *),
              cmp_anchor);
    }

    memset(&w, 0, sizeof(w));
    w.b = &b;
    w.nslots = nslots;
    w.slot_group = apr_palloc(p, (nslots + 1) * sizeof(int));
    w.slot_res = apr_palloc(p, (nslots + 1) * sizeof(int));
    w.slot_iso = apr_pcalloc(p, (nslots + 1) * sizeof(int));
    w.iso_after = apr_pcalloc(p, (nslots + 1) * sizeof(int));
    isolate = req->group_policy && !strcmp(req->group_policy, "isolate");
    for (i = 0; i < b.ngroups; i++) {
        const gctx_t *gc = &b.groups[i];

        for (s = 0; s < gc->width; s++) {
            w.slot_group[gc->slot0 + s] = i;
            w.slot_res[gc->slot0 + s] = gc->multi ? gc->order[s] : -1;
            w.slot_iso[gc->slot0 + s] = isolate && gc->g->same_provider;
        }
    }
    /* from each slot on: what is asked per class, how many isolate */
    w.need = apr_pcalloc(p, (apr_size_t)(nslots + 1) * (c.nrc + 1)
                            * sizeof(apr_int64_t));
    for (s = nslots - 1; s >= 0; s--) {
        memcpy(w.need + (apr_size_t)s * c.nrc,
               w.need + (apr_size_t)(s + 1) * c.nrc,
               c.nrc * sizeof(apr_int64_t));
        slot_demand(&w, s, w.need + (apr_size_t)s * c.nrc);
        w.iso_after[s] = w.iso_after[s + 1] + w.slot_iso[s];
    }
    w.niso = w.iso_after[0];
    w.deep = nslots > 1;
    w.fitbuf = apr_palloc(p, nslots + 1);
    for (i = 0; i < b.ngroups; i++) {
        nres += b.groups[i].nres;
    }
    w.budget = opts->budget > 0 ? opts->budget : DEFAULT_BUDGET;
    w.bound = 0;
    if (opts->limit > 0 && !opts->randomize) {
        w.bound = opts->limit;
    }
    if (opts->max_candidates >= 0
        && (w.bound == 0 || opts->max_candidates < w.bound)) {
        w.bound = opts->max_candidates;
    }
    if (opts->randomize && opts->limit > 0
        && (w.bound == 0 || opts->limit < w.bound)) {
        w.bound = opts->limit;  /* a random sample: anchors are shuffled */
    }
    w.out = res->cands;
    w.seen = world->sharing->nelts ? apr_hash_make(p) : NULL;
    w.roots_seen = apr_hash_make(p);
    w.roots = res->roots;
    if (opts->mv < PL_MV(1, 29) && world->has_trees) {
        w.nested_blind = 1;
        w.rps_seen = apr_hash_make(p);
        w.rps = res->only_rps = apr_array_make(p, 16, sizeof(apr_int64_t));
    }
    w.need_subtree = req->same_subtrees->nelts > 0;
    if (opts->max_candidates == 0) {
        w.stop = 1;
    }
    nanchors = b.anchor_list->nelts;
    if (opts->strategy == PL_AC_BREADTH_FIRST && w.bound > 0) {
        /* every anchor its own walk; one candidate from each in turn */
        wstate_t *sts = apr_pcalloc(p, (nanchors + 1) * sizeof(wstate_t));
        int live = 0;

        for (i = 0; i < nanchors && !w.stop; i++) {
            start_anchor(&w, &sts[i], APR_ARRAY_IDX(b.anchor_list, i,
                                                    anchor_t *), nres);
            state_unapply(&w);
            if (sts[i].depth >= 0) {
                sts[live++] = sts[i];
            }
        }
        while (live > 0 && !w.stop) {
            int kept = 0;

            for (i = 0; i < live && !w.stop; i++) {
                state_apply(&w, &sts[i]);
                step(&w);
                state_unapply(&w);
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
        for (i = 0; i < nanchors && !w.stop; i++) {
            start_anchor(&w, &st, APR_ARRAY_IDX(b.anchor_list, i,
                                                anchor_t *), nres);
            while (st.depth >= 0 && step(&w)) {
            }
            state_unapply(&w);
        }
    }
    if (opts->stats) {
        opts->stats->pruned = w.pruned;
        opts->stats->refused = w.refused;
        opts->stats->nodes = (opts->budget > 0 ? opts->budget
                                               : DEFAULT_BUDGET) - w.budget;
    }
    res->truncated = w.truncated;
    if (opts->randomize) {
        shuffle(&c, res->cands->elts, res->cands->nelts,
                sizeof(pl_ac_cand_t *));
    }
    /* providers only in mappings, outside the summarized trees */
    res->extra_rps = apr_array_make(p, 1, sizeof(apr_int64_t));
    for (i = 0; i < res->cands->nelts && !res->only_rps; i++) {
        pl_ac_cand_t *cand = APR_ARRAY_IDX(res->cands, i, pl_ac_cand_t *);
        int j, k;

        for (j = 0; j < cand->nmaps; j++) {
            for (k = 0; k < cand->maps[j].nrps; k++) {
                apr_int64_t id = cand->maps[j].rp_ids[k];
                const prov_t *pv = ptab_get(&c.provs, id);

                if (pv && !apr_hash_get(w.roots_seen, &pv->root_id,
                                        sizeof(apr_int64_t))) {
                    note_id(p, w.roots_seen, res->extra_rps, id);
                }
            }
        }
    }
    /* class names for the output */
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
    return APR_SUCCESS;
}
