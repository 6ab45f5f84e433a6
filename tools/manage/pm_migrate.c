/* Licensed under the Apache License, Version 2.0.
 *
 * pm_migrate.c: upstream placement's alembic revisions, run one at a time
 * as alembic runs them, and the alembic_version table alembic keeps:
 *
 *   b4ed3a175331  Initial                           (Stein)
 *   611cd6dffd7b  Block on null root_provider_id    (a check only)
 *   b5c396305c25  Block on null consumer            (a check only)
 *   422ece571366  Add consumer_types table          (Xena .. 2023.1: 9.0.0)
 *   a082b8bb98d0  Drop redundant indexes for unique constraints (2023.2 on)
 *
 * Each revision is one transaction with the update of alembic_version,
 * so that a sync cut short (killed, a check that stops it) leaves the
 * database at the last revision done, from where the next sync goes on.
 * PostgreSQL and SQLite undo a revision's DDL with its transaction; MySQL
 * commits each DDL statement, so there a revision run again passes over
 * what is already done (pm_exec_script's tolerate).
 */
#include <stdio.h>
#include <string.h>
#include <apr_strings.h>
#include "pm.h"

typedef struct revision_t {
    const char *id;
    const char *title;
    /* a check that must find no rows, and upstream's message if it does */
    const char *check_sql;
    const char *check_msg;
} revision_t;

static const revision_t revisions[] = {
    { "b4ed3a175331", "Initial", NULL, NULL },
    { "611cd6dffd7b", "Block on null root_provider_id",
      "SELECT count(*) FROM resource_providers "
      "WHERE root_provider_id IS NULL",
      "There is at least one resource provider table record which is "
      "missing its root provider id. Run the \"placement-manage db "
      "online_data_migrations\" command." },
    { "b5c396305c25", "Block on null consumer",
      "SELECT count(*) FROM allocations LEFT OUTER JOIN consumers "
      "ON allocations.consumer_id = consumers.uuid "
      "WHERE consumers.id IS NULL",
      "There is at least one allocation record which is missing a "
      "consumer record. Run the \"placement-manage db "
      "online_data_migrations\" command." },
    { "422ece571366", "Add consumer_types table", NULL, NULL },
    { "a082b8bb98d0", "Drop redundant indexes for unique constraints", NULL,
      NULL },
};
/* alembic's own table, as alembic makes it */
#define ALEMBIC_VERSION_DDL                                            \
    "CREATE TABLE alembic_version (version_num VARCHAR(32) NOT NULL, " \
    "CONSTRAINT alembic_version_pkc PRIMARY KEY (version_num))"

#define NREV ((int)(sizeof(revisions) / sizeof(revisions[0])))
#define HEAD (NREV - 1)

/* The state of alembic_version */
typedef enum { V_NO_TABLE, V_EMPTY, V_KNOWN, V_UNKNOWN, V_ERROR } vstate_e;

typedef struct version_t {
    vstate_e state;
    int index;        /* V_KNOWN: in revisions[] */
    const char *text; /* V_UNKNOWN: what the table says */
} version_t;

static int revision_index(const char *id)
{
    int i;

    for (i = 0; i < NREV; i++) {
        if (!strcmp(revisions[i].id, id)) {
            return i;
        }
    }
    return -1;
}

const char *pm_resolve_revision(const char *name)
{
    const char *found = NULL;
    int i;

    if (!strcmp(name, "head") || !strcmp(name, "heads")) {
        return revisions[HEAD].id;
    }
    /* alembic takes any unique prefix of an id */
    for (i = 0; i < NREV && *name; i++) {
        if (!strncmp(revisions[i].id, name, strlen(name))) {
            if (found != NULL) {
                return NULL;
            }
            found = revisions[i].id;
        }
    }
    return found;
}

