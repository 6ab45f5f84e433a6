/* Licensed under the Apache License, Version 2.0.
 *
 * store_ac.c: the database side of GET /allocation_candidates: what the
 * engine (ac_build.c) and the provider summaries need, in a few
 * statements whatever the request: the ids of the names in the request,
 * the sharing providers and the trees they serve (here), then which
 * trees can serve (store_ac_roots.c) and those trees whole
 * (store_ac_trees.c). Upstream runs a query per class, per group and
 * per filter. Most requests take one round trip: the lookups ride with
 * the trees statement that the same lookups made last time (one_trip).
 * No httpd headers.
 *
 * The shape of these queries depends on the request (IN lists), so they
 * are built as text: every value in them is an integer formatted here or
 * a string quoted by pl_db_quote.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <apr_hash.h>
#include <apr_strings.h>

#include "pl_store_ac_private.h"

#define SHARING_TRAIT "MISC_SHARES_VIA_AGGREGATE"

/* 'a', 'b', ... (quoted for this connection) */
static const char *quoted_list(pl_db_t *db, apr_pool_t *p,
                               const apr_array_header_t *names)
{
    char **parts = apr_palloc(p, (names->nelts + 1) * sizeof(char *));
    int i;

    for (i = 0; i < names->nelts; i++) {
        parts[i] = (char *)pl_db_quote(db, p,
                                       APR_ARRAY_IDX(names, i, const char *));
    }
    parts[i] = NULL;
    return apr_array_pstrcat(p,
                             &(apr_array_header_t){ p, sizeof(char *),
                                                    names->nelts, names->nelts,
                                                    (char *)parts },
                             ',');
}

/* The kinds of the rows of the lookups, after the trees statement's
 * (they can ride with it: pl_store_ac_rider_t). */
enum {
    LOOKUP_SHARING = PL_STORE_AC_RIDER_KIND,
    LOOKUP_NESTED,
    LOOKUP_MAX_ID,
    LOOKUP_CLASS,
    LOOKUP_TRAIT,
    LOOKUP_AGGREGATE,
    LOOKUP_TREE
};

/* The names of a request and the statement of their lookups. */
typedef struct lookups_t {
    apr_array_header_t *rcs, *traits, *aggs, *trees;
    const char *sql;
} lookups_t;

/* One branch of the lookups: (kind, id, NULL, NULL, NULL, name, NULL)
 * of the rows of table whose col is one of names. */
static const char *lookup_branch(pl_db_t *db, apr_pool_t *p, int kind,
                                 const char *id, const char *table,
                                 const char *col,
                                 const apr_array_header_t *names)
{
    if (names->nelts == 0) {
        return "";
    }
    return apr_psprintf(p,
                        " UNION ALL SELECT %d, %s, NULL, NULL, NULL, %s, "
                        "NULL FROM %s WHERE %s IN (%s)",
                        kind, id, col, table, col, quoted_list(db, p, names));
}

/* The name among names that row's name is exactly (some collations
 * compare without case), or NULL. */
static const char *exact_name(const apr_array_header_t *names, const char *name)
{
    int j;

    for (j = 0; j < names->nelts; j++) {
        const char *n = APR_ARRAY_IDX(names, j, const char *);

        if (!strcmp(n, name)) {
            return n;
        }
    }
    return NULL;
}

static void push_name(apr_array_header_t *out, apr_int64_t id, const char *name)
{
    pl_ac_name_t *n = apr_array_push(out);

    n->id = id;
    n->name = name;
}

/*
 * Everything small the request needs first, in one statement: the ids of
 * its classes, traits and aggregates, the roots of its in_tree providers,
 * whether any provider has a parent (the lowest parent id, NULL for
 * none: one end of an index, where a search for the first provider with
 * a parent walked the flat ones first), the highest provider id (how
 * large the cloud is, from one index lookup) and the sharing providers. The
 * sharing branch comes first so that the id columns are typed integer
 * for every dialect; the columns are the trees statement's, so that it
 * can carry them.
 */
