/* Licensed under the Apache License, Version 2.0.
 *
 * store_rc.c: resource classes in the database: lookups, and the life of
 * custom classes (create with the next custom id, rename, delete when
 * unused). Standard classes are never changed here.
 *
 * Names are compared byte for byte, as upstream's in-memory caches do,
 * even where the column's collation (MySQL) ignores case or trailing
 * blanks: "vcpu" is no resource class.
 */
#include <string.h>
#include <apr_strings.h>

#include "pl_store_rc.h"

/* Attempts at an id before create gives up (upstream tries 100 times;
 * an attempt only loses to a creator that committed in the same instant,
 * so a few are plenty). */
#define RC_CREATE_ATTEMPTS 10

#define RC_COLUMNS "id, name, created_at, updated_at"

static pl_rc_t *rc_from_row(apr_pool_t *p, const pl_rows_t *rows, int i)
{
    pl_rc_t *rc = apr_pcalloc(p, sizeof(*rc));

    rc->id = apr_atoi64(PL_CELL(rows, i, 0));
    rc->name = PL_CELL(rows, i, 1);
    rc->created_at = PL_CELL(rows, i, 2);
    rc->updated_at = PL_CELL(rows, i, 3);
    return rc;
}

apr_status_t pl_store_rc_id(pl_db_t *db, apr_pool_t *p, const char *name,
                            apr_int64_t *pid)
{
    pl_rows_t *rows;
    apr_status_t rv;

    rv = pl_db_select(db, p, &rows,
                      "SELECT id, name FROM resource_classes "
                      "WHERE name = %s",
                      PL_ARGS(name));
    if (rv != APR_SUCCESS) {
        return rv;
    }
    if (rows->nrows == 0 || strcmp(PL_CELL(rows, 0, 1), name) != 0) {
        return APR_ENOENT;
    }
    return pl_db_int64(rows, 0, 0, pid);
}

apr_status_t pl_store_rc_list(pl_db_t *db, apr_pool_t *p,
                              apr_array_header_t **prcs)
{
    pl_rows_t *rows;
    apr_status_t rv;
    int i;

    rv = pl_db_select(db, p, &rows,
                      "SELECT " RC_COLUMNS " FROM resource_classes ORDER BY id",
                      PL_NOARGS);
    if (rv != APR_SUCCESS) {
        return rv;
    }
    *prcs = apr_array_make(p, rows->nrows, sizeof(pl_rc_t *));
    for (i = 0; i < rows->nrows; i++) {
        APR_ARRAY_PUSH(*prcs, pl_rc_t *) = rc_from_row(p, rows, i);
    }
    return APR_SUCCESS;
}

apr_status_t pl_store_rc_get(pl_db_t *db, apr_pool_t *p, const char *name,
                             pl_rc_t **prc)
{
    pl_rows_t *rows;
    apr_status_t rv;

    rv = pl_db_select(db, p, &rows,
                      "SELECT " RC_COLUMNS
                      " FROM resource_classes WHERE name = %s",
                      PL_ARGS(name));
    if (rv != APR_SUCCESS) {
        return rv;
    }
    if (rows->nrows == 0 || strcmp(PL_CELL(rows, 0, 1), name) != 0) {
        return APR_ENOENT;
    }
    *prc = rc_from_row(p, rows, 0);
    return APR_SUCCESS;
}

typedef struct create_args_t {
    const char *name;
    const char *now;
    pl_rc_t **prc;
} create_args_t;

/* A pl_db_txn_fn. Two creators may read the same maximum: the second
 * insert then fails on the primary key and its transaction runs again to
 * take the next id; if it failed on the name, the name is taken. */
