/* Licensed under the Apache License, Version 2.0.
 *
 * pl_req.c: what handlers use to read a request (query arguments, the
 * database handle; the JSON body is pl_req_body.c's) and to answer it
 * (JSON replies, errors, links, last-modified).
 */
#include <string.h>
#include <stdio.h>
#include <stdlib.h>
#include <apr_strings.h>
#include <apr_date.h>
#include <apr_hash.h>
#include <http_core.h>
#include <http_protocol.h>
#include <apr_dbd.h>
#include <mod_dbd.h>

#include "pl_private.h"
#include "pl_req.h"
#include "pl_py.h"
#include "pl_store.h"
#include "pl_store_std.h"
#include "pl_metrics.h"
#include "pl_schemas.h"

int pl_err(pl_req_t *req, int status, const char *code, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    req->err_detail = apr_pvsprintf(req->pool, fmt, ap);
    va_end(ap);
    req->err_code = code ? code : PL_ERRC_DEFAULT;
    return status;
}

int pl_err_escaped(pl_req_t *req, int status)
{
    req->err_escaped = 1;
    return status;
}

int pl_err_store(pl_req_t *req, apr_status_t rv, const char *what)
{
    ap_log_rerror(APLOG_MARK, APLOG_ERR, rv, req->r,
                  PL_LOGNO(00101) "%s: %s failed: %s", req->request_id, what,
                  req->db ? pl_db_errstr(req->db) : "no database");
    return pl_err(req, HTTP_INTERNAL_SERVER_ERROR, NULL, "%s failed", what);
}

const char *pl_arg_last(const pl_req_t *req, const char *key)
{
    int i;

    for (i = req->args->nelts - 1; i >= 0; i--) {
        const pl_arg_t *a = &APR_ARRAY_IDX(req->args, i, pl_arg_t);

        if (!strcmp(a->key, key)) {
            return a->value;
        }
    }
    return NULL;
}

apr_array_header_t *pl_args(const pl_req_t *req, const char *key)
{
    apr_array_header_t *vals = apr_array_make(req->pool, 2,
                                              sizeof(const char *));
    int i;

    for (i = 0; i < req->args->nelts; i++) {
        const pl_arg_t *a = &APR_ARRAY_IDX(req->args, i, pl_arg_t);

        if (!strcmp(a->key, key)) {
            APR_ARRAY_PUSH(vals, const char *) = a->value;
        }
    }
    return vals;
}

json_object *pl_json_own(pl_req_t *req, json_object *obj)
{
    if (obj) {
        apr_pool_cleanup_register(req->pool, obj,
                                  (apr_status_t(*)(void *))json_object_put,
                                  apr_pool_cleanup_null);
    }
    return obj;
}

/* No schema is never "valid": the 500 pl_schema answers for a text it
 * does not know. */
int pl_schema_missing(pl_req_t *req)
{
    return pl_err(req, HTTP_INTERNAL_SERVER_ERROR, NULL, "Broken schema");
}

int pl_check_query(pl_req_t *req, const pl_jsonschema_t *schema)
{
    json_object *doc;
    const char *err = NULL;
    int i;

    if (schema == NULL) {
        return pl_schema_missing(req);
    }
    doc = pl_json_own(req, json_object_new_object());

    /* Upstream validates dict(req.GET): the last value of each key. */
    for (i = 0; i < req->args->nelts; i++) {
        const pl_arg_t *a = &APR_ARRAY_IDX(req->args, i, pl_arg_t);

        json_object_object_add(doc, a->key, json_object_new_string(a->value));
    }
    if (pl_jsonschema_validate_detail(schema, doc, req->pool, &err) !=
        APR_SUCCESS) {
        return pl_err(req, HTTP_BAD_REQUEST, NULL,
                      "Invalid query string parameters: %s", err);
    }
    return 0;
}

