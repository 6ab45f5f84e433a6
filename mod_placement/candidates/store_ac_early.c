/* Licensed under the Apache License, Version 2.0.
 *
 * store_ac_early.c: upstream's checks that may end a candidate request
 * before an unknown trait name does, answered over the whole database.
 *
 * Upstream reads the request in order: root_required's names (400 if
 * unknown), some root with those traits (else an empty answer); then
 * per group its classes (400), some provider in its member_of (else
 * empty), its trait names (400). The engine replays that order on the
 * trees read, which is right while the trees statement filters only
 * as those checks do. With an unknown trait name it filters by no
 * trait, but still by member_of and the requested classes, and so
 * hides the roots and providers those two checks look at: a root with
 * root_required's traits outside the member_of aggregates, an
 * aggregate's member without the requested classes. Their answers are
 * read here instead, in one statement of a row per check. Only such a
 * request pays for it, and its answer is 400 or empty.
 */
#include <apr_strings.h>

#include "pl_str.h"
#include "pl_store_ac_private.h"

/* "CASE WHEN EXISTS (...) THEN 1 ELSE 0 END" as row kind of the answer */
static const char *check_row(apr_pool_t *p, int kind, const char *exists)
{
    return apr_psprintf(p, "SELECT %d, CASE WHEN EXISTS (%s) THEN 1 ELSE 0 END",
                        kind, exists);
}

/* each trait of names into s as a set of one; 0 if one is unknown */
static int add_each(pl_id_sets_t *s, apr_hash_t *traits_by_name,
                    const apr_array_header_t *names)
{
    int i;

    for (i = 0; i < names->nelts; i++) {
        const pl_ac_name_t *t = apr_hash_get(
            traits_by_name, APR_ARRAY_IDX(names, i, const char *),
            APR_HASH_KEY_STRING);

        if (t == NULL) {
            return 0;
        }
        pl_id_sets_add(s, (apr_int64_t[]){ t->id }, 1);
    }
    return 1;
}

/* some root with every required trait of rr and none of its forbidden
 * ones; NULL when rr asks nothing, or names a trait upstream refuses
 * first */
static const char *anchor_exists(apr_pool_t *p, const pl_ac_request_t *req,
                                 apr_hash_t *traits_by_name)
{
    const pl_qs_traits_t *rr = req->root_required;
    pl_id_sets_t req_sets, forb_sets;
    const char *sql, *ids, *test;

    if (rr == NULL || (rr->required->nelts == 0 && rr->forbidden->nelts == 0)) {
        return NULL;
    }
    pl_id_sets_init(&req_sets, p);
    pl_id_sets_init(&forb_sets, p);
    if (!add_each(&req_sets, traits_by_name, rr->required) ||
        !add_each(&forb_sets, traits_by_name, rr->forbidden)) {
        return NULL;
    }
    sql = "SELECT 1 FROM resource_providers rp WHERE "
          "rp.parent_provider_id IS NULL";
    if (!pl_id_sets_empty(&req_sets)) {
        pl_id_sets_sql(&req_sets, -1, "trait_id", &ids, &test);
        sql = apr_psprintf(p,
                           "%s AND rp.id IN (SELECT resource_provider_id FROM "
                           "resource_provider_traits WHERE trait_id IN (%s)"
                           "%s%s)",
                           sql, ids,
                           test ? " GROUP BY resource_provider_id HAVING " : "",
                           test ? test : "");
    }
    if (!pl_id_sets_empty(&forb_sets)) {
        pl_id_sets_sql(&forb_sets, -1, "trait_id", &ids, &test);
        sql = apr_psprintf(p,
                           "%s AND rp.id NOT IN (SELECT resource_provider_id "
                           "FROM resource_provider_traits WHERE trait_id IN "
                           "(%s))",
                           sql, ids);
    }
    return sql;
}

/* some provider itself in an aggregate of every set of g's member_of;
 * NULL when g has none, or a set of aggregates nobody knows (the engine
 * ends there by itself) */
static const char *member_exists(apr_pool_t *p, const pl_ac_group_t *g,
                                 apr_hash_t *aggs_by_name)
{
    const apr_array_header_t *sets;
    pl_id_sets_t s;
    const char *ids, *test;
    int i, j, known;

    if (g->member_of == NULL || g->member_of->any_of->nelts == 0) {
        return NULL;
    }
    sets = g->member_of->any_of;
    for (i = 0; i < sets->nelts; i++) {
        const apr_array_header_t *set = APR_ARRAY_IDX(sets, i,
                                                      apr_array_header_t *);

        for (known = 0, j = 0; j < set->nelts && !known; j++) {
            known = apr_hash_get(aggs_by_name,
                                 APR_ARRAY_IDX(set, j, const char *),
                                 APR_HASH_KEY_STRING) != NULL;
        }
        if (!known) {
            return NULL;
        }
    }
    pl_id_sets_init(&s, p);
    pl_store_ac_add_named_sets(p, &s, aggs_by_name, sets);
    pl_id_sets_sql(&s, -1, "aggregate_id", &ids, &test);
    return apr_psprintf(p,
                        "SELECT 1 FROM resource_provider_aggregates WHERE "
                        "aggregate_id IN (%s)%s%s",
                        ids,
                        test ? " GROUP BY resource_provider_id HAVING " : "",
                        test ? test : "");
}

apr_status_t pl_store_ac_early_ends(pl_db_t *db, apr_pool_t *p,
                                    const pl_ac_request_t *req,
                                    pl_ac_world_t *w)
{
    apr_array_header_t *rows_sql;
    apr_hash_t *aggs_by_name;
    const char *exists;
    pl_rows_t *rows;
    apr_status_t rv;
    int i, n = req->groups->nelts;

    if (pl_store_ac_filter_traits(p, req, w) != NULL) {
        return APR_SUCCESS; /* every name known: the trees tell */
    }
    rows_sql = apr_array_make(p, n + 1, sizeof(const char *));
    exists = anchor_exists(p, req, pl_store_ac_names_by_name(p, w->traits));
    if (exists) {
        APR_ARRAY_PUSH(rows_sql, const char *) = check_row(p, -1, exists);
    }
    aggs_by_name = pl_store_ac_names_by_name(p, w->aggs);
    for (i = 0; i < n; i++) {
        exists = member_exists(
            p, APR_ARRAY_IDX(req->groups, i, pl_ac_group_t *), aggs_by_name);
        if (exists) {
            APR_ARRAY_PUSH(rows_sql, const char *) = check_row(p, i, exists);
        }
    }
    if (rows_sql->nelts == 0) {
        return APR_SUCCESS;
    }
    rv = pl_db_select_text(
        db, p, &rows, pl_str_join(p, rows_sql, " UNION ALL "), PL_DB_TEXT_ONCE);
    if (rv != APR_SUCCESS) {
        return rv;
    }
    w->early_member_of = apr_palloc(p, ((apr_size_t)n + 1) * sizeof(int));
    for (i = 0; i < n; i++) {
        w->early_member_of[i] = -1;
    }
    for (i = 0; i < rows->nrows; i++) {
        apr_int64_t kind = pl_db_cell_i64(PL_CELL(rows, i, 0));
        int yes = pl_db_cell_i64(PL_CELL(rows, i, 1)) != 0;

        if (kind < 0) {
            w->early_anchor = yes;
        }
        else if (kind < n) {
            w->early_member_of[kind] = yes;
        }
    }
    return APR_SUCCESS;
}