static void lookups_make(pl_db_t *db, apr_pool_t *p, const pl_ac_request_t *req,
                         lookups_t *lk)
{
    pl_ac_request_names(p, req, &lk->rcs, &lk->traits, &lk->aggs, &lk->trees);
    lk->sql = apr_pstrcat(
        p,
        apr_psprintf(p,
                     "SELECT %d, t.resource_provider_id, rp.root_provider_id, "
                     "NULL, NULL, NULL, NULL "
                     "FROM resource_provider_traits t "
                     "JOIN traits tr ON tr.id = t.trait_id "
                     "JOIN resource_providers rp "
                     "ON rp.id = t.resource_provider_id "
                     "WHERE tr.name = '" SHARING_TRAIT "' "
                     "UNION ALL SELECT %d, MIN(parent_provider_id), NULL, "
                     "NULL, NULL, NULL, NULL FROM resource_providers "
                     "UNION ALL SELECT %d, MAX(id), NULL, NULL, NULL, NULL, "
                     "NULL FROM resource_providers",
                     LOOKUP_SHARING, LOOKUP_NESTED, LOOKUP_MAX_ID),
        lookup_branch(db, p, LOOKUP_CLASS, "id", "resource_classes", "name",
                      lk->rcs),
        lookup_branch(db, p, LOOKUP_TRAIT, "id", "traits", "name", lk->traits),
        lookup_branch(db, p, LOOKUP_AGGREGATE, "id", "placement_aggregates",
                      "uuid", lk->aggs),
        lookup_branch(db, p, LOOKUP_TREE, "root_provider_id",
                      "resource_providers", "uuid", lk->trees),
        NULL);
}

/* The rows of the lookups into w. */
static void take_lookups(const lookups_t *lk, const pl_rows_t *rows,
                         pl_ac_world_t *w)
{
    int i;

    for (i = 0; i < rows->nrows; i++) {
        const char *name = PL_CELL(rows, i, 5);
        apr_int64_t id = pl_db_cell_i64(PL_CELL(rows, i, 1));

        switch (pl_db_cell_i64(PL_CELL(rows, i, 0))) {
        case LOOKUP_SHARING: {
            pl_ac_link_t *l = apr_array_push(w->sharing);

            l->rp_id = id;
            l->root_id = pl_db_cell_i64(PL_CELL(rows, i, 2));
            l->other_id = 0;
            break;
        }
        case LOOKUP_NESTED:
            w->has_trees = PL_CELL(rows, i, 1) != NULL;
            break;
        case LOOKUP_MAX_ID:
            w->max_provider_id = id;
            break;
        case LOOKUP_CLASS:
            if ((name = exact_name(lk->rcs, name)) != NULL) {
                push_name(w->rcs, id, name);
            }
            break;
        case LOOKUP_TRAIT:
            if ((name = exact_name(lk->traits, name)) != NULL) {
                push_name(w->traits, id, name);
            }
            break;
        case LOOKUP_AGGREGATE:
            if ((name = exact_name(lk->aggs, name)) != NULL) {
                push_name(w->aggs, id, name);
            }
            break;
        case LOOKUP_TREE: {
            /* compared as the client wrote it, as upstream's SQL does;
             * one row may stand for several spellings */
            int j;

            for (j = 0; j < lk->trees->nelts; j++) {
                const char *u = APR_ARRAY_IDX(lk->trees, j, const char *);

                if (!strcasecmp(u, name)) {
                    push_name(w->trees, id, u);
                }
            }
            break;
        }
        }
    }
}

static int same_cell(const char *a, const char *b)
{
    return a == NULL ? b == NULL : b != NULL && !strcmp(a, b);
}

/* Whether a and b are the same rows in the same order. */
static int same_rows(const pl_rows_t *a, const pl_rows_t *b)
{
    int i, n = a->nrows * a->ncols;

    if (a->nrows != b->nrows || (a->nrows && a->ncols != b->ncols)) {
        return 0;
    }
    for (i = 0; i < n && same_cell(a->cells[i], b->cells[i]); i++) {
    }
    return i == n;
}

static apr_status_t links(pl_db_t *db, apr_pool_t *p, const char *sql,
                          apr_array_header_t *out)
{
    pl_rows_t *rows;
    apr_status_t rv;
    int i;

    if ((rv = pl_db_select_text(db, p, &rows, sql, PL_DB_TEXT_ONCE)) !=
        APR_SUCCESS) {
        return rv;
    }
    for (i = 0; i < rows->nrows; i++) {
        pl_ac_link_t *l = apr_array_push(out);

        l->rp_id = pl_db_cell_i64(PL_CELL(rows, i, 0));
        l->root_id = pl_db_cell_i64(PL_CELL(rows, i, 1));
        l->other_id = rows->ncols > 2 ? pl_db_cell_i64(PL_CELL(rows, i, 2)) : 0;
    }
    return APR_SUCCESS;
}

