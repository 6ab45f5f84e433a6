/* Licensed under the Apache License, Version 2.0.
 *
 * ac_pyorder.c: the order in which upstream meets the trees of the
 * unsuffixed group when sharing providers are in play, because that
 * order decides which tree keeps a choice made only of sharing
 * providers (see pl_ac_upstream_tree_order below for the rule).
 *
 * Upstream (placement 8.0.0, research_context.get_trees_matching_all and
 * rp_candidates.RPCandidateList) keeps the group's (provider, root,
 * class) entries in Python sets, builds and filters them set by set,
 * and walks the last one. A set's iteration order is CPython's: slots of
 * an open-addressed table, the slot given by the tuple's hash. So this
 * file holds a set that behaves as CPython 3.11's does as far as order
 * goes (tuple hash, linear probes then perturbation, growth, merge), and
 * replays upstream's sequence of sets on the engine's world. The insertion
 * order of rows from the database (and of upstream's set of anchor rows,
 * whose string hashes change with every process) is taken as id order;
 * it only matters when entries collide, and then upstream itself answers
 * differently from one process to the next.
 */
#include <stdlib.h>
#include <string.h>

#include "pl_ac_private.h"

/* ------------------------------------------------------------------ */
/* CPython's set of tuples of small integers                           */
/* ------------------------------------------------------------------ */

#define PY_MINSIZE 8
#define PY_LINEAR_PROBES 9
#define PY_PERTURB_SHIFT 5

typedef struct pyent_t {
    apr_uint64_t hash;
    apr_int64_t key[3];
    int live;
} pyent_t;

struct pl_pyset_t {
    apr_pool_t *p;
    int arity;
    apr_size_t mask, fill, used;
    pyent_t *table;
};

/* hash(int) for 0 <= v < 2**61 - 1 is v itself; ids are far below */
static apr_uint64_t py_int_hash(apr_int64_t v)
{
    const apr_uint64_t modulus = (1ULL << 61) - 1;

    if (v >= 0) {
        return (apr_uint64_t)v % modulus;
    }
    /* not met (ids are positive), kept so the function is total */
    return v == -1 ? (apr_uint64_t)-2 : (apr_uint64_t)v;
}

/* tuplehash of CPython 3.8+ (an xxHash variant) on 64-bit builds */
static apr_uint64_t py_tuple_hash(const apr_int64_t *key, int n)
{
    const apr_uint64_t prime1 = 11400714785074694791ULL;
    const apr_uint64_t prime2 = 14029467366897019727ULL;
    const apr_uint64_t prime5 = 2870177450012600261ULL;
    apr_uint64_t acc = prime5;
    int i;

    for (i = 0; i < n; i++) {
        acc += py_int_hash(key[i]) * prime2;
        acc = (acc << 31) | (acc >> 33);
        acc *= prime1;
    }
    acc += (apr_uint64_t)n ^ (prime5 ^ 3527539ULL);
    return acc == (apr_uint64_t)-1 ? 1546275796ULL : acc;
}

pl_pyset_t *pl_pyset_make(apr_pool_t *p, int arity)
{
    pl_pyset_t *s = apr_pcalloc(p, sizeof(*s));

    s->p = p;
    s->arity = arity;
    s->mask = PY_MINSIZE - 1;
    s->table = apr_pcalloc(p, PY_MINSIZE * sizeof(pyent_t));
    return s;
}

apr_size_t pl_pyset_count(const pl_pyset_t *s)
{
    return s->used;
}

/* set_insert_clean: into a table known not to hold the key */
static void insert_clean(pyent_t *table, apr_size_t mask, const pyent_t *e)
{
    apr_size_t perturb = e->hash, i = e->hash & mask, j;
    pyent_t *slot;

    for (;;) {
        slot = &table[i];
        if (!slot->live) {
            break;
        }
        if (i + PY_LINEAR_PROBES <= mask) {
            for (j = 0; j < PY_LINEAR_PROBES; j++) {
                slot++;
                if (!slot->live) {
                    goto found;
                }
            }
        }
        perturb >>= PY_PERTURB_SHIFT;
        i = (i * 5 + 1 + perturb) & mask;
    }
found:
    *slot = *e;
}

/* set_table_resize: the smallest power of two above minused, entries
 * reinserted in slot order */
