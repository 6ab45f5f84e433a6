/* Licensed under the Apache License, Version 2.0.
 *
 * memory_db.h: a pl_db_t on a new SQLite database in memory
 * (apr_dbd_sqlite3), for the unit tests of what runs SQL. Static inline,
 * so a test that leaves it unused still compiles without warnings.
 */
#ifndef PL_TEST_MEMORY_DB_H
#define PL_TEST_MEMORY_DB_H

#include <stdio.h>
#include <string.h>
#include <apr_dbd.h>
#include <apr_strings.h>
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

/* Run the statements of a SQL file (sql/sqlite/schema.sql) one by one:
 * apr_dbd_sqlite3 runs one statement a call. "--" comments go first, as
 * they may hold ';'. APR_ENOENT when the file cannot be read, else the
 * first failure or APR_SUCCESS. */
static inline apr_status_t memory_db_load(pl_db_t *db, apr_pool_t *p,
                                          const char *path)
{
    char line[1024], *text, *stmt, *state;
    apr_size_t len = 0, cap = 65536;
    apr_status_t rv = APR_SUCCESS;
    FILE *f = fopen(path, "r");

    if (f == NULL) {
        return APR_ENOENT;
    }
    text = apr_palloc(p, cap);
    text[0] = '\0';
    while (fgets(line, sizeof(line), f)) {
        char *comment = strstr(line, "--");
        apr_size_t n;

        if (comment) {
            *comment = '\0';
        }
        n = strlen(line);
        if (len + n + 1 >= cap) {
            char *bigger = apr_palloc(p, cap * 2);

            memcpy(bigger, text, len + 1);
            text = bigger;
            cap *= 2;
        }
        memcpy(text + len, line, n + 1);
        len += n;
    }
    fclose(f);
    for (stmt = apr_strtok(text, ";", &state); stmt && rv == APR_SUCCESS;
         stmt = apr_strtok(NULL, ";", &state)) {
        if (stmt[strspn(stmt, " \t\r\n")] != '\0') {
            rv = pl_db_exec_text(db, NULL, stmt);
        }
    }
    return rv;
}

#endif /* PL_TEST_MEMORY_DB_H */
