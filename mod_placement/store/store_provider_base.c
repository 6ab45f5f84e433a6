/* Licensed under the Apache License, Version 2.0.
 *
 * store_provider_base.c: what every family needs of a resource provider:
 * find it by uuid, and bump its generation (compare-and-swap, DESIGN.md
 * section 3). The rest of providers lives in store_provider.c.
 */
#include <apr_strings.h>

#include "pl_store_provider.h"

pl_provider_t *pl_store_provider_from_row(apr_pool_t *p, const pl_rows_t *rows,
                                          int i, int col)
{
    pl_provider_t *prov = apr_pcalloc(p, sizeof(*prov));
    const char *v;

    prov->id = apr_atoi64(PL_CELL(rows, i, col));
    prov->uuid = PL_CELL(rows, i, col + 1);
    prov->name = PL_CELL(rows, i, col + 2);
    prov->generation = apr_atoi64(PL_CELL(rows, i, col + 3));
    v = PL_CELL(rows, i, col + 4);
    prov->parent_id = v ? apr_atoi64(v) : 0;
    v = PL_CELL(rows, i, col + 5);
    prov->root_id = v ? apr_atoi64(v) : prov->id;
    prov->parent_uuid = PL_CELL(rows, i, col + 6);
    prov->root_uuid = PL_CELL(rows, i, col + 7);
    if (prov->root_uuid == NULL) {
        prov->root_uuid = prov->uuid;
    }
    prov->created_at = PL_CELL(rows, i, col + 8);
    prov->updated_at = PL_CELL(rows, i, col + 9);
    return prov;
}

apr_status_t pl_store_provider_get(pl_db_t *db, apr_pool_t *p, const char *uuid,
                                   pl_provider_t **pprov)
{
    pl_rows_t *rows;
    apr_status_t rv;

    rv = pl_db_select(db, p, &rows,
                      "SELECT " PL_PROVIDER_COLUMNS " FROM " PL_PROVIDER_FROM
                      " WHERE rp.uuid = %s",
                      PL_ARGS(uuid));
    if (rv != APR_SUCCESS) {
        return rv;
    }
    if (rows->nrows == 0) {
        return APR_ENOENT;
    }
    *pprov = pl_store_provider_from_row(p, rows, 0, 0);
    return APR_SUCCESS;
}

apr_status_t pl_store_bump_generation(pl_db_t *db, const char *table,
                                      apr_int64_t id, apr_int64_t *pgen)
{
    char sql[160], sid[32], gen[32], now[32];
    int changed = 0;
    apr_status_t rv;

    /* table is always a literal of the caller, never request data */
    apr_snprintf(sql, sizeof(sql),
                 "UPDATE %s SET generation = "
                 "generation + 1, updated_at = %%s "
                 "WHERE id = %%s AND generation = %%s",
                 table);
    apr_snprintf(sid, sizeof(sid), "%" APR_INT64_T_FMT, id);
    apr_snprintf(gen, sizeof(gen), "%" APR_INT64_T_FMT, *pgen);
    pl_db_now_buf(now, sizeof(now));
    rv = pl_db_exec(db, &changed, sql, PL_ARGS(now, sid, gen));
    if (rv != APR_SUCCESS) {
        return rv;
    }
    if (changed != 1) {
        return PL_ECONFLICT;
    }
    (*pgen)++;
    return APR_SUCCESS;
}

apr_status_t pl_store_bump_generations(pl_db_t *db, apr_pool_t *p,
                                       const char *table, int n,
                                       const apr_int64_t *ids,
                                       apr_int64_t *const *gens)
{
    /* one OR of (id, generation) pairs: each database finds the rows by
     * their primary key, and a row whose generation moved is not
     * changed, so the count tells a conflict (a repeated pair, the
     * padding of pl_db_exec_list, changes its row once) */
    pl_db_list_t bump = { NULL,   1,    NULL, "(id = %s AND generation = %s)",
                          0,      NULL, "",   2,
                          " OR ", 1 };
    const char **values = apr_palloc(p,
                                     (apr_size_t)(2 * n + 1) * sizeof(*values));
    const char *now[1];
    apr_status_t rv;
    int changed = 0, i;

    if (n <= 0) {
        return APR_SUCCESS;
    }
    /* table is always a literal of the caller, never request data */
    bump.head = apr_pstrcat(p, "UPDATE ", table,
                            " SET generation = generation + 1, "
                            "updated_at = %s WHERE ",
                            NULL);
    now[0] = pl_db_now(p);
    bump.head_args = now;
    for (i = 0; i < n; i++) {
        values[2 * (apr_size_t)i] = pl_db_i64(p, ids[i]);
        values[2 * (apr_size_t)i + 1] = pl_db_i64(p, *gens[i]);
    }
    rv = pl_db_exec_list(db, p, &bump, values, n, &changed);
    if (rv != APR_SUCCESS) {
        return rv;
    }
    if (changed != n) {
        return PL_ECONFLICT;
    }
    for (i = 0; i < n; i++) {
        (*gens[i])++;
    }
    return APR_SUCCESS;
}

apr_status_t pl_store_provider_bump(pl_db_t *db, pl_provider_t *prov)
{
    return pl_store_bump_generation(db, "resource_providers", prov->id,
                                    &prov->generation);
}
