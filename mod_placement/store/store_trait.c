/* Licensed under the Apache License, Version 2.0.
 *
 * store_trait.c: traits in the database (filtered listing, lookup,
 * create and delete of custom traits) and the set of traits of a
 * resource provider, replaced as a whole under its generation.
 */
#include <stdlib.h>
#include <string.h>
#include <apr_strings.h>
#include <apr_hash.h>

#include "pl_store_trait.h"

#define TRAIT_COLUMNS "t.id, t.name, t.created_at, t.updated_at"

static apr_status_t traits_from_rows(apr_pool_t *p, const pl_rows_t *rows,
                                     apr_array_header_t **ptraits)
{
    int i;

    *ptraits = apr_array_make(p, rows->nrows, sizeof(pl_trait_t *));
    for (i = 0; i < rows->nrows; i++) {
        pl_trait_t *t = apr_pcalloc(p, sizeof(*t));

        t->id = apr_atoi64(PL_CELL(rows, i, 0));
        t->name = PL_CELL(rows, i, 1);
        t->created_at = PL_CELL(rows, i, 2);
        t->updated_at = PL_CELL(rows, i, 3);
        APR_ARRAY_PUSH(*ptraits, pl_trait_t *) = t;
    }
    return APR_SUCCESS;
}

/* The rows of a read in chunks, kept */
typedef struct {
    apr_pool_t *p;
    apr_array_header_t *traits;
} kept_rows_t;

static apr_status_t keep_row(void *baton, int ncols, const char *const *cells)
{
    kept_rows_t *k = baton;
    pl_trait_t *t = apr_pcalloc(k->p, sizeof(*t));

    (void)ncols;
    t->id = apr_atoi64(cells[0]);
    t->name = apr_pstrdup(k->p, cells[1]);
    t->created_at = cells[2] ? apr_pstrdup(k->p, cells[2]) : NULL;
    t->updated_at = cells[3] ? apr_pstrdup(k->p, cells[3]) : NULL;
    APR_ARRAY_PUSH(k->traits, pl_trait_t *) = t;
    return APR_SUCCESS;
}

static int by_id(const void *a, const void *b)
{
    apr_int64_t x = (*(pl_trait_t *const *)a)->id;
    apr_int64_t y = (*(pl_trait_t *const *)b)->id;

    return x < y ? -1 : x > y;
}

/* The traits of f named in f->names, by id: each name asked once, in
 * statements of PL_DB_LIST_MAX names (a provider's trait list is a body
 * of up to 8 MB: 2 million names in one IN list grew a child by 700 MB
 * on SQLite). */
static apr_status_t list_named(pl_db_t *db, apr_pool_t *p,
                               const pl_trait_filter_t *f,
                               apr_array_header_t **ptraits)
{
    apr_array_header_t *once = apr_array_make(p, f->names->nelts,
                                              sizeof(const char *));
    apr_hash_t *seen = apr_hash_make(p);
    const char *args[1];
    pl_db_list_t l = { NULL, 0, args, "%s", 0, NULL, ")" };
    kept_rows_t k;
    apr_status_t rv;
    int i;

    for (i = 0; i < f->names->nelts; i++) {
        const char *name = APR_ARRAY_IDX(f->names, i, const char *);

        if (!apr_hash_get(seen, name, APR_HASH_KEY_STRING)) {
            apr_hash_set(seen, name, APR_HASH_KEY_STRING, "");
            APR_ARRAY_PUSH(once, const char *) = name;
        }
    }
    l.head = "SELECT " TRAIT_COLUMNS " FROM traits t WHERE 1 = 1";
    if (f->prefix) {
        l.head = apr_pstrcat(p, l.head, " AND t.name LIKE %s", NULL);
        args[l.nhead++] = apr_pstrcat(p, f->prefix, "%", NULL);
    }
    if (f->associated >= 0) {
        l.head = apr_pstrcat(p, l.head, f->associated ? " AND" : " AND NOT",
                             " EXISTS (SELECT 1 FROM resource_provider_traits "
                             "rpt WHERE rpt.trait_id = t.id)",
                             NULL);
    }
    l.head = apr_pstrcat(p, l.head, " AND t.name IN (", NULL);
    k.p = p;
    k.traits = apr_array_make(p, 8, sizeof(pl_trait_t *));
    rv = pl_db_select_list(db, p, &l, PL_DB_ARRAY(once), keep_row, &k);
    if (rv != APR_SUCCESS) {
        return rv;
    }
    qsort(k.traits->elts, (size_t)k.traits->nelts, sizeof(pl_trait_t *), by_id);
    *ptraits = k.traits;
    return APR_SUCCESS;
}

