/* Licensed under the Apache License, Version 2.0.
 *
 * pl_handler.c: the "placement" handler. Builds the pl_req_t of a request
 * and walks it through what upstream's WSGI pipeline does, in the same
 * order: request id, authentication (pl_auth.c), microversion, content
 * checks, routing, the route's handler; then renders the answer, and
 * every error body, in one place.
 */
/* offsetof, so APR_OFFSETOF (APR_RING_SENTINEL) is not a NULL pointer
 * subtraction */
#include <stddef.h>
#include <string.h>
#include <apr_strings.h>
#include <apr_lib.h>
#include <http_protocol.h>
#include <http_request.h>
#include <util_script.h>

#include <json-c/printbuf.h>

#include "pl_private.h"
#include "pl_handler.h"
#include "pl_router.h"
#include "pl_authorize.h"
#include "pl_auth.h"
#include "pl_cors.h"
#include "pl_memory.h"
#include "pl_metrics.h"
#include "pl_uuid.h"
#include "pl_str.h"
#include "pl_py.h"

typedef struct {
    int status;
    const char *title;
    const char *head; /* webob's explanation, before the detail */
    const char *tail; /* after the detail */
} status_text_t;

/* The bodies webob renders for placement's errors: explanation, a blank
 * line, then the detail. ${...} placeholders are filled per request. */
static const status_text_t status_texts[] = {
    { 400, "Bad Request",
      "The server could not comply with the request "
      "since it is either malformed or otherwise incorrect.\n\n ",
      "  " },
    { 401, "Unauthorized",
      "This server could not verify that you are "
      "authorized to access the document you requested. Either you "
      "supplied the wrong credentials (e.g., bad password), or your "
      "browser does not understand how to supply the credentials "
      "required.\n\n ",
      "  " },
    { 403, "Forbidden", "Access was denied to this resource.\n\n ", "  " },
    { 404, "Not Found", "The resource could not be found.\n\n ", "  " },
    { 405, "Method Not Allowed",
      "The method ${REQUEST_METHOD} is not "
      "allowed for this resource. \n\n ",
      "" },
    { 406, "Not Acceptable",
      "The resource could not be generated that was "
      "acceptable to your browser (content of type ${HTTP_ACCEPT}. \n\n ",
      "" },
    { 409, "Conflict",
      "There was a conflict when trying to complete your "
      "request.\n\n ",
      "  " },
    { 413, "Request Entity Too Large",
      "The body of your request was too "
      "large for this server.\n\n ",
      "  " },
    { 415, "Unsupported Media Type",
      "The request media type "
      "${CONTENT_TYPE} is not supported by this server. \n\n ",
      "" },
    { 500, "Internal Server Error",
      "The server has either erred or is "
      "incapable of performing the requested operation.\n\n ",
      "  " },
    { 501, "Not Implemented",
      " The request method ${REQUEST_METHOD} is "
      "not implemented for this server. \n\n ",
      "" },
    { 0, NULL, NULL, NULL }
};

static const status_text_t *status_text(int status)
{
    const status_text_t *st;

    for (st = status_texts; st->status; st++) {
        if (st->status == status) {
            return st;
        }
    }
    return &status_texts[0];
}

/* Fill webob's ${...} placeholders of an explanation. */
static const char *fill_head(pl_req_t *req, const char *head)
{
    const char *accept = apr_table_get(req->r->headers_in, "Accept");
    const char *ctype = apr_table_get(req->r->headers_in, "Content-Type");
    const char *vars[][2] = {
        { "${REQUEST_METHOD}", req->r->method },
        /* what placement's RequestLog left in the environ: no Accept, an
         * empty one or the any range alone became application/json */
        { "${HTTP_ACCEPT}", accept && *accept && strcmp(accept, "*/*") != 0
                                ? accept
                                : "application/json" },
        { "${CONTENT_TYPE}", ctype ? ctype : "" },
    };
    const char *at;
    unsigned i;

    for (i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
        if ((at = strstr(head, vars[i][0])) != NULL) {
            head = apr_pstrcat(req->pool,
                               apr_pstrmemdup(req->pool, head, at - head),
                               vars[i][1], at + strlen(vars[i][0]), NULL);
        }
    }
    return head;
}

