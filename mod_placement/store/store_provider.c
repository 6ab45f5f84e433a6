/* Licensed under the Apache License, Version 2.0.
 *
 * store_provider.c: resource providers themselves (placement's
 * objects/resource_provider.py): create, rename and re-parent, delete,
 * and the filtered listing of GET /resource_providers. As upstream's
 * _get_all_by_filters_from_db, the listing has conditions of its own:
 * member_of there is the provider's own aggregates, where candidates
 * also take the root's (store_ac.c).
 * Lookup and the generation compare-and-swap are in store_provider_base.c.
 */
#include <string.h>
#include <apr_strings.h>

#include "pl_id_sets.h"
#include "pl_store_provider.h"
#include "pl_store_rc.h"
#include "pl_store_trait.h"
#include "pl_str.h"

/* ------------------------------------------------------------------ */
/* Filters                                                             */
/* ------------------------------------------------------------------ */

/* name -> "" for each name of names not in seen yet, into out */
static void add_unique(apr_hash_t *seen, apr_array_header_t *out,
                       const apr_array_header_t *names)
{
    int i;

    for (i = 0; names && i < names->nelts; i++) {
        const char *name = APR_ARRAY_IDX(names, i, const char *);

        if (!apr_hash_get(seen, name, APR_HASH_KEY_STRING)) {
            apr_hash_set(seen, name, APR_HASH_KEY_STRING, "");
            APR_ARRAY_PUSH(out, const char *) = name;
        }
    }
}

/* The ids of every trait t names (required, any_of, forbidden), read in
 * one statement: *pmap, name -> apr_int64_t *, each name as the database
 * has it byte for byte (as upstream's cache, whatever the collation). A
 * request may name hundreds: one statement a name took a round trip
 * each. */
static apr_status_t trait_map(pl_db_t *db, apr_pool_t *p,
                              const pl_qs_traits_t *t, apr_hash_t **pmap)
{
    apr_array_header_t *names = apr_array_make(p, 8, sizeof(const char *));
    apr_hash_t *seen = apr_hash_make(p);
    pl_trait_filter_t f = { names, NULL, -1 };
    apr_array_header_t *traits;
    apr_status_t rv;
    int i;

    *pmap = apr_hash_make(p);
    add_unique(seen, names, t->required);
    for (i = 0; t->any_of && i < t->any_of->nelts; i++) {
        add_unique(seen, names,
                   APR_ARRAY_IDX(t->any_of, i, const apr_array_header_t *));
    }
    add_unique(seen, names, t->forbidden);
    if (names->nelts == 0) {
        return APR_SUCCESS;
    }
    if ((rv = pl_store_trait_list(db, p, &f, &traits)) != APR_SUCCESS) {
        return rv;
    }
    for (i = 0; i < traits->nelts; i++) {
        pl_trait_t *trait = APR_ARRAY_IDX(traits, i, pl_trait_t *);

        apr_hash_set(*pmap, trait->name, APR_HASH_KEY_STRING, &trait->id);
    }
    return APR_SUCCESS;
}

/* The id in map of the trait name; APR_ENOENT with *punknown if the
 * database does not know it. */
static apr_status_t trait_id(apr_hash_t *map, const char *name,
                             apr_int64_t *pid, pl_provider_unknown_t *punknown)
{
    const apr_int64_t *id = apr_hash_get(map, name, APR_HASH_KEY_STRING);

    if (id == NULL) {
        punknown->trait = name;
        return APR_ENOENT;
    }
    *pid = *id;
    return APR_SUCCESS;
}

/* The ids of names in map into ids, in their order: the first one the
 * database does not know as trait_id says. */
static apr_status_t trait_ids(apr_hash_t *map, const apr_array_header_t *names,
                              apr_int64_t *ids, pl_provider_unknown_t *punknown)
{
    apr_status_t rv;
    int i;

    for (i = 0; i < names->nelts; i++) {
        rv = trait_id(map, APR_ARRAY_IDX(names, i, const char *), &ids[i],
                      punknown);
        if (rv != APR_SUCCESS) {
            return rv;
        }
    }
    return APR_SUCCESS;
}

static const char *having_trait_sql(apr_pool_t *p, const char *op,
                                    const apr_int64_t *ids, int n)
{
    return apr_pstrcat(p, "rp.id ", op,
                       " (SELECT resource_provider_id "
                       "FROM resource_provider_traits WHERE trait_id IN (",
                       pl_db_id_list(p, ids, n), "))", NULL);
}

