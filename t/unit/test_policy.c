/* Licensed under the Apache License, Version 2.0.
 *
 * test_policy.c: the policy engine without httpd. Check strings compiled
 * and refused (pl_policy_compile), evaluated against credentials and a
 * target as oslo.policy 4.0.0 would; rules looked up as its Enforcer does
 * (policy file, PlacementPolicy, deprecated rules, enforce_new_defaults,
 * enforce_scope, the "default" rule, loops) for the defaults of
 * placement 8.0.0 and 9.0.0; and policy files read (pl_policy_file_read)
 * from good and bad YAML and JSON.
 */
#include <stdio.h>
#include <string.h>
#include <stdlib.h>

#include <apr_general.h>
#include <apr_strings.h>
#include <apr_file_io.h>

#include "pl_policy.h"
#include "tap.h"

static apr_pool_t *pool;
static const char *tmpdir;

/* ---- a caller ---- */

typedef struct {
    const char *user;
    const char *project; /* NULL: none */
    const char *domain;
    const char *roles; /* comma-separated */
    int system;        /* system-scoped (system_scope: all) */
} who_t;

/* Credentials as pl_policy.c builds them (oslo.context's keys). */
static int creds_for(const who_t *w, pl_policy_attr_t *c)
{
    apr_array_header_t *roles = apr_array_make(pool, 4, sizeof(char *));
    char *list = apr_pstrdup(pool, w->roles ? w->roles : ""), *r, *st;
    int n = 0;

    for (r = apr_strtok(list, ",", &st); r; r = apr_strtok(NULL, ",", &st)) {
        APR_ARRAY_PUSH(roles, const char *) = r;
    }
    memset(c, 0, 8 * sizeof(*c));
    c[n].key = "user_id", c[n++].value = w->user;
    c[n].key = "project_id", c[n++].value = w->project;
    c[n].key = "domain_id", c[n++].value = w->domain;
    c[n].key = "system_scope", c[n++].value = w->system ? "all" : NULL;
    c[n].key = "roles", c[n++].list = roles;
    c[n].key = "is_admin_project", c[n++].value = "True";
    if (w->system) {
        c[n].key = "system", c[n++].value = "all";
    }
    return n;
}

/* ---- evaluating a single check string ---- */

static apr_hash_t *named; /* rule: references of eval_check */

static const pl_policy_expr_t *resolve_named(void *ctx, const char *name,
                                             const char **pcanon)
{
    *pcanon = name;
    return apr_hash_get(named, name, APR_HASH_KEY_STRING);
}

/* 1 / 0, or -1 when the string does not compile; target project tp
 * ("-": no project_id key in the target, NULL: None) */
static int eval_check(const char *check, const who_t *w, const char *tp)
{
    pl_policy_attr_t creds[8], target[2];
    pl_policy_eval_t ev;
    const pl_policy_expr_t *e;
    const char *err;

    if (pl_policy_compile(pool, check, &e, &err) != APR_SUCCESS) {
        return -1;
    }
    memset(&ev, 0, sizeof(ev));
    memset(target, 0, sizeof(target));
    ev.creds = creds;
    ev.ncreds = creds_for(w, creds);
    target[0].key = "user_id";
    target[0].value = w->user;
    target[1].key = "project_id";
    target[1].value = tp;
    ev.target = target;
    ev.ntarget = tp && !strcmp(tp, "-") ? 1 : 2;
    ev.resolve = resolve_named;
    return pl_policy_eval(&ev, e);
}

static const char *compile_err(const char *check)
{
    const pl_policy_expr_t *e;
    const char *err = NULL;

    if (pl_policy_compile(pool, check, &e, &err) == APR_SUCCESS) {
        return NULL;
    }
    return err;
}