/* More trees for w (pl_store_ac_more), the rider with them if any. */
static apr_status_t read_more(pl_db_t *db, apr_pool_t *p,
                              const pl_ac_request_t *req,
                              pl_store_ac_cache_t *cache, int max_trees,
                              pl_store_ac_rider_t *rider, pl_ac_world_t *w)
{
    const char *roots;
    apr_status_t rv;
    int nroots = 0;

    if (w->sharing->nelts) {
        max_trees = 0;
    }
    roots = pl_store_ac_roots(p, req, w, max_trees, w->read_after,
                              pl_db_dialect(db));
    if (roots) {
        rv = pl_store_ac_read_trees(db, p, cache, roots, w->read_after > 0,
                                    rider, w, &nroots, &w->read_after);
        if (rv != APR_SUCCESS) {
            return rv;
        }
    }
    else if (rider) {
        rider->rejected = 1; /* no trees statement to ride */
    }
    w->truncated = max_trees > 0 && nroots >= max_trees;
    w->roots_read += nroots;
    w->reads++;
    return APR_SUCCESS;
}

apr_status_t pl_store_ac_more(pl_db_t *db, apr_pool_t *p,
                              const pl_ac_request_t *req,
                              pl_store_ac_cache_t *cache, int max_trees,
                              pl_ac_world_t *w)
{
    return read_more(db, p, req, cache, max_trees, NULL, w);
}

/* The lookups a guess was made from, and the fresh ones that rode. */
typedef struct guess_t {
    const pl_rows_t *guessed;
    const pl_rows_t *fresh;
} guess_t;

static int same_lookups(void *baton, const pl_rows_t *rows)
{
    guess_t *g = baton;

    g->fresh = rows;
    return same_rows(g->guessed, rows);
}

/*
 * The world in one round trip instead of two: the lookups this child
 * last read for the same names (pl_store_ac_cache_lookups) say which trees
 * statement the request needs; it runs with the lookups riding along,
 * and its trees count only if the fresh lookups are the guessed ones
 * (then the statement is the one they make, in the same snapshot; on
 * MariaDB, where the roots are read first, the lookups ride with them:
 * two round trips instead of three). Not with sharing providers, whose
 * links are read before the trees. *pworld: the world, or NULL if the
 * guess could not be used; then *pfresh: the fresh lookups if they
 * came.
 */
static apr_status_t one_trip(pl_db_t *db, apr_pool_t *p,
                             const pl_ac_request_t *req,
                             pl_store_ac_cache_t *cache, int max_trees,
                             const lookups_t *lk, const pl_rows_t *guessed,
                             pl_ac_world_t **pworld, const pl_rows_t **pfresh)
{
    pl_ac_world_t *w = pl_ac_world_make(p);
    guess_t g = { guessed, NULL };
    pl_store_ac_rider_t rider = { lk->sql, same_lookups, &g, 0 };
    apr_status_t rv;

    *pworld = NULL;
    *pfresh = NULL;
    take_lookups(lk, guessed, w);
    if (w->sharing->nelts) {
        return APR_SUCCESS;
    }
    rv = read_more(db, p, req, cache, max_trees, &rider, w);
    if (rv == APR_SUCCESS && !rider.rejected) {
        w->one_trip = 1;
        *pworld = w;
    }
    *pfresh = g.fresh;
    return rv;
}