static version_t read_version(pm_conn_t *c)
{
    version_t v = { V_ERROR, -1, NULL };
    pl_rows_t *rows;
    int exists = pm_table_exists(c, "alembic_version");

    if (exists < 0) {
        return v;
    }
    if (exists == 0) {
        v.state = V_NO_TABLE;
        return v;
    }
    if (pl_db_select_text(c->db, c->pool, &rows,
                          "SELECT version_num FROM alembic_version",
                          PL_DB_TEXT_ONCE) != APR_SUCCESS) {
        return v;
    }
    if (rows->nrows == 0) {
        v.state = V_EMPTY;
        return v;
    }
    v.text = PL_CELL(rows, 0, 0);
    if (rows->nrows > 1) {
        /* branches: none of placement's revisions make them */
        v.state = V_UNKNOWN;
        v.text = apr_psprintf(c->pool, "%s (and %d more)", v.text,
                              rows->nrows - 1);
        return v;
    }
    v.index = revision_index(v.text);
    v.state = v.index >= 0 ? V_KNOWN : V_UNKNOWN;
    return v;
}

/* revisions[i]'s SQL for this dialect: "<id>.<dialect>.sql", else
 * "<id>.sql"; NULL for the revisions that only check */
static const char *revision_script(pm_conn_t *c, int i)
{
    static const char *const names[] = { "sqlite", "postgresql", "mysql" };
    const char *own = apr_psprintf(c->pool, "%s.%s.sql", revisions[i].id,
                                   names[c->dialect]);
    const char *shared = apr_psprintf(c->pool, "%s.sql", revisions[i].id);
    const char *text = NULL, *s;
    const pm_sql_file_t *f;
    char *out;

    for (f = pm_sql_files; f->name != NULL; f++) {
        if (!strcmp(f->name, own)) {
            text = f->text;
            break;
        }
        if (!strcmp(f->name, shared)) {
            text = f->text;
        }
    }
    if (text == NULL) {
        return NULL;
    }
    /* the column types that differ between dialects */
    out = apr_pstrdup(c->pool, "");
    for (s = text; *s;) {
        const char *at = strchr(s, '@');
        if (at == NULL) {
            out = apr_pstrcat(c->pool, out, s, NULL);
            break;
        }
        out = apr_pstrcat(c->pool, out, apr_pstrmemdup(c->pool, s, at - s),
                          NULL);
        if (!strncmp(at, "@DATETIME@", 10)) {
            out = apr_pstrcat(c->pool, out,
                              c->dialect == PL_DB_PGSQL
                                  ? "TIMESTAMP WITHOUT TIME ZONE"
                                  : "DATETIME",
                              NULL);
            s = at + 10;
        }
        else if (!strncmp(at, "@ID@", 4)) {
            out = apr_pstrcat(c->pool, out,
                              c->dialect == PL_DB_PGSQL ? "SERIAL NOT NULL"
                              : c->dialect == PL_DB_MYSQL
                                  ? "INTEGER NOT NULL AUTO_INCREMENT"
                                  : "INTEGER NOT NULL",
                              NULL);
            s = at + 4;
        }
        else {
            out = apr_pstrcat(c->pool, out, "@", NULL);
            s = at + 1;
        }
    }
    return out;
}

/* One revision in one transaction: from revisions[from] (-1: none yet) to
 * revisions[to] = from + 1. Returns the exit code. */