static void test_syntax(void)
{
    static const char *good[] = {
        "",
        "@",
        "!",
        "role:admin",
        "ROLE:x",
        "rule:a",
        "not @",
        "role:a and role:b or role:c",
        "(role:a or role:b) and not role:c",
        "((role:a))",
        "project_id:%(project_id)s",
        "(project_id:%(project_id)s)",
        "user_id:%(user_id)s and @",
        "True:%(x)s",
        "'member':%(role)s",
        "\"x\":y",
        "42:%(n)s",
        "-1:x",
        "None:%(x)s",
        "roles:admin",
        "a.b:c",
        "x:50%%",
        "role:%(r)s",
        "project_id:",
        "role:a AND role:b OR NOT role:c",
        "not not @",
        "@ and ! or @",
        "  role:a  ",
    };
    static const struct {
        const char *check;
        const char *err; /* a piece of the message */
    } bad[] = {
        { "   ", "only blanks" },
        { "role", "'role' is not a check" },
        { ":x", "':x' is not a check" },
        { "(role:a", "'(' without its ')'" },
        { "role:a)", "')' without its '('" },
        { "role:a role:b", "'role:b' follows a check" },
        { "and role:a", "'and' where a check should be" },
        { "role:a and", "a check is missing at the end" },
        { "role:a or ()", "')' where a check should be" },
        { "not", "a check is missing" },
        { "\"role:a\"", "quoted \"role:a\"" },
        { "http://example.com/check", "not supported" },
        { "https:x", "not supported" },
        { "rule:", "without a rule name" },
        { "role:", "without a role name" },
        { "project_id:%(project_id)d", "a % must start %(name)s" },
        { "role:50%", "a % must start" },
        { "x:%(unclosed", "a % must start" },
        { "1abc:x", "neither a credential name nor a literal" },
        { "'a'b':x", "neither" },
        { "007:x", "neither" },
    };
    char deep[400];
    apr_size_t i;

    tap_note("check strings that compile, and those that do not");
    for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
        TAP_IS_STR(compile_err(good[i]), NULL, "compiles: %s", good[i]);
    }
    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        const char *err = compile_err(bad[i].check);

        TAP_OK(err && strstr(err, bad[i].err), "refused: %s (%s)", bad[i].check,
               err ? err : "compiled");
    }
    memset(deep, '(', 100);
    strcpy(deep + 100, "@");
    memset(deep + 101, ')', 100);
    deep[201] = '\0';
    TAP_OK(compile_err(deep) && strstr(compile_err(deep), "too deeply"),
           "100 nested parentheses are refused");
}

static void test_eval(void)
{
    who_t admin = { "u", "p1", NULL, "admin", 0 };
    who_t reader = { "u", "p1", NULL, "Reader", 0 };
    who_t sysread = { "u", NULL, NULL, "reader", 1 };
    who_t b = { "u", "p1", NULL, "b", 0 };
    who_t bc = { "u", "p1", NULL, "b,c", 0 };
    who_t a = { "u", "p1", NULL, "a", 0 };
    who_t none = { "u", "p1", NULL, NULL, 0 };

    tap_note("evaluation");
    TAP_IS_INT(eval_check("", &none, "p1"), 1, "\"\" allows anyone");
    TAP_IS_INT(eval_check("@", &none, "p1"), 1, "@ allows");
    TAP_IS_INT(eval_check("!", &admin, "p1"), 0, "! refuses");
    TAP_IS_INT(eval_check("role:admin", &admin, "p1"), 1, "role:admin");
    TAP_IS_INT(eval_check("role:ADMIN", &admin, "p1"), 1,
               "role names ignore case");
    TAP_IS_INT(eval_check("role:reader", &reader, "p1"), 1,
               "role names ignore case (held as Reader)");
    TAP_IS_INT(eval_check("roles:reader", &reader, "p1"), 0,
               "a generic roles: check is case-sensitive");
    TAP_IS_INT(eval_check("roles:Reader", &reader, "p1"), 1,
               "a generic roles: check matches one element");
    TAP_IS_INT(eval_check("role:admin", &none, "p1"), 0, "no roles");
    /* and binds tighter than or */
    TAP_IS_INT(eval_check("role:a or role:b and role:c", &a, "p1"), 1,
               "a or (b and c): a");
    TAP_IS_INT(eval_check("role:a or role:b and role:c", &b, "p1"), 0,
               "a or (b and c): b");
    TAP_IS_INT(eval_check("role:a or role:b and role:c", &bc, "p1"), 1,
               "a or (b and c): b,c");
    TAP_IS_INT(eval_check("(role:a or role:b) and role:c", &b, "p1"), 0,
               "(a or b) and c: b");
    TAP_IS_INT(eval_check("not role:a and role:b", &b, "p1"), 1,
               "(not a) and b");
    TAP_IS_INT(eval_check("not (role:b or role:a)", &b, "p1"), 0,
               "not (b or a)");
    TAP_IS_INT(eval_check("role:b AND NOT role:c", &b, "p1"), 1,
               "operators in capitals");
    /* generic checks and the target */
    TAP_IS_INT(eval_check("project_id:%(project_id)s", &reader, "p1"), 1,
               "own project");
    TAP_IS_INT(eval_check("project_id:%(project_id)s", &reader, "p2"), 0,
               "other project");
    TAP_IS_INT(eval_check("project_id:%(project_id)s", &reader, "-"), 0,
               "target without project_id: no");
    TAP_IS_INT(eval_check("project_id:%(project_id)s", &sysread, NULL), 1,
               "None == None, as str(None) on both sides");
    TAP_IS_INT(eval_check("project_id:None", &sysread, "p1"), 1,
               "a None credential is \"None\"");
    TAP_IS_INT(eval_check("user_id:%(user_id)s", &reader, "p1"), 1,
               "user_id from the target");
    TAP_IS_INT(eval_check("system_scope:all", &sysread, "p1"), 1,
               "system_scope:all");
    TAP_IS_INT(eval_check("system_scope:all", &reader, "p1"), 0,
               "project token: not system_scope:all");
    TAP_IS_INT(eval_check("system:all", &sysread, "p1"), 1,
               "oslo's system key");
    TAP_IS_INT(eval_check("system:None", &reader, "p1"), 0,
               "no system key for a project token");
    TAP_IS_INT(eval_check("is_admin_project:True", &reader, "p1"), 1,
               "is_admin_project:True");
    TAP_IS_INT(eval_check("nosuch:x", &reader, "p1"), 0, "unknown credential");
    TAP_IS_INT(eval_check("project_id.x:p1", &reader, "p1"), 0,
               "a dotted path into a string");
    TAP_IS_INT(eval_check("'p1':%(project_id)s", &none, "p1"), 1,
               "a quoted literal on the left");
    TAP_IS_INT(eval_check("None:%(project_id)s", &none, NULL), 1,
               "None on the left");
    TAP_IS_INT(eval_check("+7:7", &none, NULL), 1, "str(+7) is 7");
    TAP_IS_INT(eval_check("project_id:p%(x)s", &reader, "p1"), 0,
               "%(x)s missing from the target: no");
    TAP_IS_INT(eval_check("role:%(project_id)s", &b, "b"), 1,
               "role: takes %(name)s from the target too");
    TAP_IS_INT(eval_check("project_id:p%%1", &reader, "p1"), 0,
               "%% is a percent sign (p%1 is not p1)");
    /* rule: references */
    named = apr_hash_make(pool);
    TAP_IS_INT(eval_check("rule:nosuch", &admin, "p1"), 0,
               "an unknown rule fails closed");
    TAP_IS_INT(eval_check("not rule:nosuch", &admin, "p1"), 1,
               "... and not of it is true, as in oslo");
}

