/* Licensed under the Apache License, Version 2.0.
 *
 * pm_online.c: `db online_data_migrations [--max-count N]`, upstream's two
 * online data migrations (both Stein), in batches:
 *   set_root_provider_ids         a provider without a root is its own root
 *   create_incomplete_consumers   an allocation's consumer that has no row
 *                                 gets one, in the incomplete-consumer
 *                                 project and user
 * Without --max-count, batches of 50 until a batch does nothing; with it,
 * one batch of at most N rows over both. Exit codes as upstream's: 0 no
 * (further) work, 1 work done and --max-count given, 2 errors and nothing
 * done in the last batch, 127 a bad --max-count.
 */
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <apr_strings.h>
#include "pm.h"

typedef apr_status_t migration_fn(pm_conn_t *c, long batch, long *found,
                                  long *done);

static apr_status_t set_root_provider_ids(pm_conn_t *c, long batch, long *found,
                                          long *done)
{
    int changed = 0;
    /* the inner SELECT is wrapped once more so that MySQL lets an UPDATE
     * read the table it changes */
    apr_status_t rv = pl_db_exec_text(
        c->db, &changed,
        apr_psprintf(c->pool,
                     "UPDATE resource_providers SET root_provider_id = id "
                     "WHERE id IN (SELECT subq_1.id FROM (SELECT id FROM "
                     "resource_providers WHERE root_provider_id IS NULL "
                     "LIMIT %ld) AS subq_1)",
                     batch));

    *found = *done = changed;
    return rv;
}

/* The id of the project (or user) row with this external id, made if
 * missing */
static apr_status_t ensure_external(pm_conn_t *c, const char *table,
                                    const char *external_id, const char **pid)
{
    const char *sel = apr_psprintf(c->pool,
                                   "SELECT id FROM %s WHERE "
                                   "external_id = %s",
                                   table,
                                   pl_db_quote(c->db, c->pool, external_id));
    pl_rows_t *rows;
    apr_status_t rv = pl_db_select_text(c->db, c->pool, &rows, sel,
                                        PL_DB_TEXT_ONCE);

    if (rv == APR_SUCCESS && rows->nrows == 0) {
        rv = pl_db_exec_text(
            c->db, NULL,
            apr_psprintf(c->pool,
                         "INSERT INTO %s (external_id, created_at) "
                         "VALUES (%s, %s)",
                         table, pl_db_quote(c->db, c->pool, external_id),
                         pl_db_quote(c->db, c->pool, pl_db_now(c->pool))));
        if (rv == APR_SUCCESS) {
            rv = pl_db_select_text(c->db, c->pool, &rows, sel, PL_DB_TEXT_ONCE);
        }
    }
    if (rv == APR_SUCCESS && rows->nrows != 1) {
        rv = PL_EDB;
    }
    if (rv == APR_SUCCESS) {
        *pid = PL_CELL(rows, 0, 0);
    }
    return rv;
}

static apr_status_t create_incomplete_consumers(pm_conn_t *c, long batch,
                                                long *found, long *done)
{
    const char *project = c->src->incomplete_project != NULL
                              ? c->src->incomplete_project
                              : PM_MISSING_ID;
    const char *user = c->src->incomplete_user != NULL ? c->src->incomplete_user
                                                       : PM_MISSING_ID;
    const char *project_id, *user_id;
    int changed = 0;
    apr_status_t rv = ensure_external(c, "projects", project, &project_id);

    if (rv == APR_SUCCESS) {
        rv = ensure_external(c, "users", user, &user_id);
    }
    /* one consumer per consumer_id, however many allocations it has */
    if (rv == APR_SUCCESS) {
        rv = pl_db_exec_text(
            c->db, &changed,
            apr_psprintf(c->pool,
                         "INSERT INTO consumers (uuid, project_id, user_id, "
                         "generation, created_at) "
                         "SELECT allocations.consumer_id, %s, %s, 0, %s "
                         "FROM allocations LEFT OUTER JOIN consumers "
                         "ON allocations.consumer_id = consumers.uuid "
                         "WHERE consumers.id IS NULL "
                         "GROUP BY allocations.consumer_id LIMIT %ld",
                         project_id, user_id,
                         pl_db_quote(c->db, c->pool, pl_db_now(c->pool)),
                         batch));
    }
    *found = *done = changed;
    return rv;
}

