/* Licensed under the Apache License, Version 2.0.
 *
 * pl_auth.c: who is calling. noauth2 reads the identity from the token
 * text and headers, as upstream's NoAuthMiddleware and oslo.context do;
 * keystone validates the token with Keystone (pl_keystone.c), through
 * the shared token cache (pl_token_cache.c), after removing every
 * identity header a client could forge, as keystonemiddleware's
 * auth_token does. The root (version discovery) is always anonymous.
 * Validations with Keystone in flight are bounded per process, so that a
 * slow or frozen Keystone cannot take every thread: cached tokens and
 * the root keep theirs.
 */
#include <string.h>
#include <apr_atomic.h>
#include <apr_strings.h>
#include <ap_mpm.h>
#include <http_config.h>
#include <http_protocol.h>

#include "pl_private.h"
#include "pl_auth.h"
#include "pl_keystone.h"
#include "pl_token_cache.h"
#include "pl_metrics.h"

/* noauth2's 401 comes from webob outside placement's formatter. */
static const char noauth_401[] =
    "{\"message\": \"This server could not verify that you are authorized "
    "to access the document you requested. Either you supplied the wrong "
    "credentials (e.g., bad password), or your browser does not "
    "understand how to supply the credentials required.<br /><br />\\n\\n"
    "\\n\", \"code\": \"401 Unauthorized\", \"title\": \"Unauthorized\"}";

/* keystonemiddleware's own rejection body. */
static const char keystone_401[] =
    "{\"error\": {\"code\": 401, \"title\": \"Unauthorized\", \"message\": "
    "\"The request you have made requires authentication.\"}}";

/* webob's HTTPServiceUnavailable as auth_token raises it. */
static const char keystone_503[] =
    "{\"message\": \"The server is currently unavailable. Please try again "
    "at a later time.<br /><br />\\nThe Keystone service is temporarily "
    "unavailable.\\n\\n\", \"code\": \"503 Service Unavailable\", "
    "\"title\": \"Service Unavailable\"}";

/* The headers auth_token sets after validation, with the X-Service-
 * variants and the deprecated names; a client must not be able to send
 * them (keystonemiddleware's remove_auth_headers, plus the system scope
 * header that oslo.context reads). */
static const char *const identity_headers[] = { "X-Identity-Status",
                                                "X-Service-Identity-Status",
                                                "X-Service-Catalog",
                                                "X-Is-Admin-Project",
                                                "OpenStack-System-Scope",
                                                "X-Domain-Id",
                                                "X-Domain-Name",
                                                "X-Project-Id",
                                                "X-Project-Name",
                                                "X-Project-Domain-Id",
                                                "X-Project-Domain-Name",
                                                "X-User-Id",
                                                "X-User-Name",
                                                "X-User-Domain-Id",
                                                "X-User-Domain-Name",
                                                "X-Roles",
                                                "X-Service-Domain-Id",
                                                "X-Service-Domain-Name",
                                                "X-Service-Project-Id",
                                                "X-Service-Project-Name",
                                                "X-Service-Project-Domain-Id",
                                                "X-Service-Project-Domain-Name",
                                                "X-Service-User-Id",
                                                "X-Service-User-Name",
                                                "X-Service-User-Domain-Id",
                                                "X-Service-User-Domain-Name",
                                                "X-Service-Roles",
                                                "X-Role",
                                                "X-User",
                                                "X-Tenant-Id",
                                                "X-Tenant-Name",
                                                "X-Tenant",
                                                NULL };

static int answer(pl_req_t *req, int status, const char *body)
{
    req->body_text = body;
    req->body_len = strlen(body);
    return status;
}

/* Is c whitespace for Python's str.strip() of a header value? WSGI
 * decodes headers as latin-1, so each byte is one character: ASCII
 * whitespace, the separators 0x1c-0x1f, NEL (0x85) and NBSP (0xa0). */
static int py_latin1_space(unsigned char c)
{
    return c == ' ' || (c >= '\t' && c <= '\r') || (c >= 0x1c && c <= 0x1f) ||
           c == 0x85 || c == 0xa0;
}

/* s[0..len) without the whitespace around it, as str.strip() */
static const char *py_strip(apr_pool_t *p, const char *s, apr_size_t len)
{
    while (len && py_latin1_space((unsigned char)*s)) {
        s++, len--;
    }
    while (len && py_latin1_space((unsigned char)s[len - 1])) {
        len--;
    }
    return apr_pstrmemdup(p, s, len);
}

