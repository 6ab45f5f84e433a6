/* Licensed under the Apache License, Version 2.0.
 *
 * pl_keystone.c: Keystone's v3 identity API as keystonemiddleware's
 * auth_token uses it: the module authenticates itself with a password
 * (POST /v3/auth/tokens) and keeps that token per process, renewing it
 * before it expires; it validates callers' tokens with
 * GET /v3/auth/tokens (X-Subject-Token) and reads the identity from the
 * answer. HTTP through libcurl, JSON through json-c; no httpd headers.
 */
#include <string.h>
#include <stdio.h>
#include <time.h>
#include <apr_strings.h>
#include <apr_hash.h>
#include <apr_thread_mutex.h>
#include <curl/curl.h>
#include <json-c/json.h>

#include "pl_keystone.h"

/* A Keystone answer is a token document of a few kilobytes (we ask for
 * no catalog); anything much larger is not what we asked for. */
#define KS_MAX_ANSWER ((apr_size_t)1024 * 1024)

/* Renew the service token this long before it expires at most (as
 * keystoneauth's minimum token life), or after three quarters of its
 * life when tokens live shorter. */
#define KS_RENEW_MARGIN apr_time_from_sec(120)

typedef struct {
    apr_pool_t *p;
    char *buf;
    apr_size_t len;
    int too_big;
    const char *subject_token; /* X-Subject-Token of the answer */
} answer_t;

static size_t on_body(char *data, size_t size, size_t n, void *ctx)
{
    answer_t *a = ctx;
    apr_size_t add = size * n;
    char *grown;

    if (a->len + add > KS_MAX_ANSWER) {
        a->too_big = 1;
        return 0;
    }
    grown = apr_palloc(a->p, a->len + add + 1);
    if (a->len) {
        memcpy(grown, a->buf, a->len);
    }
    memcpy(grown + a->len, data, add);
    a->len += add;
    grown[a->len] = '\0';
    a->buf = grown;
    return add;
}

static size_t on_header(char *data, size_t size, size_t n, void *ctx)
{
    static const char name[] = "x-subject-token:";
    answer_t *a = ctx;
    apr_size_t len = size * n;

    if (len > sizeof(name) - 1 && !strncasecmp(data, name, sizeof(name) - 1)) {
        const char *v = data + sizeof(name) - 1;
        const char *end = data + len;

        while (v < end && (*v == ' ' || *v == '\t')) {
            v++;
        }
        while (end > v &&
               (end[-1] == '\r' || end[-1] == '\n' || end[-1] == ' ')) {
            end--;
        }
        a->subject_token = apr_pstrmemdup(a->p, v, end - v);
    }
    return len;
}

/* One HTTP call to Keystone. headers is a NULL-terminated list of
 * "Name: value" lines; body (JSON) makes it a POST. */
static apr_status_t ks_call(apr_pool_t *p, const pl_ks_endpoint_t *ep,
                            const char *path, const char *const *headers,
                            const char *body, long *pstatus, answer_t *a,
                            const char **perr)
{
    CURL *curl = curl_easy_init();
    struct curl_slist *hl = NULL;
    char errbuf[CURL_ERROR_SIZE] = "";
    CURLcode cc;
    apr_status_t rv = APR_SUCCESS;

    memset(a, 0, sizeof(*a));
    a->p = p;
    if (curl == NULL) {
        *perr = "cannot create a libcurl handle";
        return PL_KS_EUNAVAILABLE;
    }
    hl = curl_slist_append(hl, "Accept: application/json");
    if (body) {
        hl = curl_slist_append(hl, "Content-Type: application/json");
    }
    for (; headers && *headers; headers++) {
        hl = curl_slist_append(hl, *headers);
    }
    curl_easy_setopt(curl, CURLOPT_URL,
                     apr_pstrcat(p, ep->auth_url, path, NULL));
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, hl);
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, a);
    curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(curl, CURLOPT_HEADERDATA, a);
    curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, errbuf);
    /* threads: no signals for timeouts; the whole call is bounded */
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl, CURLOPT_TIMEOUT, (long)ep->timeout);
    curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, (long)ep->timeout);
    curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 0L);
    if (ep->cafile) {
        curl_easy_setopt(curl, CURLOPT_CAINFO, ep->cafile);
    }
    if (ep->insecure) {
        curl_easy_setopt(curl, CURLOPT_SSL_VERIFYPEER, 0L);
        curl_easy_setopt(curl, CURLOPT_SSL_VERIFYHOST, 0L);
    }
    if (body) {
        curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body);
    }
    cc = curl_easy_perform(curl);
    if (cc != CURLE_OK) {
        *perr = apr_psprintf(p, "%s%s: %s", ep->auth_url, path,
                             a->too_big ? "answer too large"
                             : *errbuf  ? errbuf
                                        : curl_easy_strerror(cc));
        rv = PL_KS_EUNAVAILABLE;
    }
    else {
        curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, pstatus);
    }
    curl_slist_free_all(hl);
    curl_easy_cleanup(curl);
    return rv;
}

