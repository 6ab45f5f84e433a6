/* Licensed under the Apache License, Version 2.0.
 *
 * store_fixture.h: what the store tests (test_store_*.c) share: an
 * in-memory SQLite database with the project's schema and the standard
 * resource classes and traits, providers and inventories made through the
 * store itself, and small readers of table contents for the checks.
 *
 * pl_store_std_sync inserts the standard data once per process, so a
 * test program opens one database and gives every test its own
 * providers and consumers (distinct uuids and names).
 *
 * A setup step that fails aborts the program: a test must not go on from
 * a world other than the one it describes. Everything is static inline
 * so that a file leaving a helper unused compiles without warnings.
 */
#ifndef PL_TEST_STORE_FIXTURE_H
#define PL_TEST_STORE_FIXTURE_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <apr_strings.h>

#include "pl_store.h"
#include "pl_store_std.h"
#include "pl_store_provider.h"
#include "pl_store_inventory.h"
#include "pl_store_rc.h"
#include "memory_db.h"
#include "tap.h"

/* Give up on the whole program: setup went wrong. */
static inline void fixture_fail(pl_db_t *db, const char *what)
{
    fprintf(stderr, "# fixture failed: %s: %s\n", what,
            db ? pl_db_errstr(db) : "");
    printf("Bail out! %s\n", what);
    abort();
}

/* Run SQL text that must succeed. */
static inline void fixture_exec(pl_db_t *db, const char *sql)
{
    if (pl_db_exec_text(db, NULL, sql) != APR_SUCCESS) {
        fixture_fail(db, sql);
    }
}

/* A new database with the schema and the standard classes and traits;
 * NULL when SQLite's apr_dbd driver is missing. */
static inline pl_db_t *fixture_open(apr_pool_t *pool)
{
    pl_db_t *db = memory_db(pool);

    if (db == NULL) {
        return NULL;
    }
    if (memory_db_load(db, pool, "sql/sqlite/schema.sql") != APR_SUCCESS) {
        fixture_fail(db, "sql/sqlite/schema.sql");
    }
    if (pl_store_std_sync(db, pool, NULL, NULL) != APR_SUCCESS) {
        fixture_fail(db, "pl_store_std_sync");
    }
    return db;
}

/* The start of a store test program: APR, its root pool (*proot) and
 * the database, its opening the first test; NULL when it cannot open
 * (the program then ends with tap_done()). */
static inline pl_db_t *fixture_start(apr_pool_t **proot)
{
    pl_db_t *db;

    apr_initialize();
    apr_pool_create(proot, NULL);
    apr_dbd_init(*proot);
    db = fixture_open(*proot);
    TAP_OK(db != NULL, "an in-memory SQLite database with the schema opens");
    return db;
}

/* The first cell of what the printf-like query text returns; NULL when
 * the query fails or returns no row (or SQL NULL). */
static inline const char *fixture_cell(pl_db_t *db, apr_pool_t *p,
                                       const char *fmt, va_list ap)
{
    pl_rows_t *rows;

    if (pl_db_select_text(db, p, &rows, apr_pvsprintf(p, fmt, ap),
                          PL_DB_TEXT_ONCE) != APR_SUCCESS ||
        rows->nrows == 0 || rows->ncols == 0) {
        return NULL;
    }
    return PL_CELL(rows, 0, 0);
}

/* The integer in the first cell; -1 when there is none. */
static inline apr_int64_t fixture_int(pl_db_t *db, apr_pool_t *p,
                                      const char *fmt, ...)
{
    const char *cell;
    va_list ap;

    va_start(ap, fmt);
    cell = fixture_cell(db, p, fmt, ap);
    va_end(ap);
    return cell ? apr_atoi64(cell) : -1;
}

/* The first cell as text (NULL for none). */
static inline const char *fixture_text(pl_db_t *db, apr_pool_t *p,
                                       const char *fmt, ...)
{
    const char *cell;
    va_list ap;

    va_start(ap, fmt);
    cell = fixture_cell(db, p, fmt, ap);
    va_end(ap);
    return cell;
}

/* The stored generation of provider uuid (-1: none). */
static inline apr_int64_t fixture_prov_generation(pl_db_t *db, apr_pool_t *p,
                                                  const char *uuid)
{
    return fixture_int(db, p,
                       "SELECT generation FROM resource_providers "
                       "WHERE uuid = '%s'",
                       uuid);
}

/* A new root provider called name; uuid is "00000000-0000-0000-0000-"
 * and twelve digits of serial. */
static inline pl_provider_t *fixture_provider(pl_db_t *db, apr_pool_t *p,
                                              const char *name, int serial)
{
    const char *uuid = apr_psprintf(p, "00000000-0000-0000-0000-%012d", serial);
    pl_provider_t *prov = NULL;
    const char *dup = NULL;

    if (pl_store_provider_create(db, p, name, uuid, NULL, &prov, &dup) !=
        APR_SUCCESS) {
        fixture_fail(db, apr_pstrcat(p, "provider ", name, NULL));
    }
    return prov;
}

/* An inventory record of class rc_name (its id looked up). */
static inline pl_inventory_t *
fixture_inv(pl_db_t *db, apr_pool_t *p, const char *rc_name, apr_int64_t total,
            apr_int64_t reserved, apr_int64_t min_unit, apr_int64_t max_unit,
            apr_int64_t step_size, double allocation_ratio)
{
    pl_inventory_t *inv = apr_pcalloc(p, sizeof(*inv));

    if (pl_store_rc_id(db, p, rc_name, &inv->rc_id) != APR_SUCCESS) {
        fixture_fail(db, apr_pstrcat(p, "resource class ", rc_name, NULL));
    }
    inv->rc_name = rc_name;
    inv->total = total;
    inv->reserved = reserved;
    inv->min_unit = min_unit;
    inv->max_unit = max_unit;
    inv->step_size = step_size;
    inv->allocation_ratio = allocation_ratio;
    return inv;
}

/* Add that inventory to prov through the store (its generation bumped). */
static inline void fixture_add_inv(pl_db_t *db, apr_pool_t *p,
                                   pl_provider_t *prov, const char *rc_name,
                                   apr_int64_t total, apr_int64_t reserved,
                                   apr_int64_t min_unit, apr_int64_t max_unit,
                                   apr_int64_t step_size,
                                   double allocation_ratio)
{
    if (pl_store_inventory_add(db, p, prov,
                               fixture_inv(db, p, rc_name, total, reserved,
                                           min_unit, max_unit, step_size,
                                           allocation_ratio)) != APR_SUCCESS) {
        fixture_fail(db, apr_pstrcat(p, "inventory ", rc_name, " of ",
                                     prov->name, NULL));
    }
}

#endif /* PL_TEST_STORE_FIXTURE_H */
