/* Licensed under the Apache License, Version 2.0.
 *
 * pl_policy_enforce.c: which check a rule name stands for, and the
 * decision, as oslo.policy 4.0.0's Enforcer makes them (policy.py:
 * load_rules, _handle_deprecated_rule, enforce, _enforce_scope):
 *
 *   1. a rule the operator wrote (PlacementPolicy first, then the policy
 *      file) is used as written, known to placement or not;
 *   2. else a registered rule whose deprecated rule (by its own name) the
 *      operator overrode is that override, unless the override is just
 *      "rule:<the new name>" (how sample files point old names at new);
 *   3. else, with enforce_new_defaults off, a registered rule with a
 *      deprecated check string of its own is "new default OR deprecated";
 *   4. else the new default;
 *   5. an unknown name is the rule "default" when there is one (oslo's
 *      policy_default_rule), else fails closed.
 * With enforce_scope on, a registered rule with scope types refuses a
 * token of another scope before any check (placement answers the same 403
 * as for a failed check). Scope is checked on the rule asked for only,
 * never on rules reached through rule: references, as oslo does.
 */
#include <string.h>

#include <apr_strings.h>

#include "pl_policy.h"

typedef struct {
    const pl_policy_default_t *def;
    const pl_policy_expr_t *expr;   /* the new default */
    const pl_policy_expr_t *either; /* new OR deprecated, or NULL */
} builtin_rule_t;

struct pl_policy_builtin_t {
    int set;
    apr_hash_t *rules; /* name -> builtin_rule_t */
};

apr_status_t pl_policy_builtin_compile(apr_pool_t *p, int set,
                                       const pl_policy_builtin_t **pb,
                                       const char **perr)
{
    const pl_policy_default_t *d = pl_policy_defaults(set);
    pl_policy_builtin_t *b;

    if (d == NULL) {
        *perr = apr_psprintf(p, "no policy defaults numbered %d", set);
        return APR_EINVAL;
    }
    b = apr_pcalloc(p, sizeof(*b));
    b->set = set;
    b->rules = apr_hash_make(p);
    for (; d->name; d++) {
        builtin_rule_t *r = apr_pcalloc(p, sizeof(*r));
        const pl_policy_expr_t *dep;
        const char *err;

        r->def = d;
        if (pl_policy_compile(p, d->check, &r->expr, &err)) {
            *perr = apr_psprintf(p, "default of %s: %s", d->name, err);
            return APR_EINVAL;
        }
        /* oslo compares the check strings themselves */
        if (d->dep_check && strcmp(d->dep_check, d->check) != 0) {
            if (pl_policy_compile(p, d->dep_check, &dep, &err)) {
                *perr = apr_psprintf(p, "deprecated default of %s: %s", d->name,
                                     err);
                return APR_EINVAL;
            }
            r->either = pl_policy_expr_or(p, r->expr, dep);
        }
        apr_hash_set(b->rules, d->name, APR_HASH_KEY_STRING, r);
    }
    *pb = b;
    return APR_SUCCESS;
}

static const builtin_rule_t *builtin_get(const pl_policy_t *pol,
                                         const char *name)
{
    return pol->builtin
               ? apr_hash_get(pol->builtin->rules, name, APR_HASH_KEY_STRING)
               : NULL;
}

/* What the operator wrote for name (PlacementPolicy wins over the file). */
static const pl_policy_expr_t *written(const pl_policy_t *pol, const char *name)
{
    const pl_policy_expr_t *e = NULL;

    if (pol->overrides) {
        e = apr_hash_get(pol->overrides, name, APR_HASH_KEY_STRING);
    }
    if (e == NULL && pol->file) {
        e = apr_hash_get(pol->file, name, APR_HASH_KEY_STRING);
    }
    return e;
}

/* Steps 1-4 of the file comment. */
static const pl_policy_expr_t *lookup(const pl_policy_t *pol, const char *name)
{
    const pl_policy_expr_t *e = written(pol, name);
    const builtin_rule_t *r;

    if (e || (r = builtin_get(pol, name)) == NULL) {
        return e;
    }
    if (r->def->dep_name && strcmp(r->def->dep_name, name) != 0) {
        const pl_policy_expr_t *old = written(pol, r->def->dep_name);
        const char *ref = pl_policy_expr_rule_ref(old);

        if (old && !(ref && !strcmp(ref, name))) {
            return old;
        }
    }
    if (!pol->enforce_new_defaults && r->either) {
        return r->either;
    }
    return r->expr;
}

/* pl_policy_resolve_fn: step 5 on top of lookup(). Without defaults (a
 * policy file checked on its own) an unknown name may still be one of
 * the defaults, so "default" is not looked at. */
static const pl_policy_expr_t *resolve(void *ctx, const char *name,
                                       const char **pcanon)
{
    const pl_policy_t *pol = ctx;
    const pl_policy_expr_t *e = lookup(pol, name);

    *pcanon = name;
    if (e == NULL && pol->builtin && strcmp(name, "default") != 0) {
        *pcanon = "default";
        e = lookup(pol, "default");
    }
    return e;
}