apr_status_t pl_store_trait_list(pl_db_t *db, apr_pool_t *p,
                                 const pl_trait_filter_t *f,
                                 apr_array_header_t **ptraits)
{
    pl_rows_t *rows;
    const char *sql = "SELECT " TRAIT_COLUMNS " FROM traits t WHERE 1 = 1";
    apr_status_t rv;

    if (f && f->names) {
        return list_named(db, p, f, ptraits);
    }
    /* The shape depends on the filter, so the text is built here: every
     * value in it is quoted by the driver. */
    if (f && f->prefix) {
        sql = apr_pstrcat(
            p, sql, " AND t.name LIKE ",
            pl_db_quote(db, p, apr_pstrcat(p, f->prefix, "%", NULL)), NULL);
    }
    if (f && f->associated >= 0) {
        sql = apr_pstrcat(p, sql, f->associated ? " AND" : " AND NOT",
                          " EXISTS (SELECT 1 FROM resource_provider_traits "
                          "rpt WHERE rpt.trait_id = t.id)",
                          NULL);
    }
    sql = apr_pstrcat(p, sql, " ORDER BY t.id", NULL);
    rv = pl_db_select_text(db, p, &rows, sql, PL_DB_TEXT_ONCE);
    if (rv != APR_SUCCESS) {
        return rv;
    }
    return traits_from_rows(p, rows, ptraits);
}

apr_status_t pl_store_trait_get(pl_db_t *db, apr_pool_t *p, const char *name,
                                pl_trait_t **ptrait)
{
    apr_array_header_t *traits;
    pl_rows_t *rows;
    apr_status_t rv;

    rv = pl_db_select(db, p, &rows,
                      "SELECT " TRAIT_COLUMNS
                      " FROM traits t WHERE t.name = %s",
                      PL_ARGS(name));
    if (rv != APR_SUCCESS) {
        return rv;
    }
    /* byte for byte, as upstream's cache, whatever the collation */
    if (rows->nrows == 0 || strcmp(PL_CELL(rows, 0, 1), name) != 0) {
        return APR_ENOENT;
    }
    traits_from_rows(p, rows, &traits);
    *ptrait = APR_ARRAY_IDX(traits, 0, pl_trait_t *);
    return APR_SUCCESS;
}

apr_status_t pl_store_trait_create(pl_db_t *db, apr_pool_t *p, const char *name,
                                   pl_trait_t **ptrait)
{
    apr_status_t rv;

    rv = pl_db_exec(db, NULL,
                    "INSERT INTO traits (name, created_at) "
                    "VALUES (%s, %s)",
                    PL_ARGS(name, pl_db_now(p)));
    if (rv != APR_SUCCESS) {
        return rv;
    }
    return pl_store_trait_get(db, p, name, ptrait);
}

apr_status_t pl_store_trait_delete(pl_db_t *db, apr_pool_t *ptemp,
                                   const pl_trait_t *t)
{
    const char *id;
    pl_rows_t *rows;
    int changed = 0;
    apr_status_t rv;

    if (strncmp(t->name, PL_TRAIT_CUSTOM_PREFIX,
                sizeof(PL_TRAIT_CUSTOM_PREFIX) - 1) != 0) {
        return APR_EINVAL;
    }
    id = apr_psprintf(ptemp, "%" APR_INT64_T_FMT, t->id);
    rv = pl_db_begin(db);
    if (rv != APR_SUCCESS) {
        return rv;
    }
    rv = pl_db_select(db, ptemp, &rows,
                      "SELECT 1 FROM "
                      "resource_provider_traits WHERE trait_id = %s LIMIT 1",
                      PL_ARGS(id));
    if (rv == APR_SUCCESS && rows->nrows > 0) {
        rv = PL_EINUSE;
    }
    if (rv == APR_SUCCESS) {
        rv = pl_db_exec(db, &changed, "DELETE FROM traits WHERE id = %s",
                        PL_ARGS(id));
    }
    if (rv == APR_SUCCESS && changed == 0) {
        rv = APR_ENOENT;
    }
    return pl_db_end(db, rv);
}

