/* Licensed under the Apache License, Version 2.0.
 *
 * store_inventory.c: inventories in the database (the inventory parts of
 * placement's objects/resource_provider.py). Each write is one
 * transaction closed by the provider generation compare-and-swap; a class
 * that allocations still use cannot be removed (PL_EINUSE), while a
 * capacity shrunk below the current usage is allowed, as upstream only
 * logs a warning for it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <apr_strings.h>

#include "pl_store_inventory.h"

#define INVENTORY_COLUMNS                                             \
    "i.resource_class_id, rc.name, i.total, i.reserved, i.min_unit, " \
    "i.max_unit, i.step_size, i.allocation_ratio, i.created_at, "     \
    "i.updated_at"
#define INVENTORY_FROM \
    "inventories i JOIN resource_classes rc ON rc.id = i.resource_class_id"

/* A double as SQL text that reads back as the same value everywhere. */
static const char *ratio_str(apr_pool_t *p, double d)
{
    char buf[64];

    snprintf(buf, sizeof(buf), "%.17g", d);
    return apr_pstrdup(p, buf);
}

static pl_inventory_t *inventory_from_row(apr_pool_t *p, const pl_rows_t *rows,
                                          int i)
{
    pl_inventory_t *inv = apr_pcalloc(p, sizeof(*inv));

    inv->rc_id = apr_atoi64(PL_CELL(rows, i, 0));
    inv->rc_name = PL_CELL(rows, i, 1);
    inv->total = apr_atoi64(PL_CELL(rows, i, 2));
    inv->reserved = apr_atoi64(PL_CELL(rows, i, 3));
    inv->min_unit = apr_atoi64(PL_CELL(rows, i, 4));
    inv->max_unit = apr_atoi64(PL_CELL(rows, i, 5));
    inv->step_size = apr_atoi64(PL_CELL(rows, i, 6));
    inv->allocation_ratio = PL_CELL(rows, i, 7)
                                ? strtod(PL_CELL(rows, i, 7), NULL)
                                : 1.0;
    inv->created_at = PL_CELL(rows, i, 8);
    inv->updated_at = PL_CELL(rows, i, 9);
    return inv;
}

double pl_store_inventory_capacity(const pl_inventory_t *inv)
{
    double d = (double)(inv->total - inv->reserved) * inv->allocation_ratio;

    /* Python's int() truncates toward zero; the cast does the same while
     * the value fits an int64, and beyond that d is integral anyway. */
    if (d > -9.0e18 && d < 9.0e18) {
        return (double)(apr_int64_t)d;
    }
    return d;
}

apr_status_t pl_store_inventory_list(pl_db_t *db, apr_pool_t *p,
                                     apr_int64_t prov_id,
                                     apr_array_header_t **pinvs)
{
    pl_rows_t *rows;
    apr_status_t rv;
    int i;

    rv = pl_db_select(db, p, &rows,
                      "SELECT " INVENTORY_COLUMNS " FROM " INVENTORY_FROM
                      " WHERE i.resource_provider_id = %s"
                      " ORDER BY i.resource_class_id",
                      PL_ARGS(pl_db_i64(p, prov_id)));
    if (rv != APR_SUCCESS) {
        return rv;
    }
    *pinvs = apr_array_make(p, rows->nrows, sizeof(pl_inventory_t *));
    for (i = 0; i < rows->nrows; i++) {
        APR_ARRAY_PUSH(*pinvs, pl_inventory_t *) = inventory_from_row(p, rows,
                                                                      i);
    }
    return APR_SUCCESS;
}

apr_status_t pl_store_inventory_get(pl_db_t *db, apr_pool_t *p,
                                    apr_int64_t prov_id, const char *rc_name,
                                    pl_inventory_t **pinv)
{
    pl_rows_t *rows;
    apr_status_t rv;

    rv = pl_db_select(db, p, &rows,
                      "SELECT " INVENTORY_COLUMNS " FROM " INVENTORY_FROM
                      " WHERE i.resource_provider_id = %s AND rc.name = %s",
                      PL_ARGS(pl_db_i64(p, prov_id), rc_name));
    if (rv != APR_SUCCESS) {
        return rv;
    }
    /* MySQL compares names case-insensitively; upstream does not */
    if (rows->nrows == 0 || strcmp(PL_CELL(rows, 0, 1), rc_name) != 0) {
        return APR_ENOENT;
    }
    *pinv = inventory_from_row(p, rows, 0);
    return APR_SUCCESS;
}

static apr_status_t insert_one(pl_db_t *db, apr_pool_t *p,
                               const pl_provider_t *prov,
                               const pl_inventory_t *inv, const char *now)
{
    return pl_db_exec(
        db, NULL,
        "INSERT INTO inventories "
        "(resource_provider_id, resource_class_id, total, "
        "reserved, min_unit, max_unit, step_size, "
        "allocation_ratio, created_at) "
        "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)",
        PL_ARGS(pl_db_i64(p, prov->id), pl_db_i64(p, inv->rc_id),
                pl_db_i64(p, inv->total), pl_db_i64(p, inv->reserved),
                pl_db_i64(p, inv->min_unit), pl_db_i64(p, inv->max_unit),
                pl_db_i64(p, inv->step_size),
                ratio_str(p, inv->allocation_ratio), now));
}

