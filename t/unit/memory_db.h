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

/* NULL when SQLite's apr_dbd driver cannot be had. Each connection
 * gets a pool of its own (a child of pool): pl_db keeps a connection's
 * prepared statements in its connection pool, so two connections on one
 * pool would run each other's statements. */
static inline pl_db_t *memory_db(apr_pool_t *pool)
{
    const apr_dbd_driver_t *driver;
    apr_dbd_t *handle;
    apr_pool_t *conn_pool;

    if (apr_pool_create(&conn_pool, pool) != APR_SUCCESS) {
        return NULL;
    }
    apr_pool_tag(conn_pool, "memory_db_connection");
    if (apr_dbd_get_driver(conn_pool, "sqlite3", &driver) != APR_SUCCESS ||
        apr_dbd_open(driver, conn_pool, ":memory:", &handle) != APR_SUCCESS) {
        return NULL;
    }
    return pl_db_wrap(pool, conn_pool, driver, handle, 0);
}

#endif /* PL_TEST_MEMORY_DB_H */
