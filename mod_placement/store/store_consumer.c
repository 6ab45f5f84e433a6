/* Licensed under the Apache License, Version 2.0.
 *
 * store_consumer.c: consumers, projects, users and consumer types in the
 * database. Creation is insert-first with the unique constraint as the
 * arbiter: whoever loses a race re-reads the row the winner made. On
 * PostgreSQL and SQLite the INSERT says ON CONFLICT DO NOTHING and
 * cannot fail on the duplicate; MySQL's says IGNORE (its ON DUPLICATE
 * KEY counts rows as the client's flags say; IGNORE's count is 0 for a
 * row it skipped), so no savepoint is needed on any: losing the race
 * never takes the write's transaction down.
 *
 * IGNORE also turns into warnings the errors a row's values can cause
 * (too long, out of range, NULL where not allowed, a character the
 * column's character set lacks), the row then skipped or stored
 * altered. The API's schemas bound every value to its column (uuids,
 * external ids and type names of at most 255 characters), and each
 * INSERT is followed by a read of the row by its exact value: a row not
 * stored as given (a 4-byte character in a utf8mb3 database) is not
 * found, "vanished", and the write fails and rolls back as the error
 * would have made it. What IGNORE does not downgrade (a deadlock, a
 * lock wait timeout, a lost connection) fails the statement as before.
 */
#include <apr_strings.h>

#include "pl_store_consumer.h"

/* An INSERT failed as a duplicate (or even succeeded), yet the row is
 * not there to read: in a transaction, run it again whole (the winner
 * may have rolled back, or the failure was something else); alone, say
 * so. */
static apr_status_t vanished(const pl_db_t *db)
{
    return pl_db_depth(db) > 0 ? PL_EDEADLOCK : APR_ENOENT;
}

/* Read the id of the row of table whose column key equals value; insert
 * it when missing. The three "external id" tables share this shape.
 * PostgreSQL and SQLite INSERT ... ON CONFLICT DO NOTHING RETURNING id
 * (upsert_sql): a row back is the new id, none means the row exists (a
 * concurrent writer's INSERT made this one wait for its end), then read.
 * MySQL INSERT IGNORE (ignore_sql), which cannot fail on the duplicate
 * either (it waits for a concurrent twin the same way), then reads the
 * id (READ COMMITTED: the twin's row is seen). No savepoint: nothing
 * can fail alone. The callers ask only for rows that were missing a
 * moment before, so inserting first costs nothing. */
static apr_status_t ensure_row(pl_db_t *db, apr_pool_t *p,
                               const char *select_sql, const char *ignore_sql,
                               const char *upsert_sql, const char *value,
                               apr_int64_t *pid)
{
    pl_rows_t *rows;
    apr_status_t rv;

    if (pl_db_dialect(db) != PL_DB_MYSQL) {
        rv = pl_db_select(db, p, &rows, upsert_sql,
                          PL_ARGS(value, pl_db_now(p)));
        if (rv != APR_SUCCESS) {
            return rv;
        }
        if (rows->nrows > 0) {
            return pl_db_int64(rows, 0, 0, pid);
        }
    }
    else if ((rv = pl_db_exec(db, NULL, ignore_sql,
                              PL_ARGS(value, pl_db_now(p))))) {
        return rv;
    }
    rv = pl_db_select(db, p, &rows, select_sql, PL_ARGS(value));
    if (rv != APR_SUCCESS) {
        return rv;
    }
    return rows->nrows > 0 ? pl_db_int64(rows, 0, 0, pid) : vanished(db);
}

/* The INSERT of ensure_row for table (column): verb "INSERT" or
 * "INSERT IGNORE" (MySQL); UPSERT_NAME the others' form. */
#define INSERT_NAME(verb, table, column) \
    verb " INTO " table " (" column ", created_at) VALUES (%s, %s)"
#define ON_CONFLICT_ID " ON CONFLICT DO NOTHING RETURNING id"
#define UPSERT_NAME(table, column) \
    INSERT_NAME("INSERT", table, column) ON_CONFLICT_ID
#define IGNORE_NAME(table, column) INSERT_NAME("INSERT IGNORE", table, column)

apr_status_t pl_store_project_ensure(pl_db_t *db, apr_pool_t *p,
                                     const char *external_id, apr_int64_t *pid)
{
    return ensure_row(db, p, "SELECT id FROM projects WHERE external_id = %s",
                      IGNORE_NAME("projects", "external_id"),
                      UPSERT_NAME("projects", "external_id"), external_id, pid);
}

apr_status_t pl_store_user_ensure(pl_db_t *db, apr_pool_t *p,
                                  const char *external_id, apr_int64_t *pid)
{
    return ensure_row(db, p, "SELECT id FROM users WHERE external_id = %s",
                      IGNORE_NAME("users", "external_id"),
                      UPSERT_NAME("users", "external_id"), external_id, pid);
}

