/* Licensed under the Apache License, Version 2.0.
 *
 * pl_config.c: the Placement* directives (one per upstream option that
 * matters), their per-directory create/merge, and the getters that hold
 * the defaults. Setters validate and return the startup error text.
 */
/* offsetof, so APR_OFFSETOF is not a NULL pointer subtraction */
#include <stddef.h>
#include <apr_lib.h>
#include <apr_strings.h>
#include <http_core.h>

#include "pl_private.h"
#include "pl_config.h"
#include "pl_uuid.h"
#include "pl_policy.h"
#include "pl_token_cache.h"
#include "pl_provider_cache.h"
#include "pl_std_data.h"
#include "pl_store_std.h"

#define ZERO_UUID "00000000-0000-0000-0000-000000000000"

void *pl_config_create_dir(apr_pool_t *p, char *dir)
{
    pl_dir_conf_t *c = apr_pcalloc(p, sizeof(*c));

    c->dir = dir;
    c->auth = PL_AUTH_UNSET;
    c->conflict_retries = -1;
    c->randomize = -1;
    c->coalesce = -1;
    c->max_candidates = -2; /* -1 is a legal value: unlimited */
    c->ac_strategy = -1;
    c->statement_timeout = -1;
    c->max_body = -1;
    c->policy = apr_table_make(p, 4);
    c->policy_exprs = apr_hash_make(p);
    c->enforce_scope = -1;
    c->enforce_new_defaults = -1;
    c->policy_defaults = PL_POLICY_DEFAULTS_UNSET;
    c->cors_allow_credentials = -1;
    c->cors_max_age = -1;
    c->ks_insecure = -1;
    c->ks_timeout = -1;
    c->ks_token_cache_time = -1;
    c->ks_service_token_roles_required = -1;
    return c;
}

/* PlacementPolicy lines of both levels, the inner ones winning; runs per
 * request for a <Location>, so nothing is copied when one side is empty. */
static apr_hash_t *merge_exprs(apr_pool_t *p, apr_hash_t *base, apr_hash_t *add)
{
    if (base == NULL || apr_hash_count(base) == 0) {
        return add;
    }
    if (add == NULL || apr_hash_count(add) == 0) {
        return base;
    }
    return apr_hash_overlay(p, add, base);
}

#define MERGE_INT(f, unset) c->f = add->f != (unset) ? add->f : base->f
#define MERGE_PTR(f) c->f = add->f ? add->f : base->f

void *pl_config_merge_dir(apr_pool_t *p, void *basev, void *addv)
{
    pl_dir_conf_t *base = basev, *add = addv;
    pl_dir_conf_t *c = apr_pcalloc(p, sizeof(*c));

    MERGE_PTR(dir);
    MERGE_INT(auth, PL_AUTH_UNSET);
    MERGE_INT(conflict_retries, -1);
    MERGE_INT(randomize, -1);
    MERGE_INT(coalesce, -1);
    MERGE_INT(max_candidates, -2);
    MERGE_INT(ac_strategy, -1);
    MERGE_INT(statement_timeout, -1);
    MERGE_INT(max_body, -1);
    MERGE_PTR(incomplete_project);
    MERGE_PTR(incomplete_user);
    c->policy = apr_table_overlay(p, base->policy, add->policy);
    c->policy_exprs = merge_exprs(p, base->policy_exprs, add->policy_exprs);
    MERGE_PTR(policy_file);
    MERGE_PTR(policy_file_rules);
    MERGE_PTR(policy_file_exprs);
    MERGE_PTR(policy_dir);
    MERGE_INT(enforce_scope, -1);
    MERGE_INT(enforce_new_defaults, -1);
    MERGE_INT(policy_defaults, PL_POLICY_DEFAULTS_UNSET);
    MERGE_PTR(cors_origins);
    MERGE_INT(cors_allow_credentials, -1);
    MERGE_PTR(cors_expose_headers);
    MERGE_INT(cors_max_age, -1);
    MERGE_PTR(cors_allow_methods);
    MERGE_PTR(cors_allow_headers);
    MERGE_PTR(ks_auth_url);
    MERGE_PTR(ks_v3_url);
    MERGE_PTR(ks_www_authenticate_uri);
    MERGE_PTR(ks_app_cred_id);
    MERGE_PTR(ks_app_cred_name);
    MERGE_PTR(ks_app_cred_secret);
    MERGE_PTR(ks_username);
    MERGE_PTR(ks_password);
    MERGE_PTR(ks_project_name);
    MERGE_PTR(ks_user_domain_name);
    MERGE_PTR(ks_project_domain_name);
    MERGE_PTR(ks_cafile);
    MERGE_INT(ks_insecure, -1);
    MERGE_INT(ks_timeout, -1);
    MERGE_INT(ks_token_cache_time, -1);
    MERGE_PTR(ks_service_token_roles);
    MERGE_INT(ks_service_token_roles_required, -1);
    MERGE_PTR(std_traits);
    return c;
}