/* ---- the Enforcer ---- */

static const pl_policy_builtin_t *zed, *antelope;

static apr_hash_t *rules_of(const char *const *pairs)
{
    apr_hash_t *h = apr_hash_make(pool);
    const pl_policy_expr_t *e;
    const char *err;

    for (; pairs && pairs[0]; pairs += 2) {
        if (pl_policy_compile(pool, pairs[1], &e, &err)) {
            TAP_OK(0, "test rule %s compiles: %s", pairs[0], err);
            continue;
        }
        apr_hash_set(h, pairs[0], APR_HASH_KEY_STRING, e);
    }
    return h;
}

/* the decision for rule, with target project tp (NULL: the caller's) */
static int decide(const pl_policy_t *pol, const char *rule, const who_t *w,
                  const char *tp)
{
    pl_policy_attr_t creds[8], target[2];

    memset(target, 0, sizeof(target));
    target[0].key = "project_id";
    target[0].value = tp ? tp : w->project;
    target[1].key = "user_id";
    target[1].value = w->user;
    return pl_policy_enforce(pol, rule, creds, creds_for(w, creds), target,
                             tp ? 1 : 2, NULL);
}

#define RP_LIST "placement:resource_providers:list"
#define RP_CREATE "placement:resource_providers:create"
#define USAGES "placement:usages"
#define RESHAPE "placement:reshaper:reshape"

static const who_t legacy_admin = { "admin", "admin", NULL, "admin", 0 };
static const who_t sys_admin = { "u", NULL, NULL, "admin,member,reader", 1 };
static const who_t sys_reader = { "u", NULL, NULL, "reader", 1 };
static const who_t prj_admin = { "u", "p1", NULL, "admin,member,reader", 0 };
static const who_t prj_member = { "u", "p1", NULL, "member,reader", 0 };
static const who_t prj_reader = { "u", "p1", NULL, "reader", 0 };
static const who_t dom_admin = { "u", NULL, "d1", "admin", 0 };
static const who_t service = { "nova", "svc", NULL, "service", 0 };
static const who_t nobody = { "user", "user", NULL, NULL, 0 };

