/* Licensed under the Apache License, Version 2.0.
 *
 * pm_std.c: `db sync_standard_data`, the standard resource classes and
 * traits put into a database as the module puts them at its first
 * request (store_std.c: the built-in lists and a PlacementStandardTraitsFile,
 * inserted where missing, nothing deleted). Upstream does this only when
 * its API starts; a deployment tool that runs the schema tool first and
 * checks the database before any request wants it done here. Prints what
 * it added, one name a line, then a summary.
 */
#include <stdio.h>
#include <apr_strings.h>

#include "pm.h"
#include "pl_std_data.h"
#include "pl_store_std.h"

static void print_added(const char *what, const apr_array_header_t *added)
{
    int i;

    for (i = 0; i < added->nelts; i++) {
        printf("added %s %s\n", what, APR_ARRAY_IDX(added, i, const char *));
    }
}

int pm_db_sync_standard_data(pm_conn_t *c, const char *traits_file)
{
    apr_array_header_t *extra = NULL, *classes, *traits;
    const char *file = traits_file ? traits_file : c->src->std_traits_file;
    const char *err;
    apr_status_t rv;
    int have;

    if (file != NULL &&
        pl_std_traits_file_read(c->pool, file, &extra, &err) != APR_SUCCESS) {
        pm_err("%s", err);
        return PM_EXIT_FAIL;
    }
    have = pm_table_exists(c, "traits");
    if (have <= 0) {
        pm_err("%s", have < 0 ? pl_db_errstr(c->db)
                              : "the database has no schema yet: run "
                                "`db sync` first");
        return PM_EXIT_FAIL;
    }
    classes = apr_array_make(c->pool, 4, sizeof(const char *));
    traits = apr_array_make(c->pool, 32, sizeof(const char *));
    rv = pl_store_std_insert(c->db, c->pool, extra, classes, traits);
    if (rv != APR_SUCCESS) {
        pm_err("inserting the standard data: %s", pl_db_errstr(c->db));
        return PM_EXIT_FAIL;
    }
    print_added("resource class", classes);
    print_added("trait", traits);
    printf("%d resource classes and %d traits added (standard: %d resource "
           "classes; %d traits of %s",
           classes->nelts, traits->nelts, pl_std_resource_classes_n,
           pl_std_traits_n, pl_std_traits_source);
    if (extra != NULL) {
        printf(" and %d of %s", extra->nelts, file);
    }
    puts(")");
    return PM_EXIT_OK;
}