/* body (from req->pool) as the whole answer. Passed as a pool bucket:
 * the network layer reads it where it is instead of copying it, which for
 * an answer of hundreds of kilobytes saves a copy and the memory map it
 * would go to. */
static void send_text(pl_req_t *req, const char *body, apr_size_t len,
                      const char *ctype)
{
    request_rec *r = req->r;
    apr_bucket_brigade *bb;

    ap_set_content_type(r, ctype);
    ap_set_content_length(r, (apr_off_t)len);
    if (r->header_only || len == 0) {
        return;
    }
    bb = apr_brigade_create(req->pool, r->connection->bucket_alloc);
    APR_BRIGADE_INSERT_TAIL(
        bb, apr_bucket_pool_create(body, len, req->pool, bb->bucket_alloc));
    ap_pass_brigade(r->output_filters, bb);
}

static void send_body(pl_req_t *req, const char *body, const char *ctype)
{
    send_text(req, body, strlen(body), ctype);
}

/* JSON as Python's json.dumps writes it: ", " between items and ": "
 * after keys, strings ASCII-only (pl_py_json_str), so bodies are byte for
 * byte upstream's. Other scalars are json-c's own text (floats keep the
 * text they were made with). */
static void write_json(apr_pool_t *p, struct printbuf *pb, json_object *o)
{
    const char *sep = "";
    size_t i, n;

    switch (json_object_get_type(o)) {
    case json_type_object:
        printbuf_strappend(pb, "{");
        json_object_object_foreach(o, key, val)
        {
            json_object *k = json_object_new_string(key);

            printbuf_memappend(pb, sep, (int)strlen(sep));
            write_json(p, pb, k);
            json_object_put(k);
            printbuf_strappend(pb, ": ");
            write_json(p, pb, val);
            sep = ", ";
        }
        printbuf_strappend(pb, "}");
        break;
    case json_type_array:
        printbuf_strappend(pb, "[");
        n = json_object_array_length(o);
        for (i = 0; i < n; i++) {
            printbuf_memappend(pb, sep, (int)strlen(sep));
            write_json(p, pb, json_object_array_get_idx(o, i));
            sep = ", ";
        }
        printbuf_strappend(pb, "]");
        break;
    case json_type_string: {
        apr_size_t len;
        const char *text = pl_py_json_str(
            p, json_object_get_string(o),
            (apr_size_t)json_object_get_string_len(o), &len);

        printbuf_memappend(pb, text, (int)len);
        break;
    }
    default: {
        const char *text = json_object_to_json_string_ext(
            o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);

        printbuf_memappend(pb, text, (int)strlen(text));
        break;
    }
    }
}

static void send_json(pl_req_t *req, json_object *obj)
{
    struct printbuf *pb = printbuf_new();

    write_json(req->pool, pb, obj);
    send_body(req, apr_pstrmemdup(req->pool, pb->buf, pb->bpos),
              "application/json");
    printbuf_free(pb);
}

/* The q a media range list gives to one offer: the most specific
 * matching range wins (type/subtype over type/ over the any range). */
static double accept_q(apr_pool_t *p, const char *accept, const char *offer)
{
    char *list = apr_pstrdup(p, accept), *item, *state;
    const char *slash = strchr(offer, '/');
    double best_q = 0;
    int best_rank = -1;

    for (item = apr_strtok(list, ",", &state); item;
         item = apr_strtok(NULL, ",", &state)) {
        char *params = strchr(item, ';');
        double q = 1.0;
        int rank = -1;

        if (params) {
            const char *qp = strstr(params, "q=");

            *params = '\0';
            if (qp) {
                q = atof(qp + 2);
            }
        }
        apr_collapse_spaces(item, item);
        ap_str_tolower(item);
        if (!strcmp(item, offer)) {
            rank = 2;
        }
        else if (!strcmp(item, "*/*")) {
            rank = 0;
        }
        else if (!strncmp(item, offer, slash - offer + 1) &&
                 !strcmp(item + (slash - offer) + 1, "*")) {
            rank = 1;
        }
        if (rank > best_rank) {
            best_rank = rank;
            best_q = q;
        }
    }
    return best_q;
}