static int run_revision(pm_conn_t *c, version_t *cur, int to)
{
    const revision_t *r = &revisions[to];
    const char *script = revision_script(c, to);
    const char *q_to = pl_db_quote(c->db, c->pool, r->id);
    const char *what = "";
    apr_status_t rv;
    int changed = 0;

    fprintf(stderr, "Running upgrade %s -> %s, %s\n",
            cur->state == V_KNOWN ? revisions[cur->index].id : "", r->id,
            r->title);
    /* MySQL tables take the database's character set, as alembic's do:
     * an empty database still at a server default such as latin1 (a
     * CREATE DATABASE without one) is given utf8mb4, which the names and
     * texts the API stores need */
    if (c->dialect == PL_DB_MYSQL && to == 0 &&
        pm_count(c, "SELECT count(*) FROM information_schema.schemata "
                    "WHERE schema_name = DATABASE() AND "
                    "default_character_set_name <> 'utf8mb4'") > 0) {
        fprintf(stderr, "  the database's default character set becomes "
                        "utf8mb4\n");
        rv = pl_db_exec_text(c->db, NULL,
                             "ALTER DATABASE CHARACTER SET utf8mb4");
        if (rv != APR_SUCCESS) {
            pm_err("cannot set the database's character set to utf8mb4: %s",
                   pl_db_errstr(c->db));
            return PM_EXIT_FAIL;
        }
    }
    /* MySQL commits each DDL statement anyway, and apr_dbd_mysql refuses
     * every statement of a transaction after one failed: its DDL runs
     * outside, each statement alone, passing over what is already done */
    if (c->dialect == PL_DB_MYSQL && cur->state == V_NO_TABLE) {
        rv = pl_db_exec_text(c->db, NULL, ALEMBIC_VERSION_DDL);
        if (rv != APR_SUCCESS) {
            pm_err("cannot create alembic_version: %s", pl_db_errstr(c->db));
            return PM_EXIT_FAIL;
        }
        cur->state = V_EMPTY;
    }
    if (c->dialect == PL_DB_MYSQL && script != NULL) {
        rv = pm_exec_script(c, script, 1);
        if (rv != APR_SUCCESS) {
            pm_err("revision %s failed: %s", r->id, pl_db_errstr(c->db));
            return PM_EXIT_FAIL;
        }
        script = NULL;
    }
    rv = pl_db_begin(c->db);
    if (rv != APR_SUCCESS) {
        pm_err("cannot begin a transaction: %s", pl_db_errstr(c->db));
        return PM_EXIT_FAIL;
    }
    if (cur->state == V_NO_TABLE) {
        what = "creating alembic_version";
        rv = pl_db_exec_text(c->db, NULL, ALEMBIC_VERSION_DDL);
    }
    if (rv == APR_SUCCESS && r->check_sql != NULL) {
        long n = pm_count(c, r->check_sql);
        if (n != 0) {
            pl_db_end(c->db, PL_EDB);
            if (n < 0) {
                pm_err("revision %s: %s", r->id, pl_db_errstr(c->db));
            }
            else {
                pm_err("%s", r->check_msg);
            }
            return PM_EXIT_FAIL;
        }
    }
    if (rv == APR_SUCCESS && script != NULL) {
        what = "its schema change";
        rv = pm_exec_script(c, script, 0);
    }
    if (rv == APR_SUCCESS) {
        what = "alembic_version";
        if (cur->state == V_KNOWN) {
            const char *q_from = pl_db_quote(c->db, c->pool,
                                             revisions[cur->index].id);
            rv = pl_db_exec_text(
                c->db, &changed,
                apr_psprintf(c->pool,
                             "UPDATE alembic_version SET version_num = %s "
                             "WHERE version_num = %s",
                             q_to, q_from));
            if (rv == APR_SUCCESS && changed != 1) {
                /* someone else moved it meanwhile: leave it to them */
                pl_db_end(c->db, PL_EDB);
                pm_err("alembic_version changed under this sync (another "
                       "sync at work?); nothing of %s kept",
                       r->id);
                return PM_EXIT_FAIL;
            }
        }
        else {
            rv = pl_db_exec_text(
                c->db, NULL,
                apr_psprintf(c->pool,
                             "INSERT INTO alembic_version (version_num) "
                             "VALUES (%s)",
                             q_to));
        }
    }
    if (rv != APR_SUCCESS) {
        const char *err = apr_pstrdup(c->pool, pl_db_errstr(c->db));
        pl_db_end(c->db, rv);
        pm_err("revision %s failed (%s): %s", r->id, what, err);
        return PM_EXIT_FAIL;
    }
    rv = pl_db_end(c->db, APR_SUCCESS);
    if (rv != APR_SUCCESS) {
        pm_err("revision %s: commit failed: %s", r->id, pl_db_errstr(c->db));
        return PM_EXIT_FAIL;
    }
    cur->state = V_KNOWN;
    cur->index = to;
    return PM_EXIT_OK;
}

/* The version, or a message and PM_EXIT_FAIL for states a sync or a stamp
 * must not touch. */
static int usable_version(pm_conn_t *c, version_t *v)
{
    *v = read_version(c);
    switch (v->state) {
    case V_ERROR:
        pm_err("cannot read alembic_version: %s", pl_db_errstr(c->db));
        return PM_EXIT_FAIL;
    case V_UNKNOWN:
        pm_err("the database is at revision %s, which this tool does not "
               "know (a newer placement's, or another application's "
               "database); nothing changed",
               v->text);
        return PM_EXIT_FAIL;
    default:
        return PM_EXIT_OK;
    }
}

