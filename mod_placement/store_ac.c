/* Licensed under the Apache License, Version 2.0.
 *
 * store_ac.c: the database side of GET /allocation_candidates. Reads,
 * with one set-based query each, what the engine (ac_build.c) needs:
 * the ids of the names in the request, the inventories and usages of the
 * requested classes, which providers have the requested traits and
 * aggregates, the sharing providers and the trees they serve; and
 * afterwards the provider summaries of the trees in the answer. Upstream
 * runs a query per class, per group and per filter; here the count does
 * not grow with the request. No httpd headers.
 *
 * The shape of these queries depends on the request (IN lists), so they
 * are built as text: every value in them is an integer formatted here or
 * a string quoted by pl_db_quote.
 */
#include <stdlib.h>
#include <string.h>
#include <apr_hash.h>
#include <apr_strings.h>

#include "pl_ac.h"

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
    return apr_array_pstrcat(p, &(apr_array_header_t){ p, sizeof(char *),
                             names->nelts, names->nelts, (char *)parts },
                             ',');
}

/* 1,2,3 */
static const char *id_list(apr_pool_t *p, const apr_int64_t *ids, int n)
{
    char *buf = apr_palloc(p, (apr_size_t)n * 21 + 1), *s = buf;
    int i;

    *s = '\0';
    for (i = 0; i < n; i++) {
        s += apr_snprintf(s, 22, i ? ",%" APR_INT64_T_FMT
                                   : "%" APR_INT64_T_FMT, ids[i]);
    }
    return buf;
}

/* (id, name) rows whose name is exactly one asked for (some collations
 * compare without case) */