/* upstream's NoAuthMiddleware, then oslo.context's from_environ():
 * - roles: X-Roles split on ',' (every piece kept, empty ones too), each
 *   stripped of surrounding whitespace only ("ad min" is not "admin");
 *   an empty X-Roles is no role at all; without X-Roles, user "admin" is
 *   admin;
 * - system_scope: OpenStack-System-Scope as sent ("ALL" is not "all");
 *   when it is non-empty the token's project is not used;
 * - project_id: X-Project-Id when present, even empty; else the token's
 *   project (not system-scoped), else X-Tenant-Id, else X-Tenant. */
static void noauth2_identity(pl_req_t *req, const char *token)
{
    apr_table_t *h = req->r->headers_in;
    const char *colon = strchr(token, ':');
    const char *roles = apr_table_get(h, "X-Roles");
    const char *scope = apr_table_get(h, "OpenStack-System-Scope");
    const char *project_hdr = apr_table_get(h, "X-Project-Id");

    req->user_id = colon ? apr_pstrmemdup(req->pool, token, colon - token)
                         : token;
    req->project_id = colon && colon[1] ? colon + 1 : req->user_id;
    req->roles = apr_array_make(req->pool, 2, sizeof(const char *));
    if (roles) {
        const char *piece = roles, *comma;

        while (*roles) {
            comma = strchr(piece, ',');
            APR_ARRAY_PUSH(req->roles, const char *) = py_strip(
                req->pool, piece,
                comma ? (apr_size_t)(comma - piece) : strlen(piece));
            if (comma == NULL) {
                break;
            }
            piece = comma + 1;
        }
    }
    else if (!strcmp(req->user_id, "admin")) {
        APR_ARRAY_PUSH(req->roles, const char *) = "admin";
    }
    req->system_scope = scope;
    req->system_scope_all = scope && !strcmp(scope, "all");
    if (scope && *scope) {
        req->project_id = apr_table_get(h, "X-Tenant-Id");
        if (req->project_id == NULL) {
            req->project_id = apr_table_get(h, "X-Tenant");
        }
    }
    if (project_hdr) {
        req->project_id = project_hdr;
    }
}

/* The Keystone coordinates of this <Location>. */
static pl_ks_endpoint_t *endpoint_of(pl_req_t *req)
{
    const pl_dir_conf_t *c = req->conf;
    pl_ks_endpoint_t *ep = apr_pcalloc(req->pool, sizeof(*ep));

    ep->auth_url = c->ks_v3_url;
    ep->username = c->ks_username;
    ep->password = c->ks_password;
    ep->project_name = c->ks_project_name;
    ep->user_domain_name = c->ks_user_domain_name;
    ep->project_domain_name = c->ks_project_domain_name;
    ep->app_cred_id = c->ks_app_cred_id;
    ep->app_cred_name = c->ks_app_cred_name;
    ep->app_cred_secret = c->ks_app_cred_secret;
    ep->cafile = c->ks_cafile;
    ep->insecure = pl_config_ks_insecure(c);
    ep->timeout = pl_config_ks_timeout(c);
    return ep;
}

/* The validations this process has in flight. */
static apr_uint32_t validations_in_flight;
static apr_uint32_t busy_logged_at; /* second of the last PL01004 line */

/* The bound of this process: the directive, else half of its threads,
 * so that the other half stays free while Keystone is slow. */
static apr_uint32_t validation_bound(void)
{
    int threads = 0, max = pl_config_keystone_max_validations();

    if (max > 0) {
        return (apr_uint32_t)max;
    }
    if (ap_mpm_query(AP_MPMQ_MAX_THREADS, &threads) != APR_SUCCESS ||
        threads < 2) {
        return 1;
    }
    return (apr_uint32_t)threads / 2;
}

/* Take a place among the validations in flight; 0 when all are taken. */
static int validation_begin(void)
{
    if (apr_atomic_inc32(&validations_in_flight) >= validation_bound()) {
        apr_atomic_dec32(&validations_in_flight);
        return 0;
    }
    return 1;
}

static void validation_end(void)
{
    apr_atomic_dec32(&validations_in_flight);
}

/* Once a second at most: every unknown token of a flood would log it. */
static void log_busy(pl_req_t *req)
{
    apr_uint32_t now = (apr_uint32_t)apr_time_sec(apr_time_now());

    if (apr_atomic_xchg32(&busy_logged_at, now) == now) {
        return;
    }
    ap_log_rerror(APLOG_MARK, APLOG_WARNING, 0, req->r,
                  PL_LOGNO(01004) "%u token validations already wait for "
                                  "Keystone in this process "
                                  "(PlacementKeystoneMaxValidations): 503 "
                                  "without asking Keystone (logged at most "
                                  "once a second)",
                  validation_bound());
}

/* Ask Keystone about token (once more with a fresh service token if
 * Keystone refused ours). */