apr_status_t pl_store_ac_world(pl_db_t *db, apr_pool_t *p,
                               const pl_ac_request_t *req,
                               pl_store_ac_cache_t *cache, int max_trees,
                               pl_ac_world_t **pworld)
{
    pl_ac_world_t *w;
    const pl_rows_t *guessed = NULL, *rows = NULL;
    lookups_t lk;
    apr_status_t rv;

    lookups_make(db, p, req, &lk);
    if ((guessed = pl_store_ac_cache_lookups(cache, p, lk.sql)) != NULL) {
        rv = one_trip(db, p, req, cache, max_trees, &lk, guessed, pworld,
                      &rows);
        if (rv != APR_SUCCESS || *pworld) {
            return rv;
        }
    }
    if (rows == NULL) {
        pl_rows_t *read;

        if ((rv = pl_db_select_text(db, p, &read, lk.sql, PL_DB_TEXT_KEPT)) !=
            APR_SUCCESS) {
            return rv;
        }
        rows = read;
    }
    if (guessed == NULL || !same_rows(guessed, rows)) {
        pl_store_ac_cache_keep_lookups(cache, lk.sql, rows);
    }
    w = pl_ac_world_make(p);
    take_lookups(&lk, rows, w);
    /* every root of a tree in an aggregate of a sharing provider */
    if (w->sharing->nelts) {
        apr_int64_t *ids = apr_palloc(p, w->sharing->nelts * sizeof(*ids));
        int i;

        for (i = 0; i < w->sharing->nelts; i++) {
            ids[i] = APR_ARRAY_IDX(w->sharing, i, pl_ac_link_t).rp_id;
        }
        rv = links(
            db, p,
            apr_pstrcat(
                p,
                "SELECT DISTINCT s.resource_provider_id, sp.root_provider_id, "
                "rp.root_provider_id FROM resource_provider_aggregates s "
                "JOIN resource_provider_aggregates o "
                "ON o.aggregate_id = s.aggregate_id "
                "JOIN resource_providers rp ON rp.id = o.resource_provider_id "
                "JOIN resource_providers sp ON sp.id = s.resource_provider_id "
                "WHERE s.resource_provider_id IN (",
                pl_db_id_list(p, ids, w->sharing->nelts), ")", NULL),
            w->anchors);
        if (rv != APR_SUCCESS) {
            return rv;
        }
    }
    *pworld = w;
    return pl_store_ac_more(db, p, req, cache, max_trees, w);
}

/* How many candidate trees to read first: enough for the bound when
 * nearly every tree gives a candidate, with room for a few that give
 * none (more are read, after these, when too many did); 0 (all) without
 * a bound, or when the bound is a random sample of all. When the last
 * request of the same shape needed more trees per candidate (hosts full
 * or disabled between those with room), as many as it needed and a
 * tenth more, at most four times the least: nova's request at 2,500
 * computes read its 1,746 trees in two rounds, and now in one. */
static int first_trees(const pl_ac_opts_t *opts, double trees_per_cand)
{
    int bound = pl_ac_bound(opts), least;
    double guess;

    if (opts->randomize || bound <= 0 || bound > INT_MAX / 8) {
        return 0;
    }
    least = bound + 16;
    guess = 1.1 * bound * trees_per_cand + 16;
    if (guess <= least) {
        return least;
    }
    return guess < 4.0 * least ? (int)guess : 4 * least;
}

/* The trees this answer needed per candidate it kept: those read up to
 * the last one that gave a candidate (every one read, when the bound did
 * not stop it), over the candidates; 0 when it kept none. Trees are read
 * and searched in root id order. */
static double trees_per_cand(const pl_ac_world_t *w, const pl_ac_result_t *res)
{
    apr_int64_t last = 0;
    int i, needed = 0;

    if (res->cands->nelts == 0) {
        return 0;
    }
    if (!res->truncated) {
        return (double)w->roots_read / res->cands->nelts;
    }
    for (i = 0; i < res->roots->nelts; i++) {
        apr_int64_t root = APR_ARRAY_IDX(res->roots, i, apr_int64_t);

        last = root > last ? root : last;
    }
    for (i = 0; i < w->provs->nelts; i++) {
        const pl_ac_prov_t *prov = &APR_ARRAY_IDX(w->provs, i, pl_ac_prov_t);

        needed += prov->parent_id == 0 && prov->id <= last;
    }
    return (double)needed / res->cands->nelts;
}

/* How many more trees the next round reads, when those read so far gave
 * fewer candidates than the bound: as many as their yield says the
 * candidates still wanted need, a quarter more and 16 besides, at most
 * four times the last round (and four times it when none was found:
 * nothing to go by). Fourfold alone read every tree left of a cloud of
 * 2,500 computes whose first 1,016 held fewer than 1,000 with room, 58
 * of nova's request's 92 ms in PostgreSQL (docs/architecture.md). */
static int next_trees(const pl_ac_opts_t *opts, const pl_ac_world_t *w,
                      const pl_ac_result_t *res, int last)
{
    int most = last > INT_MAX / 4 ? INT_MAX : last * 4;
    int found = res->cands->nelts, wanted = pl_ac_bound(opts) - found;
    double need;

    if (found <= 0 || wanted <= 0 || w->roots_read <= 0) {
        return most;
    }
    need = 1.25 * wanted * w->roots_read / found + 16;
    return need < most ? (int)need : most;
}

/* The engine's counters, one line a request: at debug, or at warning
 * when the node budget cut the answer (a 200 with fewer candidates than
 * the bound allowed: nothing else would show it). Nothing is formatted
 * when the level is off. */
