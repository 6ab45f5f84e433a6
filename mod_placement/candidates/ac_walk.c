/* Licensed under the Apache License, Version 2.0.
 *
 * ac_walk.c: per anchor, the walk over the choices of all groups: what
 * a candidate takes, the checks of a full candidate (traits, same_subtree,
 * duplicates), the early decisions that cut partial candidates and refuse
 * anchors, and the resumable state breadth-first needs. See ac_build.c.
 */
#include <stdlib.h>
#include <string.h>
#include <apr_hash.h>
#include <apr_strings.h>

#include "pl_ac_private.h"

/* ------------------------------------------------------------------ */
/* The walk                                                            */
/* ------------------------------------------------------------------ */

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
            hit = pl_ac_has_any(&w->chosen[s]->traits, &gc->req[i]);
        }
        if (!hit) {
            return 0;
        }
    }
    return 1;
}

static int is_ancestor_or_self(const ctx_t *c, const prov_t *x, const prov_t *y)
{
    int hops = 0;

    while (y && hops++ < 1000) {
        if (y == x) {
            return 1;
        }
        y = y->parent_id ? pl_idmap_get(c->provs, y->parent_id) : NULL;
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
        const apr_array_header_t *set = APR_ARRAY_IDX(sets, i,
                                                      apr_array_header_t *);

        for (n = 0, j = 0; j < set->nelts; j++) {
            const char *suffix = APR_ARRAY_IDX(set, j, const char *);

            for (k = 0; k < b->ngroups; k++) {
                const gctx_t *gc = &b->groups[k];
                int s;

                if (strcmp(gc->g->suffix, suffix) != 0) {
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

/* some choice for slots s.. of gc (chosen: the ones before) meets its
 * required traits; *budget counts the nodes tried */
static int choice_from(const build_t *b, const gctx_t *gc, const anchor_t *a,
                       int s, const prov_t **chosen, long *budget)
{
    const apr_array_header_t *l = a->lists[gc->slot0 + s];
    int i, j, k;

    if (s == gc->width) {
        for (i = 0; i < gc->nreq; i++) {
            for (k = 0, j = 0; j < gc->width && !k; j++) {
                k = pl_ac_has_any(&chosen[j]->traits, &gc->req[i]);
            }
            if (!k) {
                return 0;
            }
        }
        return 1;
    }
    for (i = 0; i < l->nelts; i++) {
        if (--*budget < 0) {
            return 1; /* too many to try: taken as there */
        }
        chosen[s] = APR_ARRAY_IDX(l, i, const prov_t *);
        if (choice_from(b, gc, a, s + 1, chosen, budget)) {
            return 1;
        }
    }
    return 0;
}

int pl_ac_group_has_choice(const build_t *b, const gctx_t *gc)
{
    apr_size_t n = (apr_size_t)gc->width + 1;
    /* an array of pointers: sizeof(pointer) is meant
     * NOLINTNEXTLINE(bugprone-sizeof-expression) */
    const prov_t **chosen = apr_palloc(b->c->p, n * sizeof(*chosen));
    long budget = 100000;
    apr_size_t pos = 0;
    const anchor_t *a;

    while ((a = pl_idmap_next(b->anchors, &pos, NULL)) != NULL) {
        int s;

        for (s = 0; s < gc->width && a->lists[gc->slot0 + s] &&
                    a->lists[gc->slot0 + s]->nelts;
             s++) {
        }
        if (s == gc->width && choice_from(b, gc, a, 0, chosen, &budget)) {
            return 1;
        }
    }
    return 0;
}

/* A choice of the multi group gc made only of sharing providers stands
 * at the one anchor upstream keeps it at (pl_ac_upstream_tree_order). */
static int kept_here(walk_t *w, const gctx_t *gc)
{
    prov_t *const *chosen = w->chosen + gc->slot0;
    apr_ssize_t len = (apr_ssize_t)(gc->width * sizeof(apr_int64_t));
    apr_int64_t *ids = apr_palloc(w->b->c->p, (apr_size_t)len), *at;
    int s;

    for (s = 0; s < gc->width; s++) {
        if (!chosen[s]->sharing) {
            return 1;
        }
        ids[s] = chosen[s]->id;
    }
    at = apr_hash_get(w->kept_at, ids, len);
    if (at == NULL) {
        at = apr_palloc(w->b->c->p, sizeof(*at));
        *at = pl_ac_kept_anchor(w->b, gc, gc->up_order, chosen);
        apr_hash_set(w->kept_at, ids, len, at);
    }
    return *at == 0 || *at == w->anchor->id;
}

/* opts->exclude_nested (a client that cannot see trees): one provider
 * per tree */
static int nested_blind_ok(const walk_t *w)
{
    int i, j;

    for (i = 0; i < w->nacc; i++) {
        for (j = 0; j < i; j++) {
            if (w->acc[i].pv != w->acc[j].pv &&
                w->acc[i].pv->root_id == w->acc[j].pv->root_id) {
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

void pl_ac_note_id(pl_idmap_t *seen, apr_array_header_t *a, apr_int64_t id)
{
    if (pl_idmap_add(seen, id)) {
        APR_ARRAY_PUSH(a, apr_int64_t) = id;
    }
}

/* One amount of a candidate, for its key: provider, class, sum. */
typedef struct trip_t {
    apr_int64_t pv, rc, sum;
} trip_t;

static int trip_less(const trip_t *a, const trip_t *b)
{
    return a->pv < b->pv || (a->pv == b->pv && a->rc < b->rc);
}

/* A candidate made only of sharing providers can come from several
 * anchors: keep it once (upstream's set of AllocationRequest). */
static int duplicate(walk_t *w)
{
    apr_pool_t *p = w->b->c->p;
    trip_t *trip;
    const char *key = "";
    int i, j;

    for (i = 0; i < w->nslots; i++) {
        if (!w->chosen[i]->sharing) {
            return 0;
        }
    }
    trip = apr_palloc(p, (w->nacc + 1) * sizeof(*trip));
    for (i = 0; i < w->nacc; i++) {
        trip[i].pv = w->acc[i].pv->id;
        trip[i].rc = w->acc[i].rc;
        trip[i].sum = w->acc[i].sum;
    }
    /* a few entries: insertion sort on (provider, class) */
    for (i = 1; i < w->nacc; i++) {
        for (j = i; j > 0 && trip_less(&trip[j], &trip[j - 1]); j--) {
            trip_t t = trip[j];

            trip[j] = trip[j - 1];
            trip[j - 1] = t;
        }
    }
    for (i = 0; i < w->nacc; i++) {
        key = apr_psprintf(p,
                           "%s%" APR_INT64_T_FMT ":%" APR_INT64_T_FMT
                           ":%" APR_INT64_T_FMT ";",
                           key, trip[i].pv, trip[i].rc, trip[i].sum);
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
                key = apr_psprintf(p, "%s%" APR_INT64_T_FMT ",", key, ids[s]);
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
        pl_ac_note_id(w->roots_seen, w->roots, w->acc[i].pv->root_id);
        if (w->rps) {
            pl_ac_note_id(w->rps_seen, w->rps, w->acc[i].pv->id);
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
void pl_ac_slot_demand(const walk_t *w, int s, apr_int64_t *row)
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
    return !w->niso ||
           w->iso_after[s] <= w->st->iso_union - (w->niso - w->iso_after[s]);
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
void pl_ac_state_apply(walk_t *w, wstate_t *st)
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

void pl_ac_state_unapply(walk_t *w)
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

    if (w->st->deep) {
        fit_before(w, pv);
    }
    untake(w, d, pv);
    if (w->slot_iso[d]) {
        pv->iso_n--;
    }
    if (w->st->deep) {
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
                pv->match = n++; /* its index, for now */
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

/* whether some slot of a has more than one provider to choose from */
static int has_choices(const walk_t *w, const anchor_t *a)
{
    int s;

    for (s = 0; s < w->nslots; s++) {
        if (a->lists[s]->nelts > 1) {
            return 1;
        }
    }
    return 0;
}

/* Set st up for anchor a and apply it; st->depth is -1 when no candidate
 * can come from a (decided without walking). */
void pl_ac_start_anchor(walk_t *w, wstate_t *st, anchor_t *a, int nres)
{
    int s;

    state_init(w, st, a, nres);
    st->deep = w->deep && has_choices(w, a);
    if (st->deep && a->provs == NULL) {
        index_anchor(w, a);
    }
    pl_ac_state_apply(w, st);
    if (w->b->c->opts->randomize) {
        for (s = 0; s < w->nslots; s++) {
            pl_ac_shuffle(w->b->c, a->lists[s]->elts, a->lists[s]->nelts,
                          sizeof(prov_t *));
        }
    }
    if (!anchor_feasible(w)) {
        st->depth = -1;
        w->refused++;
        return;
    }
    for (s = 0; s < w->nslots && st->deep; s++) {
        int i;

        st->viable[s] = 0;
        for (i = 0; i < a->lists[s]->nelts; i++) {
            st->viable[s] += fit_slot(w, s,
                                      APR_ARRAY_IDX(a->lists[s], i, prov_t *));
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
int pl_ac_step(walk_t *w)
{
    wstate_t *st = w->st;
    int d = st->depth;

    while (!w->stop && d >= 0) {
        const apr_array_header_t *opts;
        const gctx_t *gc;
        prov_t *pv;

        if (d == w->nslots) {
            int ok = !((w->need_subtree && !same_subtree_ok(w)) ||
                       (w->nested_blind && !nested_blind_ok(w)) ||
                       (w->seen && duplicate(w)));

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
            continue; /* take() would refuse it */
        }
        if (st->deep) {
            fit_before(w, pv);
        }
        if (!take(w, d, pv)) {
            continue;
        }
        w->chosen[d] = pv;
        /* the last class of a multi group: its traits, all together */
        if (gc->multi && d == gc->slot0 + gc->width - 1 &&
            ((gc->nreq && !group_traits_ok(w, gc)) ||
             (gc->up_order && !kept_here(w, gc)))) {
            untake(w, d, pv);
            continue;
        }
        if (w->slot_iso[d]) {
            pv->iso_n++;
        }
        if ((st->deep && !fit_after(w, pv, d)) || !completable(w, d + 1)) {
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
