/* Licensed under the Apache License, Version 2.0.
 *
 * store_ac.c: the database side of GET /allocation_candidates: what the
 * engine (ac_build.c) and the provider summaries need, in a few
 * statements whatever the request: the ids of the names in the request,
 * the sharing providers and the trees they serve (here), then which
 * trees can serve (store_ac_roots.c) and those trees whole
 * (store_ac_trees.c). Upstream runs a query per class, per group and
 * per filter. No httpd headers.
 *
 * The shape of these queries depends on the request (IN lists), so they
 * are built as text: every value in them is an integer formatted here or
 * a string quoted by pl_db_quote.
 */
#include <stdlib.h>
#include <string.h>
#include <apr_hash.h>
#include <apr_strings.h>

#include "pl_store_ac_private.h"

#define SHARING_TRAIT "MISC_SHARES_VIA_AGGREGATE"

static apr_int64_t i64(const char *s)
{
    return s ? apr_atoi64(s) : 0;
}

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

/* One branch of the lookup below: (kind, id, NULL, name) of the rows of
 * table whose col is one of names. */
static const char *lookup_branch(pl_db_t *db, apr_pool_t *p, const char *kind,
                                 const char *id, const char *table,
                                 const char *col,
                                 const apr_array_header_t *names)
{
    if (names->nelts == 0) {
        return "";
    }
    return apr_psprintf(p,
                        " UNION ALL SELECT '%s', %s, NULL, %s FROM %s "
                        "WHERE %s IN (%s)",
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
 * whether any provider has a parent, the highest provider id (how large
 * the cloud is, from one index lookup) and the sharing providers. The
 * sharing branch comes first so that the id columns are typed integer
 * for every dialect.
 */
static apr_status_t read_lookups(pl_db_t *db, apr_pool_t *p,
                                 const pl_ac_request_t *req, pl_ac_world_t *w)
{
    apr_array_header_t *rcs, *traits, *aggs, *trees;
    pl_rows_t *rows;
    apr_status_t rv;
    int i;

    pl_ac_request_names(p, req, &rcs, &traits, &aggs, &trees);
    rv = pl_db_select_cached(
        db, p, &rows,
        apr_pstrcat(
            p,
            "SELECT 's', t.resource_provider_id, rp.root_provider_id, NULL "
            "FROM resource_provider_traits t "
            "JOIN traits tr ON tr.id = t.trait_id "
            "JOIN resource_providers rp ON rp.id = t.resource_provider_id "
            "WHERE tr.name = '" SHARING_TRAIT "' "
            "UNION ALL SELECT 'n', id, NULL, NULL FROM (SELECT id FROM "
            "resource_providers WHERE parent_provider_id IS NOT NULL "
            "LIMIT 1) nested "
            "UNION ALL SELECT 'm', MAX(id), NULL, NULL FROM resource_providers",
            lookup_branch(db, p, "c", "id", "resource_classes", "name", rcs),
            lookup_branch(db, p, "t", "id", "traits", "name", traits),
            lookup_branch(db, p, "a", "id", "placement_aggregates", "uuid",
                          aggs),
            lookup_branch(db, p, "p", "root_provider_id", "resource_providers",
                          "uuid", trees),
            NULL));
    if (rv != APR_SUCCESS) {
        return rv;
    }
    for (i = 0; i < rows->nrows; i++) {
        const char *kind = PL_CELL(rows, i, 0), *name = PL_CELL(rows, i, 3);
        apr_int64_t id = i64(PL_CELL(rows, i, 1));

        switch (*kind) {
        case 's': {
            pl_ac_link_t *l = apr_array_push(w->sharing);

            l->rp_id = id;
            l->root_id = i64(PL_CELL(rows, i, 2));
            l->other_id = 0;
            break;
        }
        case 'n':
            w->has_trees = 1;
            break;
        case 'm':
            w->max_provider_id = id;
            break;
        case 'c':
            if ((name = exact_name(rcs, name)) != NULL) {
                push_name(w->rcs, id, name);
            }
            break;
        case 't':
            if ((name = exact_name(traits, name)) != NULL) {
                push_name(w->traits, id, name);
            }
            break;
        case 'a':
            if ((name = exact_name(aggs, name)) != NULL) {
                push_name(w->aggs, id, name);
            }
            break;
        case 'p': {
            /* compared as the client wrote it, as upstream's SQL does;
             * one row may stand for several spellings */
            int j;

            for (j = 0; j < trees->nelts; j++) {
                const char *u = APR_ARRAY_IDX(trees, j, const char *);

                if (!strcasecmp(u, name)) {
                    push_name(w->trees, id, u);
                }
            }
            break;
        }
        }
    }
    return APR_SUCCESS;
}

static apr_status_t links(pl_db_t *db, apr_pool_t *p, const char *sql,
                          apr_array_header_t *out)
{
    pl_rows_t *rows;
    apr_status_t rv;
    int i;

    if ((rv = pl_db_select_text(db, p, &rows, sql)) != APR_SUCCESS) {
        return rv;
    }
    for (i = 0; i < rows->nrows; i++) {
        pl_ac_link_t *l = apr_array_push(out);

        l->rp_id = i64(PL_CELL(rows, i, 0));
        l->root_id = i64(PL_CELL(rows, i, 1));
        l->other_id = rows->ncols > 2 ? i64(PL_CELL(rows, i, 2)) : 0;
    }
    return APR_SUCCESS;
}

apr_status_t pl_store_ac_more(pl_db_t *db, apr_pool_t *p,
                              const pl_ac_request_t *req, pl_ac_cache_t *cache,
                              int max_trees, pl_ac_world_t *w)
{
    const char *roots;
    apr_status_t rv;
    int nroots = 0;

    if (w->sharing->nelts) {
        max_trees = 0;
    }
    roots = pl_store_ac_roots(p, req, w, max_trees, w->read_after);
    if (roots) {
        rv = pl_store_ac_read_trees(db, p, cache, roots, w->read_after > 0, w,
                                    &nroots, &w->read_after);
        if (rv != APR_SUCCESS) {
            return rv;
        }
    }
    w->truncated = max_trees > 0 && nroots >= max_trees;
    return APR_SUCCESS;
}

apr_status_t pl_store_ac_world(pl_db_t *db, apr_pool_t *p,
                               const pl_ac_request_t *req, pl_ac_cache_t *cache,
                               int max_trees, pl_ac_world_t **pworld)
{
    pl_ac_world_t *w = pl_ac_world_make(p);
    apr_status_t rv;

    if ((rv = read_lookups(db, p, req, w)) != APR_SUCCESS) {
        return rv;
    }
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