apr_status_t pl_store_consumer_type_ensure(pl_db_t *db, apr_pool_t *p,
                                           const char *name, apr_int64_t *pid)
{
    return ensure_row(db, p, "SELECT id FROM consumer_types WHERE name = %s",
                      IGNORE_NAME("consumer_types", "name"),
                      UPSERT_NAME("consumer_types", "name"), name, pid);
}

pl_consumer_t *pl_store_consumer_from_row(apr_pool_t *p, const pl_rows_t *rows,
                                          int i, int col)
{
    pl_consumer_t *c = apr_pcalloc(p, sizeof(*c));
    const char *v;

    c->id = apr_atoi64(PL_CELL(rows, i, col + 0));
    c->uuid = PL_CELL(rows, i, col + 1);
    c->project_id = apr_atoi64(PL_CELL(rows, i, col + 2));
    c->user_id = apr_atoi64(PL_CELL(rows, i, col + 3));
    c->project_external_id = PL_CELL(rows, i, col + 4);
    c->user_external_id = PL_CELL(rows, i, col + 5);
    c->generation = apr_atoi64(PL_CELL(rows, i, col + 6));
    v = PL_CELL(rows, i, col + 7);
    c->type_id = v ? apr_atoi64(v) : 0;
    c->type_name = (v && PL_CELL(rows, i, col + 8)) ? PL_CELL(rows, i, col + 8)
                                                    : "unknown";
    c->created_at = PL_CELL(rows, i, col + 9);
    c->updated_at = PL_CELL(rows, i, col + 10);
    return c;
}

apr_status_t pl_store_consumer_get(pl_db_t *db, apr_pool_t *p, const char *uuid,
                                   pl_consumer_t **pc)
{
    pl_rows_t *rows;
    apr_status_t rv;

    rv = pl_db_select(db, p, &rows,
                      "SELECT " PL_CONSUMER_COLUMNS
                      " FROM consumers c " PL_CONSUMER_JOINS
                      "WHERE c.uuid = %s",
                      PL_ARGS(uuid));
    if (rv != APR_SUCCESS) {
        return rv;
    }
    if (rows->nrows == 0) {
        return APR_ENOENT;
    }
    *pc = pl_store_consumer_from_row(p, rows, 0, 0);
    return APR_SUCCESS;
}

apr_status_t pl_store_consumer_resolve(pl_db_t *db, apr_pool_t *p,
                                       pl_consumer_names_t *n,
                                       pl_consumer_t **pc)
{
    pl_rows_t *rows;
    apr_status_t rv;
    const char *v;

    /* one row whatever exists: the consumer's columns are NULL when it
     * does not (nor when its project or user row is gone, as the inner
     * joins of pl_store_consumer_get would have it) */
    rv = pl_db_select(
        db, p, &rows,
        "SELECT (SELECT id FROM projects WHERE external_id = %s), "
        "(SELECT id FROM users WHERE external_id = %s), "
        "(SELECT id FROM consumer_types WHERE name = %s), "
        "p.id, u.id, " PL_CONSUMER_COLUMNS " FROM (SELECT 1 AS one) k "
        "LEFT JOIN consumers c ON c.uuid = %s "
        "LEFT JOIN projects p ON p.id = c.project_id "
        "LEFT JOIN users u ON u.id = c.user_id "
        "LEFT JOIN consumer_types ct "
        "ON ct.id = c.consumer_type_id",
        PL_ARGS(n->project_external_id, n->user_external_id, n->type_name,
                n->uuid));
    if (rv != APR_SUCCESS) {
        return rv;
    }
    if (rows->nrows != 1) {
        return PL_EDB;
    }
    v = PL_CELL(rows, 0, 0);
    n->project_id = v ? apr_atoi64(v) : 0;
    v = PL_CELL(rows, 0, 1);
    n->user_id = v ? apr_atoi64(v) : 0;
    v = PL_CELL(rows, 0, 2);
    n->type_id = v ? apr_atoi64(v) : 0;
    *pc = NULL;
    if (PL_CELL(rows, 0, 3) && PL_CELL(rows, 0, 4) && PL_CELL(rows, 0, 5)) {
        *pc = pl_store_consumer_from_row(p, rows, 0, 5);
    }
    return APR_SUCCESS;
}

/* INSERT the consumer unless its uuid exists: *pid its id (0: read it)
 * and *pcreated 1 when this inserted it, *pcreated 0 when the row was
 * there (or a concurrent writer's was: its INSERT made this one wait for
 * its end). Neither can fail on the duplicate: PostgreSQL and SQLite say
 * both in one statement (ON CONFLICT DO NOTHING RETURNING id), MySQL
 * says IGNORE and counts the row it inserted (its ON DUPLICATE KEY would
 * count rows by the client's flags). */