static const char *in_aggregate_sql(apr_pool_t *p, const char *op,
                                    const apr_int64_t *ids, int n)
{
    return apr_pstrcat(p, "rp.id ", op,
                       " (SELECT resource_provider_id "
                       "FROM resource_provider_aggregates WHERE "
                       "aggregate_id IN (",
                       pl_db_id_list(p, ids, n), "))", NULL);
}

/* "rp has one of each set of s in table.col": one subquery, grouped by
 * provider, however many sets (one a set once cost a second of planning
 * each on PostgreSQL past a dozen). */
static const char *having_sets_sql(apr_pool_t *p, const char *table,
                                   const char *col, const pl_id_sets_t *s)
{
    const char *ids, *test;

    pl_id_sets_sql(s, -1, col, &ids, &test);
    return apr_pstrcat(
        p, "rp.id IN (SELECT resource_provider_id FROM ", table, " WHERE ", col,
        " IN (", ids, ")",
        test ? apr_pstrcat(p, " GROUP BY resource_provider_id HAVING ", test,
                           NULL)
             : "",
        ")", NULL);
}

/* The ids of the aggregates of every uuid mo names (any_of, forbidden)
 * that exist, in one statement: *pmap, uuid -> apr_int64_t * (compared
 * as given, as upstream does). */
static apr_status_t aggregate_map(pl_db_t *db, apr_pool_t *p,
                                  const pl_qs_member_of_t *mo,
                                  apr_hash_t **pmap)
{
    apr_array_header_t *uuids = apr_array_make(p, 8, sizeof(const char *));
    apr_array_header_t *quoted;
    apr_hash_t *seen = apr_hash_make(p);
    pl_rows_t *rows;
    apr_status_t rv;
    int i;

    *pmap = apr_hash_make(p);
    for (i = 0; mo->any_of && i < mo->any_of->nelts; i++) {
        add_unique(seen, uuids,
                   APR_ARRAY_IDX(mo->any_of, i, const apr_array_header_t *));
    }
    add_unique(seen, uuids, mo->forbidden);
    if (uuids->nelts == 0) {
        return APR_SUCCESS;
    }
    quoted = apr_array_make(p, uuids->nelts, sizeof(const char *));
    for (i = 0; i < uuids->nelts; i++) {
        APR_ARRAY_PUSH(quoted, const char *) = pl_db_quote(
            db, p, APR_ARRAY_IDX(uuids, i, const char *));
    }
    rv = pl_db_select_text(db, p, &rows,
                           apr_pstrcat(p,
                                       "SELECT id, uuid FROM "
                                       "placement_aggregates WHERE uuid IN (",
                                       pl_str_join(p, quoted, ", "), ")", NULL),
                           PL_DB_TEXT_ONCE);
    if (rv != APR_SUCCESS) {
        return rv;
    }
    for (i = 0; i < rows->nrows; i++) {
        apr_int64_t *id = apr_palloc(p, sizeof(*id));

        /* byte for byte, as upstream's dict of uuids, whatever the
         * collation of the column says: a uuid given in another case
         * finds no key */
        *id = apr_atoi64(PL_CELL(rows, i, 0));
        apr_hash_set(*pmap, PL_CELL(rows, i, 1), APR_HASH_KEY_STRING, id);
    }
    return APR_SUCCESS;
}

/* The ids in map of those of names it has, into ids: their count. */
static int known_aggregates(apr_hash_t *map, const apr_array_header_t *names,
                            apr_int64_t *ids)
{
    int i, n = 0;

    for (i = 0; i < names->nelts; i++) {
        const apr_int64_t *id = apr_hash_get(
            map, APR_ARRAY_IDX(names, i, const char *), APR_HASH_KEY_STRING);

        if (id) {
            ids[n++] = *id;
        }
    }
    return n;
}

/* Does some provider satisfy all of conds (on rp)? */
static apr_status_t any_provider(pl_db_t *db, apr_pool_t *p,
                                 const apr_array_header_t *conds, int *pfound)
{
    pl_rows_t *rows;
    apr_status_t rv;

    rv = pl_db_select_text(
        db, p, &rows,
        apr_pstrcat(p, "SELECT rp.id FROM resource_providers rp WHERE ",
                    apr_array_pstrcat(p, conds, 0), " LIMIT 1", NULL),
        PL_DB_TEXT_ONCE);
    if (rv == APR_SUCCESS) {
        *pfound = rows->nrows > 0;
    }
    return rv;
}

