/* Licensed under the Apache License, Version 2.0.
 *
 * pl_db_stmt.c: running one statement (pl_db.h's pl_db_select, pl_db_exec
 * and their kinds), with the three ways a connection keeps a statement
 * prepared (per text with arguments; PostgreSQL's named kept statements;
 * the 64 texts without arguments run last, behind a filter of texts seen
 * once) and the trace line of each statement. A failed first statement
 * of a use is sent again when pl_db.c says the connection was made anew.
 */
#include <string.h>
#include <stdlib.h>
#include <apr_lib.h>
#include <apr_strings.h>
#include <apr_time.h>

#include "pl_db_private.h"

/* PostgreSQL: how many texts with arguments one connection keeps
 * prepared under a name of its own (pl_args_<n>); past this many, a text
 * runs unnamed. The code has a few hundred such texts (its fixed
 * statements and each list statement's bounded shapes), a connection
 * uses far fewer (nova's claims and reads: about a dozen); each costs its
 * server session 4 to 110 KB (pg_log_backend_memory_contexts), so a
 * session's kept statements stay below 30 MB whatever comes. */
#define KEPT_ARGS_MAX 256

/* ... and only those of at most this many arguments: a list statement's
 * big chunks (hundreds of rows) cost little to parse for each of their
 * rows, and much more to keep. */
#define KEPT_ARGS_NARGS 64

/* The statement of sql (with arguments), prepared once per connection:
 * on the server for MySQL and SQLite. PostgreSQL's (apr_dbd_pgsql runs
 * it as a one-off query each time, parsed and planned again) is only
 * the fallback of kept_args_name's. */
static apr_status_t prepare(pl_db_t *db, const char *sql,
                            apr_dbd_prepared_t **pstmt)
{
    apr_dbd_prepared_t *stmt = apr_hash_get(db->prepared, sql,
                                            APR_HASH_KEY_STRING);
    int ret;

    if (stmt == NULL) {
        const char *key = apr_pstrdup(db->conn_pool, sql);

        ret = apr_dbd_prepare(db->driver, db->conn_pool, db->handle, key, NULL,
                              &stmt);
        if (ret != 0) {
            return pl_db_classify(db, ret);
        }
        apr_hash_set(db->prepared, key, APR_HASH_KEY_STRING, stmt);
    }
    *pstmt = stmt;
    return APR_SUCCESS;
}

/* sql with PostgreSQL's $1, $2... for its "%s" and '%' for "%%"; NULL
 * when it has another apr_dbd argument (%d, %pDt...: the store's texts
 * have none; such a text runs unnamed). */
static char *dollar_text(apr_pool_t *p, const char *sql)
{
    /* "%s" becomes at most "$65535" (PostgreSQL's most arguments) */
    char *text = apr_palloc(p, strlen(sql) * 3 + 1), *w = text;
    const char *q;
    int n = 0;

    for (q = sql; *q; q++) {
        if (q[0] != '%' || (q[1] != '%' && !apr_isalpha(q[1]))) {
            *w++ = *q;
        }
        else if (q[1] == '%') {
            *w++ = *q++;
        }
        else if (q[1] != 's') {
            return NULL;
        }
        else {
            w += apr_snprintf(w, 16, "$%d", ++n);
            q++;
        }
    }
    *w = '\0';
    return text;
}

/* PostgreSQL: the name sql (a text with arguments) is kept prepared
 * under on this connection (*pname), prepared at its first run; *pname
 * NULL when it runs unnamed (past KEPT_ARGS_MAX, more than
 * KEPT_ARGS_NARGS arguments, or one not "%s"). The server reads the
 * arguments' types from the text, as it does for an unnamed statement
 * (apr_dbd_pgsql's own named statements would type every "%s" varchar,
 * and an id compared with a varchar is an error); parsing and planning
 * then happen once, not at every run: half of a claim's database CPU.
 * A PREPARE outlives a transaction rolled back around it. */
