/* Licensed under the Apache License, Version 2.0.
 *
 * pl_keystone.h: talking to Keystone's v3 identity API (libcurl, json-c;
 * no httpd headers): the module's own service token, token validation,
 * and the identity a validated token carries, as text for the cache.
 */
#ifndef PL_KEYSTONE_H
#define PL_KEYSTONE_H

#include <apr_pools.h>
#include <apr_tables.h>
#include <apr_time.h>
#include <apr_errno.h>

/** Keystone refused the module's own credentials or token. */
#define PL_KS_EAUTH (APR_OS_START_USERERR + 401)
/** Keystone could not be reached or answered unexpectedly. */
#define PL_KS_EUNAVAILABLE (APR_OS_START_USERERR + 503)

/** Where Keystone is and how the module authenticates to it
 *  ([keystone_authtoken] with password authentication). */
typedef struct pl_ks_endpoint_t {
    const char *auth_url; /* the v3 API: ends with /v3 */
    const char *username;
    const char *password;
    const char *project_name;
    const char *user_domain_name;
    const char *project_domain_name;
    /* an application credential instead of the password (keystoneauth's
     * v3applicationcredential): its id, or its name with the user's
     * name and domain; it carries its own project */
    const char *app_cred_id;
    const char *app_cred_name;
    const char *app_cred_secret;
    const char *cafile; /* NULL: the system's CAs */
    int insecure;       /* 1: no TLS verification */
    int timeout;        /* seconds, whole call */
} pl_ks_endpoint_t;

/** What a token says about its bearer. */
typedef struct pl_ks_identity_t {
    int valid; /* 0: Keystone refused the token */
    const char *user_id;
    const char *project_id;    /* project-scoped tokens */
    const char *domain_id;     /* domain-scoped tokens */
    int system_all;            /* system-scoped tokens */
    apr_array_header_t *roles; /* const char *, role names */
    apr_time_t expires;        /* 0 when not valid */
} pl_ks_identity_t;

/** Once per process, before any thread calls Keystone. */
apr_status_t pl_ks_global_init(void);

/** Per child: the lock around the service tokens it keeps. */
apr_status_t pl_ks_child_init(apr_pool_t *pchild);

/**
 * The module's own token for ep: kept per process and renewed before it
 * expires, or at once when renew is set (Keystone refused it). One
 * thread at a time asks Keystone; those that waited for it take its
 * outcome, a failure too, without asking again.
 * @return APR_SUCCESS with *ptoken (copied into p); PL_KS_EAUTH when
 *         Keystone refuses the credentials; PL_KS_EUNAVAILABLE otherwise,
 *         with *perr saying why.
 */
apr_status_t pl_ks_service_token(apr_pool_t *p, const pl_ks_endpoint_t *ep,
                                 int renew, const char **ptoken,
                                 const char **perr);

/**
 * Validate subject (GET /v3/auth/tokens) with the service token.
 * @return APR_SUCCESS with *id filled (id->valid 0 for a token Keystone
 *         does not know, has revoked or let expire); PL_KS_EAUTH when the
 *         service token was refused; PL_KS_EUNAVAILABLE otherwise, with
 *         *perr saying why.
 */
apr_status_t pl_ks_validate(apr_pool_t *p, const pl_ks_endpoint_t *ep,
                            const char *service_token, const char *subject,
                            pl_ks_identity_t *id, const char **perr);

/** The identity as one line of JSON, for the token cache. */
const char *pl_ks_identity_encode(apr_pool_t *p, const pl_ks_identity_t *id);

/** Back from pl_ks_identity_encode's text; APR_EINVAL if it is not. */
apr_status_t pl_ks_identity_decode(apr_pool_t *p, const char *text,
                                   pl_ks_identity_t *id);

#endif /* PL_KEYSTONE_H */