/* Does the Accept header admit application/json (webob's
 * acceptable_offers, as util.check_accept uses it)? */
static int accepts_json(pl_req_t *req)
{
    const char *accept = apr_table_get(req->r->headers_in, "Accept");

    return accept == NULL || *accept == '\0' ||
           accept_q(req->pool, accept, "application/json") > 0;
}

/* webob renders an error as HTML, JSON or plain text, whichever the
 * Accept header prefers (HTML on a tie); no Accept, or the any range
 * alone, means JSON (placement's RequestLog sets it so). */
static const char *error_media_type(pl_req_t *req)
{
    const char *accept = apr_table_get(req->r->headers_in, "Accept");
    double html, json;

    if (accept == NULL || *accept == '\0' || !strcmp(accept, "*/*")) {
        return "application/json";
    }
    html = accept_q(req->pool, accept, "text/html");
    json = accept_q(req->pool, accept, "application/json");
    if (html > 0 && html >= json) {
        return "text/html";
    }
    return json > 0 ? "application/json" : "text/plain";
}

/* The bytes of a client's text a log line shows at most: a detail may
 * echo a path of 8 kB or a body's value. */
#define LOG_DETAIL_MAX 200

/* text for a log line: whole up to LOG_DETAIL_MAX bytes, else its head
 * (cut between UTF-8 characters) and its length. */
static const char *log_cut(apr_pool_t *p, const char *text)
{
    apr_size_t len = strlen(text), cut = LOG_DETAIL_MAX;

    if (len <= LOG_DETAIL_MAX) {
        return text;
    }
    while (cut > 0 && ((unsigned char)text[cut] & 0xC0) == 0x80) {
        cut--;
    }
    return apr_psprintf(p, "%.*s... (%" APR_SIZE_T_FMT " bytes)", (int)cut,
                        text, len);
}

/* {"errors": [{status, title, detail, code (1.23+), request_id}]}, or
 * webob's text and HTML pages for clients that ask for those. */
static void send_error(pl_req_t *req, int status)
{
    const status_text_t *st = status_text(status);
    json_object *root = pl_json_own(req, json_object_new_object());
    json_object *errors = json_object_new_array();
    json_object *e = json_object_new_object();
    const char *detail = req->err_detail ? req->err_detail : "";
    const char *mtype, *text, *line;

    /* webob's strip_tags turns newlines of the detail into spaces */
    detail = apr_pstrdup(req->pool, detail);
    for (char *c = (char *)detail; *c; c++) {
        if (*c == '\n') {
            *c = ' ';
        }
    }
    json_object_object_add(e, "status", json_object_new_int(status));
    json_object_object_add(e, "title", json_object_new_string(st->title));
    json_object_object_add(
        e, "detail",
        json_object_new_string(apr_pstrcat(req->pool, fill_head(req, st->head),
                                           detail, st->tail, NULL)));
    if (req->mv_set && req->mv >= PL_MV(1, 23)) {
        json_object_object_add(e, "code",
                               json_object_new_string(req->err_code
                                                          ? req->err_code
                                                          : PL_ERRC_DEFAULT));
    }
    json_object_object_add(e, "request_id",
                           json_object_new_string(req->request_id));
    if (status == HTTP_NOT_ACCEPTABLE && !req->mv_set) {
        json_object_object_add(
            e, "max_version",
            json_object_new_string(pl_mv_str(req->pool, PL_MV_MAX)));
        json_object_object_add(
            e, "min_version",
            json_object_new_string(pl_mv_str(req->pool, PL_MV_MIN)));
    }
    json_object_array_add(errors, e);
    json_object_object_add(root, "errors", errors);
    /* 4xx are the client's business (debug: a client must not be able to
     * flood the log); a 5xx is ours, with the request id to find it */
    ap_log_rerror(APLOG_MARK, status >= 500 ? APLOG_ERR : APLOG_DEBUG, 0,
                  req->r, PL_LOGNO(00201) "%s: %d: %s", req->request_id, status,
                  log_cut(req->pool, detail));
    if (req->r->header_only) {
        /* webob answers HEAD with its exception's bare Response: no
         * body generated, so neither a length nor its media type */
        ap_set_content_type(req->r, "text/html; charset=UTF-8");
        return;
    }
    mtype = error_media_type(req);
    if (!strcmp(mtype, "application/json")) {
        send_json(req, root);
        return;
    }
    text = json_object_get_string(json_object_object_get(e, "detail"));
    line = apr_psprintf(req->pool, "%d %s", status, st->title);
    if (!strcmp(mtype, "text/plain")) {
        send_body(req, apr_pstrcat(req->pool, line, "\n\n", text, NULL),
                  "text/plain; charset=UTF-8");
        return;
    }
    send_body(req,
              apr_pstrcat(req->pool, "<html>\n <head>\n  <title>", line,
                          "</title>\n </head>\n <body>\n  <h1>", line,
                          "</h1>\n  ", ap_escape_html(req->pool, text),
                          "\n </body>\n</html>", NULL),
              "text/html; charset=UTF-8");
}

