/* Licensed under the Apache License, Version 2.0.
 *
 * ac_request.c: the query string of GET /allocation_candidates into
 * request groups and request-wide parameters (upstream's lib.py
 * RequestWideParams.from_request and RequestGroup.dict_from_request, and
 * the group_policy rule of handlers/allocation_candidate.py), with the
 * same checks in the same order, so that a request with several faults
 * gets the 400 upstream gives. Pure: no database, no httpd.
 */
#include <string.h>
#include <apr_hash.h>
#include <apr_strings.h>

#include "pl_ac.h"
#include "pl_err.h"
#include "pl_mv.h"

static apr_status_t fail(const char **perr, const char **pcode, const char *err,
                         const char *code)
{
    *perr = err;
    *pcode = code;
    return APR_EINVAL;
}

/* Every value of query parameter key, in order (const char *). */
static apr_array_header_t *
values_of(apr_pool_t *p, const apr_array_header_t *args, const char *key)
{
    apr_array_header_t *vals = apr_array_make(p, 2, sizeof(const char *));
    int i;

    for (i = 0; i < args->nelts; i++) {
        const pl_ac_arg_t *a = &APR_ARRAY_IDX(args, i, pl_ac_arg_t);

        if (!strcmp(a->key, key)) {
            APR_ARRAY_PUSH(vals, const char *) = a->value;
        }
    }
    return vals;
}

static int str_in(const apr_array_header_t *a, const char *s)
{
    int i;

    for (i = 0; i < a->nelts; i++) {
        if (!strcmp(APR_ARRAY_IDX(a, i, const char *), s)) {
            return 1;
        }
    }
    return 0;
}

static void add_unique(apr_array_header_t *a, const char *s)
{
    if (!str_in(a, s)) {
        APR_ARRAY_PUSH(a, const char *) = s;
    }
}

/* Python's repr() of a list of suffixes: ['1', '_A']. Suffixes are
 * [a-zA-Z0-9_-] (or empty), so no quoting rule beyond the plain one. */
static const char *py_list(apr_pool_t *p, const apr_array_header_t *a)
{
    const char *s = "[";
    int i;

    for (i = 0; i < a->nelts; i++) {
        s = apr_pstrcat(p, s, i ? ", " : "", "'",
                        APR_ARRAY_IDX(a, i, const char *), "'", NULL);
    }
    return apr_pstrcat(p, s, "]", NULL);
}

static pl_ac_group_t *group_for(apr_pool_t *p, apr_array_header_t *groups,
                                const char *suffix)
{
    pl_ac_group_t *g;
    int i;

    for (i = 0; i < groups->nelts; i++) {
        g = APR_ARRAY_IDX(groups, i, pl_ac_group_t *);
        if (!strcmp(g->suffix, suffix)) {
            return g;
        }
    }
    g = apr_pcalloc(p, sizeof(*g));
    g->suffix = suffix;
    g->same_provider = *suffix != '\0';
    g->resources = apr_array_make(p, 4, sizeof(pl_qs_resource_t));
    g->required = apr_array_make(p, 2, sizeof(apr_array_header_t *));
    g->forbidden = apr_array_make(p, 2, sizeof(const char *));
    APR_ARRAY_PUSH(groups, pl_ac_group_t *) = g;
    return g;
}

/* upstream's list-of-sets form: each plain trait alone, each in: set */
static void set_traits(apr_pool_t *p, pl_ac_group_t *g, const pl_qs_traits_t *t)
{
    int i;

    apr_array_clear(g->required);
    for (i = 0; i < t->required->nelts; i++) {
        apr_array_header_t *one = apr_array_make(p, 1, sizeof(const char *));

        APR_ARRAY_PUSH(one, const char *) = APR_ARRAY_IDX(t->required, i,
                                                          const char *);
        APR_ARRAY_PUSH(g->required, apr_array_header_t *) = one;
    }
    for (i = 0; i < t->any_of->nelts; i++) {
        APR_ARRAY_PUSH(g->required, apr_array_header_t *) = APR_ARRAY_IDX(
            t->any_of, i, apr_array_header_t *);
    }
    g->forbidden = t->forbidden;
}

/* RequestGroup._parse_request_items: keys in query string order; a group
 * per suffix, created where its first key appears. */