/* Replace one row; *pexceeded when the usage is now above capacity.
 * Whether the row exists is asked first: MySQL counts only the rows an
 * UPDATE really changed, so an identical row would look missing. */
static apr_status_t update_one(pl_db_t *db, apr_pool_t *p,
                               const pl_provider_t *prov,
                               const pl_inventory_t *inv, const char *now,
                               int *pexceeded)
{
    const char *prov_id = pl_db_i64(p, prov->id);
    const char *rc_id = pl_db_i64(p, inv->rc_id);
    pl_rows_t *rows;
    apr_int64_t used;
    apr_status_t rv;

    rv = pl_db_select(db, p, &rows,
                      "SELECT i.id, (SELECT SUM(a.used) "
                      "FROM allocations a "
                      "WHERE a.resource_provider_id = i.resource_provider_id "
                      "AND a.resource_class_id = i.resource_class_id) "
                      "FROM inventories i WHERE i.resource_provider_id = %s "
                      "AND i.resource_class_id = %s",
                      PL_ARGS(prov_id, rc_id));
    if (rv != APR_SUCCESS) {
        return rv;
    }
    if (rows->nrows == 0) {
        return APR_ENOENT;
    }
    *pexceeded = pl_db_int64(rows, 0, 1, &used) == APR_SUCCESS &&
                 (double)used > pl_store_inventory_capacity(inv);
    return pl_db_exec(
        db, NULL,
        "UPDATE inventories SET total = %s, "
        "reserved = %s, min_unit = %s, max_unit = %s, "
        "step_size = %s, allocation_ratio = %s, "
        "updated_at = %s WHERE id = %s",
        PL_ARGS(pl_db_i64(p, inv->total), pl_db_i64(p, inv->reserved),
                pl_db_i64(p, inv->min_unit), pl_db_i64(p, inv->max_unit),
                pl_db_i64(p, inv->step_size),
                ratio_str(p, inv->allocation_ratio), now, PL_CELL(rows, 0, 0)));
}

/* Remove the inventories of classes ids (apr_int64_t, not empty) from
 * prov unless allocations use one of them (PL_EINUSE, *pinuse = their
 * names). *pdeleted: rows removed. */
static apr_status_t delete_classes(pl_db_t *db, apr_pool_t *p,
                                   const pl_provider_t *prov,
                                   const apr_array_header_t *ids,
                                   const char **pinuse, int *pdeleted)
{
    const char *in = pl_db_id_array(p, ids);
    const char *prov_id = pl_db_i64(p, prov->id);
    pl_rows_t *rows;
    apr_status_t rv;
    int i;

    rv = pl_db_select_text(
        db, p, &rows,
        apr_pstrcat(p,
                    "SELECT a.resource_class_id, rc.name FROM allocations a "
                    "JOIN resource_classes rc ON rc.id = a.resource_class_id "
                    "WHERE a.resource_provider_id = ",
                    prov_id, " AND a.resource_class_id IN (", in,
                    ") "
                    "GROUP BY a.resource_class_id, rc.name "
                    "ORDER BY a.resource_class_id",
                    NULL),
        PL_DB_TEXT_ONCE);
    if (rv != APR_SUCCESS) {
        return rv;
    }
    if (rows->nrows > 0) {
        const char *names = "";

        for (i = 0; i < rows->nrows; i++) {
            names = apr_pstrcat(p, names, i ? ", " : "", PL_CELL(rows, i, 1),
                                NULL);
        }
        *pinuse = names;
        return PL_EINUSE;
    }
    return pl_db_exec_text(
        db, pdeleted,
        apr_pstrcat(p, "DELETE FROM inventories WHERE resource_provider_id = ",
                    prov_id, " AND resource_class_id IN (", in, ")", NULL));
}

/* Close the transaction of a write: bump the generation on success, and
 * give prov its old generation back when the work is rolled back. */
static apr_status_t finish(pl_db_t *db, pl_provider_t *prov, apr_status_t rv)
{
    apr_int64_t generation = prov->generation;

    if (rv == APR_SUCCESS) {
        rv = pl_store_provider_bump(db, prov);
    }
    rv = pl_db_end(db, rv);
    if (rv != APR_SUCCESS) {
        prov->generation = generation;
    }
    return rv;
}

apr_status_t pl_store_inventory_add(pl_db_t *db, apr_pool_t *p,
                                    pl_provider_t *prov,
                                    const pl_inventory_t *inv)
{
    apr_status_t rv;

    if ((rv = pl_db_begin(db)) != APR_SUCCESS) {
        return rv;
    }
    rv = insert_one(db, p, prov, inv, pl_db_now(p));
    return finish(db, prov, rv);
}

