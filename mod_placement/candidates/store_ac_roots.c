/* Licensed under the Apache License, Version 2.0.
 *
 * store_ac_roots.c: which trees a candidate request reads, as the text
 * of a query of their root ids for store_ac_trees.c. Without a bound
 * (or with sharing providers, which join trees) every tree that could
 * serve is found in one set-based query. With a bound, the roots are
 * walked in id order and each tree is probed for what every candidate
 * needs, so the walk stops after the first max_trees that pass: the
 * work follows the bound, not the size of the cloud.
 *
 * Every value in the text is an integer formatted here.
 */
#include <string.h>
#include <apr_hash.h>
#include <apr_strings.h>

#include "pl_id_sets.h"
#include "pl_store_ac_private.h"
#include "pl_str.h"

const char *pl_store_ac_ids_of_names(apr_pool_t *p, const apr_array_header_t *a)
{
    apr_int64_t *ids = apr_palloc(p, (a->nelts + 1) * sizeof(*ids));
    int i;

    for (i = 0; i < a->nelts; i++) {
        ids[i] = APR_ARRAY_IDX(a, i, pl_ac_name_t).id;
    }
    return pl_db_id_list(p, ids, a->nelts);
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

/* "1,2" for the names of set known to the database, each id once, and
 * their count in *pn; NULL if none is */
static const char *unique_known(apr_pool_t *p, const apr_array_header_t *names,
                                const apr_array_header_t *set, int *pn)
{
    apr_int64_t *ids = apr_palloc(p, (set->nelts + 1) * sizeof(*ids));
    int i, j, n = 0;

    for (i = 0; i < set->nelts; i++) {
        apr_int64_t id = known_id(names, APR_ARRAY_IDX(set, i, const char *));

        for (j = 0; j < n && ids[j] != id; j++) {
        }
        if (id >= 0 && j == n) {
            ids[n++] = id;
        }
    }
    *pn = n;
    return n ? pl_db_id_list(p, ids, n) : NULL;
}

static const char *known_ids(apr_pool_t *p, const apr_array_header_t *names,
                             const apr_array_header_t *set)
{
    int n;

    return unique_known(p, names, set, &n);
}

/* Any-of sets a statement tests at most (pl_id_sets_sql: the smallest;
 * every required trait and aggregate of one name is tested). On
 * PostgreSQL each costs a test of every row the statement reads (about
 * 0.1 us: 200 sets took 0.4 s more in a cloud of 17,000 providers),
 * where the engine, which tests them all on the trees read, takes a few
 * ns a provider; a tree that passes the sets tested but not another is
 * read for nothing, as one without the request's traits would be. */
#define SQL_ANY_SETS 8

void pl_store_ac_add_named_sets(apr_pool_t *p, pl_id_sets_t *s,
                                apr_hash_t *by_name,
                                const apr_array_header_t *sets)
{
    int i, j, n;

    if (by_name == NULL) {
        return;
    }
    for (i = 0; i < sets->nelts; i++) {
        const apr_array_header_t *set = APR_ARRAY_IDX(sets, i,
                                                      apr_array_header_t *);
        apr_int64_t *ids = apr_palloc(p, (set->nelts + 1) * sizeof(*ids));

        for (n = 0, j = 0; j < set->nelts; j++) {
            const pl_ac_name_t *name = apr_hash_get(
                by_name, APR_ARRAY_IDX(set, j, const char *),
                APR_HASH_KEY_STRING);

            if (name) {
                ids[n++] = name->id;
            }
        }
        pl_id_sets_add(s, ids, n);
    }
}

apr_hash_t *pl_store_ac_names_by_name(apr_pool_t *p,
                                      const apr_array_header_t *names)
{
    apr_hash_t *h = apr_hash_make(p);
    int i;

    for (i = 0; i < names->nelts; i++) {
        pl_ac_name_t *n = &APR_ARRAY_IDX(names, i, pl_ac_name_t);

        apr_hash_set(h, n->name, APR_HASH_KEY_STRING, n);
    }
    return h;
}

/* Upstream answers a request that names an unknown trait with 400, or
 * with nothing when a group ends it first (no provider in its
 * member_of, none with room): the engine decides which, in upstream's
 * order, which no trait filter may hide providers from (the checks
 * over the whole database are store_ac_early.c's). */
apr_hash_t *pl_store_ac_filter_traits(apr_pool_t *p, const pl_ac_request_t *req,
                                      const pl_ac_world_t *w)
{
    apr_hash_t *by_name = pl_store_ac_names_by_name(p, w->traits);
    int i, j, k;

    for (i = 0; i < req->groups->nelts; i++) {
        const pl_ac_group_t *g = APR_ARRAY_IDX(req->groups, i, pl_ac_group_t *);

        for (j = 0; j < g->required->nelts; j++) {
            const apr_array_header_t *set = APR_ARRAY_IDX(g->required, j,
                                                          apr_array_header_t *);

            for (k = 0; k < set->nelts; k++) {
                if (!apr_hash_get(by_name, APR_ARRAY_IDX(set, k, const char *),
                                  APR_HASH_KEY_STRING)) {
                    return NULL;
                }
            }
        }
        for (j = 0; j < g->forbidden->nelts; j++) {
            if (!apr_hash_get(by_name,
                              APR_ARRAY_IDX(g->forbidden, j, const char *),
                              APR_HASH_KEY_STRING)) {
                return NULL;
            }
        }
    }
    return by_name;
}

/* "rp.root_provider_id IN (...)": the trees whose providers have the
 * traits of s between them, in one subquery however many sets */
static const char *trees_with(apr_pool_t *p, const pl_id_sets_t *s)
{
    const char *ids, *test;

    pl_id_sets_sql(s, SQL_ANY_SETS, "t.trait_id", &ids, &test);
    return apr_psprintf(p,
                        "rp.root_provider_id IN (SELECT r.root_provider_id "
                        "FROM resource_provider_traits t JOIN "
                        "resource_providers r ON r.id = "
                        "t.resource_provider_id WHERE t.trait_id IN (%s)%s)",
                        ids,
                        test ? apr_pstrcat(p,
                                           " GROUP BY r.root_provider_id "
                                           "HAVING ",
                                           test, NULL)
                             : "");
}

/* "rp" or its root is in the aggregates of s: a single set as the
 * provider's or the root's memberships; several in one subquery of
 * both, by provider. */
static const char *members_of(apr_pool_t *p, const pl_id_sets_t *s)
{
    const char *ids, *test;

    pl_id_sets_sql(s, SQL_ANY_SETS, "m.agg", &ids, &test);
    if (test == NULL) {
        ids = apr_psprintf(p,
                           "SELECT resource_provider_id FROM "
                           "resource_provider_aggregates WHERE "
                           "aggregate_id IN (%s)",
                           ids);
        return apr_psprintf(p, "(rp.id IN (%s) OR rp.root_provider_id IN (%s))",
                            ids, ids);
    }
    return apr_psprintf(
        p,
        "rp.id IN (SELECT m.id FROM (SELECT a.resource_provider_id AS id, "
        "a.aggregate_id AS agg FROM resource_provider_aggregates a WHERE "
        "a.aggregate_id IN (%s) UNION ALL SELECT o.id, a.aggregate_id FROM "
        "resource_provider_aggregates a JOIN resource_providers o ON "
        "o.root_provider_id = a.resource_provider_id WHERE a.aggregate_id "
        "IN (%s)) m GROUP BY m.id HAVING %s)",
        ids, ids, test);
}

/*
 * With sharing providers: a condition on "rp" that every provider group
 * g could use holds: a superset, so the engine still decides, but far
 * fewer rows travel. member_of: the provider or its root is in the
 * aggregates; required traits, for a group on one provider: some
 * provider of its tree has them (the others may take the trait from a
 * sharing provider); in_tree: the tree. NULL: no condition.
 */
static const char *group_cond(apr_pool_t *p, const pl_ac_world_t *w,
                              apr_hash_t *traits_by_name,
                              const pl_ac_group_t *g)
{
    apr_array_header_t *conds = apr_array_make(p, 3, sizeof(const char *));
    pl_id_sets_t s;

    if (g->member_of) {
        pl_id_sets_init(&s, p);
        pl_store_ac_add_named_sets(p, &s, pl_store_ac_names_by_name(p, w->aggs),
                                   g->member_of->any_of);
        if (!pl_id_sets_empty(&s)) {
            APR_ARRAY_PUSH(conds, const char *) = members_of(p, &s);
        }
    }
    if (g->same_provider) {
        pl_id_sets_init(&s, p);
        pl_store_ac_add_named_sets(p, &s, traits_by_name, g->required);
        if (!pl_id_sets_empty(&s)) {
            APR_ARRAY_PUSH(conds, const char *) = trees_with(p, &s);
        }
    }
    if (g->in_tree) {
        apr_int64_t root = known_id(w->trees, g->in_tree);

        if (root >= 0) {
            APR_ARRAY_PUSH(conds, const char *) = apr_psprintf(
                p, "rp.root_provider_id = %" APR_INT64_T_FMT, root);
        }
    }
    return conds->nelts ? pl_str_join(p, conds, " AND ") : NULL;
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
    apr_hash_t *traits_by_name = pl_store_ac_filter_traits(p, req, w);
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
            if ((cond = group_cond(p, w, traits_by_name, g)) == NULL) {
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
                            pl_store_ac_ids_of_names(p, w->rcs),
                            *conds[0] ? " AND (" : "", conds[0],
                            *conds[0] ? ")" : "");
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
    int n;

    if (rr == NULL || pl_store_ac_filter_traits(p, req, w) == NULL) {
        return sql;
    }
    /* each known trait once, all of them in one subquery */
    if ((ids = unique_known(p, w->traits, rr->required, &n)) != NULL) {
        where = apr_psprintf(p,
                             "id IN (SELECT resource_provider_id "
                             "FROM resource_provider_traits WHERE "
                             "trait_id IN (%s) GROUP BY "
                             "resource_provider_id HAVING "
                             "COUNT(DISTINCT trait_id) = %d)",
                             ids, n);
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
 * With sharing providers, which can give a tree what it lacks, every
 * root of a tree to read whole, in one set: those with a provider of
 * some requested class that could pass its groups' conditions, the
 * sharing providers' own, and the trees they serve when the traits of
 * those roots matter (root_required). NULL: none.
 */
static const char *all_roots(apr_pool_t *p, const pl_ac_request_t *req,
                             const pl_ac_world_t *w)
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
    }
    sql = union_ids(p, sql, link_ids(p, w->sharing, 0));
    if (req->root_required) {
        sql = union_ids(p, sql, link_ids(p, w->anchors, 1));
    }
    return sql;
}

/* What the providers of a tree must have between them: ids of
 * table.col, as sets. */
typedef struct tree_need_t {
    const char *table;
    const char *col;
    const pl_id_sets_t *sets;
    /* inventories: the smallest amount asked of each class (pl_ac_name_t
     * of the class id, amount in a string), or NULL */
    const apr_array_header_t *asks;
} tree_need_t;

static tree_need_t *add_need(apr_array_header_t *needs, const char *table,
                             const char *col, const pl_id_sets_t *sets)
{
    tree_need_t *t;

    if (pl_id_sets_empty(sets)) {
        return NULL;
    }
    t = apr_array_push(needs);
    t->table = table;
    t->col = col;
    t->sets = sets;
    t->asks = NULL;
    return t;
}

/* The ids of need t for its IN list, and the test of the rows of a tree
 * from table x (NULL: any row will do). */
static void need_sql(apr_pool_t *p, const tree_need_t *t, const char *x,
                     const char **pids, const char **ptest)
{
    pl_id_sets_sql(t->sets, SQL_ANY_SETS, apr_pstrcat(p, x, ".", t->col, NULL),
                   pids, ptest);
}

/* Amounts at most this big are checked against a provider's room in
 * SQL, where doubles hold them exactly (larger ones only in the
 * engine). */
#define ROOM_CHECKED_MAX (APR_INT64_C(1) << 52)

/* For each requested class, the smallest amount a group asks of it: one
 * provider of the tree must be large enough for it (a group takes a
 * class from one provider). */
static apr_array_header_t *
smallest_asks(apr_pool_t *p, const pl_ac_request_t *req, const pl_ac_world_t *w)
{
    apr_array_header_t *asks = apr_array_make(p, w->rcs->nelts + 1,
                                              sizeof(pl_ac_name_t));
    apr_int64_t *least = apr_palloc(p, (w->rcs->nelts + 1) * sizeof(*least));
    int i, j, k;

    for (k = 0; k < w->rcs->nelts; k++) {
        least[k] = APR_INT64_MAX;
    }
    for (i = 0; i < req->groups->nelts; i++) {
        const pl_ac_group_t *g = APR_ARRAY_IDX(req->groups, i, pl_ac_group_t *);

        for (j = 0; j < g->resources->nelts; j++) {
            const pl_qs_resource_t *r = &APR_ARRAY_IDX(g->resources, j,
                                                       pl_qs_resource_t);

            for (k = 0; k < w->rcs->nelts; k++) {
                if (!strcmp(APR_ARRAY_IDX(w->rcs, k, pl_ac_name_t).name,
                            r->name) &&
                    r->amount < least[k]) {
                    least[k] = r->amount;
                }
            }
        }
    }
    for (k = 0; k < w->rcs->nelts; k++) {
        pl_ac_name_t *a = apr_array_push(asks);

        a->id = APR_ARRAY_IDX(w->rcs, k, pl_ac_name_t).id;
        a->name = least[k] <= ROOM_CHECKED_MAX ? pl_db_i64(p, least[k]) : NULL;
    }
    return asks;
}

/* " AND (<the inventory row x could take the amount asked of its
 * class>)": max_unit and (total - reserved) * allocation_ratio, as the
 * engine checks a single amount, but without the usage: summing it for
 * every row walked cost four times the walk (a subquery per row), and
 * a host too small for the request is the common case to skip early
 * (the engine still finds the full ones). */
static const char *room_cond(apr_pool_t *p, const tree_need_t *t, const char *x)
{
    const char *any = "";
    int k;

    if (t->asks == NULL) {
        return "";
    }
    for (k = 0; k < t->asks->nelts; k++) {
        const pl_ac_name_t *a = &APR_ARRAY_IDX(t->asks, k, pl_ac_name_t);
        const char *room = a->name ? apr_psprintf(p,
                                                  " AND %s.max_unit >= %s AND "
                                                  "(%s.total - %s.reserved) * "
                                                  "%s.allocation_ratio >= %s",
                                                  x, a->name, x, x, x, a->name)
                                   : "";

        any = apr_psprintf(
            p, "%s%s(%s.resource_class_id = %" APR_INT64_T_FMT "%s)", any,
            k ? " OR " : "", x, a->id, room);
    }
    return apr_pstrcat(p, " AND (", any, ")", NULL);
}

/* What every tree that can give a candidate has, when no sharing
 * provider can join trees. */
typedef struct tree_filter_t {
    apr_array_header_t *needs; /* tree_need_t: between its providers */
    apr_array_header_t *roots; /* apr_int64_t: in_tree, the root is each */
    const char *root_all;      /* root_required: ids all on the root */
    int root_n;                /* how many */
    const char *root_none;     /* root_required: none of ids on the root */
} tree_filter_t;

/*
 * What every tree that can give a candidate has, when no sharing
 * provider can join it: the aggregates and traits of every group
 * between its providers (one need of each, however many groups and
 * sets), the tree of each; when no group names aggregates or traits,
 * every requested class, on a provider large enough for the smallest
 * amount asked of it (hosts too small would otherwise be read tree
 * after tree; the classes are not looked at when there are filters: a
 * tree that passes them nearly always has them, and the engine checks
 * anyway); root_required's traits on the root.
 */
static void tree_filter(apr_pool_t *p, const pl_ac_request_t *req,
                        const pl_ac_world_t *w, tree_filter_t *f)
{
    const pl_qs_traits_t *rr = req->root_required;
    apr_hash_t *aggs_by_name = pl_store_ac_names_by_name(p, w->aggs),
               *traits_by_name = pl_store_ac_filter_traits(p, req, w);
    pl_id_sets_t *aggs = apr_palloc(p, sizeof(*aggs)),
                 *traits = apr_palloc(p, sizeof(*traits)),
                 *rcs = apr_palloc(p, sizeof(*rcs));
    apr_int64_t root, rc;
    tree_need_t *t;
    int i;

    memset(f, 0, sizeof(*f));
    f->needs = apr_array_make(p, 4, sizeof(tree_need_t));
    f->roots = apr_array_make(p, 1, sizeof(apr_int64_t));
    pl_id_sets_init(aggs, p);
    pl_id_sets_init(traits, p);
    for (i = 0; i < req->groups->nelts; i++) {
        const pl_ac_group_t *g = APR_ARRAY_IDX(req->groups, i, pl_ac_group_t *);

        if (g->member_of) {
            pl_store_ac_add_named_sets(p, aggs, aggs_by_name,
                                       g->member_of->any_of);
        }
        pl_store_ac_add_named_sets(p, traits, traits_by_name, g->required);
        if (g->in_tree && (root = known_id(w->trees, g->in_tree)) >= 0) {
            APR_ARRAY_PUSH(f->roots, apr_int64_t) = root;
        }
    }
    add_need(f->needs, "resource_provider_aggregates", "aggregate_id", aggs);
    add_need(f->needs, "resource_provider_traits", "trait_id", traits);
    if (f->needs->nelts == 0) {
        /* every class */
        pl_id_sets_init(rcs, p);
        for (i = 0; i < w->rcs->nelts; i++) {
            rc = APR_ARRAY_IDX(w->rcs, i, pl_ac_name_t).id;
            pl_id_sets_add(rcs, &rc, 1);
        }
        if ((t = add_need(f->needs, "inventories", "resource_class_id", rcs)) !=
            NULL) {
            t->asks = smallest_asks(p, req, w);
        }
    }
    if (rr && traits_by_name) {
        f->root_all = unique_known(p, w->traits, rr->required, &f->root_n);
        f->root_none = known_ids(p, w->traits, rr->forbidden);
    }
}

/* " AND <the root col passes in_tree and root_required>". whole: for
 * the set query, which reads every matching provider anyway: there the
 * forbidden traits are a NOT EXISTS, which PostgreSQL runs as one hashed
 * anti-join (nova's root_required=!COMPUTE_STATUS_DISABLED at 1,000
 * providers: the statement 2.4 ms instead of 4.3), where the walk wants
 * a probe per root it passes (see walk_sql). */
static const char *root_conds(apr_pool_t *p, const tree_filter_t *f,
                              const char *col, int whole)
{
    const char *conds = "";
    int i;

    for (i = 0; i < f->roots->nelts; i++) {
        conds = apr_psprintf(p, "%s AND %s = %" APR_INT64_T_FMT, conds, col,
                             APR_ARRAY_IDX(f->roots, i, apr_int64_t));
    }
    if (f->root_all) {
        conds = apr_psprintf(p,
                             "%s AND (SELECT CASE WHEN COUNT(DISTINCT "
                             "x.trait_id) = %d THEN 1 END FROM "
                             "resource_provider_traits x WHERE "
                             "x.resource_provider_id = %s AND x.trait_id IN "
                             "(%s)) IS NOT NULL",
                             conds, f->root_n, col, f->root_all);
    }
    if (f->root_none && whole) {
        conds = apr_psprintf(p,
                             "%s AND NOT EXISTS (SELECT 1 FROM "
                             "resource_provider_traits x WHERE "
                             "x.resource_provider_id = %s AND x.trait_id IN "
                             "(%s))",
                             conds, col, f->root_none);
    }
    else if (f->root_none) {
        conds = apr_psprintf(p,
                             "%s AND (SELECT CASE WHEN COUNT(*) = 0 THEN 1 END "
                             "FROM resource_provider_traits x WHERE "
                             "x.resource_provider_id = %s AND x.trait_id IN "
                             "(%s)) IS NOT NULL",
                             conds, col, f->root_none);
    }
    return conds;
}

/*
 * The walk: the next max_trees roots after after, in id order, each
 * probed by one scalar subquery of the root, the tree's providers joined
 * once to each table of a need. Every database runs it per root as a
 * few index probes (about 6 us a root on PostgreSQL at 100,000
 * providers; a subquery per need cost twice as much), and PostgreSQL,
 * which takes IS NOT NULL for a loose filter, walks the roots in id
 * order and stops at the limit instead of first joining whole tables (an
 * EXISTS, which it plans as a join, sorted 50,000 trait rows there).
 * A root: on PostgreSQL the provider that is its own root. Said as
 * parent IS NULL, PostgreSQL took the parent index and the id range as a
 * bitmap, probed every root left and sorted them before the limit
 * (nova's request at 2,500 computes: 1,714 roots probed in 22 ms for
 * the 730 asked); said so, only the primary key serves the walk, in
 * order, and it stops at the limit (745 roots, 12 ms). Every provider
 * names its root (the trees statement reads trees by root_provider_id).
 * MariaDB and SQLite keep parent IS NULL: the parent index's NULL range
 * is in id order there, and MariaDB reads it up to the limit and no
 * further (docs/benchmarks.md, the walk at 100,000 providers).
 */
static const char *walk_sql(apr_pool_t *p, const tree_filter_t *f,
                            int max_trees, apr_int64_t after,
                            pl_db_dialect_e dialect)
{
    const char *joins = "", *tests = "";
    const char *is_root = dialect == PL_DB_PGSQL
                              ? "r.root_provider_id = r.id"
                              : "r.parent_provider_id IS NULL";
    int i;

    for (i = 0; i < f->needs->nelts; i++) {
        const tree_need_t *t = &APR_ARRAY_IDX(f->needs, i, tree_need_t);
        const char *x = apr_psprintf(p, "x%d", i), *ids, *test;

        need_sql(p, t, x, &ids, &test);
        joins = apr_psprintf(p,
                             "%s LEFT JOIN %s %s ON %s.resource_provider_id "
                             "= t.id AND %s.%s IN (%s)%s",
                             joins, t->table, x, x, x, t->col, ids,
                             room_cond(p, t, x));
        tests = apr_psprintf(
            p, "%s%s%s", tests, i ? " AND " : "",
            test ? test
                 : apr_psprintf(p, "COUNT(DISTINCT %s.%s) >= 1", x, t->col));
    }
    return apr_psprintf(
        p,
        "SELECT r.id FROM resource_providers r WHERE "
        "%s AND r.id > %" APR_INT64_T_FMT "%s AND (SELECT CASE WHEN %s "
        "THEN 1 END FROM resource_providers t%s WHERE "
        "t.root_provider_id = r.id) IS NOT NULL ORDER BY r.id "
        "LIMIT %d",
        is_root, after, root_conds(p, f, "r.id", 0), tests, joins, max_trees);
}

/* The roots of the trees that meet need i, more conditions on them
 * (where, on t<i>.root_provider_id) included. */
static const char *need_set(apr_pool_t *p, const tree_filter_t *f, int i,
                            const char *where)
{
    const tree_need_t *t = &APR_ARRAY_IDX(f->needs, i, tree_need_t);
    const char *x = apr_psprintf(p, "x%d", i), *ids, *test;

    need_sql(p, t, x, &ids, &test);
    return apr_psprintf(
        p,
        "SELECT t%d.root_provider_id AS id FROM resource_providers t%d JOIN "
        "%s %s ON %s.resource_provider_id = t%d.id WHERE %s.%s IN "
        "(%s)%s%s%s",
        i, i, t->table, x, x, i, x, t->col, ids, room_cond(p, t, x), where,
        test ? apr_psprintf(p, " GROUP BY t%d.root_provider_id HAVING %s", i,
                            test)
             : "");
}

/*
 * The same trees as one set: the roots of the first need's rows, kept
 * when they are in the sets of the others (each the join of an index
 * range, hashed) and pass in_tree and root_required. A root may come
 * more than once. Cheaper than the walk in a small cloud: a provider
 * that matches costs it about 1 us on PostgreSQL, where a root walked
 * costs 6; but it cannot stop early.
 */
static const char *set_sql(apr_pool_t *p, const tree_filter_t *f)
{
    const char *where = root_conds(p, f, "t0.root_provider_id", 1);
    int i;

    for (i = 1; i < f->needs->nelts; i++) {
        where = apr_psprintf(p, "%s AND t0.root_provider_id IN (%s)", where,
                             need_set(p, f, i, ""));
    }
    return need_set(p, f, 0, where);
}

/* Walk the roots when the cloud is larger than this many times the
 * bound: a walk costs a few index probes per root it passes (about 6 us
 * each on PostgreSQL), the set-based query a little for every provider
 * that matches a filter, all of them, before it can stop (about 1 us
 * each): at 1,000 providers and limit=1000 the set takes 2 ms where the
 * walk takes 10; at 100,000 the walk 15 ms, the set 120. And only in a
 * cloud of more providers than WALK_MIN_PROVIDERS: below, the set costs
 * a few ms whatever the bound, and its plan stays sound before the
 * database has statistics of its tables (just filled, not yet analyzed),
 * where PostgreSQL plans the walk to probe every root before it sorts
 * (17 ms at 1,700 providers for limit=50, instead of 3). */
#define WALK_FACTOR 10
#define WALK_MIN_PROVIDERS 5000

/* 0 when no tree can serve: a member_of of aggregates that do not exist
 * (none can have members, sharing or not). */
static int can_serve(apr_pool_t *p, const pl_ac_request_t *req,
                     const pl_ac_world_t *w)
{
    int i, j;

    for (i = 0; i < req->groups->nelts; i++) {
        const pl_ac_group_t *g = APR_ARRAY_IDX(req->groups, i, pl_ac_group_t *);

        for (j = 0; g->member_of && j < g->member_of->any_of->nelts; j++) {
            if (known_ids(p, w->aggs,
                          APR_ARRAY_IDX(g->member_of->any_of, j,
                                        apr_array_header_t *)) == NULL) {
                return 0;
            }
        }
    }
    return 1;
}

const char *pl_store_ac_roots(apr_pool_t *p, const pl_ac_request_t *req,
                              const pl_ac_world_t *w, int max_trees,
                              apr_int64_t after, pl_db_dialect_e dialect)
{
    tree_filter_t f;

    if (!can_serve(p, req, w)) {
        return NULL;
    }
    if (w->sharing->nelts) {
        return all_roots(p, req, w);
    }
    if (w->rcs->nelts == 0) {
        return NULL;
    }
    tree_filter(p, req, w, &f);
    if (max_trees <= 0) {
        return set_sql(p, &f);
    }
    if (w->max_provider_id <= WALK_MIN_PROVIDERS ||
        w->max_provider_id / WALK_FACTOR <= max_trees) {
        return apr_psprintf(p,
                            "SELECT DISTINCT id FROM (%s) s WHERE id > "
                            "%" APR_INT64_T_FMT " ORDER BY id LIMIT %d",
                            set_sql(p, &f), after, max_trees);
    }
    return walk_sql(p, &f, max_trees, after, dialect);
}
