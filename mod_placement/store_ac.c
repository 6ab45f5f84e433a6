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

#include "pl_store_ac.h"

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
 * whether any provider has a parent, and the sharing providers. The
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
            "LIMIT 1) nested",
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

static const char *ids_of_names(apr_pool_t *p, const apr_array_header_t *a)
{
    apr_int64_t *ids = apr_palloc(p, (a->nelts + 1) * sizeof(*ids));
    int i;

    for (i = 0; i < a->nelts; i++) {
        ids[i] = APR_ARRAY_IDX(a, i, pl_ac_name_t).id;
    }
    return pl_db_id_list(p, ids, a->nelts);
}

static int known_id_of(const apr_array_header_t *names, apr_int64_t id)
{
    int i;

    for (i = 0; i < names->nelts; i++) {
        if (APR_ARRAY_IDX(names, i, pl_ac_name_t).id == id) {
            return 1;
        }
    }
    return 0;
}

static apr_int64_t known_id(const apr_array_header_t *names, const char *name)
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
    return n ? pl_db_id_list(p, ids, n) : NULL;
}

/* The known ids of the one-trait sets of required (an AND of any-of
 * sets), each once, into *psingle / *pn; the sets of several traits as
 * their id lists, each list once (a request may repeat a trait hundreds
 * of times: one condition per copy made the statement cost seconds). */
static void trait_sets(apr_pool_t *p, const pl_ac_world_t *w,
                       const apr_array_header_t *required,
                       apr_int64_t **psingle, int *pn,
                       apr_array_header_t **pmulti)
{
    apr_int64_t *single = apr_palloc(p,
                                     (required->nelts + 1) * sizeof(*single));
    apr_array_header_t *multi = apr_array_make(p, 1, sizeof(const char *));
    int i, j, n = 0;

    for (i = 0; i < required->nelts; i++) {
        const apr_array_header_t *set = APR_ARRAY_IDX(required, i,
                                                      apr_array_header_t *);
        const char *ids;

        if (set->nelts == 1) {
            apr_int64_t id = known_id(w->traits,
                                      APR_ARRAY_IDX(set, 0, const char *));

            for (j = 0; j < n && single[j] != id; j++) {
            }
            if (id >= 0 && j == n) {
                single[n++] = id;
            }
            continue;
        }
        if ((ids = known_ids(p, w->traits, set)) == NULL) {
            continue;
        }
        for (j = 0; j < multi->nelts &&
                    strcmp(APR_ARRAY_IDX(multi, j, const char *), ids);
             j++) {
        }
        if (j == multi->nelts) {
            APR_ARRAY_PUSH(multi, const char *) = ids;
        }
    }
    *psingle = single;
    *pn = n;
    *pmulti = multi;
}

/* "rp.root_provider_id IN (...)": the trees with all n traits of ids
 * between their providers, one subquery whatever n */
static const char *trees_with_all(apr_pool_t *p, const apr_int64_t *ids, int n)
{
    if (n == 1) {
        return apr_psprintf(p,
                            "rp.root_provider_id IN (SELECT "
                            "r.root_provider_id FROM "
                            "resource_provider_traits t JOIN "
                            "resource_providers r ON r.id = "
                            "t.resource_provider_id WHERE t.trait_id "
                            "IN (%s))",
                            pl_db_id_list(p, ids, n));
    }
    return apr_psprintf(p,
                        "rp.root_provider_id IN (SELECT "
                        "r.root_provider_id FROM "
                        "resource_provider_traits t JOIN "
                        "resource_providers r ON r.id = "
                        "t.resource_provider_id WHERE t.trait_id "
                        "IN (%s) GROUP BY r.root_provider_id HAVING "
                        "COUNT(DISTINCT t.trait_id) = %d)",
                        pl_db_id_list(p, ids, n), n);
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
            ids = known_ids(
                p, w->aggs,
                APR_ARRAY_IDX(g->member_of->any_of, i, apr_array_header_t *));
            if (ids == NULL) {
                continue;
            }
            ids = apr_psprintf(p,
                               "SELECT resource_provider_id FROM "
                               "resource_provider_aggregates WHERE "
                               "aggregate_id IN (%s)",
                               ids);
            cond = apr_psprintf(p,
                                "%s%s(rp.id IN (%s) OR "
                                "rp.root_provider_id IN (%s))",
                                cond ? cond : "", cond ? " AND " : "", ids,
                                ids);
        }
    }
    if (g->same_provider || w->sharing->nelts == 0) {
        apr_array_header_t *multi;
        apr_int64_t *single;
        int n;

        trait_sets(p, w, g->required, &single, &n, &multi);
        if (n) {
            cond = apr_psprintf(p, "%s%s%s", cond ? cond : "",
                                cond ? " AND " : "",
                                trees_with_all(p, single, n));
        }
        for (i = 0; i < multi->nelts; i++) {
            cond = apr_psprintf(p,
                                "%s%srp.root_provider_id IN (SELECT "
                                "r.root_provider_id FROM "
                                "resource_provider_traits t JOIN "
                                "resource_providers r ON r.id = "
                                "t.resource_provider_id WHERE t.trait_id "
                                "IN (%s))",
                                cond ? cond : "", cond ? " AND " : "",
                                APR_ARRAY_IDX(multi, i, const char *));
        }
    }
    if (g->in_tree) {
        apr_int64_t root = known_id(w->trees, g->in_tree);

        if (root >= 0) {
            cond = apr_psprintf(p,
                                "%s%srp.root_provider_id = %" APR_INT64_T_FMT,
                                cond ? cond : "", cond ? " AND " : "", root);
        }
    }
    return cond;
}