static apr_status_t insert_consumer(pl_db_t *db, apr_pool_t *p,
                                    const char *uuid, apr_int64_t project_id,
                                    apr_int64_t user_id, apr_int64_t type_id,
                                    apr_int64_t generation, const char *now,
                                    apr_int64_t *pid, int *pcreated)
{
    const char *args[] = { uuid,
                           pl_db_i64(p, project_id),
                           pl_db_i64(p, user_id),
                           pl_db_i64(p, generation),
                           type_id ? pl_db_i64(p, type_id) : NULL,
                           now,
                           generation > 0 ? now : NULL };
    pl_rows_t *rows;
    apr_status_t rv;
    int changed = 0;

    *pcreated = 0;
    *pid = 0;
#define INSERT_CONSUMER(verb)                                       \
    verb " INTO consumers (uuid, project_id, user_id, generation, " \
         "consumer_type_id, created_at, updated_at) "               \
         "VALUES (%s, %s, %s, %s, %s, %s, %s)"
    if (pl_db_dialect(db) == PL_DB_MYSQL) {
        rv = pl_db_exec(db, &changed, INSERT_CONSUMER("INSERT IGNORE"), 7,
                        args);
        *pcreated = rv == APR_SUCCESS && changed == 1;
        return rv;
    }
    rv = pl_db_select(db, p, &rows, INSERT_CONSUMER("INSERT") ON_CONFLICT_ID, 7,
                      args);
#undef INSERT_CONSUMER
    if (rv == APR_SUCCESS && rows->nrows == 1) {
        *pcreated = 1;
        *pid = apr_atoi64(PL_CELL(rows, 0, 0));
    }
    return rv;
}

apr_status_t pl_store_consumer_create(pl_db_t *db, apr_pool_t *p,
                                      const char *uuid, apr_int64_t project_id,
                                      apr_int64_t user_id, apr_int64_t type_id,
                                      apr_int64_t generation,
                                      pl_consumer_t **pc, int *pcreated)
{
    const char *now = pl_db_now(p);
    apr_int64_t id;
    apr_status_t rv;

    rv = insert_consumer(db, p, uuid, project_id, user_id, type_id, generation,
                         now, &id, pcreated);
    if (rv != APR_SUCCESS) {
        return rv;
    }
    if (*pcreated && id > 0) {
        /* ours: nothing in it this request does not know */
        pl_consumer_t *c = apr_pcalloc(p, sizeof(*c));

        c->id = id;
        c->uuid = uuid;
        c->project_id = project_id;
        c->user_id = user_id;
        c->type_id = type_id;
        c->generation = generation;
        c->created_at = now;
        c->updated_at = generation > 0 ? now : NULL;
        *pc = c;
        return APR_SUCCESS;
    }
    rv = pl_store_consumer_get(db, p, uuid, pc);
    if (rv == APR_ENOENT) {
        /* our own row too: seen once on Galera, in a claim retried
         * after a deadlock (t/galera, 1 of 1,935 claims), which then
         * answered 400 instead of running the write again */
        return vanished(db);
    }
    if (rv != APR_SUCCESS || *pcreated) {
        return rv;
    }
    /* lost the race: the winner's row stands, with our type */
    if (type_id != (*pc)->type_id) {
        (*pc)->type_id = type_id;
        rv = pl_store_consumer_update(db, *pc);
    }
    return rv;
}

apr_status_t pl_store_consumer_update(pl_db_t *db, const pl_consumer_t *c)
{
    apr_pool_t *p = NULL;
    apr_status_t rv;

    /* scratch for the arguments' texts, gone at once: a write may update
     * many consumers in one request. Under the request's pool, not a root
     * (another child of the process's global pool each time). */
    apr_pool_create(&p, pl_db_pool(db));
    apr_pool_tag(p, "pl_consumer_update");
    rv = pl_db_exec(
        db, NULL,
        "UPDATE consumers SET project_id = %s, "
        "user_id = %s, consumer_type_id = %s, updated_at = %s "
        "WHERE id = %s AND generation = %s",
        PL_ARGS(pl_db_i64(p, c->project_id), pl_db_i64(p, c->user_id),
                c->type_id ? pl_db_i64(p, c->type_id) : NULL, pl_db_now(p),
                pl_db_i64(p, c->id), pl_db_i64(p, c->generation)));
    apr_pool_destroy(p);
    return rv;
}

apr_status_t pl_store_consumer_bump(pl_db_t *db, pl_consumer_t *c)
{
    return pl_store_bump_generation(db, "consumers", c->id, &c->generation);
}

apr_status_t pl_store_consumer_delete_unused(pl_db_t *db, apr_pool_t *p,
                                             const apr_array_header_t *uuids)
{
    /* all of them in one statement (a repeated uuid, the padding, is
     * harmless) */
    static const pl_db_list_t unused = {
        "DELETE FROM consumers WHERE uuid IN (",
        0,
        NULL,
        "%s",
        0,
        NULL,
        ") AND NOT EXISTS (SELECT 1 FROM allocations a "
        "WHERE a.consumer_id = consumers.uuid)",
        0,
        NULL,
        1
    };

    return pl_db_exec_list(db, p, &unused, PL_DB_ARRAY(uuids), NULL);
}