/* The compiled schemas: every text of pl_schemas_all, compiled in
 * post_config (before the children fork, so they only read the hash),
 * keyed by the text's address. A text not in the list is a bug: it
 * answers 500, it is never taken as "valid". */
static apr_hash_t *schema_startup;

apr_status_t pl_schema_compile_all(apr_pool_t *pconf, const char **failed)
{
    apr_hash_t *h = apr_hash_make(pconf);
    int i;

    for (i = 0; pl_schemas_all[i]; i++) {
        pl_jsonschema_t *s;
        apr_status_t rv = pl_jsonschema_compile(pconf, pl_schemas_all[i], &s);

        if (rv != APR_SUCCESS) {
            *failed = pl_schemas_all[i];
            return rv;
        }
        apr_hash_set(h, &pl_schemas_all[i], sizeof(pl_schemas_all[i]), s);
    }
    schema_startup = h;
    return APR_SUCCESS;
}

int pl_schema(pl_req_t *req, const char *json_text,
              const pl_jsonschema_t **pschema)
{
    const pl_jsonschema_t *s = NULL;

    if (schema_startup) {
        s = apr_hash_get(schema_startup, &json_text, sizeof(json_text));
    }
    *pschema = s;
    if (s == NULL) {
        ap_log_rerror(
            APLOG_MARK, APLOG_CRIT, 0, req->r,
            PL_LOGNO(00103) "a JSON schema not compiled at start-up: %.80s",
            json_text ? json_text : "(none)");
        return pl_schema_missing(req);
    }
    return 0;
}

/* mod_dbd's connection getter, taken in post_config as mod_authn_dbd
 * takes it (check_config has refused a configuration without mod_dbd). */
typedef APR_OPTIONAL_FN_TYPE(ap_dbd_acquire) dbd_acquire_fn;
static dbd_acquire_fn *dbd_acquire;

void pl_req_post_config(void)
{
    dbd_acquire = APR_RETRIEVE_OPTIONAL_FN(ap_dbd_acquire);
}

/* The request's hold on a database connection ends with the request. */
static apr_status_t db_released(void *data)
{
    (void)data;
    pl_metrics_add(PL_METRIC_DB_IN_USE, -1);
    return APR_SUCCESS;
}

/* How often a request asks mod_dbd again for a connection, and for how
 * long (pl_req_db). */
#define ACQUIRE_TRIES 16
#define ACQUIRE_PATIENCE apr_time_from_msec(1000)
#define ACQUIRE_SLOW apr_time_from_msec(100)

/* A connection from mod_dbd's pool. mod_dbd checks each one it hands
 * out; a MariaDB session that died while idle (the server restarted, a
 * proxy's timeout cut it) fails that check (mysql_ping does not
 * reconnect there) and mod_dbd drops it and answers NULL. Asking again
 * gets the next pooled connection, or a new one: dead ones cost the
 * client nothing. A failure that took time (the database unreachable),
 * or a second of them, ends the asking: the database is down, and the
 * request gets its 500 at once. (PostgreSQL's dead sessions pass that
 * check, their first statement fails, and pl_db.c reconnects them.) */
static ap_dbd_t *acquire_pooled(request_rec *r)
{
    apr_time_t start = apr_time_now(), before = start, now;
    ap_dbd_t *dbd = NULL;
    int tries;

    for (tries = 0; tries < ACQUIRE_TRIES && dbd == NULL; tries++) {
        dbd = dbd_acquire(r);
        now = apr_time_now();
        if (now - before > ACQUIRE_SLOW || now - start > ACQUIRE_PATIENCE) {
            break;
        }
        before = now;
    }
    if (dbd != NULL && tries > 1) {
        ap_log_rerror(APLOG_MARK, APLOG_NOTICE, 0, r,
                      PL_LOGNO(00106) "%d pooled database connections had "
                                      "died: dropped, a live one taken",
                      tries - 1);
    }
    return dbd;
}