static apr_status_t parse_groups(apr_pool_t *p, int mv,
                                 const apr_array_header_t *args,
                                 apr_array_header_t *groups, const char **perr,
                                 const char **pcode)
{
    apr_hash_t *done = apr_hash_make(p);
    int i;

    for (i = 0; i < args->nelts; i++) {
        const pl_ac_arg_t *a = &APR_ARRAY_IDX(args, i, pl_ac_arg_t);
        const char *suffix, *err = NULL;
        pl_qs_group_e which;
        pl_ac_group_t *g;
        apr_status_t rv = APR_SUCCESS;

        if (pl_qs_group_key(mv, a->key, &which, &suffix) != APR_SUCCESS) {
            continue;
        }
        g = group_for(p, groups, suffix);
        switch (which) {
        case PL_QS_GROUP_RESOURCES:
            /* every value is parsed; the last one stays */
            rv = pl_qs_resources(p, a->value, &g->resources, &err);
            break;
        case PL_QS_GROUP_REQUIRED:
        case PL_QS_GROUP_MEMBER_OF:
            /* these read every value of the key at once, so the first
             * occurrence decides */
            if (apr_hash_get(done, a->key, APR_HASH_KEY_STRING)) {
                break;
            }
            apr_hash_set(done, a->key, APR_HASH_KEY_STRING, a->key);
            if (which == PL_QS_GROUP_REQUIRED) {
                pl_qs_traits_t *t;

                rv = pl_qs_required(p, mv, values_of(p, args, a->key), &t,
                                    &err);
                if (rv == APR_SUCCESS) {
                    set_traits(p, g, t);
                }
            }
            else {
                rv = pl_qs_member_of(p, mv, suffix, values_of(p, args, a->key),
                                     &g->member_of, &err);
            }
            break;
        case PL_QS_GROUP_IN_TREE:
            rv = pl_qs_in_tree(p, a->value, &g->in_tree, &err);
            break;
        }
        if (rv != APR_SUCCESS) {
            return fail(perr, pcode, err, NULL);
        }
    }
    return APR_SUCCESS;
}

static int has_member_of(const pl_ac_group_t *g)
{
    return g->member_of &&
           (g->member_of->any_of->nelts || g->member_of->forbidden->nelts);
}

/* 1.36+: resourceless groups are fine when same_subtree names them */
static apr_status_t check_subtree_groups(apr_pool_t *p,
                                         const pl_ac_request_t *req,
                                         const char **perr, const char **pcode)
{
    apr_array_header_t *resless = apr_array_make(p, 2, sizeof(char *));
    apr_array_header_t *subtree = apr_array_make(p, 4, sizeof(char *));
    apr_array_header_t *bad = apr_array_make(p, 2, sizeof(char *));
    apr_array_header_t *all = apr_array_make(p, 4, sizeof(char *));
    int i, j;

    for (i = 0; i < req->groups->nelts; i++) {
        const pl_ac_group_t *g = APR_ARRAY_IDX(req->groups, i, pl_ac_group_t *);

        APR_ARRAY_PUSH(all, const char *) = g->suffix;
        if (g->resources->nelts == 0) {
            APR_ARRAY_PUSH(resless, const char *) = g->suffix;
        }
    }
    for (i = 0; i < req->same_subtrees->nelts; i++) {
        const apr_array_header_t *set = APR_ARRAY_IDX(req->same_subtrees, i,
                                                      apr_array_header_t *);

        for (j = 0; j < set->nelts; j++) {
            add_unique(subtree, APR_ARRAY_IDX(set, j, const char *));
        }
    }
    if (resless->nelts == req->groups->nelts) {
        return fail(perr, pcode,
                    "There must be at least one resources or "
                    "resources[$S] parameter.",
                    PL_ERRC_QUERY_MISSING_VALUE);
    }
    for (i = 0; i < resless->nelts; i++) {
        const char *s = APR_ARRAY_IDX(resless, i, const char *);

        if (!str_in(subtree, s)) {
            APR_ARRAY_PUSH(bad, const char *) = s;
        }
    }
    if (bad->nelts) {
        return fail(
            perr, pcode,
            apr_psprintf(p,
                         "Resourceless suffixed "
                         "group request should be specified in `same_subtree` "
                         "query param: bad group(s) - %s.",
                         py_list(p, bad)),
            PL_ERRC_QUERY_BAD_VALUE);
    }
    for (i = 0; i < subtree->nelts; i++) {
        const char *s = APR_ARRAY_IDX(subtree, i, const char *);

        if (!str_in(all, s)) {
            APR_ARRAY_PUSH(bad, const char *) = s;
        }
    }
    if (bad->nelts) {
        return fail(
            perr, pcode,
            apr_psprintf(p,
                         "Real suffixes should be "
                         "specified in `same_subtree`: %s not found in %s.",
                         py_list(p, bad), py_list(p, all)),
            PL_ERRC_QUERY_BAD_VALUE);
    }
    return APR_SUCCESS;
}