static apr_status_t names_to_ids(pl_db_t *db, apr_pool_t *p,
                                 const char *table, const char *col,
                                 const apr_array_header_t *names,
                                 apr_array_header_t *out)
{
    pl_rows_t *rows;
    apr_status_t rv;
    int i, j;

    if (names->nelts == 0) {
        return APR_SUCCESS;
    }
    rv = pl_db_select_text(db, p, &rows, apr_psprintf(p,
        "SELECT id, %s FROM %s WHERE %s IN (%s)", col, table, col,
        quoted_list(db, p, names)));
    if (rv != APR_SUCCESS) {
        return rv;
    }
    for (i = 0; i < rows->nrows; i++) {
        const char *name = PL_CELL(rows, i, 1);

        for (j = 0; j < names->nelts; j++) {
            if (!strcmp(APR_ARRAY_IDX(names, j, const char *), name)) {
                pl_ac_name_t *n = apr_array_push(out);

                n->id = i64(PL_CELL(rows, i, 0));
                n->name = name;
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

static const char *ids_of_names(apr_pool_t *p, const apr_array_header_t *a)
{
    apr_int64_t *ids = apr_palloc(p, (a->nelts + 1) * sizeof(*ids));
    int i;

    for (i = 0; i < a->nelts; i++) {
        ids[i] = APR_ARRAY_IDX(a, i, pl_ac_name_t).id;
    }
    return id_list(p, ids, a->nelts);
}

static apr_int64_t known_id(const apr_array_header_t *names,
                            const char *name)
{
    int i;

    for (i = 0; i < names->nelts; i++) {
        const pl_ac_name_t *n = &APR_ARRAY_IDX(names, i, pl_ac_name_t);

        if (!strcmp(n->name, name)) {
            return n->id;
        }
    }
    return -1;
}

/* "1,2" for the names of set known to the database, NULL if none is */
static const char *known_ids(apr_pool_t *p, const apr_array_header_t *names,
                             const apr_array_header_t *set)
{
    apr_int64_t *ids = apr_palloc(p, (set->nelts + 1) * sizeof(*ids));
    int i, n = 0;

    for (i = 0; i < set->nelts; i++) {
        apr_int64_t id = known_id(names, APR_ARRAY_IDX(set, i, const char *));

        if (id >= 0) {
            ids[n++] = id;
        }
    }
    return n ? id_list(p, ids, n) : NULL;
}

/*
 * A condition on "rp" that every provider group g could use holds: a
 * superset, so the engine still decides, but far fewer rows travel.
 * member_of: the provider or its root is in the aggregates; required
 * traits: some provider of its tree has them (not for a group that may
 * take from sharing providers: the trait may be theirs); in_tree: the
 * tree. NULL: no condition.
 */
static const char *group_cond(apr_pool_t *p, const pl_ac_world_t *w,
                              const pl_ac_group_t *g)
{
    const char *cond = NULL, *ids;
    int i;

    if (g->member_of) {
        for (i = 0; i < g->member_of->any_of->nelts; i++) {
            ids = known_ids(p, w->aggs, APR_ARRAY_IDX(g->member_of->any_of,
                                                      i,
                                                      apr_array_header_t *));
            if (ids == NULL) {
                continue;
            }
            ids = apr_psprintf(p, "SELECT resource_provider_id FROM "
                               "resource_provider_aggregates WHERE "
                               "aggregate_id IN (%s)", ids);
            cond = apr_psprintf(p, "%s%s(rp.id IN (%s) OR "
                                "rp.root_provider_id IN (%s))",
                                cond ? cond : "", cond ? " AND " : "",
                                ids, ids);
        }
    }
    if (g->same_provider || w->sharing->nelts == 0) {
        for (i = 0; i < g->required->nelts; i++) {
            ids = known_ids(p, w->traits, APR_ARRAY_IDX(g->required, i,
                                                        apr_array_header_t *));
            if (ids == NULL) {
                continue;
            }
            cond = apr_psprintf(p, "%s%srp.root_provider_id IN (SELECT "
                                "r.root_provider_id FROM "
                                "resource_provider_traits t JOIN "
                                "resource_providers r ON r.id = "
                                "t.resource_provider_id WHERE t.trait_id "
                                "IN (%s))", cond ? cond : "",
                                cond ? " AND " : "", ids);
        }
    }
    if (g->in_tree) {
        apr_int64_t root = known_id(w->trees, g->in_tree);

        if (root >= 0) {
            cond = apr_psprintf(p, "%s%srp.root_provider_id = %"
                                APR_INT64_T_FMT, cond ? cond : "",
                                cond ? " AND " : "", root);
        }
    }
    return cond;
}

/* For each requested class, the groups that ask for it, OR-ed; one
 * condition for all classes when they share it (the common case: one
 * group), which keeps the query simple for the planner. */
static const char *inv_filter(apr_pool_t *p, const pl_ac_world_t *w,
                              const pl_ac_request_t *req)
{
    const char **conds = apr_pcalloc(p, (w->rcs->nelts + 1) * sizeof(char *));
    const char *where = NULL;
    int k, i, j, same = 1;

    for (k = 0; k < w->rcs->nelts; k++) {
        const pl_ac_name_t *rc = &APR_ARRAY_IDX(w->rcs, k, pl_ac_name_t);
        const char *any = NULL;
        int open = 0;

        for (i = 0; i < req->groups->nelts && !open; i++) {
            const pl_ac_group_t *g = APR_ARRAY_IDX(req->groups, i,
                                                   pl_ac_group_t *);
            const char *cond;

            for (j = 0; j < g->resources->nelts; j++) {
                if (!strcmp(APR_ARRAY_IDX(g->resources, j,
                                          pl_qs_resource_t).name,
                            rc->name)) {
                    break;
                }
            }
            if (j == g->resources->nelts) {
                continue;
            }
            if ((cond = group_cond(p, w, g)) == NULL) {
                open = 1;
            }
            else {
                any = apr_psprintf(p, "%s%s(%s)", any ? any : "",
                                   any ? " OR " : "", cond);
            }
        }
        conds[k] = open || !any ? "" : any;
        same &= !strcmp(conds[k], conds[0]);
    }
    if (same) {
        return apr_psprintf(p, "i.resource_class_id IN (%s)%s%s%s",
                            ids_of_names(p, w->rcs),
                            *conds[0] ? " AND (" : "", conds[0],
                            *conds[0] ? ")" : "");
    }
    for (k = 0; k < w->rcs->nelts; k++) {
        where = apr_psprintf(p, "%s%s(i.resource_class_id = %"
                             APR_INT64_T_FMT "%s%s%s)", where ? where : "",
                             where ? " OR " : "",
                             APR_ARRAY_IDX(w->rcs, k, pl_ac_name_t).id,
                             *conds[k] ? " AND (" : "", conds[k],
                             *conds[k] ? ")" : "");
    }
    return where;
}

static apr_status_t read_invs(pl_db_t *db, apr_pool_t *p,
                              const pl_ac_request_t *req, pl_ac_world_t *w)
{
    const char *rcs = ids_of_names(p, w->rcs);
    pl_rows_t *rows;
    apr_status_t rv;
    int i;

    rv = pl_db_select_text(db, p, &rows, apr_psprintf(p,
        "SELECT i.resource_provider_id, rp.root_provider_id, "
        "i.resource_class_id, i.total, i.reserved, i.min_unit, i.max_unit, "
        "i.step_size, i.allocation_ratio, u.used "
        "FROM inventories i "
        "JOIN resource_providers rp ON rp.id = i.resource_provider_id "
        "LEFT JOIN (SELECT resource_provider_id, resource_class_id, "
        "SUM(used) AS used FROM allocations "
        "WHERE resource_class_id IN (%s) "
        "GROUP BY resource_provider_id, resource_class_id) u "
        "ON u.resource_provider_id = i.resource_provider_id "
        "AND u.resource_class_id = i.resource_class_id "
        "WHERE %s", rcs, inv_filter(p, w, req)));
    if (rv != APR_SUCCESS) {
        return rv;
    }
    for (i = 0; i < rows->nrows; i++) {
        pl_ac_inv_t *inv = apr_array_push(w->invs);

        inv->rp_id = i64(PL_CELL(rows, i, 0));
        inv->root_id = i64(PL_CELL(rows, i, 1));
        inv->rc_id = i64(PL_CELL(rows, i, 2));
        inv->total = i64(PL_CELL(rows, i, 3));
        inv->reserved = i64(PL_CELL(rows, i, 4));
        inv->min_unit = i64(PL_CELL(rows, i, 5));
        inv->max_unit = i64(PL_CELL(rows, i, 6));
        inv->step_size = i64(PL_CELL(rows, i, 7));
        inv->allocation_ratio = PL_CELL(rows, i, 8)
                                ? strtod(PL_CELL(rows, i, 8), NULL) : 1.0;
        inv->used = i64(PL_CELL(rows, i, 9));
    }
    return APR_SUCCESS;
}

apr_status_t pl_store_ac_world(pl_db_t *db, apr_pool_t *p,
                               const pl_ac_request_t *req,
                               pl_ac_world_t **pworld)
{
    pl_ac_world_t *w = pl_ac_world_make(p);
    apr_array_header_t *rc_names, *trait_names, *agg_uuids, *tree_uuids;
    apr_array_header_t *all, *traits;
    apr_int64_t sharing_id = 0;
    pl_rows_t *rows;
    apr_status_t rv;
    int i;

    pl_ac_request_names(p, req, &rc_names, &trait_names, &agg_uuids,
                        &tree_uuids);
    /* the client's traits and the sharing trait, in one query */
    all = apr_array_copy(p, trait_names);
    APR_ARRAY_PUSH(all, const char *) = SHARING_TRAIT;
    traits = apr_array_make(p, all->nelts, sizeof(pl_ac_name_t));
    if ((rv = names_to_ids(db, p, "resource_classes", "name", rc_names,
                           w->rcs)) != APR_SUCCESS
        || (rv = names_to_ids(db, p, "traits", "name", all, traits))
           != APR_SUCCESS
        || (rv = names_to_ids(db, p, "placement_aggregates", "uuid",
                              agg_uuids, w->aggs)) != APR_SUCCESS) {
        return rv;
    }
    for (i = 0; i < traits->nelts; i++) {
        pl_ac_name_t *t = &APR_ARRAY_IDX(traits, i, pl_ac_name_t);
        int j;

        if (!strcmp(t->name, SHARING_TRAIT)) {
            sharing_id = t->id;
        }
        for (j = 0; j < trait_names->nelts; j++) {
            if (!strcmp(t->name, APR_ARRAY_IDX(trait_names, j, char *))) {
                *(pl_ac_name_t *)apr_array_push(w->traits) = *t;
                break;
            }
        }
    }
    if (tree_uuids->nelts) {
        rv = pl_db_select_text(db, p, &rows, apr_psprintf(p,
            "SELECT root_provider_id, uuid FROM resource_providers "
            "WHERE uuid IN (%s)", quoted_list(db, p, tree_uuids)));
        if (rv != APR_SUCCESS) {
            return rv;
        }
        for (i = 0; i < rows->nrows; i++) {
            int j;

            /* compared as the client wrote it, as upstream's SQL does */
            for (j = 0; j < tree_uuids->nelts; j++) {
                const char *u = APR_ARRAY_IDX(tree_uuids, j, const char *);

                if (!strcasecmp(u, PL_CELL(rows, i, 1))) {
                    pl_ac_name_t *n = apr_array_push(w->trees);

                    n->id = i64(PL_CELL(rows, i, 0));
                    n->name = u;
                }
            }
        }
    }
    rv = pl_db_select_text(db, p, &rows, "SELECT id FROM resource_providers "
                           "WHERE parent_provider_id IS NOT NULL LIMIT 1");
    if (rv != APR_SUCCESS) {
        return rv;
    }
    w->has_trees = rows->nrows > 0;
    if (sharing_id
        && (rv = links(db, p, apr_psprintf(p,
                "SELECT t.resource_provider_id, rp.root_provider_id "
                "FROM resource_provider_traits t "
                "JOIN resource_providers rp ON rp.id = t.resource_provider_id "
                "WHERE t.trait_id = %" APR_INT64_T_FMT, sharing_id),
                w->sharing)) != APR_SUCCESS) {
        return rv;
    }
    if (w->rcs->nelts && (rv = read_invs(db, p, req, w)) != APR_SUCCESS) {
        return rv;
    }
    if (w->traits->nelts
        && (rv = links(db, p, apr_psprintf(p,
                "SELECT t.resource_provider_id, rp.root_provider_id, "
                "t.trait_id FROM resource_provider_traits t "
                "JOIN resource_providers rp ON rp.id = t.resource_provider_id "
                "WHERE t.trait_id IN (%s)", ids_of_names(p, w->traits)),
                w->rp_traits)) != APR_SUCCESS) {
        return rv;
    }
    if (w->aggs->nelts
        && (rv = links(db, p, apr_psprintf(p,
                "SELECT a.resource_provider_id, rp.root_provider_id, "
                "a.aggregate_id FROM resource_provider_aggregates a "
                "JOIN resource_providers rp ON rp.id = a.resource_provider_id "
                "WHERE a.aggregate_id IN (%s)", ids_of_names(p, w->aggs)),
                w->rp_aggs)) != APR_SUCCESS) {
        return rv;
    }
    /* every root of a tree in an aggregate of a sharing provider */
    if (w->sharing->nelts
        && (rv = links(db, p, apr_psprintf(p,
                "SELECT DISTINCT s.resource_provider_id, sp.root_provider_id, "
                "rp.root_provider_id FROM resource_provider_aggregates s "
                "JOIN resource_provider_aggregates o "
                "ON o.aggregate_id = s.aggregate_id "
                "JOIN resource_providers rp ON rp.id = o.resource_provider_id "
                "JOIN resource_providers sp ON sp.id = s.resource_provider_id "
                "JOIN resource_provider_traits t "
                "ON t.resource_provider_id = s.resource_provider_id "
                "WHERE t.trait_id = %" APR_INT64_T_FMT, sharing_id),
                w->anchors)) != APR_SUCCESS) {
        return rv;
    }
    if (req->same_subtrees->nelts && w->has_trees
        && (rv = links(db, p, "SELECT id, root_provider_id, "
                       "parent_provider_id FROM resource_providers "
                       "WHERE parent_provider_id IS NOT NULL", w->parents))
           != APR_SUCCESS) {
        return rv;
    }
    *pworld = w;
    return APR_SUCCESS;
}

static int is_extra(const pl_ac_result_t *res, apr_int64_t id)
{
    int i;

    for (i = 0; res->extra_rps && i < res->extra_rps->nelts; i++) {
        if (APR_ARRAY_IDX(res->extra_rps, i, apr_int64_t) == id) {
            return 1;
        }
    }
    return 0;
}

apr_status_t pl_store_ac_summaries(pl_db_t *db, apr_pool_t *p,
                                   const pl_ac_result_t *res,
                                   int want_traits,
                                   apr_array_header_t **psums,
                                   apr_hash_t **pby_id)
{
    apr_array_header_t *sums = apr_array_make(p, res->roots->nelts * 2 + 1,
                                              sizeof(pl_ac_summary_t *));
    apr_hash_t *by_id = apr_hash_make(p);
    const char *where, *uwhere, *pwhere;
    pl_rows_t *rows;
    apr_status_t rv;
    int i;

    *psums = sums;
    *pby_id = by_id;
    if (res->roots->nelts == 0) {
        return APR_SUCCESS;
    }
    if (res->only_rps) {
        const char *ids = id_list(p, (apr_int64_t *)res->only_rps->elts,
                                  res->only_rps->nelts);

        where = apr_pstrcat(p, "rp.id IN (", ids, ")", NULL);
        uwhere = apr_pstrcat(p, "a.resource_provider_id IN (", ids, ")",
                             NULL);
    }
    else {
        const char *ids = id_list(p, (apr_int64_t *)res->roots->elts,
                                  res->roots->nelts);

        where = apr_pstrcat(p, "rp.root_provider_id IN (", ids, ")", NULL);
        uwhere = apr_pstrcat(p, "r2.root_provider_id IN (", ids, ")", NULL);
    }
    /* providers whose uuid alone is wanted come with the first query */
    pwhere = where;
    if (res->extra_rps && res->extra_rps->nelts) {
        pwhere = apr_pstrcat(p, where, " OR rp.id IN (",
                             id_list(p, (apr_int64_t *)res->extra_rps->elts,
                                     res->extra_rps->nelts), ")", NULL);
    }
    rv = pl_db_select_text(db, p, &rows, apr_pstrcat(p,
        "SELECT rp.id, rp.uuid, pp.uuid, rr.uuid FROM resource_providers rp "
        "LEFT JOIN resource_providers pp ON pp.id = rp.parent_provider_id "
        "LEFT JOIN resource_providers rr ON rr.id = rp.root_provider_id "
        "WHERE ", pwhere, " ORDER BY rp.id", NULL));
    if (rv != APR_SUCCESS) {
        return rv;
    }
    for (i = 0; i < rows->nrows; i++) {
        pl_ac_summary_t *s = apr_pcalloc(p, sizeof(*s));

        s->id = i64(PL_CELL(rows, i, 0));
        s->uuid = PL_CELL(rows, i, 1);
        s->parent_uuid = PL_CELL(rows, i, 2);
        s->root_uuid = PL_CELL(rows, i, 3);
        s->res = apr_array_make(p, 3, sizeof(pl_ac_summary_res_t));
        s->traits = apr_array_make(p, 2, sizeof(const char *));
        if (!is_extra(res, s->id)) {
            APR_ARRAY_PUSH(sums, pl_ac_summary_t *) = s;
        }
        apr_hash_set(by_id, &s->id, sizeof(s->id), s);
    }
    rv = pl_db_select_text(db, p, &rows, apr_pstrcat(p,
        "SELECT i.resource_provider_id, i.resource_class_id, rc.name, "
        "i.total, i.reserved, i.allocation_ratio, u.used "
        "FROM inventories i "
        "JOIN resource_providers rp ON rp.id = i.resource_provider_id "
        "JOIN resource_classes rc ON rc.id = i.resource_class_id "
        "LEFT JOIN (SELECT a.resource_provider_id, a.resource_class_id, "
        "SUM(a.used) AS used FROM allocations a "
        "JOIN resource_providers r2 ON r2.id = a.resource_provider_id "
        "WHERE ", uwhere, " GROUP BY a.resource_provider_id, "
        "a.resource_class_id) u "
        "ON u.resource_provider_id = i.resource_provider_id "
        "AND u.resource_class_id = i.resource_class_id "
        "WHERE ", where, " ORDER BY i.resource_provider_id, "
        "i.resource_class_id", NULL));
    if (rv != APR_SUCCESS) {
        return rv;
    }
    for (i = 0; i < rows->nrows; i++) {
        apr_int64_t id = i64(PL_CELL(rows, i, 0));
        pl_ac_summary_t *s = apr_hash_get(by_id, &id, sizeof(id));
        pl_ac_summary_res_t *r;
        double ratio;

        if (s == NULL) {
            continue;
        }
        ratio = PL_CELL(rows, i, 5) ? strtod(PL_CELL(rows, i, 5), NULL)
                                    : 1.0;
        r = apr_array_push(s->res);
        r->rc_id = i64(PL_CELL(rows, i, 1));
        r->rc_name = PL_CELL(rows, i, 2);
        r->capacity = (apr_int64_t)((double)(i64(PL_CELL(rows, i, 3))
                                             - i64(PL_CELL(rows, i, 4)))
                                    * ratio);
        r->used = i64(PL_CELL(rows, i, 6));
    }
    if (!want_traits) {
        return APR_SUCCESS;
    }
    rv = pl_db_select_text(db, p, &rows, apr_pstrcat(p,
        "SELECT t.resource_provider_id, tr.name "
        "FROM resource_provider_traits t "
        "JOIN traits tr ON tr.id = t.trait_id "
        "JOIN resource_providers rp ON rp.id = t.resource_provider_id "
        "WHERE ", where, " ORDER BY t.resource_provider_id, t.trait_id", NULL));
    if (rv != APR_SUCCESS) {
        return rv;
    }
    for (i = 0; i < rows->nrows; i++) {
        apr_int64_t id = i64(PL_CELL(rows, i, 0));
        pl_ac_summary_t *s = apr_hash_get(by_id, &id, sizeof(id));

        if (s) {
            APR_ARRAY_PUSH(s->traits, const char *) = PL_CELL(rows, i, 1);
        }
    }
    return APR_SUCCESS;
}