/* For each requested class, the groups that ask for it, OR-ed; one
 * condition for all classes when they share it (the common case: one
 * group), which keeps the query simple for the planner. *pcommon: that
 * shared condition on "rp", NULL if there is none. */
static const char *inv_filter(apr_pool_t *p, const pl_ac_world_t *w,
                              const pl_ac_request_t *req, const char **pcommon)
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
                if (!strcmp(
                        APR_ARRAY_IDX(g->resources, j, pl_qs_resource_t).name,
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
    *pcommon = same && *conds[0] ? conds[0] : NULL;
    if (same) {
        return apr_psprintf(p, "i.resource_class_id IN (%s)%s%s%s",
                            ids_of_names(p, w->rcs), *conds[0] ? " AND (" : "",
                            conds[0], *conds[0] ? ")" : "");
    }
    for (k = 0; k < w->rcs->nelts; k++) {
        where = apr_psprintf(
            p, "%s%s(i.resource_class_id = %" APR_INT64_T_FMT "%s%s%s)",
            where ? where : "", where ? " OR " : "",
            APR_ARRAY_IDX(w->rcs, k, pl_ac_name_t).id,
            *conds[k] ? " AND (" : "", conds[k], *conds[k] ? ")" : "");
    }
    return where;
}

/* "1,2,3" of the ids (other_id or root_id) of links, NULL if none. */
static const char *link_ids(apr_pool_t *p, const apr_array_header_t *links,
                            int other)
{
    apr_int64_t *ids = apr_palloc(p, (links->nelts + 1) * sizeof(*ids));
    int i;

    for (i = 0; i < links->nelts; i++) {
        const pl_ac_link_t *l = &APR_ARRAY_IDX(links, i, pl_ac_link_t);

        ids[i] = other ? l->other_id : l->root_id;
    }
    return links->nelts ? pl_db_id_list(p, ids, links->nelts) : NULL;
}

/* sql (may be NULL) UNION the providers of ids (may be NULL). */
static const char *union_ids(apr_pool_t *p, const char *sql, const char *ids)
{
    if (ids == NULL) {
        return sql;
    }
    return apr_pstrcat(p, sql ? sql : "", sql ? " UNION " : "",
                       "SELECT id FROM resource_providers WHERE id IN (", ids,
                       ")", NULL);
}

/* The candidate roots of sql that also have root_required's traits and
 * none of its forbidden ones (unknown names are left to the engine). */
static const char *root_filter(apr_pool_t *p, const pl_ac_request_t *req,
                               const pl_ac_world_t *w, const char *sql)
{
    const pl_qs_traits_t *rr = req->root_required;
    const char *where = NULL, *ids;
    apr_int64_t *single;
    int i, j, n = 0;

    if (rr == NULL) {
        return sql;
    }
    /* each known trait once, all of them in one subquery */
    single = apr_palloc(p, (rr->required->nelts + 1) * sizeof(*single));
    for (i = 0; i < rr->required->nelts; i++) {
        apr_int64_t id = known_id(w->traits,
                                  APR_ARRAY_IDX(rr->required, i, const char *));

        for (j = 0; j < n && single[j] != id; j++) {
        }
        if (id >= 0 && j == n) {
            single[n++] = id;
        }
    }
    if (n == 1) {
        where = apr_psprintf(p,
                             "id IN (SELECT resource_provider_id "
                             "FROM resource_provider_traits WHERE "
                             "trait_id = %" APR_INT64_T_FMT ")",
                             single[0]);
    }
    else if (n > 1) {
        where = apr_psprintf(p,
                             "id IN (SELECT resource_provider_id "
                             "FROM resource_provider_traits WHERE "
                             "trait_id IN (%s) GROUP BY "
                             "resource_provider_id HAVING "
                             "COUNT(DISTINCT trait_id) = %d)",
                             pl_db_id_list(p, single, n), n);
    }
    if ((ids = known_ids(p, w->traits, rr->forbidden)) != NULL) {
        where = apr_psprintf(p,
                             "%s%sid NOT IN (SELECT resource_provider_id "
                             "FROM resource_provider_traits WHERE trait_id "
                             "IN (%s))",
                             where ? where : "", where ? " AND " : "", ids);
    }
    return where ? apr_psprintf(p, "SELECT id FROM (%s) r WHERE %s", sql, where)
                 : sql;
}

/*
 * The roots of the trees to read whole: those with a provider of some
 * requested class that could pass its groups' conditions, the sharing
 * providers' own, and the trees they serve when the traits of those
 * roots matter (root_required). NULL: none.
 */
static const char *roots_sql(apr_pool_t *p, const pl_ac_request_t *req,
                             const pl_ac_world_t *w, int max_trees)
{
    const char *sql = NULL, *common, *filter;

    /* a condition every class shares finds the trees without reading
     * their inventories: the engine looks at those anyway */
    if (w->rcs->nelts) {
        filter = inv_filter(p, w, req, &common);
        sql = common
                  ? apr_pstrcat(p,
                                "SELECT rp.root_provider_id AS id "
                                "FROM resource_providers rp WHERE ",
                                common, NULL)
                  : apr_pstrcat(p,
                                "SELECT rp.root_provider_id AS id "
                                "FROM inventories i JOIN resource_providers rp "
                                "ON rp.id = i.resource_provider_id WHERE ",
                                filter, NULL);
        sql = root_filter(p, req, w, sql);
        if (max_trees > 0 && w->sharing->nelts == 0) {
            return apr_psprintf(p,
                                "SELECT DISTINCT id FROM (%s) c "
                                "ORDER BY id LIMIT %d",
                                sql, max_trees);
        }
    }
    sql = union_ids(p, sql, link_ids(p, w->sharing, 0));
    if (req->root_required) {
        sql = union_ids(p, sql, link_ids(p, w->anchors, 1));
    }
    return sql;
}

/*
 * One statement reads the trees whole, so the engine and the provider
 * summaries share one trip and one plan: every inventory with its usage
 * and class name (kind 1), their providers (2), every trait with its
 * name (3) and the memberships of the requested aggregates (4). The
 * inventory branch comes first so that every dialect types the columns
 * from it. Its text only depends on the
 * ids the request names, so the database keeps its plan. Unordered:
 * sorting here costs the database more than it costs us.
 */
static const char *trees_sql(apr_pool_t *p, const pl_ac_world_t *w,
                             const char *roots)
{
    return apr_pstrcat(
        p, "WITH roots AS (", roots,
        "), "
        "provs AS (SELECT id, uuid, parent_provider_id, root_provider_id "
        "FROM resource_providers WHERE root_provider_id IN "
        "(SELECT id FROM roots)) "
        "SELECT 1, i.resource_provider_id, i.resource_class_id, i.total, "
        "i.reserved, i.min_unit, i.max_unit, i.step_size, "
        "i.allocation_ratio, u.used, rc.name "
        "FROM inventories i JOIN provs ON provs.id = i.resource_provider_id "
        "JOIN resource_classes rc ON rc.id = i.resource_class_id "
        "LEFT JOIN (SELECT a.resource_provider_id, a.resource_class_id, "
        "SUM(a.used) AS used FROM allocations a "
        "JOIN provs ON provs.id = a.resource_provider_id "
        "GROUP BY a.resource_provider_id, a.resource_class_id) u "
        "ON u.resource_provider_id = i.resource_provider_id "
        "AND u.resource_class_id = i.resource_class_id "
        "UNION ALL SELECT 2, id, parent_provider_id, root_provider_id, "
        "NULL, NULL, NULL, NULL, NULL, NULL, uuid FROM provs "
        "UNION ALL SELECT 3, t.resource_provider_id, t.trait_id, NULL, "
        "NULL, NULL, NULL, NULL, NULL, NULL, tr.name "
        "FROM resource_provider_traits t "
        "JOIN provs ON provs.id = t.resource_provider_id "
        "JOIN traits tr ON tr.id = t.trait_id",
        w->aggs->nelts
            ? apr_pstrcat(
                  p,
                  " UNION ALL SELECT 4, "
                  "g.resource_provider_id, g.aggregate_id, NULL, NULL, NULL, "
                  "NULL, NULL, NULL, NULL, NULL "
                  "FROM resource_provider_aggregates g "
                  "JOIN provs ON provs.id = g.resource_provider_id "
                  "WHERE g.aggregate_id IN (",
                  ids_of_names(p, w->aggs), ")", NULL)
            : "",
        NULL);
}

/* The kinds of rows of trees_sql. */
enum { ROW_INVENTORY = 1, ROW_PROVIDER, ROW_TRAIT, ROW_AGGREGATE };

static int cmp_i64(apr_int64_t a, apr_int64_t b)
{
    return a < b ? -1 : a > b;
}

static int by_prov(const void *a, const void *b)
{
    return cmp_i64(((const pl_ac_prov_t *)a)->id,
                   ((const pl_ac_prov_t *)b)->id);
}

static int by_inv(const void *a, const void *b)
{
    const pl_ac_inv_t *x = a, *y = b;

    return x->rp_id != y->rp_id ? cmp_i64(x->rp_id, y->rp_id)
                                : cmp_i64(x->rc_id, y->rc_id);
}

static int by_link(const void *a, const void *b)
{
    const pl_ac_link_t *x = a, *y = b;

    return x->rp_id != y->rp_id ? cmp_i64(x->rp_id, y->rp_id)
                                : cmp_i64(x->other_id, y->other_id);
}

static void sort_array(apr_array_header_t *a,
                       int (*cmp)(const void *, const void *))
{
    if (a->nelts > 1) {
        qsort(a->elts, (size_t)a->nelts, (size_t)a->elt_size, cmp);
    }
}

/* The providers in the order of ids, indexed once they stopped moving. */
static void index_provs(pl_ac_world_t *w)
{
    int i;

    sort_array(w->provs, by_prov);
    for (i = 0; i < w->provs->nelts; i++) {
        pl_ac_prov_t *pv = &APR_ARRAY_IDX(w->provs, i, pl_ac_prov_t);

        apr_hash_set(w->prov_by_id, &pv->id, sizeof(pv->id), pv);
    }
}

/* The rest in the order of ids too, as the engine and the summaries
 * want them. */
static void sort_world(pl_ac_world_t *w)
{
    sort_array(w->invs, by_inv);
    sort_array(w->all_traits, by_link);
    sort_array(w->rp_traits, by_link);
    sort_array(w->rp_aggs, by_link);
    sort_array(w->parents, by_link);
}

static int count_roots(const pl_ac_world_t *w)
{
    int i, n = 0;

    for (i = 0; i < w->provs->nelts; i++) {
        const pl_ac_prov_t *pv = &APR_ARRAY_IDX(w->provs, i, pl_ac_prov_t);

        n += pv->id == pv->root_id;
    }
    return n;
}

static apr_int64_t root_of(const pl_ac_world_t *w, apr_int64_t id)
{
    const pl_ac_prov_t *pv = apr_hash_get(w->prov_by_id, &id, sizeof(id));

    return pv ? pv->root_id : id;
}

static void push_link(apr_array_header_t *out, apr_int64_t rp_id,
                      apr_int64_t other)
{
    pl_ac_link_t *l = apr_array_push(out);

    l->rp_id = rp_id;
    l->other_id = other;
}

/* The roots of links, once the providers are known. */
static void set_link_roots(const pl_ac_world_t *w, apr_array_header_t *links)
{
    int i;

    for (i = 0; i < links->nelts; i++) {
        pl_ac_link_t *l = &APR_ARRAY_IDX(links, i, pl_ac_link_t);

        l->root_id = root_of(w, l->rp_id);
    }
}

/* names: a few classes or traits, each once */
static void add_name(apr_pool_t *p, apr_array_header_t *names, apr_int64_t id,
                     const char *name)
{
    if (!known_id_of(names, id)) {
        push_name(names, id, apr_pstrdup(p, name));
    }
}

static void add_inventory(pl_ac_world_t *w, const char *const *cells)
{
    pl_ac_inv_t *inv = apr_array_push(w->invs);

    inv->rp_id = i64(cells[1]);
    inv->rc_id = i64(cells[2]);
    inv->total = i64(cells[3]);
    inv->reserved = i64(cells[4]);
    inv->min_unit = i64(cells[5]);
    inv->max_unit = i64(cells[6]);
    inv->step_size = i64(cells[7]);
    inv->allocation_ratio = cells[8] ? strtod(cells[8], NULL) : 1.0;
    inv->used = i64(cells[9]);
}

typedef struct tree_reader_t {
    apr_pool_t *p;
    pl_ac_world_t *w;
} tree_reader_t;

/* One row of trees_sql into the world; roots are set once all are in. */
static apr_status_t tree_row(void *baton, int ncols, const char *const *cells)
{
    tree_reader_t *r = baton;
    pl_ac_world_t *w = r->w;
    apr_int64_t rp_id = i64(cells[1]), other = i64(cells[2]);
    pl_ac_prov_t *pv;

    switch (i64(cells[0])) {
    case ROW_INVENTORY:
        add_inventory(w, cells);
        add_name(r->p, w->rc_names, other, cells[10]);
        break;
    case ROW_PROVIDER:
        pv = apr_array_push(w->provs);
        pv->id = rp_id;
        pv->parent_id = other;
        pv->root_id = i64(cells[3]);
        pv->uuid = apr_pstrdup(r->p, cells[10]);
        if (other) {
            push_link(w->parents, rp_id, other);
        }
        break;
    case ROW_TRAIT:
        push_link(w->all_traits, rp_id, other);
        add_name(r->p, w->trait_names, other, cells[10]);
        if (known_id_of(w->traits, other)) {
            push_link(w->rp_traits, rp_id, other);
        }
        break;
    case ROW_AGGREGATE:
        push_link(w->rp_aggs, rp_id, other);
        break;
    }
    return APR_SUCCESS;
}

static apr_status_t read_trees(pl_db_t *db, apr_pool_t *p, const char *roots,
                               pl_ac_world_t *w)
{
    tree_reader_t r = { p, w };
    apr_status_t rv;
    int i;

    rv = pl_db_select_each(db, p, trees_sql(p, w, roots), tree_row, &r);
    if (rv != APR_SUCCESS) {
        return rv;
    }
    index_provs(w);
    for (i = 0; i < w->invs->nelts; i++) {
        pl_ac_inv_t *inv = &APR_ARRAY_IDX(w->invs, i, pl_ac_inv_t);

        inv->root_id = root_of(w, inv->rp_id);
    }
    set_link_roots(w, w->parents);
    set_link_roots(w, w->all_traits);
    set_link_roots(w, w->rp_traits);
    set_link_roots(w, w->rp_aggs);
    sort_world(w);
    return APR_SUCCESS;
}

apr_status_t pl_store_ac_world(pl_db_t *db, apr_pool_t *p,
                               const pl_ac_request_t *req, int max_trees,
                               pl_ac_world_t **pworld)
{
    pl_ac_world_t *w = pl_ac_world_make(p);
    const char *roots;
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
    roots = roots_sql(p, req, w, max_trees);
    if (roots && (rv = read_trees(db, p, roots, w)) != APR_SUCCESS) {
        return rv;
    }
    if (max_trees > 0 && w->sharing->nelts == 0) {
        w->truncated = count_roots(w) >= max_trees;
    }
    *pworld = w;
    return APR_SUCCESS;
}
