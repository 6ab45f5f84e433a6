/* Licensed under the Apache License, Version 2.0.
 *
 * pl_authorize.c: policy on the httpd side. At startup the rule defaults of
 * both releases are compiled once (they are the same for every location)
 * and every configured location is checked for rule: loops; per request
 * the caller's identity becomes oslo.context's policy credentials and
 * pl_policy_enforce() (pure, pl_policy_enforce.c) decides. Check strings
 * of PlacementPolicy and PlacementPolicyFile were compiled when their
 * directives were read (pl_config.c), so nothing is parsed per request.
 */
#include <string.h>
#include <apr_strings.h>
#include <http_core.h>

#include "pl_private.h"
#include "pl_authorize.h"
#include "pl_authorize_live.h"
#include "pl_policy.h"

_Static_assert(PL_POLICY_SET_ZED == (int)PL_POLICY_DEFAULTS_ZED &&
                   PL_POLICY_SET_2023_1 == (int)PL_POLICY_DEFAULTS_2023_1 &&
                   PL_POLICY_SET_2026_1 == (int)PL_POLICY_DEFAULTS_2026_1,
               "pl_policy.h and pl_config.h number the defaults alike");

/* The compiled defaults, per release: written in check_config (one thread),
 * read-only while requests are served; forgotten with pconf. */
static const pl_policy_builtin_t *builtins[PL_POLICY_NSETS];

static apr_status_t forget_builtins(void *unused)
{
    memset(builtins, 0, sizeof(builtins));
    return APR_SUCCESS;
}

/* r NULL: at startup, the rules of the policy file as first read. */
static void policy_of(const pl_dir_conf_t *c, request_rec *r, pl_policy_t *pol)
{
    memset(pol, 0, sizeof(*pol));
    pol->builtin = builtins[pl_config_policy_defaults(c)];
    pol->overrides = c->policy_exprs;
    pol->file = c->policy_file_exprs;
    if (r && (c->policy_file || c->policy_dir)) {
        pol->file = pl_authorize_live_rules(r, c);
    }
    pol->enforce_new_defaults = pl_config_enforce_new_defaults(c);
    pol->enforce_scope = pl_config_enforce_scope(c);
}

/* PlacementPolicyEnforceScope Off beside PlacementPolicyDefaults 2026.1
 * is honoured, as oslo.policy 4.4.0 to 5.0.0 (placement 2024.2 to 2026.1)
 * honour enforce_scope = False, and warned about at startup, as
 * oslo.config warns that the option is deprecated for removal (oslo.policy
 * 6.0.0 removed it). Said only where either line is written (written: c's
 * own level sets one), not again for every section that inherits them. */
static void warn_scope_off(apr_pool_t *ptemp, server_rec *s,
                           const pl_dir_conf_t *c, int written)
{
    const char *where = c->dir;

    if (!written || c->enforce_scope != 0 ||
        pl_config_policy_defaults(c) != PL_POLICY_DEFAULTS_2026_1) {
        return;
    }
    if (where == NULL) {
        where = s->is_virtual
                    ? apr_psprintf(ptemp, "virtual host %s", s->server_hostname)
                    : "the server";
    }
    ap_log_error(APLOG_MARK, APLOG_WARNING, 0, s,
                 PL_LOGNO(01508) "%s: PlacementPolicyEnforceScope Off beside "
                                 "PlacementPolicyDefaults 2026.1 is "
                                 "deprecated; scope is not enforced. The "
                                 "switch was only meant for the move to the "
                                 "new RBAC, OpenStack always checks scope, "
                                 "and upstream's oslo.policy 6.0.0 no longer "
                                 "has it: a later release may ignore it",
                 where);
}

/* A section whose own lines choose keystone and that has no
 * PlacementKeystoneAuthURL, of its own or its server's, answers every
 * request with a token 503 (PL01003). Said, not refused: a section merged
 * over it at request time (a nested <Location>) may still bring the URL.
 * Server defaults are not looked at: the URL often sits in the <Location>
 * that serves the API, beside lines the server's defaults give it. */
static void warn_keystone_url(server_rec *s, const pl_dir_conf_t *own,
                              const pl_dir_conf_t *c)
{
    if (own->auth != PL_AUTH_KEYSTONE || c->ks_v3_url != NULL) {
        return;
    }
    ap_log_error(APLOG_MARK, APLOG_WARNING, 0, s,
                 PL_LOGNO(01512) "%s: PlacementAuthStrategy keystone without "
                                 "PlacementKeystoneAuthURL: every request "
                                 "with a token there will be answered 503 "
                                 "(PL01003)",
                 c->dir ? c->dir : "a section");
}