static void resize(pl_pyset_t *s, apr_size_t minused)
{
    apr_size_t size = PY_MINSIZE, i;
    pyent_t *old = s->table;
    apr_size_t oldmask = s->mask;

    while (size <= minused) {
        size <<= 1;
    }
    if (size == PY_MINSIZE && oldmask == PY_MINSIZE - 1) {
        return; /* the small table, no dummies: nothing to do */
    }
    s->table = apr_pcalloc(s->p, size * sizeof(pyent_t));
    s->mask = size - 1;
    for (i = 0; i <= oldmask; i++) {
        if (old[i].live) {
            insert_clean(s->table, s->mask, &old[i]);
        }
    }
}

static int same_key(const pl_pyset_t *s, const pyent_t *a, const pyent_t *b)
{
    return a->hash == b->hash &&
           !memcmp(a->key, b->key, s->arity * sizeof(apr_int64_t));
}

/* set_add_entry (no dummies: nothing is ever removed) */
static void add_entry(pl_pyset_t *s, const pyent_t *e)
{
    apr_size_t mask = s->mask, i = e->hash & mask, perturb = e->hash;
    pyent_t *slot;
    int probes;

    for (;;) {
        slot = &s->table[i];
        probes = i + PY_LINEAR_PROBES <= mask ? PY_LINEAR_PROBES : 0;
        do {
            if (!slot->live) {
                goto unused;
            }
            if (same_key(s, slot, e)) {
                return;
            }
            slot++;
        } while (probes--);
        perturb >>= PY_PERTURB_SHIFT;
        i = (i * 5 + 1 + perturb) & mask;
    }
unused:
    *slot = *e;
    s->fill++;
    s->used++;
    if (s->fill * 5 >= mask * 3) {
        resize(s, s->used > 50000 ? s->used * 2 : s->used * 4);
    }
}

void pl_pyset_add(pl_pyset_t *s, const apr_int64_t *key)
{
    pyent_t e;

    memset(&e, 0, sizeof(e));
    memcpy(e.key, key, s->arity * sizeof(apr_int64_t));
    e.hash = py_tuple_hash(e.key, s->arity);
    e.live = 1;
    add_entry(s, &e);
}

/* set_merge: s |= other */
void pl_pyset_merge(pl_pyset_t *s, const pl_pyset_t *other)
{
    apr_size_t i;

    if (other == s || other->used == 0) {
        return;
    }
    if ((s->fill + other->used) * 5 >= s->mask * 3) {
        resize(s, (s->used + other->used) * 2);
    }
    if (s->fill == 0 && s->mask == other->mask) {
        memcpy(s->table, other->table, (other->mask + 1) * sizeof(pyent_t));
        s->fill = other->fill;
        s->used = other->used;
        return;
    }
    if (s->fill == 0) {
        for (i = 0; i <= other->mask; i++) {
            if (other->table[i].live) {
                insert_clean(s->table, s->mask, &other->table[i]);
            }
        }
        s->fill = s->used = other->used;
        return;
    }
    for (i = 0; i <= other->mask; i++) {
        if (other->table[i].live) {
            add_entry(s, &other->table[i]);
        }
    }
}

const apr_int64_t *pl_pyset_next(const pl_pyset_t *s, apr_size_t *pos)
{
    while (*pos <= s->mask) {
        const pyent_t *e = &s->table[(*pos)++];

        if (e->live) {
            return e->key;
        }
    }
    return NULL;
}

/* ------------------------------------------------------------------ */
/* Upstream's sets of the unsuffixed group, replayed                    */
/* ------------------------------------------------------------------ */

typedef int (*keep_fn)(const ctx_t *c, const gctx_t *gc,
                       const apr_int64_t *entry, const void *arg);

/* set(e for e in s if keep(e)): upstream's RPCandidateList.filter_by_* */
static pl_pyset_t *filtered(apr_pool_t *p, const ctx_t *c, const gctx_t *gc,
                            const pl_pyset_t *s, keep_fn keep, const void *arg)
{
    pl_pyset_t *out = pl_pyset_make(p, 3);
    const apr_int64_t *e;
    apr_size_t pos = 0;

    while ((e = pl_pyset_next(s, &pos)) != NULL) {
        if (keep(c, gc, e, arg)) {
            pl_pyset_add(out, e);
        }
    }
    return out;
}

/* root_required: the anchor (the entry's root) has its traits */
static int keep_anchor(const ctx_t *c, const gctx_t *gc,
                       const apr_int64_t *entry, const void *arg)
{
    (void)gc;
    (void)arg;
    return pl_ac_anchor_ok(c, entry[1]);
}

