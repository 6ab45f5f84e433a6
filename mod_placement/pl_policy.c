/* Licensed under the Apache License, Version 2.0.
 *
 * pl_policy.c: the policy rules of placement 8.0.0 and a small evaluator
 * of oslo.policy check strings ("role:x", "system_scope:all",
 * "project_id:%(project_id)s", "rule:name", "@", "!", and/or/not,
 * parentheses).
 *
 * The defaults are the rules as they act in Zed with enforce_new_defaults
 * and enforce_scope off: every API rule is its new default OR the
 * deprecated "role:admin". A PlacementPolicy directive replaces one rule.
 */
#include <string.h>
#include <ctype.h>
#include <apr_strings.h>

#include "pl_private.h"
#include "pl_api.h"
#include "pl_policy.h"

typedef struct {
    const char *name;
    const char *check;
} rule_t;

#define ADMIN_OR(new) "role:admin or " new
#define SYS_ADMIN ADMIN_OR("rule:system_admin_api")
#define SYS_READER ADMIN_OR("rule:system_reader_api")

static const rule_t rules[] = {
    /* base rules */
    { "admin_api",                 "role:admin" },
    { "system_admin_api",          "role:admin and system_scope:all" },
    { "system_reader_api",         "role:reader and system_scope:all" },
    { "project_reader_api",        "role:reader and project_id:%(project_id)s" },
    { "system_or_project_reader",
      "rule:system_reader_api or rule:project_reader_api" },
    /* API rules */
    { "placement:resource_providers:list",              SYS_READER },
    { "placement:resource_providers:create",            SYS_ADMIN },
    { "placement:resource_providers:show",              SYS_READER },
    { "placement:resource_providers:update",            SYS_ADMIN },
    { "placement:resource_providers:delete",            SYS_ADMIN },
    { "placement:resource_providers:aggregates:list",   SYS_READER },
    { "placement:resource_providers:aggregates:update", SYS_ADMIN },
    { "placement:resource_providers:allocations:list",  SYS_READER },
    { "placement:resource_providers:inventories:list",  SYS_READER },
    { "placement:resource_providers:inventories:create", SYS_ADMIN },
    { "placement:resource_providers:inventories:show",  SYS_READER },
    { "placement:resource_providers:inventories:update", SYS_ADMIN },
    { "placement:resource_providers:inventories:delete", SYS_ADMIN },
    { "placement:resource_providers:traits:list",       SYS_READER },
    { "placement:resource_providers:traits:update",     SYS_ADMIN },
    { "placement:resource_providers:traits:delete",     SYS_ADMIN },
    { "placement:resource_providers:usages",            SYS_READER },
    { "placement:allocations:manage",                   SYS_ADMIN },
    { "placement:allocations:list",                     SYS_READER },
    { "placement:allocations:update",                   SYS_ADMIN },
    { "placement:allocations:delete",                   SYS_ADMIN },
    { "placement:allocation_candidates:list",           SYS_READER },
    { "placement:reshaper:reshape",                     SYS_ADMIN },
    { "placement:resource_classes:list",                SYS_READER },
    { "placement:resource_classes:create",              SYS_ADMIN },
    { "placement:resource_classes:show",                SYS_READER },
    { "placement:resource_classes:update",              SYS_ADMIN },
    { "placement:resource_classes:delete",              SYS_ADMIN },
    { "placement:traits:list",                          SYS_READER },
    { "placement:traits:show",                          SYS_READER },
    { "placement:traits:update",                        SYS_ADMIN },
    { "placement:traits:delete",                        SYS_ADMIN },
    { "placement:usages",
      ADMIN_OR("rule:system_or_project_reader") },
    { NULL, NULL }
};

typedef struct {
    const pl_req_t *req;
    const char *target_project;
    const char *s;              /* cursor in the check string */
    int depth;                  /* rule: nesting, against loops */
    int error;
} eval_t;

static const char *rule_check(const pl_req_t *req, const char *name)
{
    const char *over = req ? apr_table_get(req->conf->policy, name) : NULL;
    const rule_t *r;

    if (over) {
        return over;
    }
    for (r = rules; r->name; r++) {
        if (!strcmp(r->name, name)) {
            return r->check;
        }
    }
    return NULL;
}

static int eval_or(eval_t *ev);

static void skip_ws(eval_t *ev)
{
    while (isspace((unsigned char)*ev->s)) {
        ev->s++;
    }
}