static void push_cond(apr_array_header_t *conds, apr_pool_t *p,
                      const char *cond)
{
    APR_ARRAY_PUSH(conds, const char *) = conds->nelts ? apr_pstrcat(p, " AND ",
                                                                     cond, NULL)
                                                       : cond;
}

/* Required traits as a condition appended to conds: every trait of
 * required and one of each any_of set (placement's list of sets, in its
 * order of name resolution: the plain traits first), in one subquery. */
static apr_status_t required_trait_conds(apr_pool_t *p, apr_hash_t *map,
                                         const pl_qs_traits_t *t,
                                         apr_array_header_t *conds,
                                         pl_provider_unknown_t *punknown)
{
    pl_id_sets_t sets;
    apr_int64_t *ids;
    apr_status_t rv;
    int i;

    pl_id_sets_init(&sets, p);
    for (i = 0; t->required && i < t->required->nelts; i++) {
        apr_int64_t id;

        rv = trait_id(map, APR_ARRAY_IDX(t->required, i, const char *), &id,
                      punknown);
        if (rv != APR_SUCCESS) {
            return rv;
        }
        pl_id_sets_add(&sets, &id, 1);
    }
    for (i = 0; t->any_of && i < t->any_of->nelts; i++) {
        const apr_array_header_t *set = APR_ARRAY_IDX(
            t->any_of, i, const apr_array_header_t *);

        ids = apr_palloc(p, (set->nelts + 1) * sizeof(*ids));
        if ((rv = trait_ids(map, set, ids, punknown)) != APR_SUCCESS) {
            return rv;
        }
        pl_id_sets_add(&sets, ids, set->nelts);
    }
    if (!pl_id_sets_empty(&sets)) {
        push_cond(
            conds, p,
            having_sets_sql(p, "resource_provider_traits", "trait_id", &sets));
    }
    return APR_SUCCESS;
}

/* member_of: in one aggregate of each set, one condition; *pnone when a
 * set names only unknown aggregates (nothing can match). */
static void member_of_conds(apr_pool_t *p, apr_hash_t *map,
                            const pl_qs_member_of_t *mo,
                            apr_array_header_t *conds, int *pnone)
{
    pl_id_sets_t sets;
    int i, n;

    *pnone = 0;
    pl_id_sets_init(&sets, p);
    for (i = 0; mo->any_of && i < mo->any_of->nelts; i++) {
        const apr_array_header_t *set = APR_ARRAY_IDX(
            mo->any_of, i, const apr_array_header_t *);
        apr_int64_t *ids = apr_palloc(p, (set->nelts + 1) * sizeof(*ids));

        if ((n = known_aggregates(map, set, ids)) == 0) {
            *pnone = 1;
            return;
        }
        pl_id_sets_add(&sets, ids, n);
    }
    if (!pl_id_sets_empty(&sets)) {
        push_cond(conds, p,
                  having_sets_sql(p, "resource_provider_aggregates",
                                  "aggregate_id", &sets));
    }
}

/* The condition "provider rp has room for amount of class rc_id":
 * (total - reserved) * allocation_ratio - used >= amount, amount between
 * min_unit and max_unit and a multiple of step_size. */
static const char *capacity_sql(apr_pool_t *p, apr_int64_t rc_id,
                                apr_int64_t amount)
{
    const char *rc = pl_db_i64(p, rc_id), *n = pl_db_i64(p, amount);

    /* written as capacity - amount >= used so that a huge amount cannot
     * overflow an integer column sum */
    return apr_pstrcat(
        p,
        "rp.id IN (SELECT inv.resource_provider_id FROM inventories inv "
        "LEFT JOIN (SELECT resource_provider_id, SUM(used) AS used "
        "FROM allocations WHERE resource_class_id = ",
        rc,
        " GROUP BY resource_provider_id) u "
        "ON u.resource_provider_id = inv.resource_provider_id "
        "WHERE inv.resource_class_id = ",
        rc, " AND (inv.total - inv.reserved) * inv.allocation_ratio - ", n,
        " >= COALESCE(u.used, 0)"
        " AND inv.min_unit <= ",
        n, " AND inv.max_unit >= ", n, " AND ", n, " % inv.step_size = 0)",
        NULL);
}