/* before 1.36: every group needs resources */
static apr_status_t check_orphans(apr_pool_t *p, const pl_ac_request_t *req,
                                  const char **perr, const char **pcode)
{
    const char *req_orphans = NULL, *mo_orphans = NULL;
    int i, resless = 0;

    for (i = 0; i < req->groups->nelts; i++) {
        const pl_ac_group_t *g = APR_ARRAY_IDX(req->groups, i, pl_ac_group_t *);

        if (g->resources->nelts) {
            continue;
        }
        resless = 1;
        if (g->required->nelts) {
            req_orphans = apr_pstrcat(p, req_orphans ? req_orphans : "",
                                      req_orphans ? ", " : "", "required",
                                      g->suffix, NULL);
        }
        if (has_member_of(g)) {
            mo_orphans = apr_pstrcat(p, mo_orphans ? mo_orphans : "",
                                     mo_orphans ? ", " : "", "member_of",
                                     g->suffix, NULL);
        }
    }
    if (req_orphans) {
        return fail(
            perr, pcode,
            apr_pstrcat(p,
                        "All traits parameters must "
                        "be associated with resources.  Found the following "
                        "orphaned traits keys: ",
                        req_orphans, NULL),
            NULL);
    }
    if (mo_orphans) {
        return fail(
            perr, pcode,
            apr_pstrcat(
                p,
                "All member_of parameters "
                "must be associated with resources. Found the following "
                "orphaned member_of keys: ",
                mo_orphans, NULL),
            NULL);
    }
    if (resless) {
        return fail(perr, pcode,
                    "All request groups must specify "
                    "resources.",
                    NULL);
    }
    if (req->groups->nelts == 0) {
        return fail(perr, pcode,
                    "At least one request group (`resources` "
                    "or `resources{$S}`) is required.",
                    NULL);
    }
    return APR_SUCCESS;
}

static apr_status_t check_forbidden(apr_pool_t *p, const pl_ac_request_t *req,
                                    const char **perr, const char **pcode)
{
    apr_array_header_t *conflicts = apr_array_make(p, 2, sizeof(char *));
    const char *msg;
    int i;

    for (i = 0; i < req->groups->nelts; i++) {
        const pl_ac_group_t *g = APR_ARRAY_IDX(req->groups, i, pl_ac_group_t *);
        pl_qs_traits_t t;
        int j;

        /* back to the pl_qs form: singles and sets */
        t.required = apr_array_make(p, 2, sizeof(const char *));
        t.any_of = apr_array_make(p, 2, sizeof(apr_array_header_t *));
        t.forbidden = g->forbidden;
        for (j = 0; j < g->required->nelts; j++) {
            APR_ARRAY_PUSH(t.any_of, apr_array_header_t *) = APR_ARRAY_IDX(
                g->required, j, apr_array_header_t *);
        }
        pl_qs_traits_conflicts(p, &t, g->suffix, conflicts);
    }
    if ((msg = pl_qs_traits_conflict_msg(p, conflicts)) != NULL) {
        return fail(perr, pcode, msg, NULL);
    }
    return APR_SUCCESS;
}

/* RequestWideParams.from_request */
static apr_status_t parse_wide(apr_pool_t *p, const apr_array_header_t *args,
                               pl_ac_request_t *req, const char **perr,
                               const char **pcode)
{
    apr_array_header_t *vals;
    const char *err = NULL;

    /* the schema has checked the form; the first value counts */
    vals = values_of(p, args, "limit");
    if (vals->nelts) {
        apr_int64_t n = apr_atoi64(APR_ARRAY_IDX(vals, 0, const char *));

        req->limit = n > 0 && n < (1 << 30) ? (int)n : (n > 0 ? 1 << 30 : 0);
    }
    vals = values_of(p, args, "group_policy");
    if (vals->nelts) {
        req->group_policy = APR_ARRAY_IDX(vals, 0, const char *);
    }
    vals = values_of(p, args, "root_required");
    if (vals->nelts) {
        const char *code;

        if (pl_qs_once(p, "root_required", vals->nelts, &err) != APR_SUCCESS) {
            return fail(perr, pcode, err, PL_ERRC_QUERY_DUPLICATE_KEY);
        }
        if (pl_qs_root_required(p, vals, &req->root_required, &err, &code) !=
            APR_SUCCESS) {
            return fail(perr, pcode, err, code);
        }
    }
    vals = values_of(p, args, "same_subtree");
    if (vals->nelts) {
        if (pl_qs_same_subtree(p, vals, &req->same_subtrees, &err) !=
            APR_SUCCESS) {
            return fail(perr, pcode, err, PL_ERRC_QUERY_BAD_VALUE);
        }
    }
    return APR_SUCCESS;
}