int pl_req_db(pl_req_t *req, pl_db_t **pdb)
{
    ap_dbd_t *dbd;
    apr_status_t rv;

    *pdb = req->db;
    if (req->db) {
        return 0;
    }
    dbd = dbd_acquire ? acquire_pooled(req->r) : NULL;
    if (dbd == NULL) {
        pl_metrics_add(PL_METRIC_DB_FAILURES, 1);
        ap_log_rerror(
            APLOG_MARK, APLOG_ERR, 0, req->r,
            PL_LOGNO(00102) "no database connection (check DBDriver/DBDParams "
                            "of this server)");
        return pl_err(req, HTTP_INTERNAL_SERVER_ERROR, NULL,
                      "Database connection unavailable");
    }
    pl_metrics_add(PL_METRIC_DB_ACQUIRED, 1);
    pl_metrics_add(PL_METRIC_DB_IN_USE, 1);
    apr_pool_cleanup_register(req->r->pool, NULL, db_released,
                              apr_pool_cleanup_null);
    req->db = pl_db_wrap(req->pool, dbd->pool, dbd->driver, dbd->handle,
                         pl_config_statement_timeout(req->conf));
    pl_db_set_log(req->db, &req->log);
    rv = pl_store_std_sync(req->db, req->pool, req->r->server,
                           req->conf->std_traits);
    if (rv != APR_SUCCESS) {
        int st = pl_err_store(req, rv,
                              "inserting the standard resource classes "
                              "and traits");

        req->db = NULL;
        return st;
    }
    *pdb = req->db;
    return 0;
}

int pl_reply_json(pl_req_t *req, int status, json_object *obj)
{
    req->body = pl_json_own(req, obj);
    return status;
}

int pl_reply_stream(pl_req_t *req, int status,
                    void (*writer)(struct pl_req_t *req, void *baton),
                    void *baton)
{
    req->body = NULL;
    req->body_writer = writer;
    req->body_writer_baton = baton;
    return status;
}

int pl_reply_empty(pl_req_t *req, int status)
{
    req->body = NULL;
    return status;
}

const char *pl_link(const pl_req_t *req, const char *path)
{
    return apr_pstrcat(req->pool, req->prefix, path, NULL);
}

void pl_req_touch(pl_req_t *req, const char *sql_time)
{
    apr_time_t t;
    char *iso;

    if (sql_time == NULL) {
        return;
    }
    /* "YYYY-MM-DD HH:MM:SS[.ffffff]" (UTC) -> RFC 3339 for apr_date */
    iso = apr_pstrndup(req->pool, sql_time, 19);
    if (strlen(iso) == 19) {
        iso[10] = 'T';
    }
    t = apr_date_parse_rfc(apr_pstrcat(req->pool, iso, "Z", NULL));
    if (t == APR_DATE_BAD) {
        struct tm tm = { 0 };

        if (sscanf(sql_time, "%d-%d-%d %d:%d:%d", &tm.tm_year, &tm.tm_mon,
                   &tm.tm_mday, &tm.tm_hour, &tm.tm_min, &tm.tm_sec) == 6) {
            apr_time_exp_t e = { 0 };

            e.tm_year = tm.tm_year - 1900;
            e.tm_mon = tm.tm_mon - 1;
            e.tm_mday = tm.tm_mday;
            e.tm_hour = tm.tm_hour;
            e.tm_min = tm.tm_min;
            e.tm_sec = tm.tm_sec;
            if (apr_time_exp_gmt_get(&t, &e) != APR_SUCCESS) {
                return;
            }
        }
        else {
            return;
        }
    }
    if (t > req->last_modified) {
        req->last_modified = t;
    }
}

json_object *pl_json_float(double d)
{
    char buf[PL_PY_FLOAT_REPR_SIZE];

    /* json.dumps writes float.__repr__: 10.0, 1e+16, 0.0001 */
    pl_py_float_repr(buf, d);
    return json_object_new_double_s(d, buf);
}