/* Keystone's ISO 8601 time ("2026-11-23T20:21:53.000000Z"); 0 if bad. */
static apr_time_t parse_time(const char *iso)
{
    struct tm tm = { 0 };
    int n = 0;

    if (iso == NULL ||
        sscanf(iso, "%4d-%2d-%2dT%2d:%2d:%2d%n", &tm.tm_year, &tm.tm_mon,
               &tm.tm_mday, &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &n) != 6) {
        return 0;
    }
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    /* Keystone writes UTC ("Z" or "+00:00"); fractions do not matter */
    return apr_time_from_sec(timegm(&tm));
}

static const char *str_at(json_object *o, const char *k1, const char *k2)
{
    json_object *v = NULL;

    if (!json_object_object_get_ex(o, k1, &v)) {
        return NULL;
    }
    if (k2 && !json_object_object_get_ex(v, k2, &v)) {
        return NULL;
    }
    return json_object_is_type(v, json_type_string) ? json_object_get_string(v)
                                                    : NULL;
}

static const char *dup_or_null(apr_pool_t *p, const char *s)
{
    return s ? apr_pstrdup(p, s) : NULL;
}

/* The identity of a token document: {"token": {...}} from Keystone. */
static apr_status_t identity_from_token(apr_pool_t *p, json_object *doc,
                                        pl_ks_identity_t *id)
{
    json_object *tok = NULL, *roles = NULL, *sys = NULL, *all = NULL;
    size_t i, n;

    memset(id, 0, sizeof(*id));
    if (!json_object_object_get_ex(doc, "token", &tok) ||
        !json_object_is_type(tok, json_type_object)) {
        return APR_EINVAL;
    }
    id->user_id = dup_or_null(p, str_at(tok, "user", "id"));
    id->project_id = dup_or_null(p, str_at(tok, "project", "id"));
    id->domain_id = dup_or_null(p, str_at(tok, "domain", "id"));
    if (json_object_object_get_ex(tok, "system", &sys) &&
        json_object_object_get_ex(sys, "all", &all)) {
        id->system_all = json_object_get_boolean(all);
    }
    id->expires = parse_time(str_at(tok, "expires_at", NULL));
    id->roles = apr_array_make(p, 4, sizeof(const char *));
    if (json_object_object_get_ex(tok, "roles", &roles) &&
        json_object_is_type(roles, json_type_array)) {
        n = json_object_array_length(roles);
        for (i = 0; i < n; i++) {
            const char *name = str_at(json_object_array_get_idx(roles, i),
                                      "name", NULL);

            if (name) {
                APR_ARRAY_PUSH(id->roles, const char *) = apr_pstrdup(p, name);
            }
        }
    }
    if (id->user_id == NULL || id->expires == 0) {
        return APR_EINVAL;
    }
    id->valid = 1;
    return APR_SUCCESS;
}

static json_object *parse_answer(const answer_t *a)
{
    return a->buf ? json_tokener_parse(a->buf) : NULL;
}

apr_status_t pl_ks_validate(apr_pool_t *p, const pl_ks_endpoint_t *ep,
                            const char *service_token, const char *subject,
                            pl_ks_identity_t *id, const char **perr)
{
    const char *headers[3];
    answer_t a;
    long status = 0;
    json_object *doc;
    apr_status_t rv;

    headers[0] = apr_pstrcat(p, "X-Auth-Token: ", service_token, NULL);
    headers[1] = apr_pstrcat(p, "X-Subject-Token: ", subject, NULL);
    headers[2] = NULL;
    memset(id, 0, sizeof(*id));
    rv = ks_call(p, ep, "/auth/tokens?nocatalog", headers, NULL, &status, &a,
                 perr);
    if (rv != APR_SUCCESS) {
        return rv;
    }
    if (status == 404) { /* unknown, expired or revoked */
        return APR_SUCCESS;
    }
    if (status == 401) {
        *perr = "Keystone refused the service token";
        return PL_KS_EAUTH;
    }
    if (status != 200) {
        *perr = apr_psprintf(p, "validating a token: Keystone answered %ld",
                             status);
        return PL_KS_EUNAVAILABLE;
    }
    doc = parse_answer(&a);
    rv = doc ? identity_from_token(p, doc, id) : APR_EINVAL;
    json_object_put(doc);
    if (rv != APR_SUCCESS) {
        *perr = "validating a token: Keystone's answer has no user or "
                "expiry";
        return PL_KS_EUNAVAILABLE;
    }
    return APR_SUCCESS;
}

