/* Licensed under the Apache License, Version 2.0.
 *
 * pm_conn.c: the connection, opened as mod_dbd opens the module's, and
 * the few catalogue questions the migrations ask.
 */
#include <stdio.h>
#include <stdarg.h>
#include <string.h>
#include <apr_strings.h>
#include "pm.h"

void pm_err(const char *fmt, ...)
{
    va_list ap;

    fputs("mod-placement-manage: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

/* The first line of a driver's message (libpq's run over several) */
static const char *first_line(apr_pool_t *p, const char *s)
{
    char *out;

    if (s == NULL || !*s) {
        return "no reason given";
    }
    out = apr_pstrdup(p, s);
    out[strcspn(out, "\n")] = 0;
    return out;
}

/* The connection closed with its pool: SQLite folds its write-ahead log
 * back into the file and removes it only at the close, and a log left
 * behind by root is one httpd's children cannot write ("attempt to write
 * a readonly database"). apr_dbd_sqlite3 finalizes its statements there. */
static apr_status_t close_conn(void *data)
{
    pm_conn_t *c = data;

    apr_dbd_close(c->driver, c->handle);
    return APR_SUCCESS;
}

const char *pm_connect(apr_pool_t *p, const pm_source_t *src, pm_conn_t **pconn)
{
    pm_conn_t *c = apr_pcalloc(p, sizeof(*c));
    const char *error = NULL;
    apr_status_t rv;

    rv = apr_dbd_get_driver(p, src->driver, &c->driver);
    if (rv != APR_SUCCESS) {
        return apr_psprintf(p,
                            "no apr_dbd driver '%s' (Debian: install "
                            "libaprutil1-dbd-%s)",
                            src->driver,
                            !strcmp(src->driver, "sqlite3") ? "sqlite3"
                                                            : src->driver);
    }
    rv = apr_dbd_open_ex(c->driver, p, src->params, &c->handle, &error);
    if (rv != APR_SUCCESS || c->handle == NULL) {
        return apr_psprintf(p, "cannot connect to %s: %s", src->shown,
                            first_line(p, error));
    }
    apr_pool_cleanup_register(p, c, close_conn, apr_pool_cleanup_null);
    c->pool = p;
    c->src = src;
    c->db = pl_db_wrap(p, p, c->driver, c->handle, 0);
    c->dialect = pl_db_dialect(c->db);
    /* apr_dbd_sqlite3 opens a missing file as a new database: only a
     * query tells an unreadable or foreign file */
    if (pm_count_tables(c) < 0) {
        return apr_psprintf(p, "cannot read %s: %s", src->shown,
                            first_line(p, pl_db_errstr(c->db)));
    }
    *pconn = c;
    return NULL;
}

long pm_count(pm_conn_t *c, const char *sql)
{
    pl_rows_t *rows;
    apr_int64_t n;

    if (pl_db_select_text(c->db, c->pool, &rows, sql, PL_DB_TEXT_ONCE) !=
            APR_SUCCESS ||
        pl_db_int64(rows, 0, 0, &n) != APR_SUCCESS) {
        return -1;
    }
    return (long)n;
}

/* The catalogue query for the tables of this database (a WHERE to add) */
static const char *tables_sql(pm_conn_t *c)
{
    switch (c->dialect) {
    case PL_DB_PGSQL:
        return "SELECT count(*) FROM information_schema.tables "
               "WHERE table_schema = current_schema()";
    case PL_DB_MYSQL:
        return "SELECT count(*) FROM information_schema.tables "
               "WHERE table_schema = DATABASE()";
    default:
        return "SELECT count(*) FROM sqlite_master WHERE type = 'table' "
               "AND name NOT LIKE 'sqlite_%'";
    }
}

int pm_table_exists(pm_conn_t *c, const char *table)
{
    const char *col = c->dialect == PL_DB_SQLITE ? "name" : "table_name";

    return (int)pm_count(c,
                         apr_psprintf(c->pool, "%s AND %s = %s", tables_sql(c),
                                      col, pl_db_quote(c->db, c->pool, table)));
}

int pm_count_tables(pm_conn_t *c)
{
    return (int)pm_count(c, tables_sql(c));
}

/* MySQL's words for "it is already so": an object that exists, or one
 * to drop that is already gone (ER_TABLE_EXISTS_ERROR, ER_DUP_FIELDNAME,
 * ER_DUP_KEYNAME, a duplicate foreign key, ER_CANT_DROP_FIELD_OR_KEY) */
static int already_done(const char *err)
{
    static const char *const words[] = { "already exists",
                                         "Duplicate column name",
                                         "Duplicate key name",
                                         "Duplicate foreign key",
                                         "check that it exists",
                                         "check that column/key exists",
                                         NULL };
    int i;

    for (i = 0; words[i] != NULL; i++) {
        if (strstr(err, words[i]) != NULL) {
            return 1;
        }
    }
    return 0;
}

/* Whether the line whose first non-blank character is at t (it ends at
 * eol) is an SQL comment ("-- ..."): not sent, and its ';' ends nothing. */
static int comment_line(const char *t, const char *eol)
{
    return eol - t >= 2 && t[0] == '-' && t[1] == '-';
}

apr_status_t pm_exec_script(pm_conn_t *c, const char *script, int tolerate)
{
    const char *s = script;
    char *stmt = apr_palloc(c->pool, strlen(script) + 1);
    apr_size_t len = 0;

    while (*s) {
        const char *eol = s + strcspn(s, "\n");
        const char *t = s;
        apr_size_t n = eol - s;
        while (t < eol && (*t == ' ' || *t == '\t')) {
            t++;
        }
        if (!comment_line(t, eol)) {
            memcpy(stmt + len, s, n);
            len += n;
            stmt[len++] = '\n';
        }
        /* a statement ends with ';' at the end of a line */
        if (n > 0 && s[n - 1] == ';' && !comment_line(t, eol)) {
            apr_status_t rv;
            stmt[len - 2] = 0; /* the ';' and the newline */
            rv = pl_db_exec_text(c->db, NULL, stmt);
            if (rv != APR_SUCCESS) {
                const char *err = pl_db_errstr(c->db);
                if (tolerate && c->dialect == PL_DB_MYSQL &&
                    already_done(err)) {
                    fprintf(stderr, "  already done: %s\n", err);
                }
                else {
                    return rv;
                }
            }
            len = 0;
        }
        s = *eol ? eol + 1 : eol;
    }
    return APR_SUCCESS;
}