static int hexval(int c)
{
    return apr_isdigit(c) ? c - '0' : apr_tolower(c) - 'a' + 10;
}

/* application/x-www-form-urlencoded decoding, as webob's req.GET */
static const char *qs_decode(apr_pool_t *p, const char *s, apr_size_t len,
                             apr_size_t *pdecoded_len)
{
    char *out = apr_palloc(p, len + 1), *o = out;
    apr_size_t i;

    for (i = 0; i < len; i++) {
        if (s[i] == '+') {
            *o++ = ' ';
        }
        else if (s[i] == '%' && i + 2 < len && apr_isxdigit(s[i + 1]) &&
                 apr_isxdigit(s[i + 2])) {
            *o++ = (char)(hexval(s[i + 1]) * 16 + hexval(s[i + 2]));
            i += 2;
        }
        else {
            *o++ = s[i];
        }
    }
    *o = '\0';
    *pdecoded_len = (apr_size_t)(o - out); /* %00 may hide in it */
    return out;
}

static apr_array_header_t *parse_args(apr_pool_t *p, const char *qs)
{
    apr_array_header_t *args = apr_array_make(p, 8, sizeof(pl_arg_t));

    while (qs && *qs) {
        const char *amp = strchr(qs, '&');
        apr_size_t len = amp ? (apr_size_t)(amp - qs) : strlen(qs);
        const char *eq = memchr(qs, '=', len);

        if (len > 0) {
            pl_arg_t *a = apr_array_push(args);

            if (eq) {
                a->key = qs_decode(p, qs, eq - qs, &a->key_len);
                a->value = qs_decode(p, eq + 1, len - (eq - qs) - 1,
                                     &a->value_len);
            }
            else {
                a->key = qs_decode(p, qs, len, &a->key_len);
                a->value = "";
                a->value_len = 0;
            }
        }
        qs = amp ? amp + 1 : NULL;
    }
    return args;
}

/* All OpenStack-API-Version values joined, as one header. */
static const char *version_header(request_rec *r)
{
    const char *all = NULL;
    const apr_array_header_t *arr = apr_table_elts(r->headers_in);
    const apr_table_entry_t *e = (const apr_table_entry_t *)arr->elts;
    int i;

    for (i = 0; i < arr->nelts; i++) {
        if (e[i].key && !strcasecmp(e[i].key, "OpenStack-API-Version")) {
            all = all ? apr_pstrcat(r->pool, all, ", ", e[i].val, NULL)
                      : e[i].val;
        }
    }
    return all;
}

static const char *mount_prefix(request_rec *r, const pl_dir_conf_t *conf)
{
    const char *dir = conf->dir;
    apr_size_t len;

    if (dir == NULL) {
        return "";
    }
    len = strlen(dir);
    while (len > 0 && dir[len - 1] == '/') {
        len--;
    }
    /* <Location> may not be a literal prefix (regex): fall back to "" */
    if (strncmp(r->uri, dir, len) != 0) {
        return "";
    }
    return apr_pstrmemdup(r->pool, dir, len);
}

static int args_are_clean(const pl_req_t *req)
{
    int i;

    for (i = 0; i < req->args->nelts; i++) {
        const pl_arg_t *a = &APR_ARRAY_IDX(req->args, i, pl_arg_t);

        if (!pl_str_is_clean_utf8(a->key, a->key_len) ||
            !pl_str_is_clean_utf8(a->value, a->value_len)) {
            return 0;
        }
    }
    return 1;
}