int pl_config_auth(const pl_dir_conf_t *c)
{
    return c->auth == PL_AUTH_UNSET ? PL_AUTH_NOAUTH2 : c->auth;
}

int pl_config_conflict_retries(const pl_dir_conf_t *c)
{
    return c->conflict_retries < 0 ? 10 : c->conflict_retries;
}

int pl_config_randomize(const pl_dir_conf_t *c)
{
    return c->randomize > 0;
}

int pl_config_coalesce(const pl_dir_conf_t *c)
{
    return c->coalesce != 0; /* On unless set Off */
}

int pl_config_max_candidates(const pl_dir_conf_t *c)
{
    return c->max_candidates == -2 ? -1 : c->max_candidates;
}

/* 60 s: far above any statement a legitimate request runs (the gate
 * query at 100,000 providers takes milliseconds), low enough that a
 * runaway one does not hold a backend for long; see docs/directives.md */
int pl_config_statement_timeout(const pl_dir_conf_t *c)
{
    return c->statement_timeout < 0 ? 60 : c->statement_timeout;
}

apr_size_t pl_config_max_body(const pl_dir_conf_t *c, apr_size_t route_max)
{
    return c->max_body < 0 ? route_max : (apr_size_t)c->max_body;
}

/* breadth-first by default: see docs/directives.md */
int pl_config_ac_strategy(const pl_dir_conf_t *c)
{
    return c->ac_strategy < 0 ? 1 : c->ac_strategy;
}

const char *pl_config_incomplete_project(const pl_dir_conf_t *c)
{
    return c->incomplete_project ? c->incomplete_project : ZERO_UUID;
}

const char *pl_config_incomplete_user(const pl_dir_conf_t *c)
{
    return c->incomplete_user ? c->incomplete_user : ZERO_UUID;
}

/* oslo.policy 4.4.0 (2024.2) made enforce_scope default to True and
 * deprecated it; up to 5.0.0 (2026.1) an explicit False still turns the
 * scope check off, so with 2026.1 Off is honoured, with a startup warning
 * (pl_authorize.c, PL01508). The older sets keep oslo.policy 4.0.0's
 * default, off. */
int pl_config_enforce_scope(const pl_dir_conf_t *c)
{
    if (c->enforce_scope < 0) {
        return pl_config_policy_defaults(c) == PL_POLICY_DEFAULTS_2026_1;
    }
    return c->enforce_scope > 0;
}

/* oslo.policy 4.4.0 (2024.2) made enforce_new_defaults default to True. */
int pl_config_enforce_new_defaults(const pl_dir_conf_t *c)
{
    if (c->enforce_new_defaults < 0) {
        return pl_config_policy_defaults(c) == PL_POLICY_DEFAULTS_2026_1;
    }
    return c->enforce_new_defaults > 0;
}

int pl_config_policy_defaults(const pl_dir_conf_t *c)
{
    return c->policy_defaults == PL_POLICY_DEFAULTS_UNSET
               ? PL_POLICY_DEFAULTS_ZED
               : c->policy_defaults;
}

int pl_config_cors_allow_credentials(const pl_dir_conf_t *c)
{
    return c->cors_allow_credentials != 0; /* oslo: True */
}

int pl_config_cors_max_age(const pl_dir_conf_t *c)
{
    return c->cors_max_age < 0 ? 3600 : c->cors_max_age;
}

