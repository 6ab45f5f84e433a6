/* Licensed under the Apache License, Version 2.0.
 *
 * pl_req_body.c: a request's JSON body, read and checked before json-c
 * builds it (its media type, a size per route, Python's UTF-8 rules, the
 * cost of its parse), then parsed and validated against its schema. The
 * bounds are stated in docs/directives.md (PlacementMaxBodySize) and
 * docs/reliability.md.
 */
#include <string.h>
#include <math.h>
#include <apr_strings.h>
#include <apr_lib.h>
#include <http_core.h>
#include <http_protocol.h>

#include "pl_private.h"
#include "pl_req.h"
#include "pl_body_budget.h"
#include "pl_json_scan.h"
#include "pl_py.h"
#include "pl_str.h"

/* What parsing may cost: at most this many times the body, or the floor
 * for a small one. The cost is json-c's own, priced per value, key,
 * slot and table (common/pl_json_scan.c); docs/directives.md gives the
 * densest real requests and what each shape of body costs. */
#define JSON_COST_FACTOR 48
#define JSON_COST_FLOOR ((apr_uint64_t)1024 * 1024)

/* How deep a body may nest: the deepest request (a reshape's
 * allocations) has 6 levels; Python's json gives up near 1000 (upstream
 * answers 500 there). */
#define JSON_MAX_DEPTH 64

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

/* 413 for a body that would cost more than JSON_COST_FACTOR times its
 * size to parse (many small values: "[{},{},...]", "[1,1,...]"), with
 * what was counted. */
static int body_too_dense(pl_req_t *req, const pl_json_scan_t *scan,
                          apr_size_t len, apr_uint64_t allowed)
{
    const char *counted = apr_psprintf(
        req->pool,
        "%" APR_UINT64_T_FMT " objects, %" APR_UINT64_T_FMT
        " arrays, %" APR_UINT64_T_FMT " keys, %" APR_UINT64_T_FMT
        " strings, %" APR_UINT64_T_FMT " numbers and %" APR_UINT64_T_FMT
        " true, false or null",
        scan->objects, scan->arrays, scan->keys, scan->strings, scan->numbers,
        scan->literals);

    ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, req->r,
                  PL_LOGNO(00105) "%s: a request body of %" APR_SIZE_T_FMT
                                  " bytes refused: its %s would cost about "
                                  "%" APR_UINT64_T_FMT " bytes to parse",
                  req->request_id, len, counted, scan->cost);
    return pl_err(req, HTTP_REQUEST_ENTITY_TOO_LARGE, NULL,
                  "Request body too large: parsing its %s would take about "
                  "%" APR_UINT64_T_FMT " MB, more than the %" APR_UINT64_T_FMT
                  " MB allowed for %" APR_SIZE_T_FMT " bytes",
                  counted, scan->cost >> 20, allowed >> 20, len);
}

/* Before json-c reads the body: Python's decoding (upstream decodes the
 * body as UTF-8 first: overlong forms and encoded surrogates are refused
 * in its words), the escapes refused, then the price of parsing, taken
 * from the child's budget (pl_body_budget.c). */
static int check_body_text(pl_req_t *req, const char *buf, apr_size_t len)
{
    const char *decode_error = pl_py_utf8_error(req->pool, buf, len);
    pl_json_scan_t scan;
    apr_uint64_t allowed;

    if (decode_error) {
        return pl_err(req, HTTP_BAD_REQUEST, NULL, "Malformed JSON: %s",
                      decode_error);
    }
    pl_json_scan(req->pool, buf, len, JSON_MAX_DEPTH, &scan);
    if (scan.refused) {
        return pl_err(req, HTTP_BAD_REQUEST, NULL, "Malformed JSON: %s",
                      scan.refused);
    }
    if (scan.quoted_keys) {
        /* json-c would take {'a': 1}; json.loads's own words */
        const char *py = pl_py_json_error(req->pool, buf, len);

        return pl_err(req, HTTP_BAD_REQUEST, NULL, "Malformed JSON: %s",
                      py ? py
                         : "Expecting property name enclosed in double "
                           "quotes");
    }
    allowed = (apr_uint64_t)len * JSON_COST_FACTOR;
    if (allowed < JSON_COST_FLOOR) {
        allowed = JSON_COST_FLOOR;
    }
    if (scan.cost > allowed) {
        return body_too_dense(req, &scan, len, allowed);
    }
    /* what json-c is about to build, beside the body read */
    return pl_body_budget_take(req, scan.cost + len);
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
        return pl_schema_missing(req);
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