static int route_and_run(pl_req_t *req)
{
    request_rec *r = req->r;
    const char *clen = apr_table_get(r->headers_in, "Content-Length");
    const pl_route_t *route = NULL;
    const char *allow = NULL;
    const char *err = NULL;
    int status;

    apr_status_t rv = pl_mv_parse(req->pool, version_header(r), &req->mv, &err);

    if (rv != APR_SUCCESS) {
        return pl_err(req,
                      rv == PL_ENOTACCEPTABLE ? HTTP_NOT_ACCEPTABLE
                                              : HTTP_BAD_REQUEST,
                      NULL, "%s", err ? err : "Invalid microversion");
    }
    req->mv_set = 1;
    const char *ctype = apr_table_get(r->headers_in, "Content-Type");

    /* Names are UTF-8 text without NUL: a path that is not cannot name
     * anything, a query that is not cannot be read (and must not reach
     * the database, which would refuse it with a 500). */
    if (!pl_str_is_clean_utf8(req->path, strlen(req->path))) {
        return pl_err_escaped(req, pl_err(req, HTTP_NOT_FOUND, NULL, "%s", ""));
    }
    if (!args_are_clean(req)) {
        return pl_err(req, HTTP_BAD_REQUEST, NULL,
                      "Invalid query string: "
                      "parameters must be UTF-8 text without NUL");
    }

    if (clen && apr_atoi64(clen) > 0 && (ctype == NULL || *ctype == '\0')) {
        return pl_err_escaped(req, pl_err(req, HTTP_BAD_REQUEST, NULL,
                                          "content-type header required when "
                                          "content-length > 0"));
    }
    status = pl_router_match(req, r->method, &route, &allow);
    if (status == HTTP_METHOD_NOT_ALLOWED) {
        apr_table_setn(r->err_headers_out, "Allow", allow);
        return pl_err(req, status, NULL,
                      "The method specified is not allowed for this "
                      "resource.");
    }
    if (status != 0) { /* no route: raised by dispatch */
        return pl_err_escaped(req, pl_err(req, HTTP_NOT_FOUND, NULL, "%s", ""));
    }
    if (req->mv < route->since) { /* raised by version_handler */
        return pl_err(req, HTTP_NOT_FOUND, NULL, "%s", "");
    }
    if (!strcmp(r->method, "GET") && !(route->flags & PL_ROUTE_ANY_ACCEPT) &&
        !accepts_json(req)) {
        return pl_err(req, HTTP_NOT_ACCEPTABLE, NULL,
                      "Only application/json is provided");
    }
    req->route = route;
    req->body_max = pl_config_max_body(req->conf, route->max_body);
    /* upstream's require_content, then context.can(rule), each before
     * its handler reads anything */
    if ((route->flags & PL_ROUTE_JSON) && (status = pl_require_json(req))) {
        return status;
    }
    if (route->rule && (status = pl_authorize(req, route->rule, NULL))) {
        return status;
    }
    return route->handler(req);
}

/* What mod_log_config may show of a request (%{pl-...}n in a LogFormat,
 * docs/operations.md): upstream's request log line has the microversion,
 * its context the request ids, user and project. */
static void set_log_notes(pl_req_t *req)
{
    apr_table_t *n = req->r->notes;

    if (req->mv_set) {
        apr_table_setn(n, "pl-microversion", pl_mv_str(req->r->pool, req->mv));
    }
    if (req->user_id) {
        apr_table_setn(n, "pl-user-id",
                       apr_pstrdup(req->r->pool, req->user_id));
    }
    if (req->project_id) {
        apr_table_setn(n, "pl-project-id",
                       apr_pstrdup(req->r->pool, req->project_id));
    }
    if (req->route) {
        apr_table_setn(n, "pl-route",
                       apr_pstrcat(req->r->pool, req->route->method, " ",
                                   req->route->path, NULL));
    }
}