apr_status_t pl_store_trait_provider_list(pl_db_t *db, apr_pool_t *p,
                                          const pl_provider_t *prov,
                                          apr_array_header_t **ptraits)
{
    pl_rows_t *rows;
    apr_status_t rv;

    rv = pl_db_select(db, p, &rows,
                      "SELECT " TRAIT_COLUMNS
                      " FROM traits t JOIN resource_provider_traits rpt "
                      "ON rpt.trait_id = t.id "
                      "WHERE rpt.resource_provider_id = %s ORDER BY t.id",
                      PL_ARGS(apr_psprintf(p, "%" APR_INT64_T_FMT, prov->id)));
    if (rv != APR_SUCCESS) {
        return rv;
    }
    return traits_from_rows(p, rows, ptraits);
}

apr_status_t pl_store_trait_provider_set(pl_db_t *db, apr_pool_t *ptemp,
                                         pl_provider_t *prov,
                                         const apr_array_header_t *traits)
{
    const char *rp_id = apr_psprintf(ptemp, "%" APR_INT64_T_FMT, prov->id);
    const char *now = pl_db_now(ptemp);
    apr_hash_t *have = apr_hash_make(ptemp), *want = apr_hash_make(ptemp);
    apr_array_header_t *to_add, *to_delete;
    apr_hash_index_t *hi;
    pl_rows_t *rows;
    apr_int64_t generation = prov->generation;
    const char *head_args[] = { rp_id }, *extra[] = { rp_id, now };
    /* a statement per PL_DB_LIST_MAX traits, not one per trait */
    const pl_db_list_t del = { "DELETE FROM resource_provider_traits "
                               "WHERE resource_provider_id = %s "
                               "AND trait_id IN (",
                               1,
                               head_args,
                               "%s",
                               0,
                               NULL,
                               ")" };
    const pl_db_list_t add = { "INSERT INTO resource_provider_traits "
                               "(trait_id, resource_provider_id, "
                               "created_at) VALUES ",
                               0,
                               NULL,
                               "(%s, %s, %s)",
                               2,
                               extra,
                               "" };
    apr_status_t rv;
    int i;

    rv = pl_db_begin(db);
    if (rv != APR_SUCCESS) {
        return rv;
    }
    rv = pl_db_select(db, ptemp, &rows,
                      "SELECT trait_id FROM "
                      "resource_provider_traits WHERE "
                      "resource_provider_id = %s",
                      PL_ARGS(rp_id));
    if (rv != APR_SUCCESS) {
        return pl_db_end(db, rv);
    }
    for (i = 0; i < rows->nrows; i++) {
        apr_hash_set(have, PL_CELL(rows, i, 0), APR_HASH_KEY_STRING, "");
    }
    to_add = apr_array_make(ptemp, traits->nelts, sizeof(const char *));
    for (i = 0; i < traits->nelts; i++) {
        const char *id = apr_psprintf(
            ptemp, "%" APR_INT64_T_FMT,
            APR_ARRAY_IDX(traits, i, pl_trait_t *)->id);

        if (!apr_hash_get(want, id, APR_HASH_KEY_STRING)) {
            apr_hash_set(want, id, APR_HASH_KEY_STRING, "");
            if (!apr_hash_get(have, id, APR_HASH_KEY_STRING)) {
                APR_ARRAY_PUSH(to_add, const char *) = id;
            }
        }
    }
    to_delete = apr_array_make(ptemp, rows->nrows, sizeof(const char *));
    for (hi = apr_hash_first(ptemp, have); hi; hi = apr_hash_next(hi)) {
        const char *id = apr_hash_this_key(hi);

        if (!apr_hash_get(want, id, APR_HASH_KEY_STRING)) {
            APR_ARRAY_PUSH(to_delete, const char *) = id;
        }
    }
    if (to_add->nelts == 0 && to_delete->nelts == 0) {
        return pl_db_end(db, APR_SUCCESS); /* as upstream: no bump */
    }
    /* The generation first: it locks the provider row, so a concurrent
     * writer of the same provider waits here and then loses the swap
     * instead of meeting our rows half written. */
    rv = pl_store_provider_bump(db, prov);
    if (rv == APR_SUCCESS) {
        rv = pl_db_exec_list(db, ptemp, &del, PL_DB_ARRAY(to_delete), NULL);
    }
    if (rv == APR_SUCCESS) {
        rv = pl_db_exec_list(db, ptemp, &add, PL_DB_ARRAY(to_add), NULL);
    }
    rv = pl_db_end(db, rv);
    if (rv != APR_SUCCESS) {
        prov->generation = generation; /* rolled back with the rest */
    }
    return rv;
}