/* The user of ep by name and domain */
static json_object *named_user(const pl_ks_endpoint_t *ep)
{
    json_object *user = json_object_new_object();
    json_object *udom = json_object_new_object();

    json_object_object_add(udom, "name",
                           json_object_new_string(ep->user_domain_name
                                                      ? ep->user_domain_name
                                                      : "Default"));
    json_object_object_add(
        user, "name", json_object_new_string(ep->username ? ep->username : ""));
    json_object_object_add(user, "domain", udom);
    return user;
}

/* The application credential authentication request of ep: no scope,
 * the credential has its own project. */
static const char *app_cred_auth_body(apr_pool_t *p, const pl_ks_endpoint_t *ep)
{
    json_object *root = json_object_new_object();
    json_object *auth = json_object_new_object();
    json_object *ident = json_object_new_object();
    json_object *methods = json_object_new_array();
    json_object *cred = json_object_new_object();
    const char *text;

    json_object_array_add(methods,
                          json_object_new_string("application_credential"));
    if (ep->app_cred_id) {
        json_object_object_add(cred, "id",
                               json_object_new_string(ep->app_cred_id));
    }
    else {
        json_object_object_add(cred, "name",
                               json_object_new_string(ep->app_cred_name));
        json_object_object_add(cred, "user", named_user(ep));
    }
    json_object_object_add(cred, "secret",
                           json_object_new_string(ep->app_cred_secret));
    json_object_object_add(ident, "methods", methods);
    json_object_object_add(ident, "application_credential", cred);
    json_object_object_add(auth, "identity", ident);
    json_object_object_add(root, "auth", auth);
    text = apr_pstrdup(
        p, json_object_to_json_string_ext(root, JSON_C_TO_STRING_PLAIN));
    json_object_put(root);
    return text;
}

/* The password authentication request of ep, scoped to its project. */
static const char *password_auth_body(apr_pool_t *p, const pl_ks_endpoint_t *ep)
{
    json_object *root = json_object_new_object();
    json_object *auth = json_object_new_object();
    json_object *ident = json_object_new_object();
    json_object *methods = json_object_new_array();
    json_object *pw = json_object_new_object();
    json_object *user = named_user(ep);
    json_object *scope = json_object_new_object();
    json_object *proj = json_object_new_object();
    json_object *pdom = json_object_new_object();
    const char *text;

    json_object_array_add(methods, json_object_new_string("password"));
    json_object_object_add(
        user, "password",
        json_object_new_string(ep->password ? ep->password : ""));
    json_object_object_add(pw, "user", user);
    json_object_object_add(ident, "methods", methods);
    json_object_object_add(ident, "password", pw);
    json_object_object_add(auth, "identity", ident);
    if (ep->project_name) {
        json_object_object_add(
            pdom, "name",
            json_object_new_string(
                ep->project_domain_name ? ep->project_domain_name : "Default"));
        json_object_object_add(proj, "name",
                               json_object_new_string(ep->project_name));
        json_object_object_add(proj, "domain", pdom);
        json_object_object_add(scope, "project", proj);
        json_object_object_add(auth, "scope", scope);
    }
    else {
        json_object_put(pdom);
        json_object_put(proj);
        json_object_put(scope);
    }
    json_object_object_add(root, "auth", auth);
    text = apr_pstrdup(
        p, json_object_to_json_string_ext(root, JSON_C_TO_STRING_PLAIN));
    json_object_put(root);
    return text;
}