static const struct {
    const char *name;
    migration_fn *fn;
} migrations[] = {
    { "set_root_provider_ids", set_root_provider_ids },
    { "create_incomplete_consumers", create_incomplete_consumers },
};
#define NMIG ((int)(sizeof(migrations) / sizeof(migrations[0])))

/* One batch over every migration, each in its own transaction; the found
 * and done counts added to totals. Returns the rows done; *errors set if
 * one failed. */
static long run_batch(pm_conn_t *c, long max_count, long *found_total,
                      long *done_total, int *ran, int *errors)
{
    long ran_rows = 0;
    int i;

    *errors = 0;
    for (i = 0; i < NMIG; i++) {
        long found = 0, done = 0;
        apr_status_t rv = pl_db_begin(c->db);
        if (rv == APR_SUCCESS) {
            rv = migrations[i].fn(c, max_count - ran_rows, &found, &done);
            rv = pl_db_end(c->db, rv);
        }
        if (rv != APR_SUCCESS) {
            printf("Error attempting to run %s\n", migrations[i].name);
            fprintf(stderr, "%s: %s\n", migrations[i].name,
                    pl_db_errstr(c->db));
            *errors = 1;
            found = done = 0;
        }
        if (found) {
            printf("%ld rows matched query %s, %ld migrated\n", found,
                   migrations[i].name, done);
        }
        found_total[i] += found;
        done_total[i] += done;
        ran[i] = 1;
        ran_rows += done;
        if (ran_rows >= max_count) {
            break;
        }
    }
    return ran_rows;
}

/* "  text  " centred in width, as the summary table's cells are */
static void cell(const char *text, int width)
{
    int len = (int)strlen(text), left = (width - len) / 2;

    printf(" %*s%s%*s |", left, "", text, width - len - left, "");
}

static void rule(const int *widths, int n)
{
    int i, j;

    putchar('+');
    for (i = 0; i < n; i++) {
        for (j = 0; j < widths[i] + 2; j++) {
            putchar('-');
        }
        putchar('+');
    }
    putchar('\n');
}

static void print_summary(const long *found, const long *done, const int *ran)
{
    int widths[3] = { 9, 11, 9 }; /* the headings' lengths */
    char num[32];
    int i;

    for (i = 0; i < NMIG; i++) {
        int len = (int)strlen(migrations[i].name);
        if (len > widths[0]) {
            widths[0] = len;
        }
    }
    rule(widths, 3);
    putchar('|');
    cell("Migration", widths[0]);
    cell("Total Found", widths[1]);
    cell("Completed", widths[2]);
    putchar('\n');
    rule(widths, 3);
    for (i = 0; i < NMIG; i++) {
        if (!ran[i]) {
            continue;
        }
        putchar('|');
        cell(migrations[i].name, widths[0]);
        snprintf(num, sizeof(num), "%ld", found[i]);
        cell(num, widths[1]);
        snprintf(num, sizeof(num), "%ld", done[i]);
        cell(num, widths[2]);
        putchar('\n');
    }
    rule(widths, 3);
}

int pm_online_data_migrations(pm_conn_t *c, const char *max_count_arg)
{
    long found[NMIG] = { 0 }, done[NMIG] = { 0 }, max_count = 50, ran_rows;
    int ran[NMIG] = { 0 }, limited = max_count_arg != NULL, errors = 0;

    if (limited) {
        char *end;
        max_count = strtol(max_count_arg, &end, 10);
        if (*max_count_arg == 0 || *end != 0) {
            max_count = -1;
        }
        if (max_count < 1) {
            printf("Must supply a positive value for max_count\n");
            return PM_EXIT_BADARG;
        }
    }
    else {
        printf("Running batches of %ld until complete\n", max_count);
    }
    do {
        ran_rows = run_batch(c, max_count, found, done, ran, &errors);
    } while (!limited && ran_rows != 0);
    print_summary(found, done, ran);
    /* with --max-count, errors do not count while work is still being
     * done: that work may be what the failing migration waits for */
    if (errors && !(limited && ran_rows)) {
        printf("Some migrations failed unexpectedly. Check log for "
               "details.\n");
        return 2;
    }
    return ran_rows ? 1 : 0;
}