/* What a walk over every section does: check (refuse a bad one) in
 * check_config, so that httpd -t refuses what a start would; warn where
 * the warnings reach the operator: in check_config under httpd -t, in
 * post_config (the error log) otherwise. */
typedef struct walk_t {
    int check;
    int warn;
} walk_t;

/* A location whose rules come back to themselves would refuse (or, with
 * oslo, crash) some requests forever: refuse to start instead. written:
 * as warn_scope_off's. */
static int check_location(apr_pool_t *pconf, apr_pool_t *ptemp, server_rec *s,
                          const pl_dir_conf_t *c, int written, const walk_t *w)
{
    int lines = c->policy_exprs && apr_hash_count(c->policy_exprs) > 0;
    pl_policy_t pol;
    const char *loop;

    if (w->warn) {
        warn_scope_off(ptemp, s, c, written);
    }
    if (!w->check) {
        return OK;
    }
    if (!lines && c->policy_file == NULL && c->policy_dir == NULL) {
        return OK; /* the defaults alone have no loop */
    }
    policy_of(c, NULL, &pol);
    if (c->policy_file || c->policy_dir) {
        pl_policy_t check = pol;

        check.file = NULL;
        if (pl_authorize_live_add(pconf, ptemp, s, c, &check)) {
            return HTTP_INTERNAL_SERVER_ERROR;
        }
    }
    if ((loop = pl_policy_find_loop(ptemp, &pol)) == NULL) {
        return OK;
    }
    ap_log_error(
        APLOG_MARK, APLOG_CRIT, 0, s,
        PL_LOGNO(01501) "policy rules of %s refer to each other in a loop: %s "
                        "(rules from %s%s%s%s)",
        c->dir ? c->dir : "the server", loop, lines ? "PlacementPolicy" : "",
        lines && c->policy_file ? " and " : "",
        c->policy_file ? "PlacementPolicyFile " : "",
        c->policy_file ? c->policy_file : "");
    return HTTP_INTERNAL_SERVER_ERROR;
}

static int check_sections(apr_pool_t *pconf, apr_pool_t *ptemp, server_rec *s,
                          const pl_dir_conf_t *base,
                          const apr_array_header_t *secs, const walk_t *w)
{
    int i, st = OK;

    for (i = 0; secs && i < secs->nelts && st == OK; i++) {
        ap_conf_vector_t *v = APR_ARRAY_IDX(secs, i, ap_conf_vector_t *);
        pl_dir_conf_t *c = ap_get_module_config(v, &placement_module);

        if (c) {
            const pl_dir_conf_t *merged = pl_config_merge_dir(ptemp,
                                                              (void *)base, c);

            if (w->warn) {
                warn_keystone_url(s, c, merged);
            }
            st = check_location(pconf, ptemp, s, merged,
                                c->enforce_scope != -1 ||
                                    c->policy_defaults !=
                                        PL_POLICY_DEFAULTS_UNSET,
                                w);
        }
    }
    return st;
}

/* Every server's defaults and every section of it, merged as a request
 * would see them */
static int walk_servers(apr_pool_t *pconf, apr_pool_t *ptemp, server_rec *s,
                        const walk_t *w)
{
    const pl_dir_conf_t *main_base = NULL;
    int st = OK;

    for (; s && st == OK; s = s->next) {
        core_server_config *core = ap_get_core_module_config(s->module_config);
        pl_dir_conf_t *base = ap_get_module_config(s->lookup_defaults,
                                                   &placement_module);

        /* a virtual host's defaults are the main server's (the same
         * config when it has no Placement line) merged with its own: its
         * own lines are those that differ */
        if (!s->is_virtual || main_base == NULL) {
            main_base = base;
        }
        st = check_location(
            pconf, ptemp, s, base,
            !s->is_virtual || base->enforce_scope != main_base->enforce_scope ||
                base->policy_defaults != main_base->policy_defaults,
            w);
        if (st == OK) {
            st = check_sections(pconf, ptemp, s, base, core->sec_url, w);
        }
        if (st == OK) {
            st = check_sections(pconf, ptemp, s, base, core->sec_dir, w);
        }
    }
    return st;
}

