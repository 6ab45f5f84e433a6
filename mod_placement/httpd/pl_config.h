/* Licensed under the Apache License, Version 2.0.
 *
 * pl_config.h: the per-directory configuration of mod_placement (the
 * Placement* directives) and its getters. Unset values are -1 / NULL and
 * the defaults live in the getters, so merging stays "add if set".
 */
#ifndef PL_CONFIG_H
#define PL_CONFIG_H

#include <httpd.h>
#include <http_config.h>
#include <apr_hash.h>

typedef enum {
    PL_AUTH_UNSET = -1,
    PL_AUTH_NOAUTH2 = 0,
    PL_AUTH_KEYSTONE = 1
} pl_auth_e;

typedef struct pl_dir_conf_t {
    /* the <Location> this config belongs to: the mount prefix */
    const char *dir;
    /* PlacementAuthStrategy */
    int auth;
    /* PlacementAllocationConflictRetryCount */
    int conflict_retries;
    /* PlacementRandomizeCandidates */
    int randomize;
    /* PlacementCoalesceCandidates */
    int coalesce;
    /* PlacementMaxAllocationCandidates, -1 unlimited */
    int max_candidates;
    /* PlacementStatementTimeout: seconds any one SQL statement may run
     * on the server, 0 no limit, -1 unset */
    int statement_timeout;
    /* PlacementMaxBodySize: bytes, -1 unset (each route's own) */
    int max_body;
    /* PlacementAllocationCandidatesStrategy: -1 unset, 0 depth-first,
     * 1 breadth-first (pl_ac_strategy_e) */
    int ac_strategy;
    /* PlacementIncompleteConsumerProject / ...User */
    const char *incomplete_project;
    const char *incomplete_user;
    /* PlacementPolicy overrides: rule name -> check string */
    apr_table_t *policy;
    /* the same, compiled: rule name -> const pl_policy_expr_t * */
    apr_hash_t *policy_exprs;
    /* PlacementPolicyFile: the rules read from it (rule -> check), or
     * NULL; PlacementPolicy lines win over it */
    const char *policy_file;
    apr_table_t *policy_file_rules;
    /* the file's rules compiled (as policy_exprs), or NULL */
    apr_hash_t *policy_file_exprs;
    /* PlacementPolicyDir: oslo's policy_dirs, or NULL. The file and the
     * directory are re-read while the server runs (pl_authorize.c) */
    const char *policy_dir;
    /* PlacementPolicyEnforceScope, PlacementPolicyEnforceNewDefaults */
    int enforce_scope;
    int enforce_new_defaults;
    /* PlacementPolicyDefaults: PL_POLICY_DEFAULTS_* */
    int policy_defaults;

    /* CORS (oslo.middleware [cors]); no allowed origin: CORS off */
    apr_array_header_t *cors_origins; /* const char * */
    int cors_allow_credentials;
    apr_array_header_t *cors_expose_headers;
    int cors_max_age;
    apr_array_header_t *cors_allow_methods;
    apr_array_header_t *cors_allow_headers;

    /* Keystone ([keystone_authtoken]) */
    const char *ks_auth_url; /* as configured */
    const char *ks_v3_url;   /* the same, ending in /v3 */
    const char *ks_www_authenticate_uri;
    const char *ks_username;
    const char *ks_password;
    const char *ks_project_name;
    const char *ks_user_domain_name;
    const char *ks_project_domain_name;
    const char *ks_app_cred_id;
    const char *ks_app_cred_name;
    const char *ks_app_cred_secret;
    const char *ks_cafile;
    int ks_insecure;
    int ks_timeout;          /* seconds per call to Keystone */
    int ks_token_cache_time; /* seconds a validated token is kept */
    /* service_token_roles (NULL: "service"), service_token_roles_required */
    apr_array_header_t *ks_service_token_roles;
    int ks_service_token_roles_required;

    /* PlacementStandardTraitsFile: the names read from it at startup
     * (const char *), or NULL; inserted with the built-in list */
    const apr_array_header_t *std_traits;
} pl_dir_conf_t;

typedef enum {
    PL_POLICY_DEFAULTS_UNSET = -1,
    PL_POLICY_DEFAULTS_ZED = 0,    /* placement 8.0.0 */
    PL_POLICY_DEFAULTS_2023_1 = 1, /* placement 9.0.0's rules */
    PL_POLICY_DEFAULTS_2026_1 = 2  /* the same rules, as 2024.2 and later
                                    * enforce them: scope and new defaults
                                    * on by default */
} pl_policy_defaults_e;

extern const command_rec pl_cmds[];

void *pl_config_create_dir(apr_pool_t *p, char *dir);
void *pl_config_merge_dir(apr_pool_t *p, void *basev, void *addv);

int pl_config_auth(const pl_dir_conf_t *c);
int pl_config_conflict_retries(const pl_dir_conf_t *c);
int pl_config_randomize(const pl_dir_conf_t *c);
/** PlacementCoalesceCandidates: identical candidates requests arriving
 *  together share one computation (default On). */
int pl_config_coalesce(const pl_dir_conf_t *c);
int pl_config_max_candidates(const pl_dir_conf_t *c);
/** seconds a statement may run on the database server, 0 no limit
 *  (default 60) */
int pl_config_statement_timeout(const pl_dir_conf_t *c);
/** The largest request body a route takes: PlacementMaxBodySize if set,
 *  else the route's own (route_max) */
apr_size_t pl_config_max_body(const pl_dir_conf_t *c, apr_size_t route_max);
/** 0 depth-first, 1 breadth-first (the default) */
int pl_config_ac_strategy(const pl_dir_conf_t *c);
const char *pl_config_incomplete_project(const pl_dir_conf_t *c);
const char *pl_config_incomplete_user(const pl_dir_conf_t *c);
int pl_config_enforce_scope(const pl_dir_conf_t *c);
int pl_config_enforce_new_defaults(const pl_dir_conf_t *c);
int pl_config_policy_defaults(const pl_dir_conf_t *c);
int pl_config_cors_allow_credentials(const pl_dir_conf_t *c);
int pl_config_cors_max_age(const pl_dir_conf_t *c);
const apr_array_header_t *pl_config_cors_expose_headers(const pl_dir_conf_t *c);
const apr_array_header_t *pl_config_cors_allow_methods(const pl_dir_conf_t *c);
const apr_array_header_t *pl_config_cors_allow_headers(const pl_dir_conf_t *c);
int pl_config_ks_insecure(const pl_dir_conf_t *c);
int pl_config_ks_timeout(const pl_dir_conf_t *c);
int pl_config_ks_token_cache_time(const pl_dir_conf_t *c);
const apr_array_header_t *
pl_config_ks_service_token_roles(const pl_dir_conf_t *c);
int pl_config_ks_service_token_roles_required(const pl_dir_conf_t *c);
const char *pl_config_ks_www_authenticate_uri(const pl_dir_conf_t *c);

/* Settings of the whole server (server config only), one per process */

/** PlacementKeystoneMaxValidations: validations with Keystone in flight
 *  per child, or 0 when not set (pl_auth.c then takes half of
 *  ThreadsPerChild). */
int pl_config_keystone_max_validations(void);
/** PlacementMaxBodyMemory, in bytes: what the JSON bodies one child
 *  parses at once may cost together (pl_body_budget.c; default 512 MB). */
apr_uint64_t pl_config_max_body_memory(void);
/** PlacementCandidatesMemory, in bytes: what a child keeps of one
 *  allocation candidates request's memory for the next (pl_memory.c;
 *  default 32 MB). */
apr_size_t pl_config_candidates_memory(void);

#endif /* PL_CONFIG_H */