static void test_zed(void)
{
    pl_policy_t pol = { zed, NULL, NULL, 0, 0 };

    tap_note("placement 8.0.0 defaults");
    TAP_IS_INT(decide(&pol, RP_LIST, &legacy_admin, NULL), PL_POLICY_ALLOW,
               "legacy: role admin lists providers (deprecated rule)");
    TAP_IS_INT(decide(&pol, RP_CREATE, &prj_admin, NULL), PL_POLICY_ALLOW,
               "legacy: a project admin creates providers");
    TAP_IS_INT(decide(&pol, RP_LIST, &nobody, NULL), PL_POLICY_DENY,
               "legacy: no role, no list");
    TAP_IS_INT(decide(&pol, RP_LIST, &sys_reader, NULL), PL_POLICY_ALLOW,
               "legacy: a system reader lists (new default)");
    TAP_IS_INT(decide(&pol, RP_CREATE, &sys_reader, NULL), PL_POLICY_DENY,
               "legacy: a system reader does not create");
    TAP_IS_INT(decide(&pol, USAGES, &prj_reader, NULL), PL_POLICY_ALLOW,
               "legacy: a project reader sees its usages");
    TAP_IS_INT(decide(&pol, USAGES, &prj_reader, "p2"), PL_POLICY_DENY,
               "legacy: not another project's");
    TAP_IS_INT(decide(&pol, "placement:nosuch", &legacy_admin, NULL),
               PL_POLICY_DENY, "an unknown rule fails closed");

    pol.enforce_new_defaults = 1;
    TAP_IS_INT(decide(&pol, RP_LIST, &legacy_admin, NULL), PL_POLICY_DENY,
               "new defaults: a project admin no longer lists");
    TAP_IS_INT(decide(&pol, RP_CREATE, &sys_admin, NULL), PL_POLICY_ALLOW,
               "new defaults: a system admin creates");
    TAP_IS_INT(decide(&pol, RP_CREATE, &sys_reader, NULL), PL_POLICY_DENY,
               "new defaults: a system reader does not create");
    TAP_IS_INT(decide(&pol, RP_LIST, &sys_reader, NULL), PL_POLICY_ALLOW,
               "new defaults: a system reader lists");
    TAP_IS_INT(decide(&pol, USAGES, &prj_reader, NULL), PL_POLICY_ALLOW,
               "new defaults: a project reader sees its usages");

    pol.enforce_scope = 1;
    TAP_IS_INT(decide(&pol, RP_LIST, &prj_admin, NULL), PL_POLICY_BAD_SCOPE,
               "scope: project token, system rule");
    TAP_IS_INT(decide(&pol, RP_LIST, &dom_admin, NULL), PL_POLICY_BAD_SCOPE,
               "scope: domain token, system rule");
    TAP_IS_INT(decide(&pol, USAGES, &prj_reader, NULL), PL_POLICY_ALLOW,
               "scope: usages take project tokens");
    TAP_IS_INT(decide(&pol, USAGES, &dom_admin, NULL), PL_POLICY_BAD_SCOPE,
               "scope: usages refuse domain tokens");
    TAP_IS_INT(decide(&pol, RP_LIST, &sys_reader, NULL), PL_POLICY_ALLOW,
               "scope: a system reader lists");

    pol.enforce_new_defaults = 0;
    TAP_IS_INT(decide(&pol, RP_LIST, &prj_admin, NULL), PL_POLICY_BAD_SCOPE,
               "scope without new defaults: still the scope");
    pol.enforce_scope = 0;
    TAP_IS_INT(decide(&pol, RP_LIST, &dom_admin, NULL), PL_POLICY_ALLOW,
               "scope off: a domain admin passes role:admin");
}

