/* Licensed under the Apache License, Version 2.0.
 *
 * pl_config.c: the Placement* directives (one per upstream option that
 * matters), their per-directory create/merge, and the getters that hold
 * the defaults. Setters validate and return the startup error text.
 */
#include <apr_strings.h>
#include <http_core.h>

#include "pl_private.h"
#include "pl_config.h"
#include "pl_uuid.h"
#include "pl_api.h"

#define ZERO_UUID "00000000-0000-0000-0000-000000000000"

void *pl_config_create_dir(apr_pool_t *p, char *dir)
{
    pl_dir_conf_t *c = apr_pcalloc(p, sizeof(*c));

    c->dir = dir;
    c->auth = PL_AUTH_UNSET;
    c->conflict_retries = -1;
    c->randomize = -1;
    c->max_candidates = -2;     /* -1 is a legal value: unlimited */
    c->policy = apr_table_make(p, 4);
    return c;
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
    MERGE_INT(max_candidates, -2);
    MERGE_PTR(incomplete_project);
    MERGE_PTR(incomplete_user);
    c->policy = apr_table_overlay(p, base->policy, add->policy);
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

int pl_config_max_candidates(const pl_dir_conf_t *c)
{
    return c->max_candidates == -2 ? -1 : c->max_candidates;
}

const char *pl_config_incomplete_project(const pl_dir_conf_t *c)
{
    return c->incomplete_project ? c->incomplete_project : ZERO_UUID;
}

const char *pl_config_incomplete_user(const pl_dir_conf_t *c)
{
    return c->incomplete_user ? c->incomplete_user : ZERO_UUID;
}

static const char *set_auth(cmd_parms *cmd, void *dc, const char *arg)
{
    pl_dir_conf_t *c = dc;

    if (!strcasecmp(arg, "noauth2")) {
        c->auth = PL_AUTH_NOAUTH2;
        return NULL;
    }
    if (!strcasecmp(arg, "keystone")) {
        /* TODO(issue 5): validate tokens against Keystone. Refusing to
         * start is safer than serving without authentication. */
        return "PlacementAuthStrategy keystone is not supported yet; "
               "use noauth2 behind an authenticating front end";
    }
    return apr_psprintf(cmd->pool, "PlacementAuthStrategy: unknown "
                        "strategy '%s' (noauth2 or keystone)", arg);
}

static const char *set_int(cmd_parms *cmd, void *dc, const char *arg)
{
    pl_dir_conf_t *c = dc;
    int min = cmd->info == (void *)1 ? -1 : 0;
    char *end;
    long v = strtol(arg, &end, 10);

    if (*arg == '\0' || *end != '\0' || v < min || v > 1000000000L) {
        return apr_psprintf(cmd->pool, "%s: '%s' is not a whole number "
                            "from %d to 1000000000", cmd->cmd->name, arg,
                            min);
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
        return apr_psprintf(cmd->pool, "%s: '%s' is not a UUID",
                            cmd->cmd->name, arg);
    }
    if (cmd->info == (void *)1) {
        c->incomplete_user = norm;
    }
    else {
        c->incomplete_project = norm;
    }
    return NULL;
}

static const char *set_policy(cmd_parms *cmd, void *dc, const char *rule,
                              const char *check)
{
    pl_dir_conf_t *c = dc;
    const char *err = pl_policy_validate_rule(rule, check);

    if (err) {
        return apr_psprintf(cmd->pool, "PlacementPolicy: %s", err);
    }
    apr_table_set(c->policy, rule, check);
    return NULL;
}

const command_rec pl_cmds[] = {
    AP_INIT_TAKE1("PlacementAuthStrategy", set_auth, NULL,
                  RSRC_CONF | ACCESS_CONF,
                  "noauth2|keystone: how callers are identified "
                  "(default noauth2)"),
    AP_INIT_TAKE1("PlacementAllocationConflictRetryCount", set_int,
                  (void *)0, RSRC_CONF | ACCESS_CONF,
                  "N: server-side retries of an allocation write on a "
                  "provider generation conflict (default 10)"),
    AP_INIT_FLAG("PlacementRandomizeCandidates", ap_set_flag_slot,
                 (void *)APR_OFFSETOF(pl_dir_conf_t, randomize),
                 RSRC_CONF | ACCESS_CONF,
                 "On|Off: sample allocation candidates randomly when "
                 "limiting them (default Off)"),
    AP_INIT_TAKE1("PlacementMaxAllocationCandidates", set_int, (void *)1,
                  RSRC_CONF | ACCESS_CONF,
                  "N: most allocation candidates generated per request, "
                  "-1 for no limit (default -1)"),
    AP_INIT_TAKE1("PlacementIncompleteConsumerProject", set_uuid, (void *)0,
                  RSRC_CONF | ACCESS_CONF,
                  "UUID: project of consumers written before 1.8 "
                  "(default all zeros)"),
    AP_INIT_TAKE1("PlacementIncompleteConsumerUser", set_uuid, (void *)1,
                  RSRC_CONF | ACCESS_CONF,
                  "UUID: user of consumers written before 1.8 "
                  "(default all zeros)"),
    AP_INIT_TAKE2("PlacementPolicy", set_policy, NULL,
                  RSRC_CONF | ACCESS_CONF,
                  "RULE CHECK: override one policy rule, e.g. "
                  "PlacementPolicy placement:usages \"role:admin\""),
    { NULL }
};