/* member_of: the provider or the root it is taken for is in them */
static int keep_member(const ctx_t *c, const gctx_t *gc,
                       const apr_int64_t *entry, const void *arg)
{
    (void)arg;
    return pl_ac_in_all_aggs(gc, pl_idmap_get(c->provs, entry[0])) ||
           pl_ac_in_all_aggs(gc, pl_idmap_get(c->provs, entry[1]));
}

/* member_of=!: neither the provider nor that root is in them */
static int keep_allowed(const ctx_t *c, const gctx_t *gc,
                        const apr_int64_t *entry, const void *arg)
{
    const prov_t *pv = pl_idmap_get(c->provs, entry[0]);
    const prov_t *root = pl_idmap_get(c->provs, entry[1]);

    (void)arg;
    return !(pv && pl_ac_has_any(&pv->aggs, &gc->forb_aggs)) &&
           !(root && pl_ac_has_any(&root->aggs, &gc->forb_aggs));
}

static int keep_tree(const ctx_t *c, const gctx_t *gc, const apr_int64_t *entry,
                     const void *arg)
{
    (void)c;
    (void)gc;
    return pl_idmap_has((const pl_idmap_t *)arg, entry[1]);
}

/* RPCandidateList.add_rps: into |= set(RPCandidate(rp, root, rc) for
 * (rp, root) in pairs) */
static void add_rps(apr_pool_t *p, pl_pyset_t *into, const pl_pyset_t *pairs,
                    apr_int64_t rc_id)
{
    pl_pyset_t *entries = pl_pyset_make(p, 3);
    const apr_int64_t *pair;
    apr_size_t pos = 0;

    while ((pair = pl_pyset_next(pairs, &pos)) != NULL) {
        apr_int64_t key[3];

        key[0] = pair[0];
        key[1] = pair[1];
        key[2] = rc_id;
        pl_pyset_add(entries, key);
    }
    pl_pyset_merge(into, entries);
}

static pl_idmap_t *trees_of(apr_pool_t *p, const pl_pyset_t *s)
{
    pl_idmap_t *trees = pl_idmap_make(p, pl_pyset_count(s));
    const apr_int64_t *e;
    apr_size_t pos = 0;

    while ((e = pl_pyset_next(s, &pos)) != NULL) {
        pl_idmap_add(trees, e[1]);
    }
    return trees;
}

/* One class of the group: get_trees_matching_all's provs_with_inv_rc,
 * NULL when it is empty. */
static pl_pyset_t *class_entries(apr_pool_t *p, const ctx_t *c,
                                 const gctx_t *gc, int ri)
{
    int k = gc->rc_idx[ri], i, j;
    apr_int64_t rc_id = c->rc_ids[k];
    const apr_array_header_t *provs = c->rc_provs[k];
    pl_pyset_t *rows = pl_pyset_make(p, 2), *here = pl_pyset_make(p, 3);
    apr_array_header_t *sharing = apr_array_make(p, 4, sizeof(prov_t *));

    /* get_providers_with_resource: (provider, its root) with room */
    for (i = 0; i < provs->nelts; i++) {
        prov_t *pv = APR_ARRAY_IDX(provs, i, prov_t *);
        const pl_ac_inv_t *inv = pv->inv[k];
        apr_int64_t key[2];

        if ((gc->has_tree && inv->root_id != gc->tree_root) ||
            !pl_ac_fits(inv, gc->amount[ri])) {
            continue;
        }
        key[0] = pv->id;
        key[1] = pv->root_id;
        pl_pyset_add(rows, key);
        if (pv->sharing && (!gc->has_mo || pl_ac_in_all_aggs(gc, pv))) {
            APR_ARRAY_PUSH(sharing, prov_t *) = pv;
        }
    }
    add_rps(p, here, rows, rc_id);
    if (pl_pyset_count(here) == 0) {
        return NULL;
    }
    /* and (sharing provider, each root it serves), without in_tree */
    if (!gc->has_tree && sharing->nelts) {
        rows = pl_pyset_make(p, 2);
        for (i = 0; i < sharing->nelts; i++) {
            const prov_t *pv = APR_ARRAY_IDX(sharing, i, prov_t *);

            for (j = 0; j < pv->anchors.n; j++) {
                apr_int64_t key[2];

                key[0] = pv->id;
                key[1] = pv->anchors.v[j];
                pl_pyset_add(rows, key);
            }
        }
        add_rps(p, here, rows, rc_id);
    }
    if (c->anchor_filter) {
        here = filtered(p, c, gc, here, keep_anchor, NULL);
    }
    if (gc->has_mo && pl_pyset_count(here)) {
        here = filtered(p, c, gc, here, keep_member, NULL);
    }
    if (gc->forb_aggs.n && pl_pyset_count(here)) {
        here = filtered(p, c, gc, here, keep_allowed, NULL);
    }
    return pl_pyset_count(here) ? here : NULL;
}

