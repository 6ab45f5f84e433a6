/* Licensed under the Apache License, Version 2.0.
 *
 * pl_req.c: what handlers use to read a request (query arguments, the
 * JSON body, the database handle) and to answer it (JSON replies, errors,
 * links, last-modified).
 */
#include <string.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <apr_strings.h>
#include <apr_lib.h>
#include <apr_date.h>
#include <apr_hash.h>
#include <http_core.h>
#include <http_protocol.h>
#include <apr_dbd.h>
#include <mod_dbd.h>

#include "pl_private.h"
#include "pl_req.h"
#include "pl_py.h"
#include "pl_str.h"
#include "pl_store.h"
#include "pl_metrics.h"
#include "pl_schemas.h"

/* What json-c 0.16 spends on x86-64 per value it builds (measured with
 * 1,000,000 of each in a list): an object about 800 bytes (its hash
 * table has 16 slots from the start), an array 150, any other value 70
 * to 90 (an int 72, an empty string 88), a member of a large object 100
 * more for its key and slot. A body's scan counts the brackets and the
 * separators ("," and ":") outside strings and prices them so. */
#define JSON_COST_OBJECT 800
#define JSON_COST_ARRAY 160
#define JSON_COST_SEPARATOR 80

/* What parsing may cost: at most this many times the body, or the floor
 * for a small one. The densest real requests cost less than 40 times
 * their size (an inventory of "total" alone per class, compact); 3
 * million "{}" in a list would cost 270 times. docs/directives.md. */
#define JSON_COST_FACTOR 48
#define JSON_COST_FLOOR ((apr_uint64_t)1024 * 1024)

/* How deep a body may nest: the deepest request (a reshape's
 * allocations) has 6 levels; Python's json gives up near 1000 (upstream
 * answers 500 there). */
#define JSON_MAX_DEPTH 64

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

