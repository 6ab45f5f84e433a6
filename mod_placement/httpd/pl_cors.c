/* Licensed under the Apache License, Version 2.0.
 *
 * pl_cors.c: cross-origin requests from browsers (Horizon, Skyline), as
 * oslo.middleware's CORS middleware handles them in front of placement
 * 8.0.0. placement/deploy.py adds that middleware only when an allowed
 * origin is configured, and outside authentication: a preflight needs no
 * token, and every answer, a 401 included, carries the headers. This file
 * answers preflights and adds the headers of actual requests; the settings
 * are the PlacementCORS* directives (pl_config.c, placement's defaults).
 */
#include <string.h>
#include <apr_lib.h>
#include <apr_strings.h>
#include <http_protocol.h>
#include <util_filter.h>

#include "pl_private.h"
#include "pl_cors.h"

#define ACAO "Access-Control-Allow-Origin"

/* What the filter of an actual request needs to know. */
typedef struct {
    const pl_dir_conf_t *conf;
    const char *origin; /* the Access-Control-Allow-Origin value */
} cors_ctx_t;

/* Request headers a preflight may always name, whatever allow_headers
 * says (oslo's CORS.simple_headers). */
static const char *const simple_headers[] = {
    "Accept",        "Accept-Language",  "Content-Type",
    "Cache-Control", "Content-Language", "Expires",
    "Last-Modified", "Pragma",           NULL
};

static ap_filter_rec_t *cors_filter;

/* oslo: an empty allowed_origin list is no CORS at all. */
static int cors_on(const pl_dir_conf_t *c)
{
    return c->cors_origins != NULL && c->cors_origins->nelts > 0;
}

/* The value of Access-Control-Allow-Origin for an Origin header: the
 * origin itself when listed (compared byte for byte, as oslo looks it up
 * in a dict), else "*" when that is listed, else NULL (not allowed). */
static const char *allowed_origin(const pl_dir_conf_t *c, const char *origin)
{
    int i, star = 0;

    if (origin == NULL) {
        return NULL;
    }
    for (i = 0; i < c->cors_origins->nelts; i++) {
        const char *o = APR_ARRAY_IDX(c->cors_origins, i, const char *);

        if (!strcmp(o, origin)) {
            return origin;
        }
        star |= !strcmp(o, "*");
    }
    return star ? "*" : NULL;
}

/* A comma-separated header value as a list: items stripped of white
 * space, empty ones dropped (oslo's _split_header_values). */
static apr_array_header_t *split_list(apr_pool_t *p, const char *value)
{
    apr_array_header_t *items = apr_array_make(p, 4, sizeof(const char *));
    const char *s = value;

    while (s != NULL && *s != '\0') {
        const char *comma = strchr(s, ',');
        const char *end = comma ? comma : s + strlen(s);

        while (s < end && apr_isspace(*s)) {
            s++;
        }
        while (end > s && apr_isspace(end[-1])) {
            end--;
        }
        if (end > s) {
            APR_ARRAY_PUSH(items, const char *) = apr_pstrmemdup(p, s, end - s);
        }
        s = comma ? comma + 1 : NULL;
    }
    return items;
}

/* Methods are compared as sent (oslo: "get" is not "GET"). */
static int method_allowed(const pl_dir_conf_t *c, const char *method)
{
    const apr_array_header_t *m = pl_config_cors_allow_methods(c);
    int i;

    for (i = 0; i < m->nelts; i++) {
        if (!strcmp(APR_ARRAY_IDX(m, i, const char *), method)) {
            return 1;
        }
    }
    return 0;
}

/* Header names are compared without regard to case (oslo upper-cases
 * both sides). */
static int header_allowed(const pl_dir_conf_t *c, const char *name)
{
    const apr_array_header_t *h = pl_config_cors_allow_headers(c);
    const char *const *s;
    int i;

    for (i = 0; i < h->nelts; i++) {
        if (!strcasecmp(APR_ARRAY_IDX(h, i, const char *), name)) {
            return 1;
        }
    }
    for (s = simple_headers; *s; s++) {
        if (!strcasecmp(*s, name)) {
            return 1;
        }
    }
    return 0;
}

/* Any OPTIONS request. placement itself never answers OPTIONS with a 2xx
 * (401 without a token, else 405), so oslo always throws that answer away
 * for an empty 200 without a content type; the preflight headers are
 * added only when every check passes (W3C CORS 6.2), and nothing tells
 * the client which check failed: its browser refuses the call. */