int pm_db_sync(pm_conn_t *c, const char *target_name)
{
    const char *target_id = pm_resolve_revision(target_name);
    int target, i, rc, tables;
    version_t cur;

    if (target_id == NULL) {
        pm_err("Can't locate revision identified by '%s'", target_name);
        return PM_EXIT_FAIL;
    }
    target = revision_index(target_id);
    rc = usable_version(c, &cur);
    if (rc != PM_EXIT_OK) {
        return rc;
    }
    tables = pm_count_tables(c);
    if (cur.state == V_NO_TABLE && tables > 0) {
        pm_err("the database has %d table(s) but no alembic_version: not a "
               "placement database (one made before alembic needs `db stamp "
               "b4ed3a175331` first); nothing changed",
               tables);
        return PM_EXIT_FAIL;
    }
    if (cur.state == V_EMPTY && tables > 1 && c->dialect != PL_DB_MYSQL) {
        /* MySQL: a first revision cut short; elsewhere a foreign table */
        pm_err("alembic_version is empty but the database has %d other "
               "tables: not a placement database; nothing changed",
               tables - 1);
        return PM_EXIT_FAIL;
    }
    if (cur.state == V_KNOWN && cur.index > target) {
        pm_err("the database is at %s, newer than %s: downgrades are not "
               "supported; nothing changed",
               revisions[cur.index].id, target_id);
        return PM_EXIT_FAIL;
    }
    for (i = cur.state == V_KNOWN ? cur.index + 1 : 0; i <= target; i++) {
        rc = run_revision(c, &cur, i);
        if (rc != PM_EXIT_OK) {
            return rc;
        }
    }
    return PM_EXIT_OK;
}

int pm_db_version(pm_conn_t *c)
{
    version_t v = read_version(c);

    switch (v.state) {
    case V_ERROR:
        pm_err("cannot read alembic_version: %s", pl_db_errstr(c->db));
        return PM_EXIT_FAIL;
    case V_NO_TABLE:
    case V_EMPTY:
        puts("None");
        return PM_EXIT_OK;
    default:
        puts(v.text);
        return PM_EXIT_OK;
    }
}

int pm_db_stamp(pm_conn_t *c, const char *target_name)
{
    const char *target_id = pm_resolve_revision(target_name);
    const char *q;
    apr_status_t rv = APR_SUCCESS;
    version_t cur;
    int rc;

    if (target_id == NULL) {
        pm_err("Can't locate revision identified by '%s'", target_name);
        return PM_EXIT_FAIL;
    }
    rc = usable_version(c, &cur);
    if (rc != PM_EXIT_OK) {
        return rc;
    }
    q = pl_db_quote(c->db, c->pool, target_id);
    rv = pl_db_begin(c->db);
    if (rv == APR_SUCCESS && cur.state == V_NO_TABLE) {
        rv = pl_db_exec_text(c->db, NULL, ALEMBIC_VERSION_DDL);
    }
    if (rv == APR_SUCCESS && cur.state == V_KNOWN) {
        rv = pl_db_exec_text(
            c->db, NULL,
            apr_psprintf(c->pool, "UPDATE alembic_version SET version_num = %s",
                         q));
    }
    else if (rv == APR_SUCCESS) {
        rv = pl_db_exec_text(
            c->db, NULL,
            apr_psprintf(c->pool,
                         "INSERT INTO alembic_version (version_num) "
                         "VALUES (%s)",
                         q));
    }
    if (rv != APR_SUCCESS) {
        const char *err = apr_pstrdup(c->pool, pl_db_errstr(c->db));
        pl_db_end(c->db, rv);
        pm_err("cannot stamp %s: %s", target_id, err);
        return PM_EXIT_FAIL;
    }
    rv = pl_db_end(c->db, APR_SUCCESS);
    if (rv != APR_SUCCESS) {
        pm_err("cannot stamp %s: %s", target_id, pl_db_errstr(c->db));
        return PM_EXIT_FAIL;
    }
    return PM_EXIT_OK;
}