static void test_overrides(void)
{
    static const char *const file1[] = {
        USAGES,          "role:auditor", "system_reader_api",
        "role:observer", "helper",       "role:helper",
        RP_CREATE,       "rule:helper",  NULL
    };
    static const char *const directive1[] = { USAGES, "role:boss", NULL };
    static const char *const dep1[] = { "rule:admin_api", "role:chief", NULL };
    static const char *const dep2[] = { "rule:admin_api",
                                        "rule:system_admin_api", NULL };
    static const char *const dflt[] = { "default", "role:fallback",
                                        "placement:traits:list", "rule:nosuch",
                                        NULL };
    static const char *const loop1[] = { USAGES, "rule:x or role:admin", NULL };
    static const char *const loop2[] = { "x", "rule:y", "y",
                                         "role:y or rule:" USAGES, NULL };
    static const char *const wide[] = {
        "a",     "rule:b or rule:b or rule:b or rule:b",
        "b",     "rule:c or rule:c or rule:c or rule:c",
        "c",     "rule:d or rule:d or rule:d or rule:d",
        "d",     "rule:a",
        RP_LIST, "rule:a",
        NULL
    };
    who_t auditor = { "u", "p1", NULL, "auditor", 0 };
    who_t observer = { "u", "p1", NULL, "observer", 0 };
    who_t helper = { "u", "p1", NULL, "helper", 0 };
    who_t boss = { "u", "p1", NULL, "boss", 0 };
    who_t chief = { "u", "p1", NULL, "chief", 0 };
    who_t fallback = { "u", "p1", NULL, "fallback", 0 };
    pl_policy_t pol = { zed, NULL, rules_of(file1), 0, 0 };
    const char *loop = NULL;
    pl_policy_attr_t creds[8];

    tap_note("the operator's rules");
    TAP_IS_INT(decide(&pol, USAGES, &auditor, NULL), PL_POLICY_ALLOW,
               "file: an overridden rule is used as written");
    TAP_IS_INT(decide(&pol, USAGES, &legacy_admin, NULL), PL_POLICY_DENY,
               "file: ... without the deprecated role:admin");
    TAP_IS_INT(decide(&pol, RP_LIST, &observer, NULL), PL_POLICY_ALLOW,
               "file: a base rule override reaches the API rules");
    TAP_IS_INT(decide(&pol, RP_LIST, &legacy_admin, NULL), PL_POLICY_DENY,
               "file: ... and role:admin no longer does");
    TAP_IS_INT(decide(&pol, RP_CREATE, &helper, NULL), PL_POLICY_ALLOW,
               "file: a rule placement does not know, through rule:");
    TAP_IS_INT(decide(&pol, "placement:traits:update", &legacy_admin, NULL),
               PL_POLICY_ALLOW, "file: untouched rules keep role:admin");

    pol.overrides = rules_of(directive1);
    TAP_IS_INT(decide(&pol, USAGES, &boss, NULL), PL_POLICY_ALLOW,
               "PlacementPolicy wins over the file");
    TAP_IS_INT(decide(&pol, USAGES, &auditor, NULL), PL_POLICY_DENY,
               "... entirely");

    pol.overrides = NULL;
    pol.file = rules_of(dep1);
    TAP_IS_INT(decide(&pol, RP_CREATE, &chief, NULL), PL_POLICY_ALLOW,
               "an override of the deprecated rule's name replaces the "
               "rules that deprecate it");
    TAP_IS_INT(decide(&pol, RP_CREATE, &legacy_admin, NULL), PL_POLICY_DENY,
               "... so role:admin no longer passes");
    pol.enforce_new_defaults = 1;
    TAP_IS_INT(decide(&pol, RP_CREATE, &chief, NULL), PL_POLICY_ALLOW,
               "... even with enforce_new_defaults");
    pol.enforce_new_defaults = 0;
    pol.file = rules_of(dep2);
    TAP_IS_INT(decide(&pol, RP_CREATE, &legacy_admin, NULL), PL_POLICY_ALLOW,
               "unless it only points at the new rule");

    pol.file = rules_of(dflt);
    TAP_IS_INT(decide(&pol, "placement:traits:list", &fallback, NULL),
               PL_POLICY_ALLOW, "an unknown rule: is the default rule");
    TAP_IS_INT(decide(&pol, "placement:traits:list", &legacy_admin, NULL),
               PL_POLICY_DENY, "... only");

    tap_note("loops");
    pol.overrides = rules_of(loop1);
    pol.file = rules_of(loop2);
    TAP_IS_INT(pl_policy_enforce(&pol, USAGES, creds,
                                 creds_for(&legacy_admin, creds), NULL, 0,
                                 &loop),
               PL_POLICY_LOOP, "a loop through directive and file");
    TAP_OK(loop != NULL, "... names where (%s)", loop ? loop : "none");
    loop = pl_policy_find_loop(pool, &pol);
    TAP_OK(loop && strstr(loop, "x -> y -> "), "find_loop: %s",
           loop ? loop : "none");
    pol.overrides = NULL;
    TAP_IS_STR(pl_policy_find_loop(pool, &pol), NULL,
               "no loop once the directive is gone");
    pol.file = rules_of(wide);
    TAP_IS_INT(decide(&pol, RP_LIST, &nobody, NULL), PL_POLICY_LOOP,
               "a wide loop ends at once (not 4^n evaluations)");
    pol.file = NULL;
    TAP_IS_STR(pl_policy_find_loop(pool, &pol), NULL,
               "the defaults have no loop");
}