static apr_status_t kept_args_name(pl_db_t *db, const char *sql, int nargs,
                                   const char **pname)
{
    conn_state_t *cs = db->cs;
    const char *name = apr_hash_get(cs->kept_args, sql, APR_HASH_KEY_STRING);
    const char *text;
    int changed, ret;

    *pname = name;
    if (name != NULL || nargs > KEPT_ARGS_NARGS ||
        apr_hash_count(cs->kept_args) >= KEPT_ARGS_MAX ||
        (text = dollar_text(db->pool, sql)) == NULL) {
        return APR_SUCCESS;
    }
    name = apr_psprintf(db->conn_pool, "pl_args_%u",
                        apr_hash_count(cs->kept_args));
    ret = apr_dbd_query(
        db->driver, db->handle, &changed,
        apr_pstrcat(db->pool, "PREPARE ", name, " AS ", text, NULL));
    if (ret != 0) {
        return pl_db_classify(db, ret);
    }
    apr_hash_set(cs->kept_args, apr_pstrdup(db->conn_pool, sql),
                 APR_HASH_KEY_STRING, name);
    *pname = name;
    return APR_SUCCESS;
}

/* "EXECUTE name('value', NULL...)": each value a quoted literal, which
 * the server reads as the type its statement has for it. */
static const char *execute_text(pl_db_t *db, apr_pool_t *p, const char *name,
                                int nargs, const char *const *args)
{
    struct iovec *vec = apr_palloc(p,
                                   (apr_size_t)(4 * nargs + 3) * sizeof(*vec));
    apr_size_t n = 0;
    int i;

#define PUT(s) (vec[n].iov_base = (void *)(s), vec[n].iov_len = strlen(s), n++)
    PUT("EXECUTE ");
    PUT(name);
    for (i = 0; i < nargs; i++) {
        PUT(i == 0 ? "(" : ", ");
        if (args[i] == NULL) {
            PUT("NULL");
        }
        else {
            PUT("'");
            PUT(apr_dbd_escape(db->driver, p, args[i], db->handle));
            PUT("'");
        }
    }
    if (nargs > 0) {
        PUT(")");
    }
#undef PUT
    return apr_pstrcatv(p, vec, n, NULL);
}

/* The bytes of a statement's text a trace1 line shows. */
#define SQL_HEAD 160

/* When a statement starts, taken only when its line will be logged
 * (0 otherwise: a server with trace off pays nothing). */
static apr_time_t trace_start(const pl_db_t *db)
{
    return PL_LOG_ON(db->log, PL_LOG_TRACE1) ? apr_time_now() : 0;
}

/* sql on one line (runs of white space as one space), at most
 * size - 1 bytes, "..." at the end when cut. */
static const char *sql_line(char *buf, apr_size_t size, const char *sql)
{
    apr_size_t n = 0;
    int space = 0;

    for (; *sql && n + 4 < size; sql++) {
        if (apr_isspace(*sql)) {
            space = n > 0;
            continue;
        }
        if (space) {
            buf[n++] = ' ';
            space = 0;
        }
        buf[n++] = *sql;
    }
    if (*sql) {
        memcpy(buf + n, "...", 3);
        n += 3;
    }
    buf[n] = '\0';
    return buf;
}

/* A statement's line: how it ran ("prepared": by pl_db_select or
 * pl_db_exec; "kept": a text of PL_DB_TEXT_KEPT kept prepared;
 * "text": run as it is), its time, its rows (read, or changed) and its
 * text, cut at SQL_HEAD bytes at trace1, whole at trace2. */
static void trace_statement(const pl_db_t *db, apr_time_t start,
                            const char *how, const char *sql, int rows,
                            apr_status_t rv)
{
    char text[4000];
    int whole = PL_LOG_ON(db->log, PL_LOG_TRACE2);
    double ms;

    if (start == 0) {
        return;
    }
    ms = (double)(apr_time_now() - start) / 1000.0;
    sql_line(text, whole ? sizeof(text) : SQL_HEAD + 4, sql);
    pl_log(db->log, whole ? PL_LOG_TRACE2 : PL_LOG_TRACE1, rv,
           PL_LOGNO(05000) "sql %s %.3f ms, %d rows%s: %s", how, ms, rows,
           rv == APR_SUCCESS ? "" : ", failed", text);
}

void pl_db_set_log(pl_db_t *db, const pl_log_t *log)
{
    db->log = log;
}

/* Run sql with its arguments: a query (pres set) leaves its result in
 * *pres, from p; a statement (pres NULL) its rows changed in *pchanged.
 * *phow: how it ran, for the trace: "prepared" (on the server), or
 * "text" (PostgreSQL, a text it does not keep: parsed and planned each run). */