/* Read one token: a parenthesis or a run up to space/parenthesis. */
static const char *token(eval_t *ev, apr_pool_t *p)
{
    const char *start;

    skip_ws(ev);
    start = ev->s;
    if (*ev->s == '(' || *ev->s == ')') {
        ev->s++;
    }
    else {
        /* as oslo.policy: split on blanks, then peel parentheses off the
         * ends, so "project_id:%(project_id)s" stays one token */
        while (*ev->s && !isspace((unsigned char)*ev->s)) {
            ev->s++;
        }
        while (ev->s > start + 1 && ev->s[-1] == ')') {
            ev->s--;
        }
    }
    return apr_pstrmemdup(p, start, ev->s - start);
}

static int has_role(const pl_req_t *req, const char *role)
{
    int i;

    for (i = 0; req->roles && i < req->roles->nelts; i++) {
        if (!strcasecmp(APR_ARRAY_IDX(req->roles, i, const char *), role)) {
            return 1;
        }
    }
    return 0;
}

static int eval_atom(eval_t *ev, const char *tok)
{
    const pl_req_t *req = ev->req;
    const char *colon = strchr(tok, ':');
    const char *kind, *val;

    if (!strcmp(tok, "@")) {
        return 1;
    }
    if (!strcmp(tok, "!")) {
        return 0;
    }
    if (colon == NULL) {
        ev->error = 1;
        return 0;
    }
    kind = apr_pstrmemdup(req->pool, tok, colon - tok);
    val = colon + 1;
    if (!strcmp(kind, "role")) {
        return has_role(req, val);
    }
    if (!strcmp(kind, "system_scope")) {
        return req->system_scope_all && !strcmp(val, "all");
    }
    if (!strcmp(kind, "project_id") || !strcmp(kind, "user_id")) {
        const char *mine = kind[0] == 'p' ? req->project_id : req->user_id;
        const char *want = val;

        if (!strcmp(val, "%(project_id)s")) {
            want = ev->target_project ? ev->target_project : req->project_id;
        }
        else if (!strcmp(val, "%(user_id)s")) {
            want = req->user_id;
        }
        return mine && want && !strcmp(mine, want);
    }
    if (!strcmp(kind, "rule")) {
        const char *check = rule_check(req, val);
        eval_t sub = *ev;
        int ok;

        if (check == NULL || ev->depth > 8) {
            return 0;
        }
        sub.s = check;
        sub.depth++;
        ok = eval_or(&sub);
        ev->error |= sub.error;
        return ok;
    }
    ev->error = 1;
    return 0;
}

static int eval_not(eval_t *ev)
{
    const char *save = ev->s;
    const char *tok = token(ev, ev->req->pool);

    if (!strcmp(tok, "not")) {
        return !eval_not(ev);
    }
    if (!strcmp(tok, "(")) {
        int v = eval_or(ev);

        if (strcmp(token(ev, ev->req->pool), ")")) {
            ev->error = 1;
        }
        return v;
    }
    if (*tok == '\0' || !strcmp(tok, ")")) {
        ev->s = save;
        ev->error = 1;
        return 0;
    }
    return eval_atom(ev, tok);
}

static int eval_and(eval_t *ev)
{
    int v = eval_not(ev);

    for (;;) {
        const char *save = ev->s;

        if (strcmp(token(ev, ev->req->pool), "and")) {
            ev->s = save;
            return v;
        }
        v = eval_not(ev) && v;
    }
}

static int eval_or(eval_t *ev)
{
    int v = eval_and(ev);

    for (;;) {
        const char *save = ev->s;

        if (strcmp(token(ev, ev->req->pool), "or")) {
            ev->s = save;
            return v;
        }
        v = eval_and(ev) || v;
    }
}

int pl_policy_check(pl_req_t *req, const char *rule,
                    const char *target_project)
{
    eval_t ev = { 0 };
    const char *check = rule_check(req, rule);

    ev.req = req;
    ev.target_project = target_project;
    ev.s = check ? check : "!";
    if (eval_or(&ev) && !ev.error) {
        return 0;
    }
    return pl_err(req, HTTP_FORBIDDEN, NULL,
                  "Policy does not allow %s to be performed.", rule);
}

const char *pl_policy_validate_rule(const char *rule, const char *check)
{
    if (rule_check(NULL, rule) == NULL) {
        return "unknown rule (see docs/directives.md for the list)";
    }
    if (check == NULL || *check == '\0') {
        return "empty check";
    }
    return NULL;
}