/* POST /v3/auth/tokens: a new token for the service user. */
static apr_status_t issue_token(apr_pool_t *p, const pl_ks_endpoint_t *ep,
                                const char **ptoken, apr_time_t *pexpires,
                                const char **perr)
{
    const char *body = ep->app_cred_secret ? app_cred_auth_body(p, ep)
                                           : password_auth_body(p, ep);
    answer_t a;
    long status = 0;
    json_object *doc;
    apr_status_t rv;

    rv = ks_call(p, ep, "/auth/tokens?nocatalog", NULL, body, &status, &a,
                 perr);
    if (rv != APR_SUCCESS) {
        return rv;
    }
    if (status == 401 || status == 403 || status == 404) {
        *perr = ep->app_cred_secret
                    ? apr_psprintf(p,
                                   "Keystone refused application credential "
                                   "'%s' (%ld)",
                                   ep->app_cred_id ? ep->app_cred_id
                                                   : ep->app_cred_name,
                                   status)
                    : apr_psprintf(p,
                                   "Keystone refused the credentials of user "
                                   "'%s' (%ld)",
                                   ep->username ? ep->username : "", status);
        return PL_KS_EAUTH;
    }
    if (status != 201 || a.subject_token == NULL) {
        *perr = apr_psprintf(p, "authenticating: Keystone answered %ld",
                             status);
        return PL_KS_EUNAVAILABLE;
    }
    doc = parse_answer(&a);
    *pexpires = parse_time(doc ? str_at(doc, "token", "expires_at") : NULL);
    json_object_put(doc);
    if (*pexpires == 0) {
        *perr = "authenticating: Keystone's token has no expiry";
        return PL_KS_EUNAVAILABLE;
    }
    *ptoken = a.subject_token;
    return APR_SUCCESS;
}

/* The service tokens of this process, one per set of credentials, with
 * the outcome of the last attempt to get one. */
typedef struct {
    apr_pool_t *p; /* holds token; replaced on renewal */
    const char *token;
    apr_time_t renew_at;
    apr_time_t issued_at;   /* when token arrived */
    apr_time_t failed_at;   /* when the last failed attempt gave up */
    apr_status_t failed_rv; /* and why */
    char failure[256];
} service_token_t;

static apr_pool_t *tokens_pool;
static apr_hash_t *tokens;
static apr_thread_mutex_t *tokens_lock;

apr_status_t pl_ks_global_init(void)
{
    return curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK ? APR_SUCCESS
                                                             : APR_EGENERAL;
}

apr_status_t pl_ks_child_init(apr_pool_t *pchild)
{
    apr_status_t rv = apr_pool_create(&tokens_pool, pchild);

    if (rv != APR_SUCCESS) {
        return rv;
    }
    apr_pool_tag(tokens_pool, "pl_ks_service_tokens");
    tokens = apr_hash_make(tokens_pool);
    return apr_thread_mutex_create(&tokens_lock, APR_THREAD_MUTEX_DEFAULT,
                                   tokens_pool);
}

/* A new token for st, or the failure remembered in st. */
static apr_status_t renew_service_token(apr_pool_t *p,
                                        const pl_ks_endpoint_t *ep,
                                        service_token_t *st, const char **perr)
{
    apr_pool_t *np;
    const char *token;
    apr_time_t now = apr_time_now(), expires = 0, margin;
    apr_status_t rv;

    apr_pool_create(&np, tokens_pool);
    apr_pool_tag(np, "pl_ks_service_token");
    rv = issue_token(np, ep, &token, &expires, perr);
    if (rv != APR_SUCCESS) {
        /* the error text lives in np: copy it out first */
        *perr = apr_pstrdup(p, *perr);
        apr_cpystrn(st->failure, *perr, sizeof(st->failure));
        st->failed_rv = rv;
        st->failed_at = apr_time_now();
        apr_pool_destroy(np);
        return rv;
    }
    margin = (expires - now) / 4;
    if (margin > KS_RENEW_MARGIN) {
        margin = KS_RENEW_MARGIN;
    }
    if (st->p) {
        apr_pool_destroy(st->p);
    }
    st->p = np;
    st->token = token;
    st->renew_at = expires - margin;
    st->issued_at = apr_time_now();
    return APR_SUCCESS;
}

static const char *or_empty(const char *s)
{
    return s ? s : "";
}