static apr_status_t execute_once(pl_db_t *db, apr_pool_t *p, const char *sql,
                                 int nargs, const char *const *args,
                                 apr_dbd_results_t **pres, int *pchanged,
                                 const char **phow)
{
    apr_dbd_prepared_t *stmt = NULL;
    const char *name = NULL;
    apr_status_t rv = APR_SUCCESS;
    int ret;

    *phow = "prepared";
    if (db->dialect == PL_DB_PGSQL) {
        rv = kept_args_name(db, sql, nargs, &name);
    }
    if (rv == APR_SUCCESS && name != NULL) {
        const char *text = execute_text(db, p, name, nargs, args);

        ret = pres ? apr_dbd_select(db->driver, p, db->handle, pres, text,
                                    pl_db_random_access(db))
                   : apr_dbd_query(db->driver, db->handle, pchanged, text);
        return ret ? pl_db_classify(db, ret) : APR_SUCCESS;
    }
    if (rv == APR_SUCCESS) {
        *phow = db->dialect == PL_DB_PGSQL ? "text" : "prepared";
        rv = prepare(db, sql, &stmt);
    }
    if (rv != APR_SUCCESS) {
        return rv;
    }
    ret = pres ? apr_dbd_pselect(db->driver, p, db->handle, pres, stmt,
                                 pl_db_random_access(db), nargs,
                                 (const char **)args)
               : apr_dbd_pquery(db->driver, p, db->handle, pchanged, stmt,
                                nargs, (const char **)args);
    return ret ? pl_db_classify(db, ret) : APR_SUCCESS;
}

static apr_status_t execute(pl_db_t *db, apr_pool_t *p, const char *sql,
                            int nargs, const char *const *args,
                            apr_dbd_results_t **pres, int *pchanged,
                            const char **phow)
{
    int first = pl_db_first_call(db);
    apr_status_t rv = execute_once(db, p, sql, nargs, args, pres, pchanged,
                                   phow);

    if (rv != APR_SUCCESS && pl_db_reconnected(db, first)) {
        rv = execute_once(db, p, sql, nargs, args, pres, pchanged, phow);
    }
    return rv;
}

apr_status_t pl_db_select(pl_db_t *db, apr_pool_t *p, pl_rows_t **prows,
                          const char *sql, int nargs, const char *const *args)
{
    apr_dbd_results_t *res = NULL;
    apr_time_t start = trace_start(db);
    const char *how;
    apr_status_t rv = execute(db, p, sql, nargs, args, &res, NULL, &how);

    if (rv == APR_SUCCESS) {
        rv = pl_db_read_rows(db, p, res, prows);
    }
    trace_statement(db, start, how, sql,
                    rv == APR_SUCCESS ? (*prows)->nrows : 0, rv);
    return rv;
}

apr_status_t pl_db_exec(pl_db_t *db, int *pchanged, const char *sql, int nargs,
                        const char *const *args)
{
    int changed = 0;
    apr_time_t start = trace_start(db);
    const char *how;
    apr_status_t rv = execute(db, db->pool, sql, nargs, args, NULL, &changed,
                              &how);

    trace_statement(db, start, how, sql, changed, rv);
    if (rv == APR_SUCCESS && pchanged) {
        *pchanged = changed;
    }
    return rv;
}

/* A slot for one more text: a free one, or the one run longest ago,
 * its statement dropped. NULL when none can be had: SQLite's driver
 * frees a statement only with its connection, and inside a transaction
 * a failed DEALLOCATE would end it. */
static cached_t *free_slot(pl_db_t *db)
{
    conn_state_t *cs = db->cs;
    cached_t *c = &cs->cached[0];
    int i, changed;

    for (i = 0; i < CACHED_MAX; i++) {
        if (cs->cached[i].pool == NULL) {
            return &cs->cached[i];
        }
        if (cs->cached[i].used < c->used) {
            c = &cs->cached[i];
        }
    }
    if (db->dialect == PL_DB_SQLITE || db->in_txn) {
        return NULL;
    }
    if (db->dialect == PL_DB_PGSQL) {
        int ret = apr_dbd_query(db->driver, db->handle, &changed,
                                apr_psprintf(c->pool, "DEALLOCATE pl_cached_%d",
                                             (int)(c - cs->cached)));

        if (ret != 0) {
            pl_db_classify(db, ret); /* a session gone is set up again */
            return NULL;
        }
    }
    apr_hash_set(cs->by_sql, c->sql, APR_HASH_KEY_STRING, NULL);
    apr_pool_destroy(c->pool); /* MySQL: closes the statement */
    memset(c, 0, sizeof(*c));
    return c;
}