static apr_status_t create_txn(pl_db_t *db, apr_pool_t *p, void *baton)
{
    create_args_t *a = baton;
    pl_rows_t *rows;
    pl_rc_t *other;
    apr_status_t rv, rv2;

    rv = pl_db_select(db, p, &rows,
                      "SELECT COALESCE(MAX(id), 9999) + 1 "
                      "FROM resource_classes WHERE id >= 10000",
                      PL_NOARGS);
    if (rv != APR_SUCCESS) {
        return rv;
    }
    if ((rv = pl_db_savepoint(db, "pl_rc_insert")) != APR_SUCCESS) {
        return rv;
    }
    rv = pl_db_exec(db, NULL,
                    "INSERT INTO resource_classes "
                    "(id, name, created_at) VALUES (%s, %s, %s)",
                    PL_ARGS(PL_CELL(rows, 0, 0), a->name, a->now));
    rv = pl_db_release(db, "pl_rc_insert", rv);
    if (rv == APR_SUCCESS) {
        return pl_store_rc_get(db, p, a->name, a->prc);
    }
    /* apr_dbd_pgsql loses the text of an error inside a savepoint: a
     * failure is a duplicate id or name until a read says which */
    if (rv != APR_EEXIST && rv != PL_EDB) {
        return rv;
    }
    rv2 = pl_store_rc_get(db, p, a->name, &other);
    if (rv2 == APR_SUCCESS) {
        return APR_EEXIST; /* the name is taken: final */
    }
    return rv2 == APR_ENOENT ? PL_DB_ERETRY : rv2;
}

apr_status_t pl_store_rc_create(pl_db_t *db, apr_pool_t *p, const char *name,
                                pl_rc_t **prc)
{
    create_args_t a;
    apr_status_t rv;

    a.name = name;
    a.now = pl_db_now(p);
    a.prc = prc;
    rv = pl_db_run_txn(db, p, create_txn, &a, RC_CREATE_ATTEMPTS, NULL);
    return rv == PL_DB_ERETRY ? PL_ECONFLICT : rv;
}

apr_status_t pl_store_rc_rename(pl_db_t *db, apr_pool_t *p, pl_rc_t *rc,
                                const char *name)
{
    const char *now = pl_db_now(p);
    apr_status_t rv;

    if (rc->id < PL_CUSTOM_RC_MIN_ID) {
        return APR_EINVAL;
    }
    /* No check of the rows changed: MySQL counts 0 when the name and the
     * second stay the same, and upstream does not care either. */
    rv = pl_db_exec(
        db, NULL,
        "UPDATE resource_classes SET name = %s, "
        "updated_at = %s WHERE id = %s",
        PL_ARGS(name, now, apr_psprintf(p, "%" APR_INT64_T_FMT, rc->id)));
    if (rv != APR_SUCCESS) {
        return rv;
    }
    rc->name = name;
    rc->updated_at = now;
    return APR_SUCCESS;
}

/* Does the query sql (one "%s": the class id) find a row? */
static apr_status_t rc_used_in(pl_db_t *db, apr_pool_t *p, const char *sql,
                               const char *id, int *pused)
{
    pl_rows_t *rows;
    apr_status_t rv;

    rv = pl_db_select(db, p, &rows, sql, PL_ARGS(id));
    if (rv == APR_SUCCESS) {
        *pused = rows->nrows > 0;
    }
    return rv;
}

apr_status_t pl_store_rc_delete(pl_db_t *db, apr_pool_t *ptemp,
                                const pl_rc_t *rc)
{
    const char *id;
    int used = 0, changed = 0;
    apr_status_t rv;

    if (rc->id < PL_CUSTOM_RC_MIN_ID) {
        return APR_EINVAL;
    }
    id = apr_psprintf(ptemp, "%" APR_INT64_T_FMT, rc->id);
    rv = pl_db_begin(db);
    if (rv != APR_SUCCESS) {
        return rv;
    }
    /* Upstream only looks at inventories; an allocation cannot outlive
     * its inventory through the API, but a class must never disappear
     * from under rows that name it, so allocations count too. */
    rv = rc_used_in(db, ptemp,
                    "SELECT 1 FROM inventories "
                    "WHERE resource_class_id = %s LIMIT 1",
                    id, &used);
    if (rv == APR_SUCCESS && !used) {
        rv = rc_used_in(db, ptemp,
                        "SELECT 1 FROM allocations "
                        "WHERE resource_class_id = %s LIMIT 1",
                        id, &used);
    }
    if (rv == APR_SUCCESS && used) {
        rv = PL_EINUSE;
    }
    if (rv == APR_SUCCESS) {
        rv = pl_db_exec(db, &changed,
                        "DELETE FROM resource_classes "
                        "WHERE id = %s",
                        PL_ARGS(id));
    }
    if (rv == APR_SUCCESS && changed == 0) {
        rv = APR_ENOENT;
    }
    return pl_db_end(db, rv);
}
