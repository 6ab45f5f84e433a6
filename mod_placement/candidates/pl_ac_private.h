/* Licensed under the Apache License, Version 2.0.
 *
 * pl_ac_private.h: what the files of the candidate engine share (ac_world.c,
 * ac_group.c, ac_walk.c, ac_pyorder.c, ac_build.c): the engine's view of
 * the world, the groups with the choices each anchor offers, and the walk.
 * Nothing outside ac_*.c (and their unit tests) includes it; the engine's
 * API is pl_ac.h.
 */
#ifndef PL_AC_PRIVATE_H
#define PL_AC_PRIVATE_H

#include <apr_hash.h>
#include "pl_ac.h"
#include "pl_idmap.h"

/* ---- ac_world.c: providers by id, capacity, checks, randomness ---- */

typedef struct ids_t {
    int n, cap;
    apr_int64_t *v;
} ids_t;

typedef struct prov_t {
    apr_int64_t id;
    apr_int64_t root_id;
    apr_int64_t parent_id; /* 0: none known */
    int sharing;
    ids_t traits;            /* requested traits it has */
    ids_t aggs;              /* requested aggregates it is in */
    ids_t anchors;           /* sharing: roots it serves */
    const pl_ac_inv_t **inv; /* per requested class index */
    /* per requested class index, with inv: what the groups of one
     * candidate may take together (min(capacity - used, max_unit)), what
     * the walk on hold has taken, and its entry in the walk's acc (-1) */
    apr_int64_t *room;
    apr_int64_t *taken;
    int *acc_at;
    int mark;  /* scratch */
    int stamp; /* scratch: last counted in */
    int match; /* scratch: isolate slot + 1, or 0 */
    int iso_n; /* isolate slots of the walk on it */
    /* the slots of the walk on hold whose lists hold it */
    const int *slots;
    int nslots_in;
} prov_t;

typedef struct ctx_t {
    apr_pool_t *p;
    const pl_ac_request_t *req;
    const pl_ac_world_t *world;
    const pl_ac_opts_t *opts;
    pl_idmap_t *provs; /* id -> prov_t */
    int nrc;           /* distinct requested class ids */
    apr_int64_t *rc_ids;
    /* per class index: prov_t * of the providers with an inventory of
     * it (prov_t.inv[index]), in the world's order */
    apr_array_header_t **rc_provs;
    apr_hash_t *rc_by_name, *trait_by_name, *agg_by_uuid, *tree_by_uuid;
    /* root_required, resolved */
    ids_t anchor_req, anchor_forb;
    int anchor_filter;
    apr_uint64_t rng;
} ctx_t;

void pl_ac_ids_add_unique(apr_pool_t *p, ids_t *s, apr_int64_t v);
int pl_ac_has_any(const ids_t *have, const ids_t *want);
int pl_ac_rc_index(const ctx_t *c, apr_int64_t rc_id);
int pl_ac_fits(const pl_ac_inv_t *inv, apr_int64_t amount);
int pl_ac_anchor_ok(const ctx_t *c, apr_int64_t root_id);
void pl_ac_index_world(ctx_t *c);
void pl_ac_shuffle(ctx_t *c, void *elts, int n, apr_size_t size);

/* ---- ac_group.c: per group, the providers each anchor offers ---- */

typedef struct gctx_t {
    const pl_ac_group_t *g;
    int idx;
    int nres;
    int *rc_idx; /* per resource: class index */
    apr_int64_t *amount;
    const char **rc_name;
    int nreq;
    ids_t *req; /* AND of any-of sets */
    ids_t forb; /* forbidden traits */
    int has_mo;
    ids_t *mo; /* AND of any-of aggregate sets */
    int nmo;
    ids_t forb_aggs;
    int has_tree;
    apr_int64_t tree_root;
    int multi;        /* several providers may serve it */
    int slot0, width; /* its slots in the walk */
    int *order;       /* multi: resources by class id */
    /* multi: a sharing provider serves a tree not its own here, and
     * upstream's order of the trees (pl_ac_upstream_tree_order) when it
     * decides where such choices are kept; NULL: everywhere */
    int shared_abroad;
    pl_idmap_t *up_order;
} gctx_t;

/* Each anchor: for every slot of the walk, the providers it may take. */
typedef struct anchor_t {
    apr_int64_t id;
    apr_array_header_t **lists; /* prov_t *, per slot */
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
    int nslots;          /* at most: lists per anchor */
    pl_idmap_t *anchors; /* id -> anchor_t */
    apr_array_header_t *anchor_list;
} build_t;

typedef enum { G_OK, G_EMPTY, G_UNKNOWN_RC, G_UNKNOWN_TRAIT } gstat_e;

gstat_e pl_ac_resolve_traits(ctx_t *c, const apr_array_header_t *names,
                             ids_t *out, const char **punknown);