static void test_2023(void)
{
    pl_policy_t pol = { antelope, NULL, NULL, 0, 0 };

    tap_note("placement 9.0.0 (2023.1) defaults");
    TAP_IS_INT(decide(&pol, RP_CREATE, &service, NULL), PL_POLICY_ALLOW,
               "the service role creates providers");
    TAP_IS_INT(decide(&pol, RP_CREATE, &prj_admin, NULL), PL_POLICY_ALLOW,
               "a project admin creates providers");
    TAP_IS_INT(decide(&pol, RP_LIST, &prj_member, NULL), PL_POLICY_DENY,
               "a member does not list providers");
    TAP_IS_INT(decide(&pol, USAGES, &prj_reader, NULL), PL_POLICY_ALLOW,
               "a project reader sees its usages");
    TAP_IS_INT(decide(&pol, USAGES, &prj_reader, "p2"), PL_POLICY_DENY,
               "... not another project's");
    TAP_IS_INT(decide(&pol, USAGES, &prj_admin, "p2"), PL_POLICY_ALLOW,
               "an admin sees any project's usages");
    TAP_IS_INT(decide(&pol, RESHAPE, &service, NULL), PL_POLICY_ALLOW,
               "the service role reshapes");
    TAP_IS_INT(decide(&pol, RESHAPE, &prj_admin, NULL), PL_POLICY_ALLOW,
               "an admin reshapes through the deprecated role:admin");
    pol.enforce_new_defaults = 1;
    TAP_IS_INT(decide(&pol, RESHAPE, &prj_admin, NULL), PL_POLICY_DENY,
               "new defaults: the reshaper is the service's alone");
    TAP_IS_INT(decide(&pol, RESHAPE, &service, NULL), PL_POLICY_ALLOW,
               "new defaults: the service reshapes");
    TAP_IS_INT(decide(&pol, RP_LIST, &prj_admin, NULL), PL_POLICY_ALLOW,
               "new defaults: admin still lists");
    pol.enforce_scope = 1;
    TAP_IS_INT(decide(&pol, RP_LIST, &sys_admin, NULL), PL_POLICY_BAD_SCOPE,
               "scope: a system token is refused");
    TAP_IS_INT(decide(&pol, USAGES, &prj_reader, NULL), PL_POLICY_ALLOW,
               "scope: a project reader's usages");
}

/* ---- policy files ---- */

static const char *write_file(const char *name, const char *text)
{
    const char *path = apr_pstrcat(pool, tmpdir, "/", name, NULL);
    FILE *f = fopen(path, "w");

    if (f) {
        fputs(text, f);
        fclose(f);
    }
    return path;
}

/* NULL when the file reads, else the error text */
static const char *read_err(const char *name, const char *text,
                            apr_table_t **prules)
{
    apr_table_t *rules = NULL;
    apr_hash_t *exprs = NULL;
    const char *err = NULL;

    if (pl_policy_file_read(pool, write_file(name, text), &rules, &exprs,
                            &err) == APR_SUCCESS) {
        if (prules) {
            *prules = rules;
        }
        return NULL;
    }
    return err;
}