const char *pl_arg(const pl_req_t *req, const char *key)
{
    int i;

    for (i = 0; i < req->args->nelts; i++) {
        const pl_arg_t *a = &APR_ARRAY_IDX(req->args, i, pl_arg_t);

        if (!strcmp(a->key, key)) {
            return a->value;
        }
    }
    return NULL;
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
static int schema_missing(pl_req_t *req)
{
    return pl_err(req, HTTP_INTERNAL_SERVER_ERROR, NULL, "Broken schema");
}

int pl_check_query(pl_req_t *req, const pl_jsonschema_t *schema)
{
    json_object *doc;
    const char *err = NULL;
    int i;

    if (schema == NULL) {
        return schema_missing(req);
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

int pl_require_json(pl_req_t *req)
{
    const char *ct = apr_table_get(req->r->headers_in, "Content-Type");
    char *mt = apr_pstrdup(req->pool, ct ? ct : "");
    char *end;

    /* webob's req.content_type: parameters cut off, blanks stripped */
    if ((end = strchr(mt, ';')) != NULL) {
        *end = '\0';
    }
    while (apr_isspace(*mt)) {
        mt++;
    }
    end = mt + strlen(mt);
    while (end > mt && apr_isspace(end[-1])) {
        *--end = '\0';
    }
    if (strcmp(mt, "application/json") != 0) {
        return pl_err(req, HTTP_UNSUPPORTED_MEDIA_TYPE, NULL,
                      "The media type %s is not supported, use "
                      "application/json",
                      *mt ? mt : "None");
    }
    return 0;
}

/* 413 for a body over max (size: its Content-Length, or -1 for a
 * chunked one): said to the client with the sizes, and to the error log
 * at info (an operator who sees legitimate clients here raises
 * PlacementMaxBodySize). The connection closes after the answer, so the
 * rest of the body is not read. */
static int body_too_large(pl_req_t *req, apr_off_t size, apr_size_t max)
{
    request_rec *r = req->r;
    const char *bytes = size < 0
                            ? apr_psprintf(req->pool,
                                           "more than %" APR_SIZE_T_FMT, max)
                            : apr_off_t_toa(req->pool, size);

    r->connection->keepalive = AP_CONN_CLOSE;
    ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, r,
                  PL_LOGNO(00104) "%s: a request body of %s bytes refused, "
                                  "over the %" APR_SIZE_T_FMT " %s %.200s "
                                  "takes (PlacementMaxBodySize, "
                                  "LimitRequestBody)",
                  req->request_id, bytes, max, r->method, r->uri);
    if (size < 0) {
        return pl_err(req, HTTP_REQUEST_ENTITY_TOO_LARGE, NULL,
                      "Request body too large: more than the "
                      "%" APR_SIZE_T_FMT " bytes accepted here",
                      max);
    }
    return pl_err(req, HTTP_REQUEST_ENTITY_TOO_LARGE, NULL,
                  "Request body too large: %s bytes, more than the "
                  "%" APR_SIZE_T_FMT " accepted here",
                  bytes, max);
}

/* The request's Content-Length, or -1 */
static apr_off_t content_length(request_rec *r)
{
    const char *cl = apr_table_get(r->headers_in, "Content-Length");
    apr_off_t len;
    char *end;

    if (cl == NULL || apr_strtoff(&len, cl, &end, 10) != APR_SUCCESS ||
        *end != '\0' || len < 0) {
        return -1;
    }
    return len;
}

/* The body, at most max bytes (or httpd's LimitRequestBody, if lower:
 * its own 413 is an HTML page, this one the JSON error): with a
 * Content-Length, refused before a byte is read if over, else read into
 * one buffer of its size; chunked, read into a buffer that doubles up to
 * max + 1. */
static int read_body(pl_req_t *req, apr_size_t max, char **pbuf,
                     apr_size_t *plen)
{
    request_rec *r = req->r;
    apr_off_t httpd_limit = ap_get_limit_req_body(r);
    apr_size_t cap, len = 0;
    char *buf;
    long n;
    int status;

    if (httpd_limit > 0 && (apr_uint64_t)httpd_limit < max) {
        max = (apr_size_t)httpd_limit;
    }
    if ((status = ap_setup_client_block(r, REQUEST_CHUNKED_DECHUNK)) != OK) {
        /* a Content-Length over LimitRequestBody, or one httpd cannot
         * read */
        return status == HTTP_REQUEST_ENTITY_TOO_LARGE
                   ? body_too_large(req, content_length(r), max)
                   : pl_err(req, HTTP_BAD_REQUEST, NULL, "Unable to read body");
    }
    if (!r->read_chunked && r->remaining > (apr_off_t)max) {
        return body_too_large(req, r->remaining, max);
    }
    cap = r->read_chunked ? 8192 : (apr_size_t)r->remaining;
    buf = apr_palloc(req->pool, cap + 1);
    if (ap_should_client_block(r)) {
        for (;;) {
            if (len == cap) {
                char *bigger;

                if (!r->read_chunked) {
                    break; /* all of Content-Length */
                }
                if (cap > max) {
                    return body_too_large(req, -1, max);
                }
                cap = cap * 2 > max + 1 ? max + 1 : cap * 2;
                bigger = apr_palloc(req->pool, cap + 1);
                memcpy(bigger, buf, len);
                buf = bigger;
            }
            n = ap_get_client_block(r, buf + len, cap - len);
            if (n < 0) {
                return pl_err(req, HTTP_BAD_REQUEST, NULL,
                              "Unable to read body");
            }
            if (n == 0) {
                break;
            }
            len += (apr_size_t)n;
        }
    }
    buf[len] = '\0';
    *pbuf = buf;
    *plen = len;
    return 0;
}

/* What one pass over a body's bytes finds before json-c builds anything
 * of it. Outside strings: the brackets and separators that price the
 * parse; inside: escapes a C string or a database cannot hold. */
typedef struct {
    apr_uint64_t objects, arrays, separators;
    const char *refused; /* why the body is refused, or NULL */
} body_scan_t;

static int hex4(const char *s, const char *end, unsigned *pv)
{
    unsigned v = 0;
    int i;

    if (end - s < 4) {
        return 0;
    }
    for (i = 0; i < 4; i++) {
        int c = (unsigned char)s[i];

        if (!apr_isxdigit(c)) {
            return 0;
        }
        v = v * 16 +
            (unsigned)(apr_isdigit(c) ? c - '0' : apr_tolower(c) - 'a' + 10);
    }
    *pv = v;
    return 1;
}

/* The escape at at (just after its backslash): its length, or 0 when it
 * is one the body may not have (why in *prefused). \u0000 would end a C
 * string (a name cut short); a surrogate not in a pair cannot be stored
 * as UTF-8 (json-c would make it U+FFFD, Python keeps it, the databases
 * refuse it). */
static apr_size_t scan_escape(apr_pool_t *p, const char *at, const char *end,
                              const char **prefused)
{
    unsigned v, w;

    if (at == end || *at != 'u' || !hex4(at + 1, end, &v)) {
        return 1; /* json-c judges the others */
    }
    if (v == 0) {
        *prefused = "\\u0000 is not allowed in strings";
        return 0;
    }
    if (v >= 0xd800 && v <= 0xdbff && end - at >= 11 && at[5] == '\\' &&
        at[6] == 'u' && hex4(at + 7, end, &w) && w >= 0xdc00 && w <= 0xdfff) {
        return 11; /* a pair: one character beyond U+FFFF */
    }
    if (v >= 0xd800 && v <= 0xdfff) {
        *prefused = apr_psprintf(p,
                                 "\\u%04x is not allowed in strings (a "
                                 "surrogate alone is no character)",
                                 v);
        return 0;
    }
    return 5;
}

static void scan_body(apr_pool_t *p, const char *buf, apr_size_t len,
                      body_scan_t *scan)
{
    const char *at = buf, *end = buf + len;
    int in_string = 0;

    memset(scan, 0, sizeof(*scan));
    while (at < end) {
        char c = *at++;

        if (in_string) {
            if (c == '"') {
                in_string = 0;
            }
            else if (c == '\\') {
                apr_size_t n = scan_escape(p, at, end, &scan->refused);

                if (n == 0) {
                    return;
                }
                at += n;
            }
            continue;
        }
        switch (c) {
        case '"':
            in_string = 1;
            break;
        case '{':
            scan->objects++;
            break;
        case '[':
            scan->arrays++;
            break;
        case ',':
        case ':':
            scan->separators++;
            break;
        default:
            break;
        }
    }
}

/* What json-c would spend building the body scanned (bytes). */
static apr_uint64_t parse_cost(const body_scan_t *scan, apr_size_t len)
{
    return scan->objects * JSON_COST_OBJECT + scan->arrays * JSON_COST_ARRAY +
           (scan->separators + 1) * JSON_COST_SEPARATOR + len;
}

/* 413 for a body that would cost more than JSON_COST_FACTOR times its
 * size to parse (many small objects: "[{},{},...]"). */
static int body_too_dense(pl_req_t *req, const body_scan_t *scan,
                          apr_size_t len, apr_uint64_t cost,
                          apr_uint64_t allowed)
{
    apr_uint64_t containers = scan->objects + scan->arrays;

    ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, req->r,
                  PL_LOGNO(00105) "%s: a request body of %" APR_SIZE_T_FMT
                                  " bytes refused: its %" APR_UINT64_T_FMT
                                  " objects and arrays would cost about "
                                  "%" APR_UINT64_T_FMT " bytes to parse",
                  req->request_id, len, containers, cost);
    return pl_err(req, HTTP_REQUEST_ENTITY_TOO_LARGE, NULL,
                  "Request body too large: parsing its %" APR_UINT64_T_FMT
                  " objects and arrays would take about %" APR_UINT64_T_FMT
                  " MB, more than the %" APR_UINT64_T_FMT
                  " MB allowed for %" APR_SIZE_T_FMT " bytes",
                  containers, cost >> 20, allowed >> 20, len);
}

/* Before json-c reads the body: Python's decoding (upstream decodes the
 * body as UTF-8 first: overlong forms and encoded surrogates are refused
 * in its words), the escapes refused, then the price of parsing. */
static int check_body_text(pl_req_t *req, const char *buf, apr_size_t len)
{
    const char *decode_error = pl_py_utf8_error(req->pool, buf, len);
    body_scan_t scan;
    apr_uint64_t cost, allowed;

    if (decode_error) {
        return pl_err(req, HTTP_BAD_REQUEST, NULL, "Malformed JSON: %s",
                      decode_error);
    }
    scan_body(req->pool, buf, len, &scan);
    if (scan.refused) {
        return pl_err(req, HTTP_BAD_REQUEST, NULL, "Malformed JSON: %s",
                      scan.refused);
    }
    cost = parse_cost(&scan, len);
    allowed = (apr_uint64_t)len * JSON_COST_FACTOR;
    if (allowed < JSON_COST_FLOOR) {
        allowed = JSON_COST_FLOOR;
    }
    if (cost > allowed) {
        return body_too_dense(req, &scan, len, cost, allowed);
    }
    return 0;
}

/* NaN and the infinities are not JSON (json-c reads them as Python's
 * json does); stored, they would break every capacity check. */
static int has_non_finite(json_object *o)
{
    switch (json_object_get_type(o)) {
    case json_type_double:
        /* glibc's isfinite() is a macro that takes sizeof of its
         * argument: the call inside is evaluated once, as meant */
        /* cppcheck-suppress sizeofFunctionCall */
        return !isfinite(json_object_get_double(o));
    case json_type_array: {
        size_t i, n = json_object_array_length(o);

        for (i = 0; i < n; i++) {
            if (has_non_finite(json_object_array_get_idx(o, i))) {
                return 1;
            }
        }
        return 0;
    }
    case json_type_object: {
        json_object_object_foreach(o, key, val)
        {
            (void)key;
            if (has_non_finite(val)) {
                return 1;
            }
        }
        return 0;
    }
    default:
        return 0;
    }
}

int pl_read_json(pl_req_t *req, const pl_jsonschema_t *schema,
                 json_object **pdoc)
{
    json_tokener *tok;
    enum json_tokener_error jerr;
    apr_size_t offset;
    json_object *doc;
    char *buf = NULL;
    apr_size_t len = 0;
    const char *err = NULL;
    int status;

    if (schema == NULL) {
        return schema_missing(req);
    }
    if ((status = pl_require_json(req)) != 0 ||
        (status = read_body(req, req->body_max ? req->body_max : PL_BODY_SMALL,
                            &buf, &len)) != 0 ||
        (status = check_body_text(req, buf, len)) != 0) {
        return status;
    }
    /* Strict, as Python's json: no trailing commas, no single quotes.
     * JSON null is a valid document (a NULL json_object). */
    tok = json_tokener_new_ex(JSON_MAX_DEPTH);
    /* invalid UTF-8 is refused as Python refuses to decode it */
    json_tokener_set_flags(tok,
                           JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
    /* the terminating NUL ends a bare top-level literal ("null", "1") */
    doc = json_tokener_parse_ex(tok, buf, (int)len + 1);
    jerr = json_tokener_get_error(tok);
    offset = (apr_size_t)json_tokener_get_parse_end(tok);
    while (jerr == json_tokener_success && offset < len &&
           apr_isspace(buf[offset])) {
        offset++;
    }
    if (jerr != json_tokener_success || offset < len) {
        const char *what = jerr == json_tokener_success ? "Extra data"
                           : jerr == json_tokener_continue
                               ? "Expecting value"
                               : json_tokener_error_desc(jerr);
        /* json.loads's own words and position, when Python would fail
         * on this UTF-8 text too */
        const char *py = pl_str_is_clean_utf8(buf, len)
                             ? pl_py_json_error(req->pool, buf, len)
                             : NULL;

        json_object_put(doc);
        json_tokener_free(tok);
        if (py) {
            return pl_err(req, HTTP_BAD_REQUEST, NULL, "Malformed JSON: %s",
                          py);
        }
        return pl_err(req, HTTP_BAD_REQUEST, NULL,
                      "Malformed JSON: %s: "
                      "line 1 column %" APR_SIZE_T_FMT " (char %" APR_SIZE_T_FMT
                      ")",
                      what, offset + 1, offset);
    }
    json_tokener_free(tok);
    pl_json_own(req, doc);
    if (has_non_finite(doc)) {
        return pl_err(req, HTTP_BAD_REQUEST, NULL,
                      "Malformed JSON: NaN "
                      "and Infinity are not numbers");
    }
    if (pl_jsonschema_validate_detail(schema, doc, req->pool, &err) !=
        APR_SUCCESS) {
        return pl_err(req, HTTP_BAD_REQUEST, NULL, "JSON does not validate: %s",
                      err);
    }
    *pdoc = doc;
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
        return schema_missing(req);
    }
    return 0;
}

/* The request's hold on a database connection ends with the request. */
static apr_status_t db_released(void *data)
{
    (void)data;
    pl_metrics_add(PL_METRIC_DB_IN_USE, -1);
    return APR_SUCCESS;
}

int pl_req_db(pl_req_t *req, pl_db_t **pdb)
{
    static APR_OPTIONAL_FN_TYPE(ap_dbd_acquire) *acquire = NULL;
    ap_dbd_t *dbd;
    apr_status_t rv;

    *pdb = req->db;
    if (req->db) {
        return 0;
    }
    if (acquire == NULL) {
        acquire = APR_RETRIEVE_OPTIONAL_FN(ap_dbd_acquire);
    }
    dbd = acquire ? acquire(req->r) : NULL;
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
    rv = pl_store_std_sync(req->db, req->pool);
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

int pl_reply_text(pl_req_t *req, int status, const char *text, apr_size_t len)
{
    req->body = NULL;
    req->body_text = text;
    req->body_len = len;
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