static apr_status_t ask_keystone(pl_req_t *req, const pl_ks_endpoint_t *ep,
                                 const char *token, pl_ks_identity_t *id,
                                 const char **perr)
{
    const char *svc = NULL;
    apr_status_t rv = APR_SUCCESS;
    int tries;

    for (tries = 0; tries < 2; tries++) {
        rv = pl_ks_service_token(req->pool, ep, tries > 0, &svc, perr);
        if (rv == APR_SUCCESS) {
            rv = pl_ks_validate(req->pool, ep, svc, token, id, perr);
        }
        if (rv != PL_KS_EAUTH) {
            break;
        }
    }
    return rv;
}

/* The cached identity of token, if there is one still good. */
static int from_cache(pl_req_t *req, const char *text, pl_ks_identity_t *id)
{
    return text && pl_ks_identity_decode(req->pool, text, id) == APR_SUCCESS &&
           (!id->valid || id->expires > apr_time_now());
}

static apr_status_t ask_and_cache(pl_req_t *req, const pl_ks_endpoint_t *ep,
                                  const char *token, pl_ks_identity_t *id,
                                  const char **ptext);

/* Validate token: from the cache, else from the validation of the same
 * token another thread of this child has in flight, else with Keystone
 * (when a place among the validations in flight is free), then cached. */
static apr_status_t validate(pl_req_t *req, const pl_ks_endpoint_t *ep,
                             const char *token, pl_ks_identity_t *id)
{
    const char *text = pl_token_cache_get(req->r, token);
    pl_token_flight_t *flight;
    apr_status_t rv;

    if (from_cache(req, text, id)) {
        pl_metrics_add(PL_METRIC_TOKEN_CACHE_HITS, 1);
        return APR_SUCCESS;
    }
    if (!pl_token_flight_join(req->r, token, &flight, &text, &rv)) {
        /* another thread asked Keystone: its outcome (logged there) */
        if (rv == APR_SUCCESS &&
            pl_ks_identity_decode(req->pool, text, id) == APR_SUCCESS) {
            pl_metrics_add(PL_METRIC_TOKEN_CACHE_HITS, 1);
            return APR_SUCCESS;
        }
        pl_metrics_add(PL_METRIC_KEYSTONE_FAILURES, 1);
        return rv == APR_SUCCESS ? PL_KS_EUNAVAILABLE : rv;
    }
    /* the cache again: a flight for this token may have just ended */
    text = pl_token_cache_get(req->r, token);
    if (from_cache(req, text, id)) {
        pl_metrics_add(PL_METRIC_TOKEN_CACHE_HITS, 1);
        pl_token_flight_done(flight, APR_SUCCESS, text);
        return APR_SUCCESS;
    }
    rv = ask_and_cache(req, ep, token, id, &text);
    pl_token_flight_done(flight, rv, text);
    return rv;
}

/* Ask Keystone about token and cache the answer; *ptext is the identity
 * as cached (NULL on failure). */
static apr_status_t ask_and_cache(pl_req_t *req, const pl_ks_endpoint_t *ep,
                                  const char *token, pl_ks_identity_t *id,
                                  const char **ptext)
{
    const char *err = NULL;
    apr_time_t now = apr_time_now(), until;
    apr_status_t rv;

    *ptext = NULL;
    if (!validation_begin()) {
        pl_metrics_add(PL_METRIC_KEYSTONE_FAILURES, 1);
        log_busy(req);
        return PL_KS_EUNAVAILABLE;
    }
    pl_metrics_add(PL_METRIC_TOKEN_VALIDATIONS, 1);
    rv = ask_keystone(req, ep, token, id, &err);
    validation_end();
    if (rv != APR_SUCCESS) {
        pl_metrics_add(PL_METRIC_KEYSTONE_FAILURES, 1);
        ap_log_rerror(
            APLOG_MARK, APLOG_ERR, 0, req->r,
            PL_LOGNO(01001) "cannot validate a token with Keystone: %s", err);
        return rv;
    }
    /* never past the token's own expiry; refused tokens are kept too,
     * so a flood of bad tokens does not become a flood on Keystone */
    until = now + apr_time_from_sec(pl_config_ks_token_cache_time(req->conf));
    if (id->valid && id->expires < until) {
        until = id->expires;
    }
    *ptext = pl_ks_identity_encode(req->pool, id);
    if (until > now) {
        pl_token_cache_put(req->r, token, *ptext, until);
    }
    return APR_SUCCESS;
}

/* keystonemiddleware's service_token_roles check: whether the service
 * token has one of the roles. Without PlacementKeystoneServiceTokenRoles-
 * Required a token without them still passes (auth_token's "backwards
 * compatible" behaviour), with a warning once per child. */
static apr_uint32_t roles_warned;

