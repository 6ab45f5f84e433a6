/* Licensed under the Apache License, Version 2.0.
 *
 * pl_ac.h: the allocation-candidate engine of GET /allocation_candidates
 * (placement's lib.py RequestGroup / RequestWideParams and
 * objects/allocation_candidate.py, research_context.py, rp_candidates.py).
 *
 * Three steps, three files:
 *   ac_request.c  (pure)  the query string -> a pl_ac_request_t of groups,
 *                         with upstream's 400 texts;
 *   store_ac.c    (db)    the slice of the world the request can touch
 *                         (declared in pl_store_ac.h: this header knows
 *                         no database),
 *                         read with a handful of set-based queries into a
 *                         pl_ac_world_t (plain rows, ids only);
 *   ac_build.c    (pure)  names -> ids, then the candidates, built in
 *                         memory: per anchor tree a depth-first walk over
 *                         the choices of every group, pruned by capacity
 *                         and group_policy, stopped at limit / the
 *                         configured maximum so that they bound the work
 *                         (ac_build.c runs ac_world.c, ac_group.c,
 *                         ac_walk.c and ac_pyorder.c, which share
 *                         pl_ac_private.h).
 * pl_store_ac_candidates (store_ac.c) runs the reads and the builds as
 * the bound needs them and logs the engine's counters; then
 * ac_summary.c makes the provider summaries of the trees that made it
 * into the answer. The engine gets flags (pl_ac_opts_t), never the
 * microversion. Nothing here includes httpd headers.
 */
#ifndef PL_AC_H
#define PL_AC_H

#include <apr_pools.h>
#include <apr_tables.h>

#include "pl_log.h"
#include "pl_status.h"
#include "pl_qs.h"

/* ------------------------------------------------------------------ */
/* ac_request.c: the request                                           */
/* ------------------------------------------------------------------ */

/** One query parameter, decoded, in the order of the query string. */
typedef struct pl_ac_arg_t {
    const char *key;
    const char *value;
} pl_ac_arg_t;

/** One request group: unsuffixed ("") or suffixed (granular, 1.25+). */
typedef struct pl_ac_group_t {
    const char *suffix;
    int same_provider;             /**< suffixed: one provider does all */
    apr_array_header_t *resources; /**< pl_qs_resource_t, may be empty */
    /** apr_array_header_t * of const char *: AND of any-of sets */
    apr_array_header_t *required;
    apr_array_header_t *forbidden; /**< const char *, a set */
    pl_qs_member_of_t *member_of;  /**< NULL: none given */
    const char *in_tree;           /**< NULL: none given */
} pl_ac_group_t;

typedef struct pl_ac_request_t {
    apr_array_header_t *groups;    /**< pl_ac_group_t *, first-seen order */
    int limit;                     /**< 0: none (1.16+) */
    const char *group_policy;      /**< NULL, "none" or "isolate" */
    pl_qs_traits_t *root_required; /**< NULL: none given (1.35+) */
    /** apr_array_header_t * of const char * suffixes (1.36+) */
    apr_array_header_t *same_subtrees;
} pl_ac_request_t;

/**
 * Parse the query string of GET /allocation_candidates at microversion mv
 * (already checked against the query schema of mv), as upstream's
 * RequestWideParams.from_request, RequestGroup.dict_from_request and the
 * handler's group_policy rule do, in their order.
 * @return APR_SUCCESS and *preq; APR_EINVAL with *perr (the 400 detail)
 *         and *pcode (an error code, NULL for the default one).
 */
apr_status_t pl_ac_request_parse(apr_pool_t *p, int mv,
                                 const apr_array_header_t *args,
                                 pl_ac_request_t **preq, const char **perr,
                                 const char **pcode);

/**
 * The names the request uses, for the store to resolve (each a set of
 * const char *, in first-seen order): resource classes, traits (groups
 * and root_required), aggregate uuids (member_of), in_tree uuids.
 */
void pl_ac_request_names(apr_pool_t *p, const pl_ac_request_t *req,
                         apr_array_header_t **prcs,
                         apr_array_header_t **ptraits,
                         apr_array_header_t **paggs,
                         apr_array_header_t **ptrees);

/* ------------------------------------------------------------------ */
/* The world: what store_ac.c reads for ac_build.c (ac_world.c)       */
/* ------------------------------------------------------------------ */

/** A name (resource class, trait, aggregate uuid, provider uuid) and the
 *  id it stands for (for an in_tree provider uuid: its root's id). */
typedef struct pl_ac_name_t {
    apr_int64_t id;
    const char *name;
} pl_ac_name_t;

/** One inventory of a requested resource class, with its usage. */
typedef struct pl_ac_inv_t {
    apr_int64_t rp_id;
    apr_int64_t root_id;
    apr_int64_t rc_id;
    apr_int64_t total;
    apr_int64_t reserved;
    apr_int64_t min_unit;
    apr_int64_t max_unit;
    apr_int64_t step_size;
    apr_int64_t used;
    double allocation_ratio;
} pl_ac_inv_t;

