/* Licensed under the Apache License, Version 2.0.
 *
 * store_rc.c: resource classes in the database.
 */
#include <apr_strings.h>

#include "pl_store_rc.h"

apr_status_t pl_store_rc_id(pl_db_t *db, apr_pool_t *p, const char *name,
                            apr_int64_t *pid)
{
    pl_rows_t *rows;
    apr_status_t rv;

    rv = pl_db_select(db, p, &rows, "SELECT id FROM resource_classes "
                      "WHERE name = %s", PL_ARGS(name));
    if (rv != APR_SUCCESS) {
        return rv;
    }
    return pl_db_int64(rows, 0, 0, pid);
}