static void test_files(void)
{
    static const struct {
        const char *name, *text;
        int nrules;
    } good[] = {
        { "sample.yaml",
          "# placement policy (oslopolicy-sample-generator style)\n"
          "\n# List resource providers.\n"
          "# GET  /resource_providers\n"
          "#\"placement:resource_providers:list\": \"rule:x\"\n"
          "\"placement:usages\": \"role:admin or (role:reader and "
          "project_id:%(project_id)s)\"\n"
          "'admin_api': 'role:admin'\n"
          "plain: role:x and not role:y\n"
          "empty: \"\"\n",
          4 },
        { "policy.json",
          "{\n  \"placement:usages\": \"@\",\n"
          "  \"placement:traits:list\": \"role:admin\"\n}\n",
          2 },
        { "empty.yaml", "", 0 },
        { "comments.yaml", "# nothing here\n", 0 },
        { "dashes.yaml", "---\n", 0 },
        { "null.yaml", "~\n", 0 },
        { "braces.json", "{}", 0 },
        { "anchor.yaml", "a: &r role:admin\nb: *r\n", 2 },
        { "tagged.yaml", "!!str 12: '@'\n'13': '@'\n!!str yes: '@'\n", 3 },
        { "comma.json", "{\"a\": \"@\",}\n", 1 },
        { "unknown.yaml", "my_helper: role:x\n", 1 },
        { "ends.yaml", "a: '@'\n...\n", 1 },
    };
    static const struct {
        const char *name, *text, *err;
    } bad[] = {
        { "list.yaml", "- role:admin\n",
          ":1: the policy must be a mapping"
          " of rule names to check strings, not a list" },
        { "string.yaml", "role:admin\n", "not a string" },
        { "number.yaml", "12\n", "not a number" },
        { "bool.yaml", "a: '@'\nb: yes\n",
          ":2: the check of rule \"b\" "
          "must be a string, not a boolean" },
        { "int.yaml", "a: 12\n", "must be a string, not a number" },
        { "float.yaml", "a: 1.5\n", "not a number" },
        { "null-value.yaml", "a:\n", "must be a string, not null" },
        { "tilde.yaml", "a: ~\n", "not null" },
        { "date.yaml", "a: 2023-03-22\n", "not a date" },
        { "seq-value.yaml", "a:\n  - role:x\n", "not a list" },
        { "map-value.yaml", "a: {b: c}\n", "not a mapping" },
        { "int-key.yaml", "12: role:x\n",
          "a rule name must be a string, "
          "not a number" },
        { "bool-key.yaml", "true: role:x\n", "not a boolean" },
        { "map-key.yaml", "? {a: b}\n: role:x\n", "not a mapping" },
        { "merge.yaml", "a: &m role:x\n<<: role:y\n", "not a merge key" },
        { "tag.yaml", "a: !!int '1'\n", "not tagged" },
        { "bang.yaml", "a: ! yes\n", "not a boolean" },
        { "dup.yaml", "a: role:x\nb: role:y\n'a': role:z\n",
          ":3: rule \"a\" is given twice (first at line 1)" },
        { "dup.json", "{\"a\": \"@\",\n \"a\": \"!\"}\n", "given twice" },
        { "syntax.yaml", "a: role:x\nb: \"unclosed\n",
          ":3:1: YAML syntax "
          "error" },
        { "indent.yaml", "a: role:x\n  b: role:y\n",
          ":2:4: YAML syntax "
          "error: mapping values are not allowed" },
        { "indent2.yaml", "a:\n  - x\n b: y\n", "YAML syntax error" },
        { "tab.yaml", "a:\trole:x\n\tb: role:y\n", "YAML syntax error" },
        { "check.yaml", "a: '@'\nb: role:x and\n",
          ":2: rule \"b\": "
          "cannot parse \"role:x and\": a check is missing at the end" },
        { "check2.yaml", "b: \"project_id:%(x)d\"\n", ":1: rule \"b\"" },
        { "two.yaml", "a: '@'\n---\nb: '!'\n", ":2: a second YAML document" },
        { "loop.yaml", "a: '@'\nb: rule:c\nc: rule:b or role:x\n",
          "rules refer to each other in a loop" },
        { "self.yaml", "s: not rule:s\n",
          ":1: rules refer to each other "
          "in a loop: s -> s" },
        { "alias.yaml", "a: *nope\n", "not *nope, which is no string's" },
        { "alias2.yaml", "a: &m [x]\nb: *m\n", "not a list" },
        { "binary.yaml", "a: \"\\0\"\n", "NUL" },
    };
    apr_table_t *rules = NULL;
    const char *err, *path;
    apr_size_t i;

    tap_note("policy files");
    for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
        err = read_err(good[i].name, good[i].text, &rules);
        TAP_IS_STR(err, NULL, "reads %s", good[i].name);
        TAP_IS_INT(err ? -1 : apr_table_elts(rules)->nelts, good[i].nrules,
                   "%s: %d rules", good[i].name, good[i].nrules);
    }
    err = read_err("sample.yaml", good[0].text, &rules);
    TAP_IS_STR(apr_table_get(rules, "plain"), "role:x and not role:y",
               "a plain scalar check");
    TAP_IS_STR(apr_table_get(rules, "empty"), "", "an empty check");
    TAP_IS_STR(apr_table_get(rules, "admin_api"), "role:admin",
               "a single-quoted key");
    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        err = read_err(bad[i].name, bad[i].text, NULL);
        TAP_OK(err && strstr(err, bad[i].err) && strstr(err, bad[i].name),
               "%s refused: %s", bad[i].name, err ? err : "(read)");
    }
    path = apr_pstrcat(pool, tmpdir, "/missing.yaml", NULL);
    TAP_OK(pl_policy_file_load(pool, path, &err) == NULL &&
               strstr(err, "missing.yaml: cannot read"),
           "a missing file: %s", err);
    TAP_OK(pl_policy_file_load(pool, tmpdir, &err) == NULL &&
               strstr(err, "not a regular file"),
           "a folder: %s", err);
    rules = pl_policy_file_load(pool, write_file("ok.yaml", "a: '@'\n"), &err);
    TAP_IS_STR(rules ? apr_table_get(rules, "a") : NULL, "@",
               "pl_policy_file_load returns the rules");
}

static void test_data(void)
{
    int set, n;
    const pl_policy_default_t *d;

    tap_note("the rule tables");
    for (set = 0; set < PL_POLICY_NSETS; set++) {
        for (n = 0, d = pl_policy_defaults(set); d->name; d++, n++) {
        }
        TAP_IS_INT(n, 38, "set %d has 38 rules", set);
    }
    TAP_OK(pl_policy_defaults(7) == NULL, "no set 7");
    /* placement master's policies/ are 9.0.0's, rule for rule (2026.1
     * differs in enforcement only: docs/directives.md) */
    TAP_OK(pl_policy_defaults(PL_POLICY_SET_2026_1) ==
               pl_policy_defaults(PL_POLICY_SET_2023_1),
           "2026.1 has 2023.1's rules");
    TAP_OK(pl_policy_is_known("placement:usages"), "placement:usages");
    TAP_OK(pl_policy_is_known("service_api"), "2023.1's service_api");
    TAP_OK(!pl_policy_is_known("placement:nosuch"), "not a rule");
}