/* Whether sql ran on this connection before (as far as seen says);
 * noted for next time. */
static int seen_before(conn_state_t *cs, const char *sql)
{
    apr_uint32_t h = 2166136261u; /* FNV-1a */
    const unsigned char *u;
    apr_uint32_t *slot;

    for (u = (const unsigned char *)sql; *u; u++) {
        h = (h ^ *u) * 16777619u;
    }
    h |= 1; /* 0 marks an empty slot */
    slot = &cs->seen[h % SEEN_SLOTS];
    if (*slot == h) {
        return 1;
    }
    *slot = h;
    return 0;
}

/* The statement kept prepared for sql on this connection (*pc), made
 * at its second run; *pc NULL when sql is to run as it is. Past
 * CACHED_MAX texts, the one run longest ago makes room: a server's few
 * hot texts (the candidate requests of its flavors) stay prepared
 * whatever else comes, where a planned text costs the database twice
 * its run. */
static apr_status_t cached_statement(pl_db_t *db, const char *sql,
                                     cached_t **pc)
{
    conn_state_t *cs = db->cs;
    cached_t *c = apr_hash_get(cs->by_sql, sql, APR_HASH_KEY_STRING);
    int ret;

    *pc = NULL;
    if (c == NULL) {
        if (!seen_before(cs, sql) || (c = free_slot(db)) == NULL) {
            return APR_SUCCESS;
        }
        apr_pool_create(&c->pool, db->conn_pool);
        c->sql = apr_pstrdup(c->pool, sql);
        ret = apr_dbd_prepare(
            db->driver, c->pool, db->handle, c->sql,
            apr_psprintf(c->pool, "pl_cached_%d", (int)(c - cs->cached)),
            &c->stmt);
        if (ret != 0) {
            apr_pool_destroy(c->pool);
            memset(c, 0, sizeof(*c));
            return pl_db_classify(db, ret);
        }
        apr_hash_set(cs->by_sql, c->sql, APR_HASH_KEY_STRING, c);
    }
    c->used = ++cs->ticks;
    *pc = c;
    return APR_SUCCESS;
}

/* Run sql as kind says (PL_DB_TEXT_KEPT: prepared at its second run
 * and kept), the result from p. */
static apr_status_t run_once(pl_db_t *db, apr_pool_t *p, const char *sql,
                             pl_db_text_e kind, apr_dbd_results_t **pres,
                             const char **phow)
{
    cached_t *c = NULL;
    apr_status_t rv;
    int ret;

    *pres = NULL;
    *phow = "text";
    /* '%' would read as an argument */
    if (kind == PL_DB_TEXT_KEPT && !strchr(sql, '%') &&
        (rv = cached_statement(db, sql, &c)) != APR_SUCCESS) {
        return rv;
    }
    if (c == NULL) {
        ret = apr_dbd_select(db->driver, p, db->handle, pres, sql,
                             pl_db_random_access(db));
        return ret ? pl_db_classify(db, ret) : APR_SUCCESS;
    }
    *phow = "kept";
    ret = apr_dbd_pselect(db->driver, p, db->handle, pres, c->stmt,
                          pl_db_random_access(db), 0, NULL);
    return ret ? pl_db_classify(db, ret) : APR_SUCCESS;
}

static apr_status_t run(pl_db_t *db, apr_pool_t *p, const char *sql,
                        pl_db_text_e kind, apr_dbd_results_t **pres,
                        const char **phow)
{
    int first = pl_db_first_call(db);
    apr_status_t rv = run_once(db, p, sql, kind, pres, phow);

    if (rv != APR_SUCCESS && pl_db_reconnected(db, first)) {
        rv = run_once(db, p, sql, kind, pres, phow);
    }
    return rv;
}