static int service_roles_ok(pl_req_t *req, const pl_ks_identity_t *sid)
{
    const apr_array_header_t *want = pl_config_ks_service_token_roles(
        req->conf);
    int i, j;

    for (i = 0; sid->roles && i < sid->roles->nelts; i++) {
        for (j = 0; j < want->nelts; j++) {
            if (!strcmp(APR_ARRAY_IDX(sid->roles, i, const char *),
                        APR_ARRAY_IDX(want, j, const char *))) {
                return 1;
            }
        }
    }
    if (pl_config_ks_service_token_roles_required(req->conf)) {
        ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, req->r,
                      PL_LOGNO(01005) "service token of user %s refused: it "
                                      "has none of the roles of "
                                      "PlacementKeystoneServiceTokenRoles",
                      sid->user_id ? sid->user_id : "-");
        return 0;
    }
    if (apr_atomic_cas32(&roles_warned, 1, 0) == 0) {
        ap_log_rerror(APLOG_MARK, APLOG_WARNING, 0, req->r,
                      PL_LOGNO(01006) "a valid token was sent as a service "
                                      "token without any role of "
                                      "PlacementKeystoneServiceTokenRoles; "
                                      "accepted, as "
                                      "PlacementKeystoneServiceTokenRoles"
                                      "Required is Off (logged once per "
                                      "process)");
    }
    return 1;
}

static int keystone_refuse(pl_req_t *req)
{
    const char *uri = pl_config_ks_www_authenticate_uri(req->conf);

    apr_table_setn(
        req->r->err_headers_out, "WWW-Authenticate",
        apr_psprintf(req->pool, "Keystone uri=\"%s\"", uri ? uri : ""));
    return answer(req, HTTP_UNAUTHORIZED, keystone_401);
}

static int keystone_identity(pl_req_t *req, const char *token)
{
    const char *service = apr_table_get(req->r->headers_in, "X-Service-Token");
    const pl_ks_endpoint_t *ep = endpoint_of(req);
    pl_ks_identity_t id, sid;

    if (token == NULL) {
        return keystone_refuse(req);
    }
    if (ep->auth_url == NULL) {
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, req->r,
                      PL_LOGNO(01003) "PlacementAuthStrategy keystone needs "
                                      "PlacementKeystoneAuthURL");
        return answer(req, HTTP_SERVICE_UNAVAILABLE, keystone_503);
    }
    if (ep->app_cred_secret &&
        !(ep->app_cred_id || (ep->app_cred_name && ep->username))) {
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, req->r,
                      PL_LOGNO(01007) "PlacementKeystoneApplicationCredential"
                                      "Secret needs ...ApplicationCredentialID,"
                                      " or ...ApplicationCredentialName with "
                                      "PlacementKeystoneUsername");
        return answer(req, HTTP_SERVICE_UNAVAILABLE, keystone_503);
    }
    if (validate(req, ep, token, &id) != APR_SUCCESS ||
        (service && validate(req, ep, service, &sid) != APR_SUCCESS)) {
        return answer(req, HTTP_SERVICE_UNAVAILABLE, keystone_503);
    }
    if (service && sid.valid && !service_roles_ok(req, &sid)) {
        sid.valid = 0; /* X-Service-Identity-Status: Invalid: a 401 */
    }
    if (!id.valid || (service && !sid.valid)) {
        ap_log_rerror(APLOG_MARK, APLOG_DEBUG, 0, req->r,
                      PL_LOGNO(01002) "%s token refused",
                      id.valid ? "service" : "user");
        return keystone_refuse(req);
    }
    req->user_id = id.user_id;
    req->project_id = id.project_id;
    req->domain_id = id.domain_id;
    req->system_scope_all = id.system_all;
    req->roles = id.roles;
    if (service) {
        req->service_user_id = sid.user_id;
        req->service_project_id = sid.project_id;
        req->service_roles = sid.roles;
    }
    return 0;
}

int pl_auth_identify(pl_req_t *req)
{
    const char *token;
    int keystone = pl_config_auth(req->conf) == PL_AUTH_KEYSTONE;
    const char *const *h;

    if (keystone) {
        for (h = identity_headers; *h; h++) {
            apr_table_unset(req->r->headers_in, *h);
        }
    }
    /* the root is version discovery: anonymous (placement/auth.py) */
    if (*req->path == '\0' || !strcmp(req->path, "/")) {
        return 0;
    }
    token = apr_table_get(req->r->headers_in, "X-Auth-Token");
    if (keystone) {
        return keystone_identity(req, token);
    }
    if (token == NULL) {
        return answer(req, HTTP_UNAUTHORIZED, noauth_401);
    }
    noauth2_identity(req, token);
    return 0;
}