apr_status_t pl_ks_service_token(apr_pool_t *p, const pl_ks_endpoint_t *ep,
                                 int renew, const char **ptoken,
                                 const char **perr)
{
    /* apr_pstrcat would stop at the first unset one */
    const char *key = apr_psprintf(
        p, "%s\n%s\n%s\n%s\n%s\n%s\n%s", or_empty(ep->auth_url),
        or_empty(ep->username), or_empty(ep->user_domain_name),
        or_empty(ep->project_name), or_empty(ep->project_domain_name),
        or_empty(ep->app_cred_id), or_empty(ep->app_cred_name));
    apr_time_t asked = apr_time_now();
    service_token_t *st;
    apr_status_t rv = APR_SUCCESS;

    if (tokens_lock == NULL) {
        *perr = "the Keystone client was not initialised in this process";
        return PL_KS_EUNAVAILABLE;
    }
    /* One thread asks Keystone while the others wait for its outcome and
     * take it, success or failure: a burst of requests after expiry costs
     * Keystone one authentication, and while Keystone does not answer
     * each request waits for one timeout, not one per thread ahead of
     * it. */
    apr_thread_mutex_lock(tokens_lock);
    st = apr_hash_get(tokens, key, APR_HASH_KEY_STRING);
    if (st == NULL) {
        st = apr_pcalloc(tokens_pool, sizeof(*st));
        apr_hash_set(tokens, apr_pstrdup(tokens_pool, key), APR_HASH_KEY_STRING,
                     st);
    }
    if (renew && st->issued_at >= asked) {
        renew = 0; /* renewed by another thread while this one waited */
    }
    if (st->failed_at >= asked && st->failed_at > st->issued_at) {
        *perr = apr_pstrdup(p, st->failure);
        rv = st->failed_rv;
    }
    else if (renew || st->token == NULL || apr_time_now() >= st->renew_at) {
        rv = renew_service_token(p, ep, st, perr);
    }
    if (rv == APR_SUCCESS) {
        *ptoken = apr_pstrdup(p, st->token);
    }
    apr_thread_mutex_unlock(tokens_lock);
    return rv;
}

const char *pl_ks_identity_encode(apr_pool_t *p, const pl_ks_identity_t *id)
{
    json_object *o = json_object_new_object();
    json_object *roles = json_object_new_array();
    const char *text;
    int i;

    json_object_object_add(o, "valid", json_object_new_boolean(id->valid));
    if (id->user_id) {
        json_object_object_add(o, "user", json_object_new_string(id->user_id));
    }
    if (id->project_id) {
        json_object_object_add(o, "project",
                               json_object_new_string(id->project_id));
    }
    if (id->domain_id) {
        json_object_object_add(o, "domain",
                               json_object_new_string(id->domain_id));
    }
    json_object_object_add(o, "system",
                           json_object_new_boolean(id->system_all));
    for (i = 0; id->roles && i < id->roles->nelts; i++) {
        json_object_array_add(roles, json_object_new_string(APR_ARRAY_IDX(
                                         id->roles, i, const char *)));
    }
    json_object_object_add(o, "roles", roles);
    json_object_object_add(
        o, "expires",
        json_object_new_int64((int64_t)apr_time_sec(id->expires)));
    text = apr_pstrdup(
        p, json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
    json_object_put(o);
    return text;
}

apr_status_t pl_ks_identity_decode(apr_pool_t *p, const char *text,
                                   pl_ks_identity_t *id)
{
    json_object *o = json_tokener_parse(text), *v, *roles;
    size_t i, n;

    memset(id, 0, sizeof(*id));
    if (o == NULL || !json_object_is_type(o, json_type_object) ||
        !json_object_object_get_ex(o, "valid", &v) ||
        !json_object_object_get_ex(o, "roles", &roles) ||
        !json_object_is_type(roles, json_type_array)) {
        json_object_put(o);
        return APR_EINVAL;
    }
    id->valid = json_object_get_boolean(v);
    id->user_id = dup_or_null(p, str_at(o, "user", NULL));
    id->project_id = dup_or_null(p, str_at(o, "project", NULL));
    id->domain_id = dup_or_null(p, str_at(o, "domain", NULL));
    if (json_object_object_get_ex(o, "system", &v)) {
        id->system_all = json_object_get_boolean(v);
    }
    if (json_object_object_get_ex(o, "expires", &v)) {
        id->expires = apr_time_from_sec(json_object_get_int64(v));
    }
    id->roles = apr_array_make(p, 4, sizeof(const char *));
    n = json_object_array_length(roles);
    for (i = 0; i < n; i++) {
        APR_ARRAY_PUSH(id->roles, const char *) = apr_pstrdup(
            p, json_object_get_string(json_object_array_get_idx(roles, i)));
    }
    json_object_put(o);
    return APR_SUCCESS;
}