static void add_answer_headers(pl_req_t *req, int status)
{
    request_rec *r = req->r;
    apr_table_t *h = status >= 400 ? r->err_headers_out : r->headers_out;

    /* Upstream's 5xx come from its FaultWrapper, outside the
     * microversion middleware: no version header, no Vary. */
    if (req->mv_set && status < 500) {
        apr_table_setn(h, "openstack-api-version",
                       apr_pstrcat(req->pool, "placement ",
                                   pl_mv_str(req->pool, req->mv), NULL));
        if (!req->err_escaped) {
            apr_table_mergen(h, "vary", "openstack-api-version");
        }
    }
    if (status < 400 && req->location) {
        const char *host = apr_table_get(r->headers_in, "Host");

        apr_table_setn(h, "Location",
                       apr_pstrcat(req->pool, ap_http_scheme(r), "://",
                                   host ? host : r->server->server_hostname,
                                   pl_link(req, req->location), NULL));
    }
    if (status < 300 && req->last_modified && req->mv >= PL_MV(1, 15)) {
        char *date = apr_palloc(req->pool, APR_RFC822_DATE_LEN);

        apr_rfc822_date(date, req->last_modified);
        apr_table_setn(h, "last-modified", date);
        apr_table_setn(h, "cache-control", "no-cache");
    }
}

int pl_handler(request_rec *r)
{
    pl_req_t *req;
    const char *grid;
    int status;

    if (r->handler == NULL || strcmp(r->handler, "placement") != 0) {
        return DECLINED;
    }
    req = apr_pcalloc(r->pool, sizeof(*req));
    req->r = r;
    req->conf = ap_get_module_config(r->per_dir_config, &placement_module);
    req->prefix = mount_prefix(r, req->conf);
    req->path = r->uri + strlen(req->prefix);
    /* the one kind of request that may need tens of MB, and keeps them
     * for the next one (pl_memory.c) */
    req->pool = pl_memory_request_pool(
        r, r->method_number == M_GET &&
               strcmp(req->path, "/allocation_candidates") == 0);
    req->mv = -1;
    req->args = parse_args(r->pool, r->args);
    req->request_id = pl_uuid_request_id(r->pool);
    pl_req_log_init(req);
    apr_table_setn(r->err_headers_out, "x-openstack-request-id",
                   req->request_id);
    apr_table_setn(r->notes, "pl-request-id", req->request_id);
    grid = apr_table_get(r->headers_in, "X-Openstack-Request-Id");
    if (grid && !strncmp(grid, "req-", 4) && pl_uuid_is_like(grid + 4)) {
        req->global_request_id = grid;
        apr_table_setn(r->notes, "pl-global-request-id", grid);
    }
    /* CORS sits outside authentication, as in upstream's pipeline */
    if (pl_cors_start(r, req->conf)) {
        pl_metrics_request(-1, r->status, apr_time_now() - r->request_time);
        return OK;
    }

    /* Authentication comes before everything that reads the request;
     * its refusals are not placement's errors (they come from the auth
     * middleware upstream) and are sent as they are. */
    status = pl_auth_identify(req);
    if (status != 0) {
        r->status = status;
        pl_metrics_request(-1, status, apr_time_now() - r->request_time);
        send_text(req, req->body_text, req->body_len, "application/json");
        return OK;
    }

    status = route_and_run(req);
    if (r->eos_sent) {
        /* httpd has answered already: its own 413 for a chunked body
         * over LimitRequestBody; nothing more may be sent */
        pl_metrics_request(pl_router_index(req->route), r->status,
                           apr_time_now() - r->request_time);
        return OK;
    }
    set_log_notes(req);
    add_answer_headers(req, status);
    r->status = status;
    /* counted before the answer leaves: a client that has its answer
     * finds it in the metrics */
    pl_metrics_request(pl_router_index(req->route), status,
                       apr_time_now() - r->request_time);
    if (status >= 400) {
        send_error(req, status);
    }
    else if (req->body) {
        send_json(req, req->body);
    }
    else if (req->body_text) {
        send_text(req, req->body_text, req->body_len, "application/json");
    }
    else if (req->body_writer) {
        ap_set_content_type(r, "application/json");
        if (!r->header_only) {
            req->body_writer(req, req->body_writer_baton);
        }
    }
    else if (status != HTTP_NO_CONTENT) {
        /* 201 + Location and no body: upstream sends no content type */
        ap_set_content_length(r, 0);
    }
    return OK;
}