/** A provider linked to something: a trait, an aggregate, the root of a
 *  tree it shares with (anchor), its parent. */
typedef struct pl_ac_link_t {
    apr_int64_t rp_id;
    apr_int64_t root_id; /**< the provider's own root */
    apr_int64_t other_id;
} pl_ac_link_t;

/** A provider of a tree the world holds whole. */
typedef struct pl_ac_prov_t {
    apr_int64_t id;
    apr_int64_t parent_id; /**< 0: a root */
    apr_int64_t root_id;
    const char *uuid;
} pl_ac_prov_t;

typedef struct pl_ac_world_t {
    apr_array_header_t *rcs;     /**< pl_ac_name_t: known classes */
    apr_array_header_t *traits;  /**< pl_ac_name_t: known traits */
    apr_array_header_t *aggs;    /**< pl_ac_name_t: known aggregates */
    apr_array_header_t *trees;   /**< pl_ac_name_t: in_tree uuid->root */
    int has_trees;               /**< some provider has a parent */
    apr_int64_t max_provider_id; /**< the highest id: the cloud's size */
    /** pl_ac_link_t (other_id unused): MISC_SHARES_VIA_AGGREGATE */
    apr_array_header_t *sharing;
    /** pl_ac_inv_t: the inventories, with usage, of the providers below
     *  (by provider id, then class id); the engine uses the requested
     *  classes' */
    apr_array_header_t *invs;
    apr_array_header_t *rp_traits; /**< pl_ac_link_t: requested traits */
    apr_array_header_t *rp_aggs;   /**< pl_ac_link_t: requested aggs */
    /** pl_ac_link_t: sharing provider -> root of a tree in one of its
     *  aggregates (its own included) */
    apr_array_header_t *anchors;
    /** pl_ac_link_t: provider -> parent, for every provider that has one */
    apr_array_header_t *parents;
    /* For the provider summaries: the trees read whole. */
    apr_array_header_t *provs;     /**< pl_ac_prov_t, by id */
    struct pl_idmap_t *prov_by_id; /**< id -> pl_ac_prov_t */
    /** pl_ac_link_t: every trait of those providers (by provider id,
     *  then trait id) */
    apr_array_header_t *all_traits;
    apr_array_header_t *rc_names;    /**< pl_ac_name_t: id -> class name */
    apr_array_header_t *trait_names; /**< pl_ac_name_t: id -> trait name */
    int truncated;                   /**< more candidate trees than read */
    apr_int64_t read_after;          /**< the last root id read in order */
    /* candidate trees read, and in how many reads (pl_store_ac_world's,
     * then one per pl_store_ac_more) */
    int roots_read, reads;
    /* providers whose facts came from the cache, from the database, and
     * how often the cache started again meanwhile */
    int facts_cached, facts_read, cache_resets;
    /* 1: the lookups rode with the trees statement (one round trip) */
    int one_trip;
    /** Upstream's checks that end a request early, answered over the
     *  whole database when a trait name is unknown (the trees read were
     *  then filtered without traits, and by member_of, so they cannot
     *  tell): -1 not read (the engine asks the trees it has), 0 no, 1
     *  yes. early_anchor: some root has root_required's traits and none
     *  of its forbidden ones; early_member_of[i] (NULL: none read): some
     *  provider is itself in an aggregate of every set of group i's
     *  member_of. */
    int early_anchor;
    int *early_member_of;
} pl_ac_world_t;

/** An empty world from p. */
pl_ac_world_t *pl_ac_world_make(apr_pool_t *p);

/** Room in a for n more elements, made at once: apr_array_push doubles
 *  an array by copying it and zeroing the new half, which for the
 *  world's arrays of a thousand providers cost more than filling them. */
void pl_ac_array_reserve(apr_array_header_t *a, int n);

/** upstream's capacity, int((total - reserved) * allocation_ratio),
 *  saturated to the range of apr_int64_t instead of overflowing. */
apr_int64_t pl_ac_capacity(const pl_ac_inv_t *inv);

/* ------------------------------------------------------------------ */
/* ac_build.c: the candidates                                          */
/* ------------------------------------------------------------------ */

/** The order candidates are generated in when a bound cuts them. */
typedef enum {
    PL_AC_DEPTH_FIRST = 0, /**< every candidate of a root first */
    PL_AC_BREADTH_FIRST    /**< one candidate per root in turn */
} pl_ac_strategy_e;

/** What a build did, for tests and benchmarks. */
typedef struct pl_ac_stats_t {
    long nodes;   /**< partial candidates extended */
    long pruned;  /**< partial candidates cut early */
    long refused; /**< trees refused before any walk */
} pl_ac_stats_t;