static void preflight(request_rec *r, const pl_dir_conf_t *c)
{
    const char *origin = apr_table_get(r->headers_in, "Origin");
    const char *method = apr_table_get(r->headers_in,
                                       "Access-Control-Request-Method");
    const char *allow = allowed_origin(c, origin);
    apr_array_header_t *asked;
    int i;

    r->status = HTTP_OK;
    ap_set_content_length(r, 0);
    if (origin == NULL) {
        return;
    }
    if (allow == NULL) {
        ap_log_rerror(
            APLOG_MARK, APLOG_DEBUG, 0, r,
            PL_LOGNO(04001) "CORS preflight from origin '%s' not permitted",
            origin);
        return;
    }
    if (method == NULL) {
        ap_log_rerror(APLOG_MARK, APLOG_DEBUG, 0, r,
                      PL_LOGNO(04002) "CORS preflight without "
                                      "Access-Control-Request-Method");
        return;
    }
    if (!method_allowed(c, method)) {
        ap_log_rerror(
            APLOG_MARK, APLOG_DEBUG, 0, r,
            PL_LOGNO(04003) "CORS preflight: method '%s' not permitted",
            method);
        return;
    }
    asked = split_list(
        r->pool,
        apr_table_get(r->headers_in, "Access-Control-Request-Headers"));
    for (i = 0; i < asked->nelts; i++) {
        const char *name = APR_ARRAY_IDX(asked, i, const char *);

        if (!header_allowed(c, name)) {
            ap_log_rerror(
                APLOG_MARK, APLOG_DEBUG, 0, r,
                PL_LOGNO(04004) "CORS preflight: header '%s' not permitted",
                name);
            return;
        }
    }

    apr_table_setn(r->headers_out, "Vary", "Origin");
    apr_table_setn(r->headers_out, ACAO, allow);
    if (pl_config_cors_allow_credentials(c)) {
        apr_table_setn(r->headers_out, "Access-Control-Allow-Credentials",
                       "true");
    }
    if (pl_config_cors_max_age(c) > 0) {
        apr_table_setn(r->headers_out, "Access-Control-Max-Age",
                       apr_itoa(r->pool, pl_config_cors_max_age(c)));
    }
    /* the one method asked for, and the headers as the client spelled
     * them, not the whole allowed lists */
    apr_table_setn(r->headers_out, "Access-Control-Allow-Methods", method);
    if (asked->nelts > 0) {
        apr_table_setn(r->headers_out, "Access-Control-Allow-Headers",
                       apr_array_pstrcat(r->pool, asked, ','));
    }
}

/* The headers of an actual request's answer (W3C CORS 6.1), added by the
 * filter when the answer is complete, so that they come last as they do
 * in upstream's pipeline. */
static void answer_headers(request_rec *r, const cors_ctx_t *ctx)
{
    const apr_array_header_t *expose = pl_config_cors_expose_headers(ctx->conf);
    apr_table_t *vary;

    /* oslo leaves alone an answer that already has the header: whatever
     * set it knows better */
    if (apr_table_get(r->headers_out, ACAO) != NULL ||
        apr_table_get(r->err_headers_out, ACAO) != NULL) {
        return;
    }
    /* Origin goes after placement's own Vary, in the same table: httpd
     * joins the Vary headers in table order, giving upstream's
     * "openstack-api-version,Origin" */
    vary = apr_table_get(r->headers_out, "Vary") ? r->headers_out
                                                 : r->err_headers_out;
    apr_table_mergen(vary, "Vary", "Origin");
    apr_table_setn(r->err_headers_out, ACAO, ctx->origin);
    if (pl_config_cors_allow_credentials(ctx->conf)) {
        apr_table_setn(r->err_headers_out, "Access-Control-Allow-Credentials",
                       "true");
    }
    if (expose->nelts > 0) {
        apr_table_setn(r->err_headers_out, "Access-Control-Expose-Headers",
                       apr_array_pstrcat(r->pool, expose, ','));
    }
}

/* Runs once, on the first data of the answer (or its end of stream when
 * there is no body), before httpd writes the headers. */
static apr_status_t cors_out_filter(ap_filter_t *f, apr_bucket_brigade *bb)
{
    answer_headers(f->r, f->ctx);
    ap_remove_output_filter(f);
    return ap_pass_brigade(f->next, bb);
}

void pl_cors_register(void)
{
    cors_filter = ap_register_output_filter("PLACEMENT_CORS", cors_out_filter,
                                            NULL, AP_FTYPE_CONTENT_SET);
}

int pl_cors_start(request_rec *r, const pl_dir_conf_t *c)
{
    const char *origin, *allow;
    cors_ctx_t *ctx;

    if (!cors_on(c)) {
        return 0;
    }
    if (r->method_number == M_OPTIONS) {
        preflight(r, c);
        return 1;
    }
    origin = apr_table_get(r->headers_in, "Origin");
    allow = allowed_origin(c, origin);
    if (allow == NULL) {
        if (origin != NULL) {
            ap_log_rerror(
                APLOG_MARK, APLOG_DEBUG, 0, r,
                PL_LOGNO(04005) "CORS request from origin '%s' not permitted",
                origin);
        }
        return 0;
    }
    ctx = apr_palloc(r->pool, sizeof(*ctx));
    ctx->conf = c;
    ctx->origin = allow;
    ap_add_output_filter_handle(cors_filter, ctx, r, r->connection);
    return 0;
}