apr_status_t pl_store_inventory_update(pl_db_t *db, apr_pool_t *p,
                                       pl_provider_t *prov,
                                       const pl_inventory_t *inv,
                                       int *pexceeded)
{
    apr_status_t rv;
    int exceeded = 0;

    if ((rv = pl_db_begin(db)) != APR_SUCCESS) {
        return rv;
    }
    rv = update_one(db, p, prov, inv, pl_db_now(p), &exceeded);
    rv = finish(db, prov, rv);
    if (pexceeded) {
        *pexceeded = rv == APR_SUCCESS && exceeded;
    }
    return rv;
}

apr_status_t pl_store_inventory_delete(pl_db_t *db, apr_pool_t *p,
                                       pl_provider_t *prov, apr_int64_t rc_id,
                                       const char **pinuse)
{
    apr_array_header_t *ids = apr_array_make(p, 1, sizeof(apr_int64_t));
    apr_status_t rv;
    int deleted = 0;

    APR_ARRAY_PUSH(ids, apr_int64_t) = rc_id;
    if ((rv = pl_db_begin(db)) != APR_SUCCESS) {
        return rv;
    }
    rv = delete_classes(db, p, prov, ids, pinuse, &deleted);
    if (rv == APR_SUCCESS && deleted == 0) {
        rv = APR_ENOENT;
    }
    return finish(db, prov, rv);
}

static const pl_inventory_t *find_class(const apr_array_header_t *invs,
                                        apr_int64_t rc_id)
{
    int i;

    for (i = 0; i < invs->nelts; i++) {
        const pl_inventory_t *inv = APR_ARRAY_IDX(invs, i,
                                                  const pl_inventory_t *);

        if (inv->rc_id == rc_id) {
            return inv;
        }
    }
    return NULL;
}

/* The body of pl_store_inventory_set, inside its transaction. */
static apr_status_t set_all(pl_db_t *db, apr_pool_t *p, pl_provider_t *prov,
                            const apr_array_header_t *invs, const char **pinuse,
                            apr_array_header_t *over)
{
    apr_array_header_t *to_delete = apr_array_make(p, 4, sizeof(apr_int64_t));
    apr_array_header_t *existing = apr_array_make(p, 4,
                                                  sizeof(pl_inventory_t *));
    const char *now = pl_db_now(p);
    pl_rows_t *rows;
    apr_status_t rv;
    int i;

    rv = pl_db_select(db, p, &rows,
                      "SELECT resource_class_id "
                      "FROM inventories WHERE resource_provider_id = %s",
                      PL_ARGS(pl_db_i64(p, prov->id)));
    if (rv != APR_SUCCESS) {
        return rv;
    }
    for (i = 0; i < rows->nrows; i++) {
        pl_inventory_t *have = apr_pcalloc(p, sizeof(*have));

        have->rc_id = apr_atoi64(PL_CELL(rows, i, 0));
        APR_ARRAY_PUSH(existing, pl_inventory_t *) = have;
        if (find_class(invs, have->rc_id) == NULL) {
            APR_ARRAY_PUSH(to_delete, apr_int64_t) = have->rc_id;
        }
    }
    /* upstream's order: removals (with the in-use check), additions,
     * then updates */
    if (to_delete->nelts > 0) {
        rv = delete_classes(db, p, prov, to_delete, pinuse, NULL);
    }
    for (i = 0; i < invs->nelts && rv == APR_SUCCESS; i++) {
        const pl_inventory_t *inv = APR_ARRAY_IDX(invs, i,
                                                  const pl_inventory_t *);

        if (find_class(existing, inv->rc_id) == NULL) {
            rv = insert_one(db, p, prov, inv, now);
        }
    }
    for (i = 0; i < invs->nelts && rv == APR_SUCCESS; i++) {
        const pl_inventory_t *inv = APR_ARRAY_IDX(invs, i,
                                                  const pl_inventory_t *);
        int exceeded = 0;

        if (find_class(existing, inv->rc_id) != NULL) {
            rv = update_one(db, p, prov, inv, now, &exceeded);
            if (exceeded) {
                APR_ARRAY_PUSH(over, const char *) = inv->rc_name;
            }
        }
    }
    return rv;
}

apr_status_t pl_store_inventory_set(pl_db_t *db, apr_pool_t *p,
                                    pl_provider_t *prov,
                                    const apr_array_header_t *invs,
                                    const char **pinuse,
                                    apr_array_header_t **pexceeded)
{
    apr_array_header_t *over = apr_array_make(p, 1, sizeof(const char *));
    apr_status_t rv;

    if ((rv = pl_db_begin(db)) != APR_SUCCESS) {
        return rv;
    }
    rv = set_all(db, p, prov, invs, pinuse, over);
    rv = finish(db, prov, rv);
    if (pexceeded) {
        *pexceeded = over;
    }
    return rv;
}