int pl_authorize_check_config(apr_pool_t *pconf, apr_pool_t *ptemp,
                              server_rec *s)
{
    walk_t w = { 1, ap_state_query(AP_SQ_RUN_MODE) == AP_SQ_RM_CONFIG_TEST };
    const char *err;
    int set;

    for (set = 0; set < PL_POLICY_NSETS; set++) {
        if (pl_policy_builtin_compile(pconf, set, &builtins[set], &err)) {
            ap_log_error(APLOG_MARK, APLOG_CRIT, 0, s,
                         PL_LOGNO(01502) "policy defaults: %s", err);
            return HTTP_INTERNAL_SERVER_ERROR;
        }
    }
    apr_pool_cleanup_register(pconf, NULL, forget_builtins,
                              apr_pool_cleanup_null);
    return walk_servers(pconf, ptemp, s, &w);
}

int pl_authorize_post_config(apr_pool_t *pconf, apr_pool_t *ptemp,
                             server_rec *s)
{
    walk_t w = { 0, 1 };

    return walk_servers(pconf, ptemp, s, &w);
}

/* oslo.context's to_policy_values() for this caller, plus the "system"
 * key oslo.policy adds for system-scoped tokens. Returns the count. */
static int creds_of(const pl_req_t *req, pl_policy_attr_t *c)
{
    static const apr_array_header_t none = { NULL, sizeof(char *), 0, 0, NULL };
    const char *scope = req->system_scope       ? req->system_scope
                        : req->system_scope_all ? "all"
                                                : NULL;
    const char *system = scope && *scope ? scope : NULL;
    int n = 0;

#define CRED(k, v, l) (c[n].key = (k), c[n].value = (v), c[n].list = (l), n++)
    CRED("user_id", req->user_id, NULL);
    CRED("user_domain_id", NULL, NULL);
    CRED("system_scope", scope, NULL);
    CRED("domain_id", req->domain_id, NULL);
    CRED("project_id", req->project_id, NULL);
    CRED("project_domain_id", NULL, NULL);
    CRED("roles", NULL, req->roles ? req->roles : &none);
    CRED("is_admin_project", "True", NULL);
    CRED("service_user_id", req->service_user_id, NULL);
    CRED("service_user_domain_id", NULL, NULL);
    CRED("service_project_id", req->service_project_id, NULL);
    CRED("service_project_domain_id", NULL, NULL);
    CRED("service_roles", NULL,
         req->service_roles ? req->service_roles : &none);
    if (system) {
        CRED("system", system, NULL);
    }
#undef CRED
    return n;
}

int pl_authorize(pl_req_t *req, const char *rule, const char *target_project)
{
    pl_policy_attr_t creds[16], target[2];
    int ncreds = creds_of(req, creds), ntarget = 0;
    const char *loop = NULL;
    pl_policy_t pol;

    /* placement's context.can(): the caller's own project and user, or
     * only the project the handler names */
    memset(target, 0, sizeof(target));
    target[ntarget].key = "project_id";
    target[ntarget++].value = target_project ? target_project : req->project_id;
    if (target_project == NULL) {
        target[ntarget].key = "user_id";
        target[ntarget++].value = req->user_id;
    }
    policy_of(req->conf, req->r, &pol);
    if (pol.builtin == NULL) {
        ap_log_rerror(
            APLOG_MARK, APLOG_ERR, 0, req->r,
            PL_LOGNO(
                01503) "policy defaults missing (check_config did not run)");
    }
    switch (
        pl_policy_enforce(&pol, rule, creds, ncreds, target, ntarget, &loop)) {
    case PL_POLICY_ALLOW:
        return 0;
    case PL_POLICY_LOOP:
        ap_log_rerror(
            APLOG_MARK, APLOG_ERR, 0, req->r,
            PL_LOGNO(01504) "%s refused: its rule: references loop at %s", rule,
            loop);
        break;
    case PL_POLICY_BAD_SCOPE:
        ap_log_rerror(
            APLOG_MARK, APLOG_DEBUG, 0, req->r,
            PL_LOGNO(01505) "%s refused: the token's scope is not one of the "
                            "rule's scope types",
            rule);
        break;
    default:
        ap_log_rerror(APLOG_MARK, APLOG_DEBUG, 0, req->r,
                      PL_LOGNO(01506) "%s refused for user %s", rule,
                      req->user_id ? req->user_id : "-");
        break;
    }
    return pl_err_escaped(
        req, pl_err(req, HTTP_FORBIDDEN, NULL,
                    "Policy does not allow %s to be performed.", rule));
}
