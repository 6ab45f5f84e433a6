/* Licensed under the Apache License, Version 2.0.
 *
 * memory_db.h: a pl_db_t on a new SQLite database in memory
 * (apr_dbd_sqlite3), for the unit tests of what runs SQL. Static inline,
 * so a test that leaves it unused still compiles without warnings.
 */
#ifndef PL_TEST_MEMORY_DB_H
#define PL_TEST_MEMORY_DB_H

#include <apr_dbd.h>
#include "pl_db.h"

/* NULL when SQLite's apr_dbd driver cannot be had */
static inline pl_db_t *memory_db(apr_pool_t *pool)
{
    const apr_dbd_driver_t *driver;
    apr_dbd_t *handle;

    if (apr_dbd_get_driver(pool, "sqlite3", &driver) != APR_SUCCESS ||
        apr_dbd_open(driver, pool, ":memory:", &handle) != APR_SUCCESS) {
        return NULL;
    }
    return pl_db_wrap(pool, pool, driver, handle, 0);
}

#endif /* PL_TEST_MEMORY_DB_H */