/*
 * Upstream's rule for a choice of the unsuffixed group made only of
 * sharing providers. Each tree it walks (the roots of its last set, in
 * that set's order) gives the group its choices as AllocationRequests,
 * all gathered in one set; an AllocationRequest compares equal to
 * another with the same providers for the same amounts whatever tree it
 * was made for. So a choice that several trees offer, which only sharing
 * providers can be (each of their aggregates' trees offers them), is
 * kept for the first of those trees upstream meets and dropped for the
 * others, and the numbered groups can then join it in that tree only.
 * Upstream's bug, kept for its answers (docs/api-coverage.md, "Sharing
 * providers beside numbered groups"): with DISK_GB from a sharing
 * provider in the unsuffixed group and MEMORY_MB in a numbered one, only
 * one tree of the aggregate gets candidates.
 *
 * Returns each root's place in that order (1 first) as the map's value,
 * or NULL when the group has no tree.
 */
pl_idmap_t *pl_ac_upstream_tree_order(build_t *b, const gctx_t *gc)
{
    ctx_t *c = b->c;
    apr_pool_t *tp;
    pl_pyset_t *all = NULL;
    pl_idmap_t *order = NULL;
    int ri;

    if (apr_pool_create(&tp, c->p) != APR_SUCCESS) {
        return NULL;
    }
    /* get_trees_matching_all: class after class, the trees in both */
    for (ri = 0; ri < gc->nres; ri++) {
        pl_pyset_t *here = class_entries(tp, c, gc, ri);

        if (here == NULL) {
            all = NULL;
            break;
        }
        if (all == NULL) {
            all = here;
        }
        else {
            pl_idmap_t *both = trees_of(tp, here), *mine = trees_of(tp, all);
            pl_idmap_t *keep = pl_idmap_make(tp, pl_idmap_count(both));
            apr_size_t pos = 0;
            apr_int64_t id;

            while (pl_idmap_next(both, &pos, &id) != NULL) {
                if (pl_idmap_has(mine, id)) {
                    pl_idmap_add(keep, id);
                }
            }
            pl_pyset_merge(all, here);
            all = filtered(tp, c, gc, all, keep_tree, keep);
            if (pl_pyset_count(all) == 0) {
                all = NULL;
                break;
            }
        }
    }
    if (all) {
        const apr_int64_t *e;
        apr_size_t pos = 0;
        apr_uintptr_t n = 0;

        order = pl_idmap_make(c->p, pl_pyset_count(all));
        while ((e = pl_pyset_next(all, &pos)) != NULL) {
            if (!pl_idmap_has(order, e[1])) {
                pl_idmap_set(order, e[1], (void *)++n);
            }
        }
    }
    apr_pool_destroy(tp);
    return order;
}

static int listed(const apr_array_header_t *l, const prov_t *pv)
{
    int i;

    for (i = 0; l && i < l->nelts; i++) {
        if (APR_ARRAY_IDX(l, i, const prov_t *) == pv) {
            return 1;
        }
    }
    return 0;
}

/* The tree upstream keeps the choice chosen (one provider per slot of
 * gc, all sharing) for: of the trees whose lists offer it, the first in
 * order. 0: none has a place (then the caller keeps it). */
apr_int64_t pl_ac_kept_anchor(const build_t *b, const gctx_t *gc,
                              const pl_idmap_t *order, prov_t *const *chosen)
{
    const prov_t *first = chosen[0];
    apr_int64_t best = 0;
    apr_uintptr_t best_at = 0;
    int j, s;

    for (j = -1; j < first->anchors.n; j++) {
        apr_int64_t a = j < 0 ? first->root_id : first->anchors.v[j];
        apr_uintptr_t at = (apr_uintptr_t)pl_idmap_get(order, a);
        const anchor_t *an;

        if (at == 0 || (best && at >= best_at) ||
            (an = pl_idmap_get(b->anchors, a)) == NULL) {
            continue;
        }
        for (s = 0;
             s < gc->width && listed(an->lists[gc->slot0 + s], chosen[s]);
             s++) {
        }
        if (s == gc->width) {
            best = a;
            best_at = at;
        }
    }
    return best;
}