static void test_sources(void)
{
    const char *dir = apr_pstrcat(pool, tmpdir, "/policy.d", NULL);
    const char *file, *stamp, *err = NULL;
    apr_array_header_t *files;
    apr_hash_t *exprs = NULL;

    tap_note("policy file and directory (policy_dirs)");
    TAP_OK(pl_policy_dir_files(pool, dir, &files, &err) == APR_SUCCESS &&
               files->nelts == 0,
           "a missing directory has no files");
    apr_dir_make(dir, APR_FPROT_OS_DEFAULT, pool);
    file = write_file("base.yaml", "a: \"role:one\"\nb: \"role:one\"\n");
    write_file("policy.d/20-b.yaml", "b: \"role:three\"\n");
    write_file("policy.d/10-a.json", "{\"a\": \"role:two\", "
                                     "\"b\": \"role:two\"}\n");
    write_file("policy.d/.hidden.yaml", "a: \"role:hidden\"\n");
    write_file("policy.d/30-c.yaml~", "a: \"role:backup\"\n");
    TAP_OK(pl_policy_dir_files(pool, dir, &files, &err) == APR_SUCCESS &&
               files->nelts == 2,
           "only *.yaml/*.json, not hidden ones");
    TAP_OK(files->nelts == 2 &&
               strstr(APR_ARRAY_IDX(files, 0, const char *), "10-a.json") &&
               strstr(APR_ARRAY_IDX(files, 1, const char *), "20-b.yaml"),
           "in name order");
    TAP_OK(pl_policy_sources_read(pool, file, dir, &exprs, &err) == APR_SUCCESS,
           "file and directory read");
    {
        pl_policy_t pol = { NULL, NULL, exprs, 1, 0 };
        pl_policy_attr_t two[] = { { "roles", NULL, NULL } };
        apr_array_header_t *roles = apr_array_make(pool, 1, sizeof(char *));

        APR_ARRAY_PUSH(roles, const char *) = "two";
        two[0].list = roles;
        TAP_IS_INT(pl_policy_enforce(&pol, "a", two, 1, NULL, 0, NULL),
                   PL_POLICY_ALLOW, "a: the directory overrides the file");
        TAP_IS_INT(pl_policy_enforce(&pol, "b", two, 1, NULL, 0, NULL),
                   PL_POLICY_DENY, "b: the later directory file wins");
    }
    stamp = pl_policy_sources_stamp(pool, file, dir);
    TAP_IS_STR(pl_policy_sources_stamp(pool, file, dir), stamp,
               "the fingerprint is stable");
    write_file("policy.d/20-b.yaml", "b: \"role:four\"\n");
    TAP_OK(strcmp(pl_policy_sources_stamp(pool, file, dir), stamp) != 0,
           "a rewritten directory file changes it");
    write_file("policy.d/15-x.yaml", "x: [broken\n");
    TAP_OK(pl_policy_sources_read(pool, file, dir, &exprs, &err) ==
                   APR_EINVAL &&
               strstr(err, "15-x.yaml:2"),
           "a broken directory file names itself and its line");
    apr_file_remove(apr_pstrcat(pool, dir, "/15-x.yaml", NULL), pool);
    apr_file_remove(apr_pstrcat(pool, dir, "/10-a.json", NULL), pool);
    apr_file_remove(apr_pstrcat(pool, dir, "/20-b.yaml", NULL), pool);
    apr_file_remove(apr_pstrcat(pool, dir, "/.hidden.yaml", NULL), pool);
    apr_file_remove(apr_pstrcat(pool, dir, "/30-c.yaml~", NULL), pool);
    apr_dir_remove(dir, pool);
}

static void remove_tmpdir(void)
{
    apr_dir_t *dir;
    apr_finfo_t fi;

    if (apr_dir_open(&dir, tmpdir, pool) != APR_SUCCESS) {
        return;
    }
    while (apr_dir_read(&fi, APR_FINFO_NAME, dir) == APR_SUCCESS) {
        if (strcmp(fi.name, ".") && strcmp(fi.name, "..")) {
            apr_file_remove(apr_pstrcat(pool, tmpdir, "/", fi.name, NULL),
                            pool);
        }
    }
    apr_dir_close(dir);
    apr_dir_remove(tmpdir, pool);
}

int main(void)
{
    char tmpl[] = "/tmp/pl-test-policy.XXXXXX";
    const char *err;

    apr_initialize();
    apr_pool_create(&pool, NULL);
    tmpdir = mkdtemp(tmpl);
    if (tmpdir == NULL ||
        pl_policy_builtin_compile(pool, PL_POLICY_SET_ZED, &zed, &err) ||
        pl_policy_builtin_compile(pool, PL_POLICY_SET_2023_1, &antelope,
                                  &err)) {
        printf("Bail out! setup failed\n");
        return 1;
    }
    test_syntax();
    test_eval();
    test_data();
    test_zed();
    test_overrides();
    test_2023();
    test_files();
    test_sources();
    remove_tmpdir();
    apr_pool_destroy(pool);
    apr_terminate();
    return tap_done();
}
