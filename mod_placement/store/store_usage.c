/* Licensed under the Apache License, Version 2.0.
 *
 * store_usage.c: usages summed from the allocations table. Provider usage
 * is one grouped query; project totals are one grouped query plus, when
 * consumers are counted (1.38+), one more: counting in the first query
 * would count a consumer once per class it uses.
 */
#include <string.h>
#include <apr_strings.h>

#include "pl_store_usage.h"

const char pl_store_usage_no_types[] = "";

apr_status_t pl_store_usage_provider(pl_db_t *db, apr_pool_t *p,
                                     apr_int64_t prov_id,
                                     apr_array_header_t **pusages)
{
    pl_rows_t *rows;
    apr_status_t rv;
    int i;

    rv = pl_db_select(db, p, &rows,
                      "SELECT rc.name, "
                      "COALESCE(SUM(a.used), 0) FROM inventories i "
                      "JOIN resource_classes rc "
                      "ON rc.id = i.resource_class_id "
                      "LEFT JOIN allocations a "
                      "ON a.resource_provider_id = i.resource_provider_id "
                      "AND a.resource_class_id = i.resource_class_id "
                      "WHERE i.resource_provider_id = %s "
                      "GROUP BY i.resource_class_id, rc.name "
                      "ORDER BY i.resource_class_id",
                      PL_ARGS(apr_psprintf(p, "%" APR_INT64_T_FMT, prov_id)));
    if (rv != APR_SUCCESS) {
        return rv;
    }
    *pusages = apr_array_make(p, rows->nrows, sizeof(pl_usage_t *));
    for (i = 0; i < rows->nrows; i++) {
        pl_usage_t *u = apr_pcalloc(p, sizeof(*u));

        u->rc_name = PL_CELL(rows, i, 0);
        u->used = apr_atoi64(PL_CELL(rows, i, 1));
        APR_ARRAY_PUSH(*pusages, pl_usage_t *) = u;
    }
    return APR_SUCCESS;
}

/* The WHERE of the project totals: the project's, the user's when not
 * NULL, the consumer type's (type: a name); unknown keeps the consumers
 * without a type. The values are in the text: a project may hold ten
 * consumers or a tenth of the cloud, and the plan that suits one does
 * not suit the other (PostgreSQL plans a kept statement once, for any
 * values: pl_db.c). */
static const char *totals_where(pl_db_t *db, apr_pool_t *p, const char *project,
                                const char *user, const char *type, int unknown)
{
    return apr_pstrcat(
        p, " WHERE pr.external_id = ", pl_db_quote(db, p, project),
        user ? " AND u.external_id = " : "",
        user ? pl_db_quote(db, p, user) : "", type ? " AND ct.name = " : "",
        type ? pl_db_quote(db, p, type) : "",
        unknown ? " AND c.consumer_type_id IS NULL" : "", NULL);
}

/* FROM ... WHERE of the project totals, with join (may be "") before
 * where (totals_where's). by_type joins consumer types, with_user users. */
static const char *totals_from(apr_pool_t *p, const char *join, int with_user,
                               int by_type, const char *where)
{
    return apr_pstrcat(
        p, " FROM allocations a JOIN consumers c ON c.uuid = a.consumer_id",
        by_type ? " LEFT JOIN consumer_types ct"
                  " ON ct.id = c.consumer_type_id"
                : "",
        " JOIN projects pr ON pr.id = c.project_id",
        with_user ? " JOIN users u ON u.id = c.user_id" : "", join, where,
        NULL);
}

static pl_usage_t *usage_make(apr_pool_t *p, const char *rc_name,
                              const char *used)
{
    pl_usage_t *u = apr_pcalloc(p, sizeof(*u));

    u->rc_name = rc_name;
    u->used = used ? apr_atoi64(used) : 0;
    return u;
}

/* Both NULL, or the same text. */
static int same_name(const char *a, const char *b)
{
    return a == b || (a && b && !strcmp(a, b));
}

apr_status_t pl_store_usage_totals(pl_db_t *db, apr_pool_t *p,
                                   const char *project, const char *user,
                                   const char *consumer_type,
                                   apr_array_header_t **pusages)
{
    int grouped = consumer_type != PL_USAGE_NO_TYPES;
    int whole = grouped && consumer_type &&
                (!strcmp(consumer_type, "all") ||
                 !strcmp(consumer_type, "unknown"));
    int by_type = grouped && !whole;
    int named = by_type && consumer_type != NULL;
    int unknown = whole && !strcmp(consumer_type, "unknown");
    const char *where = totals_where(db, p, project, user,
                                     named ? consumer_type : NULL, unknown);
    pl_rows_t *rows, *counts = NULL;
    apr_status_t rv;
    int i, j;

    rv = pl_db_select_text(
        db, p, &rows,
        apr_pstrcat(p, "SELECT rc.name, SUM(a.used)",
                    by_type ? ", ct.name" : "",
                    totals_from(p,
                                " JOIN resource_classes rc"
                                " ON rc.id = a.resource_class_id",
                                user != NULL, by_type, where),
                    by_type ? " GROUP BY ct.name, rc.id, rc.name"
                              " ORDER BY ct.name, rc.id"
                            : " GROUP BY rc.id, rc.name ORDER BY rc.id",
                    NULL),
        PL_DB_TEXT_KEPT);
    if (rv == APR_SUCCESS && grouped) {
        rv = pl_db_select_text(
            db, p, &counts,
            apr_pstrcat(p, "SELECT COUNT(DISTINCT a.consumer_id)",
                        by_type ? ", ct.name" : "",
                        totals_from(p, "", user != NULL, by_type, where),
                        by_type ? " GROUP BY ct.name" : "", NULL),
            PL_DB_TEXT_KEPT);
    }
    if (rv != APR_SUCCESS) {
        return rv;
    }
    *pusages = apr_array_make(p, rows->nrows, sizeof(pl_usage_t *));
    for (i = 0; i < rows->nrows; i++) {
        pl_usage_t *u = usage_make(p, PL_CELL(rows, i, 0), PL_CELL(rows, i, 1));

        if (by_type) {
            const char *type = PL_CELL(rows, i, 2);

            for (j = 0; j < counts->nrows; j++) {
                if (same_name(PL_CELL(counts, j, 1), type)) {
                    u->consumer_count = apr_atoi64(PL_CELL(counts, j, 0));
                }
            }
            u->consumer_type = type ? type : "unknown";
        }
        else if (grouped) {
            u->consumer_count = apr_atoi64(PL_CELL(counts, 0, 0));
            u->consumer_type = consumer_type;
        }
        APR_ARRAY_PUSH(*pusages, pl_usage_t *) = u;
    }
    return APR_SUCCESS;
}