static void log_counters(const pl_ac_opts_t *opts, const pl_ac_world_t *w,
                         const pl_ac_result_t *res, const pl_ac_stats_t *st)
{
    int level = res->over_budget ? PL_LOG_WARNING : PL_LOG_DEBUG;
    int bound;
    char bound_text[32];

    if (!PL_LOG_ON(opts->log, level)) {
        return;
    }
    bound = pl_ac_bound(opts);
    if (bound < 0) {
        apr_cpystrn(bound_text, "none", sizeof(bound_text));
    }
    else {
        apr_snprintf(bound_text, sizeof(bound_text), "%d%s", bound,
                     opts->randomize ? " (a random sample)" : "");
    }
    pl_log(opts->log, level, APR_SUCCESS,
           "%sallocation candidates: %d, bound %s, %s; trees %d in %d "
           "read%s%s; providers %d; nodes %ld, pruned %ld, refused %ld; "
           "facts %d cached, %d read%s%s",
           res->over_budget ? PL_LOGNO(05101) "the node budget cut the answer: "
                            : PL_LOGNO(05100),
           res->cands->nelts, bound_text,
           res->over_budget           ? "stopped by the node budget"
           : res->truncated           ? "stopped at the bound"
           : res->outcome != PL_AC_OK ? "not searched"
                                      : "all found",
           w->roots_read, w->reads, w->reads == 1 ? "" : "s",
           w->truncated ? ", more left" : "", w->provs->nelts, st->nodes,
           st->pruned, st->refused, w->facts_cached, w->facts_read,
           res->outcome == PL_AC_OK ? "" : "; unknown name ",
           res->outcome == PL_AC_OK ? "" : res->unknown);
}

apr_status_t
pl_store_ac_candidates(pl_db_t *db, apr_pool_t *p, const pl_ac_request_t *req,
                       const pl_ac_opts_t *opts, pl_store_ac_cache_t *cache,
                       pl_ac_world_t **pworld, pl_ac_result_t **pres)
{
    double per_cand = pl_store_ac_cache_trees_per_cand(cache, opts->shape);
    int max_trees = first_trees(opts, per_cand);
    pl_ac_opts_t each = *opts;
    pl_ac_stats_t one, all = { 0, 0, 0 };
    pl_ac_result_t *res;
    pl_ac_world_t *w;
    apr_status_t rv;

    *pworld = NULL;
    *pres = NULL;
    each.stats = &one; /* what each build did, summed into all */
    rv = pl_store_ac_world(db, p, req, cache, max_trees, &w);
    if (rv == APR_SUCCESS) {
        rv = pl_store_ac_early_ends(db, p, req, w);
    }
    while (rv == APR_SUCCESS) {
        memset(&one, 0, sizeof(one));
        pl_ac_build(p, req, w, &each, &res);
        all.nodes += one.nodes;
        all.pruned += one.pruned;
        all.refused += one.refused;
        /* enough: every tree read, the bound (or the budget) reached, or
         * a name upstream would have refused */
        if (!w->truncated || res->truncated || res->outcome != PL_AC_OK) {
            *pworld = w;
            *pres = res;
            break;
        }
        max_trees = next_trees(opts, w, res, max_trees);
        rv = pl_store_ac_more(db, p, req, cache, max_trees, w);
    }
    if (rv == APR_SUCCESS) {
        if (opts->stats) {
            *opts->stats = all;
        }
        if (first_trees(opts, 0) > 0 && res->outcome == PL_AC_OK) {
            pl_store_ac_cache_keep_trees_per_cand(cache, opts->shape,
                                                  trees_per_cand(w, res));
        }
        log_counters(opts, w, res, &all);
    }
    return rv;
}

apr_status_t pl_store_ac_version(pl_db_t *db, apr_pool_t *p,
                                 const char **version)
{
    pl_rows_t *rows;
    apr_status_t rv;

    *version = NULL;
    if (pl_db_dialect(db) != PL_DB_PGSQL) {
        return APR_SUCCESS;
    }
    /* a snapshot is xmin:xmax:in-progress ids; equal ones see the same
     * commits. txid_current_snapshot rather than pg_current_snapshot:
     * PostgreSQL before 13 has only the former. */
    rv = pl_db_select_text(db, p, &rows,
                           "SELECT pg_postmaster_start_time()::text || ' ' "
                           "|| txid_current_snapshot()::text",
                           PL_DB_TEXT_KEPT);
    if (rv == APR_SUCCESS && rows->nrows == 1) {
        *version = PL_CELL(rows, 0, 0);
    }
    return rv;
}