/* oslo's _enforce_scope: system if the credentials say so, else domain
 * when the token has a domain, else project. */
static unsigned int token_scope(const pl_policy_attr_t *creds, int n)
{
    unsigned int scope = PL_POLICY_SCOPE_PROJECT;
    int i;

    for (i = 0; i < n; i++) {
        const char *v = creds[i].value;

        if (v == NULL || *v == '\0') {
            continue;
        }
        if (!strcmp(creds[i].key, "system")) {
            return PL_POLICY_SCOPE_SYSTEM;
        }
        if (!strcmp(creds[i].key, "domain_id")) {
            scope = PL_POLICY_SCOPE_DOMAIN;
        }
    }
    return scope;
}

pl_policy_result_e pl_policy_enforce(const pl_policy_t *pol, const char *rule,
                                     const pl_policy_attr_t *creds, int ncreds,
                                     const pl_policy_attr_t *target,
                                     int ntarget, const char **ploop)
{
    const builtin_rule_t *r = builtin_get(pol, rule);
    pl_policy_eval_t ev;
    const pl_policy_expr_t *e;
    const char *canon;

    if (pol->enforce_scope && r && r->def->scopes &&
        !(r->def->scopes & token_scope(creds, ncreds))) {
        return PL_POLICY_BAD_SCOPE;
    }
    if ((e = resolve((void *)pol, rule, &canon)) == NULL) {
        return PL_POLICY_DENY;
    }
    memset(&ev, 0, sizeof(ev));
    ev.creds = creds;
    ev.ncreds = ncreds;
    ev.target = target;
    ev.ntarget = ntarget;
    ev.resolve = resolve;
    ev.ctx = (void *)pol;
    ev.path[ev.depth++] = canon;
    if (pl_policy_eval(&ev, e)) {
        return PL_POLICY_ALLOW;
    }
    if (ev.loop) {
        if (ploop) {
            *ploop = ev.loop;
        }
        return PL_POLICY_LOOP;
    }
    return PL_POLICY_DENY;
}

/* ---- loops, at configuration time ---- */

typedef struct {
    apr_pool_t *p;
    const pl_policy_t *pol;
    apr_hash_t *done; /* names known to end */
    const char *path[PL_POLICY_MAX_DEPTH];
    int depth;
    const char *loop; /* the text of the loop found */
} loops_t;

static int visit(void *ctx, const char *name);

static int visit_expr(loops_t *lp, const char *name, const pl_policy_expr_t *e)
{
    int i, rv;

    for (i = 0; i < lp->depth; i++) {
        if (!strcmp(lp->path[i], name)) {
            const char *text = lp->path[i];

            for (i++; i < lp->depth; i++) {
                text = apr_pstrcat(lp->p, text, " -> ", lp->path[i], NULL);
            }
            lp->loop = apr_pstrcat(lp->p, text, " -> ", name, NULL);
            return 1;
        }
    }
    if (lp->depth == PL_POLICY_MAX_DEPTH) {
        lp->loop = apr_psprintf(lp->p,
                                "%s -> ... (more than %d rules "
                                "deep)",
                                lp->path[0], PL_POLICY_MAX_DEPTH);
        return 1;
    }
    lp->path[lp->depth++] = name;
    rv = pl_policy_expr_each_ref(e, visit, lp);
    lp->depth--;
    if (rv == 0) {
        apr_hash_set(lp->done, name, APR_HASH_KEY_STRING, name);
    }
    return rv;
}

/* each_ref callback: follow one rule: reference */
static int visit(void *ctx, const char *name)
{
    loops_t *lp = ctx;
    const char *canon;
    const pl_policy_expr_t *e = resolve((void *)lp->pol, name, &canon);

    if (e == NULL || apr_hash_get(lp->done, canon, APR_HASH_KEY_STRING)) {
        return 0;
    }
    return visit_expr(lp, canon, e);
}

static int visit_all(loops_t *lp, apr_hash_t *names)
{
    apr_hash_index_t *hi;

    for (hi = names ? apr_hash_first(lp->p, names) : NULL; hi;
         hi = apr_hash_next(hi)) {
        const void *key;

        apr_hash_this(hi, &key, NULL, NULL);
        if (visit(lp, key)) {
            return 1;
        }
    }
    return 0;
}

const char *pl_policy_find_loop(apr_pool_t *p, const pl_policy_t *pol)
{
    loops_t lp;

    memset(&lp, 0, sizeof(lp));
    lp.p = p;
    lp.pol = pol;
    lp.done = apr_hash_make(p);
    if (visit_all(&lp, pol->overrides) || visit_all(&lp, pol->file) ||
        (pol->builtin && visit_all(&lp, pol->builtin->rules))) {
        return lp.loop;
    }
    return NULL;
}