/* The conditions of sub (on rp, ANDed; none: no constraint) join conds
 * when some provider meets them all; else *pnone is set, as the whole
 * filter then matches nothing. */
static apr_status_t push_if_any(pl_db_t *db, apr_pool_t *p,
                                apr_array_header_t *conds,
                                const apr_array_header_t *sub, int *pnone)
{
    apr_status_t rv;
    int found;

    *pnone = 0;
    if (sub->nelts == 0) {
        return APR_SUCCESS;
    }
    if ((rv = any_provider(db, p, sub, &found)) != APR_SUCCESS) {
        return rv;
    }
    if (!found) {
        *pnone = 1;
        return APR_SUCCESS;
    }
    push_cond(conds, p, apr_array_pstrcat(p, sub, 0));
    return APR_SUCCESS;
}

/* The SQL condition on rp that f stands for, resolving names to ids as
 * placement does and in its order: in_tree, required traits, forbidden
 * traits, member_of, forbidden aggregates, resources. Like placement, it
 * stops early when a constraint alone matches no provider (an unknown
 * in_tree provider, required traits nobody has, aggregates nobody is
 * in): *pwhere NULL then ("1 = 1" when f is empty). APR_ENOENT with
 * *punknown for an unknown trait or resource class. */
static apr_status_t filter_sql(pl_db_t *db, apr_pool_t *p,
                               const pl_provider_filter_t *f,
                               const char **pwhere,
                               pl_provider_unknown_t *punknown)
{
    apr_array_header_t *conds = apr_array_make(p, 8, sizeof(const char *));
    apr_array_header_t *sub;
    apr_hash_t *map;
    apr_int64_t *ids;
    apr_status_t rv;
    int none, i, n;

    *pwhere = NULL;
    punknown->trait = punknown->resource_class = NULL;
    if (f->name && *f->name) {
        push_cond(
            conds, p,
            apr_pstrcat(p, "rp.name = ", pl_db_quote(db, p, f->name), NULL));
    }
    if (f->uuid && *f->uuid) {
        push_cond(
            conds, p,
            apr_pstrcat(p, "rp.uuid = ", pl_db_quote(db, p, f->uuid), NULL));
    }
    if (f->in_tree && *f->in_tree) {
        pl_provider_t *tree;

        rv = pl_store_provider_get(db, p, f->in_tree, &tree);
        if (rv == APR_ENOENT) {
            return APR_SUCCESS; /* an unknown tree has no one */
        }
        if (rv != APR_SUCCESS) {
            return rv;
        }
        push_cond(conds, p,
                  apr_pstrcat(p, "rp.root_provider_id = ",
                              pl_db_i64(p, tree->root_id), NULL));
    }
    if (f->traits) {
        const apr_array_header_t *forbidden = f->traits->forbidden;

        sub = apr_array_make(p, 4, sizeof(const char *));
        if ((rv = trait_map(db, p, f->traits, &map)) != APR_SUCCESS ||
            (rv = required_trait_conds(p, map, f->traits, sub, punknown)) !=
                APR_SUCCESS) {
            return rv;
        }
        /* upstream looks at the traits alone first */
        if ((rv = push_if_any(db, p, conds, sub, &none)) != APR_SUCCESS ||
            none) {
            return rv;
        }
        if (forbidden && forbidden->nelts) {
            ids = apr_palloc(p, forbidden->nelts * sizeof(*ids));
            if ((rv = trait_ids(map, forbidden, ids, punknown)) !=
                APR_SUCCESS) {
                return rv;
            }
            push_cond(conds, p,
                      having_trait_sql(p, "NOT IN", ids, forbidden->nelts));
        }
    }
    if (f->member_of) {
        const apr_array_header_t *forbidden = f->member_of->forbidden;

        sub = apr_array_make(p, 4, sizeof(const char *));
        if ((rv = aggregate_map(db, p, f->member_of, &map)) != APR_SUCCESS) {
            return rv;
        }
        member_of_conds(p, map, f->member_of, sub, &none);
        if (none ||
            (rv = push_if_any(db, p, conds, sub, &none)) != APR_SUCCESS ||
            none) {
            return rv;
        }
        if (forbidden && forbidden->nelts) {
            ids = apr_palloc(p, forbidden->nelts * sizeof(*ids));
            if ((n = known_aggregates(map, forbidden, ids)) > 0) {
                push_cond(conds, p, in_aggregate_sql(p, "NOT IN", ids, n));
            }
        }
    }
    for (i = 0; f->resources && i < f->resources->nelts; i++) {
        const pl_qs_resource_t *res = &APR_ARRAY_IDX(f->resources, i,
                                                     pl_qs_resource_t);
        apr_int64_t rc_id;

        rv = pl_store_rc_id(db, p, res->name, &rc_id);
        if (rv == APR_ENOENT) {
            punknown->resource_class = res->name;
        }
        if (rv != APR_SUCCESS) {
            return rv;
        }
        push_cond(conds, p, capacity_sql(p, rc_id, res->amount));
    }
    *pwhere = conds->nelts ? apr_array_pstrcat(p, conds, 0) : "1 = 1";
    return APR_SUCCESS;
}