typedef struct pl_ac_opts_t {
    /** 1: a candidate takes at most one provider of each tree, and only
     *  the providers candidates use are summarized (upstream's
     *  _exclude_nested_providers, for a client that cannot see trees:
     *  the api sets it before microversion 1.29) */
    int exclude_nested;
    int limit;          /**< 0: none */
    int max_candidates; /**< < 0: unlimited */
    int randomize;
    /** with a bound (limit or max_candidates): the order roots give
     *  their candidates in; without one, always depth-first (8.0.0's
     *  order of the whole answer) */
    pl_ac_strategy_e strategy;
    /** nodes of the search at most (0: a built-in bound), so that a
     *  request whose candidates are all refused late still ends fast */
    long budget;
    pl_ac_stats_t *stats; /**< NULL, or filled in */
    /** NULL: off; pl_store_ac_candidates logs its counters there, one
     *  line a request (pl_ac_build logs nothing) */
    const pl_log_t *log;
    /** NULL, or what names the request's shape (its query string):
     *  pl_store_ac_candidates sizes the first round of trees by what the
     *  last request of the same shape needed */
    const char *shape;
} pl_ac_opts_t;

/** One amount of one class from one provider. */
typedef struct pl_ac_alloc_t {
    apr_int64_t rp_id;
    apr_int64_t rc_id;
    const char *rc_name;
    apr_int64_t amount;
} pl_ac_alloc_t;

/** The providers one group got (1.34 mappings). */
typedef struct pl_ac_mapping_t {
    const char *suffix;
    int nrps;
    apr_int64_t *rp_ids;
} pl_ac_mapping_t;

typedef struct pl_ac_cand_t {
    int nallocs;
    pl_ac_alloc_t *allocs; /**< by provider, first use first */
    int nmaps;
    pl_ac_mapping_t *maps; /**< in group order */
} pl_ac_cand_t;

typedef enum {
    PL_AC_OK = 0,
    PL_AC_UNKNOWN_RC,   /**< 400: unknown resource class */
    PL_AC_UNKNOWN_TRAIT /**< 400: unknown trait */
} pl_ac_outcome_e;

typedef struct pl_ac_result_t {
    pl_ac_outcome_e outcome;
    const char *unknown;       /**< the unknown name */
    apr_array_header_t *cands; /**< pl_ac_cand_t * */
    /** apr_int64_t: the trees whose providers are summarized (ids of
     *  their roots, first use first) */
    apr_array_header_t *roots;
    /** apr_int64_t: when non-NULL, only these providers are summarized
     *  (opts->exclude_nested with nested providers around) */
    apr_array_header_t *only_rps;
    /** apr_int64_t: providers only named in mappings, outside those
     *  trees (a resourceless group served by a sharing provider): their
     *  uuids are needed, not their summaries */
    apr_array_header_t *extra_rps;
    int truncated;   /**< stopped by limit / max / budget */
    int over_budget; /**< the node budget stopped it: fewer candidates
                      *   than the bound allowed */
    /** the bound stopped it and the bound was the configured maximum
     *  (PlacementMaxAllocationCandidates), lower than the request's
     *  limit or without one */
    int at_maximum;
} pl_ac_result_t;

/**
 * The most candidates a build gives: limit or the configured maximum,
 * whichever is lower; -1 when neither bounds it, 0 for a maximum of 0
 * (no candidates at all). With randomize the same bound is taken from
 * anchors in shuffled order: a sample of every tree's candidates, so
 * none may be left unread.
 */
int pl_ac_bound(const pl_ac_opts_t *opts);

/**
 * Build the allocation candidates of req in world into *pres: outcome
 * PL_AC_OK and possibly no candidates, or the unknown name upstream
 * would have refused first. Nothing in it can fail.
 */
void pl_ac_build(apr_pool_t *p, const pl_ac_request_t *req,
                 const pl_ac_world_t *world, const pl_ac_opts_t *opts,
                 pl_ac_result_t **pres);

/** One provider of a summary, with its inventories and traits. */
typedef struct pl_ac_summary_res_t {
    const char *rc_name;
    apr_int64_t rc_id;
    apr_int64_t capacity; /**< int((total - reserved) * ratio) */
    apr_int64_t used;
} pl_ac_summary_res_t;

typedef struct pl_ac_summary_t {
    apr_int64_t id;
    const char *uuid;
    apr_int64_t parent_id;      /**< 0 for a root (or a parent not read) */
    apr_int64_t root_id;        /**< its own id when its root was not read */
    apr_array_header_t *res;    /**< pl_ac_summary_res_t */
    apr_array_header_t *traits; /**< const char * */
} pl_ac_summary_t;

/* ------------------------------------------------------------------ */
/* ac_summary.c: the provider summaries, from the world                */
/* ------------------------------------------------------------------ */

/**
 * The summaries of every provider in the trees of res (or only of
 * res->only_rps), by provider id; traits only when want_traits. *pby_id
 * (id -> pl_ac_summary_t) also holds the other providers the world read,
 * whose uuids the answer may name.
 */
void pl_ac_summaries(apr_pool_t *p, const pl_ac_world_t *w,
                     const pl_ac_result_t *res, int want_traits,
                     apr_array_header_t **psums, struct pl_idmap_t **pby_id);

#endif /* PL_AC_H */