/* pl_db_select_text's PL_DB_TEXT_ONCE: sql as it is, the result from
 * p. Not run(): a failed first statement of a use is classified again
 * after pl_db_reconnected's check, as pl_db_exec_text does, where run()
 * keeps the classification of the statement's own error. The drivers
 * give the connection's last error text (PQerrorMessage, mysql_error),
 * which the check's own queries may have replaced, and the second
 * classification marks the session suspect again after the check
 * cleared it. Which error a caller sees (PL_EDB, APR_EEXIST,
 * PL_EDEADLOCK) must not change here (issue 38: no behaviour change),
 * so the two ways stay apart until one is chosen for both. */
static apr_status_t select_as_is(pl_db_t *db, apr_pool_t *p, const char *sql,
                                 apr_dbd_results_t **pres)
{
    int first = pl_db_first_call(db);
    int ret = apr_dbd_select(db->driver, p, db->handle, pres, sql,
                             pl_db_random_access(db));

    if (ret != 0 && (pl_db_classify(db, ret), pl_db_reconnected(db, first))) {
        ret = apr_dbd_select(db->driver, p, db->handle, pres, sql,
                             pl_db_random_access(db));
    }
    return ret ? pl_db_classify(db, ret) : APR_SUCCESS;
}

apr_status_t pl_db_select_text(pl_db_t *db, apr_pool_t *p, pl_rows_t **prows,
                               const char *sql, pl_db_text_e kind)
{
    apr_dbd_results_t *res = NULL;
    const char *how = "text";
    apr_time_t start = trace_start(db);
    apr_status_t rv = kind == PL_DB_TEXT_KEPT
                          ? run(db, p, sql, kind, &res, &how)
                          : select_as_is(db, p, sql, &res);

    if (rv == APR_SUCCESS) {
        rv = pl_db_read_rows(db, p, res, prows);
    }
    trace_statement(db, start, how, sql,
                    rv == APR_SUCCESS ? (*prows)->nrows : 0, rv);
    return rv;
}

apr_status_t pl_db_select_each(pl_db_t *db, apr_pool_t *p, const char *sql,
                               pl_db_text_e kind, pl_db_row_fn *fn, void *baton)
{
    apr_dbd_results_t *res;
    apr_pool_t *scratch;
    apr_status_t rv;
    const char *how;
    apr_time_t start = trace_start(db);

    /* the driver's result and row buffers live in scratch, and go with
     * it as soon as the rows are read */
    apr_pool_create(&scratch, p);
    db->nrows = 0;
    if ((rv = run(db, scratch, sql, kind, &res, &how)) == APR_SUCCESS) {
        rv = pl_db_each_row(db, scratch, res, fn, baton);
    }
    apr_pool_destroy(scratch);
    trace_statement(db, start, how, sql, db->nrows, rv);
    return rv;
}

apr_status_t pl_db_exec_text(pl_db_t *db, int *pchanged, const char *sql)
{
    int changed = 0;
    apr_time_t start = trace_start(db);
    int first = pl_db_first_call(db);
    int ret = apr_dbd_query(db->driver, db->handle, &changed, sql);
    apr_status_t rv;

    if (ret != 0 && (pl_db_classify(db, ret), pl_db_reconnected(db, first))) {
        ret = apr_dbd_query(db->driver, db->handle, &changed, sql);
    }
    rv = ret ? pl_db_classify(db, ret) : APR_SUCCESS;

    trace_statement(db, start, "text", sql, changed, rv);
    if (rv == APR_SUCCESS && pchanged) {
        *pchanged = changed;
    }
    return rv;
}

/* A prepared statement of sql with its arguments, its driver buffers
 * from p: its rows to fn (a query) or *pchanged (fn NULL). */
apr_status_t pl_db_stmt_run_prepared(pl_db_t *db, apr_pool_t *p,
                                     const char *sql, int nargs,
                                     const char **args, pl_db_row_fn *fn,
                                     void *baton, int *pchanged)
{
    apr_dbd_results_t *res = NULL;
    apr_time_t start = trace_start(db);
    const char *how;
    apr_status_t rv;

    *pchanged = 0;
    db->nrows = 0;
    rv = execute(db, p, sql, nargs, args, fn ? &res : NULL, pchanged, &how);
    if (rv == APR_SUCCESS && fn) {
        rv = pl_db_each_row(db, p, res, fn, baton);
        *pchanged = db->nrows;
    }
    trace_statement(db, start, how, sql, *pchanged, rv);
    return rv;
}