gstat_e pl_ac_prepare_group(build_t *b, gctx_t *gc, const char **punknown);
gstat_e pl_ac_solve_single(build_t *b, gctx_t *gc);
gstat_e pl_ac_solve_multi(build_t *b, gctx_t *gc);
int pl_ac_in_all_aggs(const gctx_t *gc, const prov_t *pv);

/* ---- ac_walk.c: per anchor, the walk over the choices of all groups ---- */

typedef struct acc_t {
    prov_t *pv;
    int rc; /* class index */
    apr_int64_t sum;
} acc_t;

/* One anchor's walk, resumable: breadth-first keeps one per anchor and
 * takes a candidate from each in turn; depth-first reuses one. */
typedef struct wstate_t {
    anchor_t *anchor;
    int depth; /* slots filled; -1: exhausted */
    int *idx;  /* per slot: the next choice to try */
    prov_t **chosen;
    acc_t *acc;
    int nacc;
    apr_int64_t *left; /* per class: room left in the tree */
    int *viable;       /* per slot: providers of its list
                                     * that could still take it */
    int iso_union;     /* providers isolate slots may take */
    int started;
    /* prune as it goes (walk_t.deep), unless every slot of the anchor
     * has one choice: then there is nothing to prune between them */
    int deep;
} wstate_t;

typedef struct walk_t {
    build_t *b;
    anchor_t *anchor;
    wstate_t *st; /* the walk on hold (applied) */
    int nslots;
    int *slot_group;   /* slot -> group index */
    int *slot_res;     /* slot -> resource (-1: all) */
    int *slot_iso;     /* slot -> 1: an isolate slot */
    int *iso_after;    /* slot -> isolate slots from it on */
    apr_int64_t *need; /* [slot * nrc + class]: asked from
                                     * that slot on (saturated) */
    int niso;
    int deep;     /* several slots: prune as we go */
    char *fitbuf; /* per slot of a provider: before */
    /* the state's, while it is applied */
    prov_t **chosen;
    acc_t *acc;
    int nacc;
    apr_int64_t *left;
    long budget;
    int bound;               /* 0: none */
    apr_array_header_t *out; /* pl_ac_cand_t * */
    apr_hash_t *seen;        /* dedup of all-sharing candidates */
    apr_hash_t *kept_at;     /* all-sharing choice of the unsuffixed
                              * group -> the anchor upstream keeps it at */
    pl_idmap_t *roots_seen;
    apr_array_header_t *roots;
    pl_idmap_t *rps_seen;
    apr_array_header_t *rps;
    int stop;
    int truncated;
    int need_subtree, nested_blind;
    int epoch;    /* for prov_t.stamp */
    long pruned;  /* partial candidates cut (tests) */
    long refused; /* anchors refused before the walk */
} walk_t;

void pl_ac_slot_demand(const walk_t *w, int s, apr_int64_t *row);
void pl_ac_start_anchor(walk_t *w, wstate_t *st, anchor_t *a, int nres);
void pl_ac_state_apply(walk_t *w, wstate_t *st);
void pl_ac_state_unapply(walk_t *w);
int pl_ac_step(walk_t *w);
void pl_ac_note_id(pl_idmap_t *seen, apr_array_header_t *a, apr_int64_t id);
/* whether the multi group gc has a choice at some anchor that meets its
 * required traits (upstream's group gives no AllocationRequest if not) */
int pl_ac_group_has_choice(const build_t *b, const gctx_t *gc);

/* ---- ac_pyorder.c: the order upstream meets the unsuffixed group's trees
 * in (CPython's set order) ---- */

/* A set of tuples of arity (2 or 3) integers, ordered as CPython's. */
typedef struct pl_pyset_t pl_pyset_t;

pl_pyset_t *pl_pyset_make(apr_pool_t *p, int arity);
void pl_pyset_add(pl_pyset_t *s, const apr_int64_t *key);
void pl_pyset_merge(pl_pyset_t *s, const pl_pyset_t *other); /* s |= other */
apr_size_t pl_pyset_count(const pl_pyset_t *s);
/* from *pos = 0: the next key in iteration order, NULL at the end */
const apr_int64_t *pl_pyset_next(const pl_pyset_t *s, apr_size_t *pos);

/* the roots of the (multi) group gc in upstream's order: root -> place
 * (1 first, as a pointer-sized integer); NULL: no tree */
pl_idmap_t *pl_ac_upstream_tree_order(build_t *b, const gctx_t *gc);
/* where upstream keeps a choice of gc made only of sharing providers
 * (chosen: one per slot of gc); 0: nowhere known */
apr_int64_t pl_ac_kept_anchor(const build_t *b, const gctx_t *gc,
                              const pl_idmap_t *order, prov_t *const *chosen);

#endif /* PL_AC_PRIVATE_H */