/* A read-only APR array over a static list of words, for defaults. */
#define WORD_LIST(name, ...)                                                 \
    static const char *const name##_words[] = { __VA_ARGS__ };               \
    static const apr_array_header_t name = {                                 \
        NULL, sizeof(const char *),                                          \
        sizeof(name##_words) / sizeof(name##_words[0]),                      \
        sizeof(name##_words) / sizeof(name##_words[0]), (char *)name##_words \
    }

/* placement's own [cors] defaults (placement/wsgi.py
 * _set_middleware_defaults), not oslo.middleware's. */
WORD_LIST(cors_expose_default, "X-Auth-Token", "X-Openstack-Request-Id",
          "X-Subject-Token", "X-Service-Token", "OpenStack-API-Version");
WORD_LIST(cors_methods_default, "GET", "PUT", "POST", "DELETE", "PATCH");
WORD_LIST(cors_headers_default, "X-Auth-Token", "X-Openstack-Request-Id",
          "X-Identity-Status", "X-Roles", "X-Service-Catalog", "X-User-Id",
          "X-Tenant-Id", "OpenStack-API-Version");

const apr_array_header_t *pl_config_cors_expose_headers(const pl_dir_conf_t *c)
{
    return c->cors_expose_headers ? c->cors_expose_headers
                                  : &cors_expose_default;
}

const apr_array_header_t *pl_config_cors_allow_methods(const pl_dir_conf_t *c)
{
    return c->cors_allow_methods ? c->cors_allow_methods
                                 : &cors_methods_default;
}

const apr_array_header_t *pl_config_cors_allow_headers(const pl_dir_conf_t *c)
{
    return c->cors_allow_headers ? c->cors_allow_headers
                                 : &cors_headers_default;
}

int pl_config_ks_insecure(const pl_dir_conf_t *c)
{
    return c->ks_insecure > 0;
}

int pl_config_ks_timeout(const pl_dir_conf_t *c)
{
    return c->ks_timeout < 0 ? 10 : c->ks_timeout;
}

int pl_config_ks_token_cache_time(const pl_dir_conf_t *c)
{
    return c->ks_token_cache_time < 0 ? 300 : c->ks_token_cache_time;
}

/* keystonemiddleware's defaults: ['service'], False */
WORD_LIST(service_token_roles_default, "service");

const apr_array_header_t *
pl_config_ks_service_token_roles(const pl_dir_conf_t *c)
{
    return c->ks_service_token_roles ? c->ks_service_token_roles
                                     : &service_token_roles_default;
}

int pl_config_ks_service_token_roles_required(const pl_dir_conf_t *c)
{
    return c->ks_service_token_roles_required > 0;
}

const char *pl_config_ks_www_authenticate_uri(const pl_dir_conf_t *c)
{
    return c->ks_www_authenticate_uri ? c->ks_www_authenticate_uri
                                      : c->ks_auth_url;
}

/* The settings of the whole server (server config only): one value per
 * process, not per directory, which the children inherit; 0 is unset.
 * A restart reads the configuration again, maybe without the line, so
 * each is forgotten with the pool of the configuration that set it. */
static int keystone_max_validations; /* PlacementKeystoneMaxValidations */
static int max_body_memory_mb;       /* PlacementMaxBodyMemory */
static int candidates_memory_mb;     /* PlacementCandidatesMemory */

int pl_config_keystone_max_validations(void)
{
    return keystone_max_validations;
}

/* 512 MB by default (docs/directives.md, PlacementMaxBodyMemory) */
apr_uint64_t pl_config_max_body_memory(void)
{
    apr_uint64_t mb = max_body_memory_mb ? (apr_uint64_t)max_body_memory_mb
                                         : 512;

    return mb * 1024 * 1024;
}

/* 32 MB by default (docs/directives.md, PlacementCandidatesMemory) */
apr_size_t pl_config_candidates_memory(void)
{
    apr_size_t mb = candidates_memory_mb ? (apr_size_t)candidates_memory_mb
                                         : 32;

    return mb * 1024 * 1024;
}

/* A directive that takes one of a few words, each standing for a value
 * of an int field (cmd->info). */
typedef struct {
    const char *word;
    int value;
} keyword_t;

typedef struct {
    apr_size_t offset;      /* of the int field */
    const keyword_t *words; /* NULL-terminated */
    const char *choices;    /* for the error text */
} keyword_field_t;

static const keyword_t auth_words[] = { { "noauth2", PL_AUTH_NOAUTH2 },
                                        { "keystone", PL_AUTH_KEYSTONE },
                                        { NULL, 0 } };
static const keyword_t strategy_words[] = { { "depth-first", 0 },
                                            { "breadth-first", 1 },
                                            { NULL, 0 } };
static const keyword_t policy_defaults_words[] = {
    { "zed", PL_POLICY_DEFAULTS_ZED },
    { "2023.1", PL_POLICY_DEFAULTS_2023_1 },
    { "2026.1", PL_POLICY_DEFAULTS_2026_1 },
    { NULL, 0 }
};

static const keyword_field_t auth_field = { APR_OFFSETOF(pl_dir_conf_t, auth),
                                            auth_words, "noauth2 or keystone" };
static const keyword_field_t strategy_field = {
    APR_OFFSETOF(pl_dir_conf_t, ac_strategy), strategy_words,
    "depth-first or breadth-first"
};
static const keyword_field_t policy_defaults_field = {
    APR_OFFSETOF(pl_dir_conf_t, policy_defaults), policy_defaults_words,
    "zed, 2023.1 or 2026.1"
};

static const char *set_keyword(cmd_parms *cmd, void *dc, const char *arg)
{
    const keyword_field_t *f = cmd->info;
    const keyword_t *k;

    for (k = f->words; k->word; k++) {
        if (!strcasecmp(arg, k->word)) {
            *(int *)((char *)dc + f->offset) = k->value;
            return NULL;
        }
    }
    return apr_psprintf(cmd->pool, "%s: unknown value '%s' (%s)",
                        cmd->cmd->name, arg, f->choices);
}

/* PlacementAuthStrategy: keystone also needs the token cache made at
 * startup. */
static const char *set_auth(cmd_parms *cmd, void *dc, const char *arg)
{
    const char *err = set_keyword(cmd, dc, arg);

    if (err == NULL && ((pl_dir_conf_t *)dc)->auth == PL_AUTH_KEYSTONE) {
        pl_token_cache_wanted();
    }
    return err;
}

static const char *set_int(cmd_parms *cmd, void *dc, const char *arg)
{
    pl_dir_conf_t *c = dc;
    int min = cmd->info == (void *)1 ? -1 : 0;
    char *end;
    long v = strtol(arg, &end, 10);

    if (*arg == '\0' || *end != '\0' || v < min || v > 1000000000L) {
        return apr_psprintf(cmd->pool,
                            "%s: '%s' is not a whole number "
                            "from %d to 1000000000",
                            cmd->cmd->name, arg, min);
    }
    if (cmd->info == (void *)1) {
        c->max_candidates = (int)v;
    }
    else {
        c->conflict_retries = (int)v;
    }
    return NULL;
}

static const char *set_uuid(cmd_parms *cmd, void *dc, const char *arg)
{
    pl_dir_conf_t *c = dc;
    const char *norm;

    if (pl_uuid_normalize(cmd->pool, arg, &norm) != APR_SUCCESS) {
        return apr_psprintf(cmd->pool, "%s: '%s' is not a UUID", cmd->cmd->name,
                            arg);
    }
    if (cmd->info == (void *)1) {
        c->incomplete_user = norm;
    }
    else {
        c->incomplete_project = norm;
    }
    return NULL;
}

/* A server-wide whole number (cmd->info): where it goes, its range, and
 * the startup error for a value out of it. */
typedef struct {
    int *value;
    long min, max;
    const char *refusal;
} server_number_t;

static const server_number_t max_validations_number = {
    &keystone_max_validations, 1, 100000,
    "PlacementKeystoneMaxValidations: a whole number 1..100000"
};
static const server_number_t max_body_memory_number = {
    &max_body_memory_mb, 16, 1024L * 1024, /* a terabyte */
    "PlacementMaxBodyMemory: megabytes, a whole number 16..1048576"
};

static const server_number_t candidates_memory_number = {
    &candidates_memory_mb, 1, 1024,
    "PlacementCandidatesMemory: megabytes, a whole number 1..1024"
};

static apr_status_t forget_server_number(void *value)
{
    *(int *)value = 0;
    return APR_SUCCESS;
}

static const char *set_server_number(cmd_parms *cmd, void *dc, const char *arg)
{
    const server_number_t *f = cmd->info;
    const char *err = ap_check_cmd_context(cmd, GLOBAL_ONLY);
    char *end;
    long n;

    (void)dc;
    if (err) {
        return err;
    }
    n = strtol(arg, &end, 10);
    if (end == arg || *end || n < f->min || n > f->max) {
        return f->refusal;
    }
    *f->value = (int)n;
    apr_pool_cleanup_register(cmd->pool, f->value, forget_server_number,
                              apr_pool_cleanup_null);
    return NULL;
}

/* The check is compiled here, once; a name placement does not know is
 * kept (usable as rule:NAME, as oslo keeps unknown policy file rules) but
 * is probably a typo, so say so. */
static const char *set_policy(cmd_parms *cmd, void *dc, const char *rule,
                              const char *check)
{
    pl_dir_conf_t *c = dc;
    const pl_policy_expr_t *e;
    const char *err;

    if (*rule == '\0') {
        return "PlacementPolicy: empty rule name";
    }
    if (pl_policy_compile(cmd->pool, check, &e, &err) != APR_SUCCESS) {
        return apr_psprintf(cmd->pool, "PlacementPolicy %s: %s", rule, err);
    }
    if (!pl_policy_is_known(rule)) {
        ap_log_error(
            APLOG_MARK, APLOG_WARNING, 0, cmd->server,
            PL_LOGNO(
                01507) "PlacementPolicy: %s is not one of "
                       "placement's rules; it is only used through rule:%s",
            rule, rule);
    }
    rule = apr_pstrdup(cmd->pool, rule);
    apr_table_set(c->policy, rule, check);
    apr_hash_set(c->policy_exprs, rule, APR_HASH_KEY_STRING, e);
    return NULL;
}

/* A whole number of seconds (or other count >= 0) at the offset the
 * directive's cmd->info gives. */
static const char *set_count(cmd_parms *cmd, void *dc, const char *arg)
{
    char *end;
    long v = strtol(arg, &end, 10);

    if (*arg == '\0' || *end != '\0' || v < 0 || v > 1000000000L) {
        return apr_psprintf(cmd->pool,
                            "%s: '%s' is not a whole number "
                            "from 0 to 1000000000",
                            cmd->cmd->name, arg);
    }
    *(int *)((char *)dc + (apr_size_t)cmd->info) = (int)v;
    return NULL;
}

/* PlacementMaxBodySize: bytes, or with K, M or G (1024, 1024^2, 1024^3),
 * from 1 to 1G; json-c takes a body's length as an int, and no request
 * needs more. */
static const char *set_max_body(cmd_parms *cmd, void *dc, const char *arg)
{
    static const apr_int64_t most = (apr_int64_t)1024 * 1024 * 1024;
    char *end;
    apr_int64_t v = apr_strtoi64(arg, &end, 10), unit = 1;

    switch (apr_toupper(*end)) {
    case 'K':
        unit = 1024;
        end++;
        break;
    case 'M':
        unit = (apr_int64_t)1024 * 1024;
        end++;
        break;
    case 'G':
        unit = most;
        end++;
        break;
    default:
        break;
    }
    if (!apr_isdigit(*arg) || *end != '\0' || v < 1 || v > most / unit) {
        return apr_psprintf(cmd->pool,
                            "%s: '%s' is not a size from 1 to 1G (bytes, "
                            "or with K, M or G)",
                            cmd->cmd->name, arg);
    }
    ((pl_dir_conf_t *)dc)->max_body = (int)(v * unit);
    return NULL;
}

/* A list directive (oslo's ListOpt): each argument may itself be a
 * comma-separated list; the words are added to the array at the offset
 * cmd->info gives. */
static const char *add_words(cmd_parms *cmd, void *dc, const char *arg)
{
    apr_array_header_t **pa = (apr_array_header_t **)((char *)dc +
                                                      (apr_size_t)cmd->info);
    char *list = apr_pstrdup(cmd->pool, arg), *w, *state;

    if (*pa == NULL) {
        *pa = apr_array_make(cmd->pool, 4, sizeof(const char *));
    }
    for (w = apr_strtok(list, ", \t", &state); w;
         w = apr_strtok(NULL, ", \t", &state)) {
        APR_ARRAY_PUSH(*pa, const char *) = w;
    }
    return NULL;
}

static const char *set_policy_file(cmd_parms *cmd, void *dc, const char *arg)
{
    pl_dir_conf_t *c = dc;
    const char *path = ap_server_root_relative(cmd->pool, arg);
    const char *err = NULL;

    if (path == NULL) {
        return apr_psprintf(cmd->pool,
                            "PlacementPolicyFile: bad path "
                            "'%s'",
                            arg);
    }
    if (pl_policy_file_read(cmd->pool, path, &c->policy_file_rules,
                            &c->policy_file_exprs, &err) != APR_SUCCESS) {
        return apr_psprintf(cmd->pool, "PlacementPolicyFile: %s", err);
    }
    c->policy_file = path;
    return NULL;
}

/* PlacementPolicyDir: read (and its errors reported) in post_config,
 * once the location's file and directory are both known. */
static const char *set_policy_dir(cmd_parms *cmd, void *dc, const char *arg)
{
    const char *path = ap_server_root_relative(cmd->pool, arg);

    if (path == NULL) {
        return apr_psprintf(cmd->pool, "PlacementPolicyDir: bad path '%s'",
                            arg);
    }
    ((pl_dir_conf_t *)dc)->policy_dir = path;
    return NULL;
}

/* PlacementStandardTraitsFile: read now, so that a bad file stops httpd
 * at startup (and `apachectl configtest`) with its file and line; read
 * again at each restart, which is how a name added to it is taken up. */
static const char *set_std_traits(cmd_parms *cmd, void *dc, const char *arg)
{
    const char *path = ap_server_root_relative(cmd->pool, arg);
    apr_array_header_t *names;
    const char *err;

    if (path == NULL) {
        return apr_psprintf(cmd->pool,
                            "PlacementStandardTraitsFile: bad path '%s'", arg);
    }
    if (pl_std_traits_file_read(cmd->pool, path, &names, &err) != APR_SUCCESS) {
        return apr_psprintf(cmd->pool, "PlacementStandardTraitsFile: %s", err);
    }
    ap_log_error(APLOG_MARK, APLOG_INFO, 0, cmd->server,
                 PL_LOGNO(01600) "PlacementStandardTraitsFile %s: %d "
                                 "names beside the %d of %s",
                 path, names->nelts, pl_std_traits_n, pl_std_traits_source);
    ((pl_dir_conf_t *)dc)->std_traits = names;
    return NULL;
}

/* PlacementKeystoneAuthURL, with or without /v3: the v3 API's URL is
 * worked out once here, not per request. */
static const char *set_ks_auth_url(cmd_parms *cmd, void *dc, const char *url)
{
    pl_dir_conf_t *c = dc;
    apr_pool_t *p = cmd->pool;
    apr_size_t len = strlen(url);

    while (len > 0 && url[len - 1] == '/') {
        len--;
    }
    c->ks_auth_url = url;
    c->ks_v3_url = len >= 3 && !strncmp(url + len - 3, "/v3", 3)
                       ? apr_pstrmemdup(p, url, len)
                       : apr_pstrcat(p, apr_pstrmemdup(p, url, len), "/v3",
                                     NULL);
    return NULL;
}

#define DIR_OFFSET(f) ((void *)APR_OFFSETOF(pl_dir_conf_t, f))
#define DIR_STRING(name, field, help)                          \
    AP_INIT_TAKE1(name, ap_set_string_slot, DIR_OFFSET(field), \
                  RSRC_CONF | ACCESS_CONF, help)
#define DIR_FLAG(name, field, help)                         \
    AP_INIT_FLAG(name, ap_set_flag_slot, DIR_OFFSET(field), \
                 RSRC_CONF | ACCESS_CONF, help)
#define DIR_COUNT(name, field, help)                                           \
    AP_INIT_TAKE1(name, set_count, DIR_OFFSET(field), RSRC_CONF | ACCESS_CONF, \
                  help)
#define DIR_KEYWORD(name, field, help)                 \
    AP_INIT_TAKE1(name, set_keyword, (void *)&(field), \
                  RSRC_CONF | ACCESS_CONF, help)
#define SERVER_NUMBER(name, number, help) \
    AP_INIT_TAKE1(name, set_server_number, (void *)&(number), RSRC_CONF, help)
#define DIR_WORDS(name, field, help)                    \
    AP_INIT_ITERATE(name, add_words, DIR_OFFSET(field), \
                    RSRC_CONF | ACCESS_CONF, help)

const command_rec pl_cmds[] = {
    AP_INIT_TAKE1("PlacementAuthStrategy", set_auth, (void *)&auth_field,
                  RSRC_CONF | ACCESS_CONF,
                  "noauth2|keystone: how callers are identified "
                  "(default noauth2)"),
    AP_INIT_TAKE1("PlacementAllocationConflictRetryCount", set_int, (void *)0,
                  RSRC_CONF | ACCESS_CONF,
                  "N: server-side retries of an allocation write on a "
                  "provider generation conflict (default 10)"),
    DIR_FLAG("PlacementRandomizeCandidates", randomize,
             "On|Off: sample allocation candidates randomly when "
             "limiting them (default Off)"),
    DIR_FLAG("PlacementCoalesceCandidates", coalesce,
             "On|Off: identical allocation candidates requests that "
             "arrive together share one computation (default On)"),
    AP_INIT_TAKE1("PlacementMaxAllocationCandidates", set_int, (void *)1,
                  RSRC_CONF | ACCESS_CONF,
                  "N: most allocation candidates generated per request, "
                  "-1 for no limit (default -1)"),
    DIR_KEYWORD("PlacementAllocationCandidatesStrategy", strategy_field,
                "depth-first|breadth-first: order of the roots' "
                "candidates when limit or the maximum cuts them "
                "(default breadth-first)"),
    DIR_COUNT("PlacementStatementTimeout", statement_timeout,
              "SECONDS: the longest one SQL statement may run on the "
              "database server, 0 for no limit (default 60)"),
    AP_INIT_TAKE1("PlacementMaxBodySize", set_max_body, NULL,
                  RSRC_CONF | ACCESS_CONF,
                  "SIZE: the largest request body every route takes, in "
                  "bytes or with K, M or G (default each route's own: "
                  "64K, 1M or 8M)"),
    AP_INIT_TAKE1("PlacementProviderCache", pl_provider_cache_set, NULL,
                  RSRC_CONF,
                  "N: providers whose inventories and traits each child "
                  "keeps for allocation candidates, checked against their "
                  "uuid and generation on every use; 0 for none (default "
                  "100000); server config only"),
    AP_INIT_TAKE1("PlacementStandardTraitsFile", set_std_traits, NULL,
                  RSRC_CONF | ACCESS_CONF,
                  "PATH: standard trait names newer than the module's list "
                  "(a later os-traits), one per line; inserted where "
                  "missing, never deleted"),
    AP_INIT_TAKE1("PlacementIncompleteConsumerProject", set_uuid, (void *)0,
                  RSRC_CONF | ACCESS_CONF,
                  "UUID: project of consumers written before 1.8 "
                  "(default all zeros)"),
    AP_INIT_TAKE1("PlacementIncompleteConsumerUser", set_uuid, (void *)1,
                  RSRC_CONF | ACCESS_CONF,
                  "UUID: user of consumers written before 1.8 "
                  "(default all zeros)"),
    AP_INIT_TAKE2("PlacementPolicy", set_policy, NULL, RSRC_CONF | ACCESS_CONF,
                  "RULE CHECK: override one policy rule, e.g. "
                  "PlacementPolicy placement:usages \"role:admin\""),
    AP_INIT_TAKE1("PlacementPolicyFile", set_policy_file, NULL,
                  RSRC_CONF | ACCESS_CONF,
                  "PATH: an oslo.policy file (YAML or JSON) whose rules "
                  "replace the defaults ([oslo_policy] policy_file); "
                  "re-read when it changes"),
    AP_INIT_TAKE1("PlacementPolicyDir", set_policy_dir, NULL,
                  RSRC_CONF | ACCESS_CONF,
                  "PATH: a directory of oslo.policy files read after "
                  "PlacementPolicyFile in name order, later rules winning "
                  "([oslo_policy] policy_dirs); re-read when it changes"),
    DIR_FLAG("PlacementPolicyEnforceScope", enforce_scope,
             "On|Off: refuse a token whose scope is not one of the rule's "
             "scope types (default Off; On with 2026.1)"),
    DIR_FLAG("PlacementPolicyEnforceNewDefaults", enforce_new_defaults,
             "On|Off: use the new rule defaults only, without their "
             "deprecated alternatives (default Off; On with 2026.1)"),
    DIR_KEYWORD("PlacementPolicyDefaults", policy_defaults_field,
                "zed|2023.1|2026.1: which release's rule defaults apply "
                "(default zed)"),

    DIR_WORDS("PlacementCORSAllowedOrigin", cors_origins,
              "ORIGIN...: origins allowed to call the API from a browser "
              "(no default: CORS off)"),
    DIR_FLAG("PlacementCORSAllowCredentials", cors_allow_credentials,
             "On|Off: tell browsers that credentials may be sent "
             "(default On)"),
    DIR_WORDS("PlacementCORSExposeHeaders", cors_expose_headers,
              "HEADER...: response headers a browser may read (default "
              "placement's list; a lone , for none)"),
    DIR_COUNT("PlacementCORSMaxAge", cors_max_age,
              "SECONDS: how long a browser may cache a preflight answer "
              "(default 3600)"),
    DIR_WORDS("PlacementCORSAllowMethods", cors_allow_methods,
              "METHOD...: methods allowed in a CORS request (default GET "
              "PUT POST DELETE PATCH)"),
    DIR_WORDS("PlacementCORSAllowHeaders", cors_allow_headers,
              "HEADER...: request headers allowed in a CORS request "
              "(default placement's list)"),

    AP_INIT_TAKE1("PlacementKeystoneAuthURL", set_ks_auth_url, NULL,
                  RSRC_CONF | ACCESS_CONF,
                  "URL: Keystone's identity endpoint, e.g. "
                  "http://keystone:5000 (auth_url)"),
    DIR_STRING("PlacementKeystoneWWWAuthenticateURI", ks_www_authenticate_uri,
               "URL: the Keystone endpoint named in 401 answers "
               "(www_authenticate_uri; default the auth URL)"),
    DIR_STRING("PlacementKeystoneUsername", ks_username,
               "NAME: the service user placement authenticates as"),
    DIR_STRING("PlacementKeystonePassword", ks_password,
               "PASSWORD: the service user's password"),
    DIR_STRING("PlacementKeystoneProjectName", ks_project_name,
               "NAME: the service user's project (project_name)"),
    DIR_STRING("PlacementKeystoneUserDomainName", ks_user_domain_name,
               "NAME: the service user's domain (default Default)"),
    DIR_STRING("PlacementKeystoneProjectDomainName", ks_project_domain_name,
               "NAME: the service project's domain (default Default)"),
    DIR_STRING("PlacementKeystoneApplicationCredentialID", ks_app_cred_id,
               "ID: the module authenticates with this application "
               "credential instead of a password "
               "(application_credential_id)"),
    DIR_STRING("PlacementKeystoneApplicationCredentialName", ks_app_cred_name,
               "NAME: the application credential by name, of "
               "PlacementKeystoneUsername in PlacementKeystoneUserDomainName "
               "(application_credential_name)"),
    DIR_STRING("PlacementKeystoneApplicationCredentialSecret",
               ks_app_cred_secret,
               "SECRET: the application credential's secret "
               "(application_credential_secret)"),
    DIR_STRING("PlacementKeystoneCAFile", ks_cafile,
               "PATH: CA certificates to verify Keystone's TLS (cafile)"),
    DIR_FLAG("PlacementKeystoneInsecure", ks_insecure,
             "On|Off: skip TLS verification of Keystone (default Off)"),
    DIR_COUNT("PlacementKeystoneTimeout", ks_timeout,
              "SECONDS: the longest a call to Keystone may take "
              "(default 10)"),
    AP_INIT_TAKE1("PlacementTokenCache", pl_token_cache_set, NULL, RSRC_CONF,
                  "PROVIDER[:ARGS]: the mod_socache provider that keeps "
                  "validated tokens for all children (default shmcb); "
                  "server config only"),
    SERVER_NUMBER("PlacementMaxBodyMemory", max_body_memory_number,
                  "MB: what the JSON bodies one child parses at once may "
                  "cost together; a large body waits for room, at most "
                  "Timeout, then 503 (default 512); server config only"),
    SERVER_NUMBER("PlacementCandidatesMemory", candidates_memory_number,
                  "MB: what a child keeps of one allocation candidates "
                  "request's memory for the next (default 32); server "
                  "config only"),
    SERVER_NUMBER("PlacementKeystoneMaxValidations", max_validations_number,
                  "N: token validations with Keystone in flight per child; "
                  "an unknown token beyond them is answered 503 at once "
                  "(default half of ThreadsPerChild); server config only"),
    DIR_WORDS("PlacementKeystoneServiceTokenRoles", ks_service_token_roles,
              "ROLE...: roles an X-Service-Token needs one of "
              "(service_token_roles, default service)"),
    DIR_FLAG("PlacementKeystoneServiceTokenRolesRequired",
             ks_service_token_roles_required,
             "On|Off: refuse (401) an X-Service-Token without one of those "
             "roles; Off only logs a warning "
             "(service_token_roles_required, default Off)"),
    DIR_COUNT("PlacementTokenCacheTime", ks_token_cache_time,
              "SECONDS: how long a validated token is cached "
              "(token_cache_time, default 300)"),
    { NULL }
};