apr_status_t pl_store_provider_list(pl_db_t *db, apr_pool_t *p,
                                    const pl_provider_filter_t *f,
                                    apr_array_header_t **pprovs,
                                    pl_provider_unknown_t *punknown)
{
    const char *where;
    pl_rows_t *rows;
    apr_status_t rv;
    int i;

    *pprovs = apr_array_make(p, 8, sizeof(pl_provider_t *));
    rv = filter_sql(db, p, f, &where, punknown);
    if (rv != APR_SUCCESS || where == NULL) {
        return rv;
    }
    rv = pl_db_select_text(db, p, &rows,
                           apr_pstrcat(p,
                                       "SELECT " PL_PROVIDER_COLUMNS
                                       " FROM " PL_PROVIDER_FROM " WHERE ",
                                       where, " ORDER BY rp.id", NULL),
                           PL_DB_TEXT_ONCE);
    if (rv != APR_SUCCESS) {
        return rv;
    }
    for (i = 0; i < rows->nrows; i++) {
        APR_ARRAY_PUSH(*pprovs, pl_provider_t *) = pl_store_provider_from_row(
            p, rows, i, 0);
    }
    return APR_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* Create                                                              */
/* ------------------------------------------------------------------ */

static apr_status_t insert_provider(pl_db_t *db, apr_pool_t *p,
                                    const char *name, const char *uuid,
                                    const char *parent_uuid)
{
    const char *now = pl_db_now(p);
    const char *parent_id = NULL, *root_id = NULL, *id;
    pl_provider_t *parent;
    pl_rows_t *rows;
    apr_status_t rv;

    if (parent_uuid) {
        rv = pl_store_provider_get(db, p, parent_uuid, &parent);
        if (rv != APR_SUCCESS) {
            return rv;
        }
        parent_id = pl_db_i64(p, parent->id);
        root_id = pl_db_i64(p, parent->root_id);
    }
    rv = pl_db_exec(db, NULL,
                    "INSERT INTO resource_providers "
                    "(created_at, uuid, name, generation, root_provider_id, "
                    "parent_provider_id) VALUES (%s, %s, %s, 0, %s, %s)",
                    PL_ARGS(now, uuid, name, root_id, parent_id));
    if (rv != APR_SUCCESS || parent_uuid) {
        return rv;
    }
    /* a new root is its own root: its id is only known now */
    rv = pl_db_select(db, p, &rows,
                      "SELECT id FROM resource_providers "
                      "WHERE uuid = %s",
                      PL_ARGS(uuid));
    if (rv != APR_SUCCESS) {
        return rv;
    }
    if (rows->nrows != 1) {
        return PL_EDB;
    }
    id = PL_CELL(rows, 0, 0);
    return pl_db_exec(db, NULL,
                      "UPDATE resource_providers SET "
                      "root_provider_id = %s, updated_at = %s WHERE id = %s",
                      PL_ARGS(id, now, id));
}

apr_status_t pl_store_provider_create(pl_db_t *db, apr_pool_t *p,
                                      const char *name, const char *uuid,
                                      const char *parent_uuid,
                                      pl_provider_t **pprov, const char **pdup)
{
    pl_rows_t *rows;
    apr_status_t rv;

    if ((rv = pl_db_begin(db)) != APR_SUCCESS) {
        return rv;
    }
    rv = insert_provider(db, p, name, uuid, parent_uuid);
    rv = pl_db_end(db, rv);
    if (rv == APR_EEXIST) {
        /* Which unique constraint failed? Drivers word it differently,
         * so ask the table (the transaction is over). */
        *pdup = "name";
        if (pl_db_select(db, p, &rows,
                         "SELECT id FROM resource_providers "
                         "WHERE uuid = %s",
                         PL_ARGS(uuid)) == APR_SUCCESS &&
            rows->nrows > 0) {
            *pdup = "uuid";
        }
        return APR_EEXIST;
    }
    if (rv != APR_SUCCESS) {
        return rv;
    }
    rv = pl_store_provider_get(db, p, uuid, pprov);
    return rv == APR_ENOENT ? PL_EDB : rv;
}

/* ------------------------------------------------------------------ */
/* Update                                                              */
/* ------------------------------------------------------------------ */

/* The ids of prov's subtree, prov excluded, from the rows of its tree. */
static apr_status_t descendants(pl_db_t *db, apr_pool_t *p,
                                const pl_provider_t *prov,
                                apr_array_header_t **pids)
{
    apr_array_header_t *ids = apr_array_make(p, 8, sizeof(apr_int64_t));
    pl_rows_t *rows;
    apr_status_t rv;
    int i, j, grew = 1;

    *pids = ids;
    rv = pl_db_select(db, p, &rows,
                      "SELECT id, parent_provider_id "
                      "FROM resource_providers WHERE root_provider_id = %s",
                      PL_ARGS(pl_db_i64(p, prov->root_id)));
    if (rv != APR_SUCCESS) {
        return rv;
    }
    /* trees are small: add children of what we have until nothing new */
    while (grew) {
        grew = 0;
        for (i = 0; i < rows->nrows; i++) {
            const char *pc = PL_CELL(rows, i, 1);
            apr_int64_t id = apr_atoi64(PL_CELL(rows, i, 0));
            apr_int64_t parent = pc ? apr_atoi64(pc) : 0;
            int mine = parent == prov->id, known = 0;

            for (j = 0; j < ids->nelts; j++) {
                apr_int64_t have = APR_ARRAY_IDX(ids, j, apr_int64_t);

                known |= have == id;
                mine |= have == parent;
            }
            if (mine && !known && id != prov->id) {
                APR_ARRAY_PUSH(ids, apr_int64_t) = id;
                grew = 1;
            }
        }
    }
    return APR_SUCCESS;
}

static int contains(const apr_array_header_t *ids, apr_int64_t id)
{
    int i;

    for (i = 0; i < ids->nelts; i++) {
        if (APR_ARRAY_IDX(ids, i, apr_int64_t) == id) {
            return 1;
        }
    }
    return 0;
}

static apr_status_t update_provider(pl_db_t *db, apr_pool_t *p,
                                    pl_provider_t *prov, const char *name,
                                    const char *parent_uuid, int allow_reparent,
                                    pl_provider_refusal_e *prefusal)
{
    pl_provider_t *parent = NULL;
    apr_array_header_t *subtree = NULL;
    apr_int64_t parent_id = 0, root_id = prov->root_id;
    const char *root_uuid = prov->root_uuid;
    const char *now = pl_db_now(p);
    apr_status_t rv;
    int i;

    if (parent_uuid) {
        rv = pl_store_provider_get(db, p, parent_uuid, &parent);
        if (rv == APR_ENOENT) {
            *prefusal = PL_PROVIDER_PARENT_MISSING;
            return APR_EINVAL;
        }
        if (rv != APR_SUCCESS) {
            return rv;
        }
        if (prov->parent_id && prov->parent_id != parent->id &&
            !allow_reparent) {
            *prefusal = PL_PROVIDER_REPARENT;
            return APR_EINVAL;
        }
        if ((rv = descendants(db, p, prov, &subtree)) != APR_SUCCESS) {
            return rv;
        }
        if (parent->id == prov->id || contains(subtree, parent->id)) {
            *prefusal = PL_PROVIDER_LOOP;
            return APR_EINVAL;
        }
        parent_id = parent->id;
        root_id = parent->root_id;
        root_uuid = parent->root_uuid;
    }
    else if (prov->parent_id) {
        if (!allow_reparent) {
            *prefusal = PL_PROVIDER_UNPARENT;
            return APR_EINVAL;
        }
        if ((rv = descendants(db, p, prov, &subtree)) != APR_SUCCESS) {
            return rv;
        }
        root_id = prov->id;
        root_uuid = prov->uuid;
    }
    /* like upstream's ORM: no UPDATE (nor updated_at) if nothing changed */
    if (prov->name == NULL || strcmp(name, prov->name) != 0 ||
        parent_id != prov->parent_id || root_id != prov->root_id) {
        rv = pl_db_exec(
            db, NULL,
            "UPDATE resource_providers SET name = %s, "
            "parent_provider_id = %s, root_provider_id = %s, "
            "updated_at = %s WHERE id = %s",
            PL_ARGS(name, parent_id ? pl_db_i64(p, parent_id) : NULL,
                    pl_db_i64(p, root_id), now, pl_db_i64(p, prov->id)));
        if (rv != APR_SUCCESS) {
            return rv;
        }
        prov->updated_at = now;
    }
    for (i = 0; subtree && root_id != prov->root_id && i < subtree->nelts;
         i++) {
        rv = pl_db_exec(
            db, NULL,
            "UPDATE resource_providers SET "
            "root_provider_id = %s, updated_at = %s "
            "WHERE id = %s",
            PL_ARGS(pl_db_i64(p, root_id), now,
                    pl_db_i64(p, APR_ARRAY_IDX(subtree, i, apr_int64_t))));
        if (rv != APR_SUCCESS) {
            return rv;
        }
    }
    prov->name = name;
    prov->parent_id = parent_id;
    prov->parent_uuid = parent ? parent->uuid : NULL;
    prov->root_id = root_id;
    prov->root_uuid = root_uuid;
    return APR_SUCCESS;
}

apr_status_t pl_store_provider_update(pl_db_t *db, apr_pool_t *p,
                                      pl_provider_t *prov, const char *name,
                                      const char *parent_uuid,
                                      int allow_reparent,
                                      pl_provider_refusal_e *prefusal)
{
    pl_provider_t work = *prov;
    apr_status_t rv;

    if ((rv = pl_db_begin(db)) != APR_SUCCESS) {
        return rv;
    }
    rv = update_provider(db, p, &work, name, parent_uuid, allow_reparent,
                         prefusal);
    rv = pl_db_end(db, rv);
    if (rv == APR_SUCCESS) {
        *prov = work;
    }
    return rv;
}

/* ------------------------------------------------------------------ */
/* Delete                                                              */
/* ------------------------------------------------------------------ */

static apr_status_t delete_provider(pl_db_t *db, apr_pool_t *p, const char *id)
{
    static const char *const cleanup[] = {
        "DELETE FROM inventories WHERE resource_provider_id = %s",
        "DELETE FROM resource_provider_aggregates "
        "WHERE resource_provider_id = %s",
        "DELETE FROM resource_provider_traits "
        "WHERE resource_provider_id = %s",
        /* a root points at itself: let go of that before the delete */
        "UPDATE resource_providers SET root_provider_id = NULL "
        "WHERE id = %s AND root_provider_id = id",
    };
    pl_rows_t *rows;
    apr_status_t rv;
    int changed = 0;
    apr_size_t i;

    rv = pl_db_select(db, p, &rows,
                      "SELECT id FROM resource_providers "
                      "WHERE parent_provider_id = %s LIMIT 1",
                      PL_ARGS(id));
    if (rv != APR_SUCCESS) {
        return rv;
    }
    if (rows->nrows > 0) {
        return PL_EPARENT;
    }
    rv = pl_db_select(db, p, &rows,
                      "SELECT COUNT(*) FROM allocations "
                      "WHERE resource_provider_id = %s",
                      PL_ARGS(id));
    if (rv != APR_SUCCESS) {
        return rv;
    }
    if (rows->nrows > 0 && apr_atoi64(PL_CELL(rows, 0, 0)) > 0) {
        return PL_EINUSE;
    }
    for (i = 0; i < sizeof(cleanup) / sizeof(cleanup[0]); i++) {
        if ((rv = pl_db_exec(db, NULL, cleanup[i], PL_ARGS(id))) !=
            APR_SUCCESS) {
            return rv;
        }
    }
    rv = pl_db_exec(db, &changed,
                    "DELETE FROM resource_providers "
                    "WHERE id = %s",
                    PL_ARGS(id));
    if (rv != APR_SUCCESS) {
        return rv;
    }
    return changed ? APR_SUCCESS : APR_ENOENT;
}

apr_status_t pl_store_provider_delete(pl_db_t *db, apr_pool_t *p,
                                      const pl_provider_t *prov)
{
    apr_status_t rv;

    if ((rv = pl_db_begin(db)) != APR_SUCCESS) {
        return rv;
    }
    rv = delete_provider(db, p, pl_db_i64(p, prov->id));
    return pl_db_end(db, rv);
}