apr_status_t pl_ac_request_parse(apr_pool_t *p, int mv,
                                 const apr_array_header_t *args,
                                 pl_ac_request_t **preq, const char **perr,
                                 const char **pcode)
{
    pl_ac_request_t *req = apr_pcalloc(p, sizeof(*req));
    apr_status_t rv;
    int i, granular = 0;

    *pcode = NULL;
    req->groups = apr_array_make(p, 4, sizeof(pl_ac_group_t *));
    req->same_subtrees = apr_array_make(p, 1, sizeof(apr_array_header_t *));
    if ((rv = parse_wide(p, args, req, perr, pcode)) != APR_SUCCESS ||
        (rv = parse_groups(p, mv, args, req->groups, perr, pcode)) !=
            APR_SUCCESS) {
        return rv;
    }
    rv = mv >= PL_MV(1, 36) ? check_subtree_groups(p, req, perr, pcode)
                            : check_orphans(p, req, perr, pcode);
    if (rv != APR_SUCCESS) {
        return rv;
    }
    /* 1.22+: a trait both required and forbidden */
    if (mv >= PL_MV(1, 22) &&
        (rv = check_forbidden(p, req, perr, pcode)) != APR_SUCCESS) {
        return rv;
    }
    for (i = 0; i < req->groups->nelts; i++) {
        granular += APR_ARRAY_IDX(req->groups, i, pl_ac_group_t *)
                        ->same_provider;
    }
    if (req->group_policy == NULL && granular > 1) {
        return fail(perr, pcode,
                    "The \"group_policy\" parameter is "
                    "required when specifying more than one \"resources{N}\" "
                    "parameter.",
                    NULL);
    }
    *preq = req;
    return APR_SUCCESS;
}

void pl_ac_request_names(apr_pool_t *p, const pl_ac_request_t *req,
                         apr_array_header_t **prcs,
                         apr_array_header_t **ptraits,
                         apr_array_header_t **paggs,
                         apr_array_header_t **ptrees)
{
    apr_array_header_t *rcs = apr_array_make(p, 4, sizeof(char *));
    apr_array_header_t *traits = apr_array_make(p, 4, sizeof(char *));
    apr_array_header_t *aggs = apr_array_make(p, 2, sizeof(char *));
    apr_array_header_t *trees = apr_array_make(p, 1, sizeof(char *));
    int i, j, k;

    if (req->root_required) {
        for (j = 0; j < req->root_required->required->nelts; j++) {
            add_unique(traits, APR_ARRAY_IDX(req->root_required->required, j,
                                             const char *));
        }
        for (j = 0; j < req->root_required->forbidden->nelts; j++) {
            add_unique(traits, APR_ARRAY_IDX(req->root_required->forbidden, j,
                                             const char *));
        }
    }
    for (i = 0; i < req->groups->nelts; i++) {
        const pl_ac_group_t *g = APR_ARRAY_IDX(req->groups, i, pl_ac_group_t *);

        for (j = 0; j < g->resources->nelts; j++) {
            add_unique(rcs,
                       APR_ARRAY_IDX(g->resources, j, pl_qs_resource_t).name);
        }
        for (j = 0; j < g->required->nelts; j++) {
            const apr_array_header_t *set = APR_ARRAY_IDX(g->required, j,
                                                          apr_array_header_t *);

            for (k = 0; k < set->nelts; k++) {
                add_unique(traits, APR_ARRAY_IDX(set, k, const char *));
            }
        }
        for (j = 0; j < g->forbidden->nelts; j++) {
            add_unique(traits, APR_ARRAY_IDX(g->forbidden, j, const char *));
        }
        if (g->member_of) {
            for (j = 0; j < g->member_of->any_of->nelts; j++) {
                const apr_array_header_t *set = APR_ARRAY_IDX(
                    g->member_of->any_of, j, apr_array_header_t *);

                for (k = 0; k < set->nelts; k++) {
                    add_unique(aggs, APR_ARRAY_IDX(set, k, const char *));
                }
            }
            for (j = 0; j < g->member_of->forbidden->nelts; j++) {
                add_unique(aggs, APR_ARRAY_IDX(g->member_of->forbidden, j,
                                               const char *));
            }
        }
        if (g->in_tree) {
            add_unique(trees, g->in_tree);
        }
    }
    *prcs = rcs;
    *ptraits = traits;
    *paggs = aggs;
    *ptrees = trees;
}
