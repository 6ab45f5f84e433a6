/* Licensed under the Apache License, Version 2.0.
 *
 * test_ac_request.c: the query string of GET /allocation_candidates into
 * groups (ac_request.c): grouping by suffix, the per-version rules and
 * placement 8.0.0's 400 texts and codes, in upstream's order.
 */
#include <stdlib.h>
#include <string.h>

#include <apr_general.h>
#include <apr_strings.h>

#include "pl_ac.h"
#include "pl_err.h"
#include "pl_mv.h"
#include "tap.h"

/* "k=v&k2=v2" (no decoding needed here) -> pl_ac_arg_t array */
static apr_array_header_t *qs(apr_pool_t *p, const char *q)
{
    apr_array_header_t *a = apr_array_make(p, 4, sizeof(pl_ac_arg_t));
    char *s = apr_pstrdup(p, q), *last, *tok;

    for (tok = apr_strtok(s, "&", &last); tok;
         tok = apr_strtok(NULL, "&", &last)) {
        pl_ac_arg_t *arg = apr_array_push(a);
        char *eq = strchr(tok, '=');

        if (eq) {
            *eq = '\0';
        }
        arg->key = tok;
        arg->value = eq ? eq + 1 : "";
    }
    return a;
}

static const char *parse(apr_pool_t *p, int mv, const char *q,
                         pl_ac_request_t **preq, const char **pcode)
{
    const char *err = NULL, *code = NULL;
    pl_ac_request_t *req = NULL;

    if (pl_ac_request_parse(p, mv, qs(p, q), &req, &err, &code) ==
        APR_SUCCESS) {
        err = NULL;
    }
    if (preq) {
        *preq = req;
    }
    if (pcode) {
        *pcode = code;
    }
    return err;
}

static const pl_ac_group_t *group(const pl_ac_request_t *req, int i)
{
    return APR_ARRAY_IDX(req->groups, i, pl_ac_group_t *);
}

static void test_groups(apr_pool_t *p)
{
    pl_ac_request_t *req;
    const pl_ac_group_t *g;
    const char *err;

    err = parse(p, PL_MV(1, 33),
                "resources_B=VCPU:1&resources=DISK_GB:10"
                "&required_B=HW_CPU_X86_AVX,!CUSTOM_X&member_of=in:"
                "6c8e4f1a-3b2d-4c5e-9f70-1a2b3c4d5e6f&group_policy=none"
                "&limit=5",
                &req, NULL);
    TAP_IS_STR(err, NULL, "grouped request parses");
    if (err) {
        return;
    }
    TAP_IS_INT(req->groups->nelts, 2, "two groups");
    g = group(req, 0);
    TAP_IS_STR(g->suffix, "_B", "first seen group first");
    TAP_IS_INT(g->same_provider, 1, "suffixed: one provider");
    TAP_IS_INT(g->required->nelts, 1, "one required set");
    TAP_IS_INT(g->forbidden->nelts, 1, "one forbidden trait");
    g = group(req, 1);
    TAP_IS_STR(g->suffix, "", "unsuffixed group");
    TAP_IS_INT(g->same_provider, 0, "unsuffixed: any provider");
    TAP_OK(g->member_of && g->member_of->any_of->nelts == 1, "member_of kept");
    TAP_IS_INT(req->limit, 5, "limit");
    TAP_IS_STR(req->group_policy, "none", "group_policy");

    /* resources repeated: the last one stays */
    err = parse(p, PL_MV(1, 10), "resources=VCPU:1&resources=DISK_GB:2", &req,
                NULL);
    TAP_IS_STR(err, NULL, "repeated resources parse");
    if (!err) {
        TAP_IS_STR(
            APR_ARRAY_IDX(group(req, 0)->resources, 0, pl_qs_resource_t).name,
            "DISK_GB", "last resources value wins");
    }
}

static void test_errors(apr_pool_t *p)
{
    const char *err, *code;

    err = parse(p, PL_MV(1, 25), "resources1=VCPU:1&resources2=VCPU:1", NULL,
                NULL);
    TAP_IS_STR(err,
               "The \"group_policy\" parameter is required when "
               "specifying more than one \"resources{N}\" parameter.",
               "group_policy needed with two suffixed groups");

    err = parse(p, PL_MV(1, 25), "resources=VCPU:1&required1=CUSTOM_A", NULL,
                NULL);
    TAP_IS_STR(err,
               "All traits parameters must be associated with "
               "resources.  Found the following orphaned traits keys: "
               "required1",
               "orphaned required before 1.36");

    err = parse(p, PL_MV(1, 25),
                "resources=VCPU:1&member_of1="
                "6c8e4f1a-3b2d-4c5e-9f70-1a2b3c4d5e6f",
                NULL, NULL);
    TAP_IS_STR(err,
               "All member_of parameters must be associated with "
               "resources. Found the following orphaned member_of keys: "
               "member_of1",
               "orphaned member_of before 1.36");

    err = parse(p, PL_MV(1, 36), "required=CUSTOM_A", NULL, &code);
    TAP_IS_STR(err,
               "There must be at least one resources or "
               "resources[$S] parameter.",
               "no resources at all (1.36)");
    TAP_IS_STR(code, PL_ERRC_QUERY_MISSING_VALUE, "its code");

    err = parse(p, PL_MV(1, 36), "resources=VCPU:1&required_X=CUSTOM_A", NULL,
                &code);
    TAP_IS_STR(err,
               "Resourceless suffixed group request should be "
               "specified in `same_subtree` query param: bad group(s) - "
               "['_X'].",
               "resourceless group outside same_subtree");
    TAP_IS_STR(code, PL_ERRC_QUERY_BAD_VALUE, "its code");

    err = parse(p, PL_MV(1, 36),
                "resources_A=VCPU:1&resources_B=VCPU:1"
                "&group_policy=none&same_subtree=_A,_C",
                NULL, NULL);
    TAP_IS_STR(err,
               "Real suffixes should be specified in `same_subtree`: "
               "['_C'] not found in ['_A', '_B'].",
               "same_subtree names an unknown group");

    err = parse(p, PL_MV(1, 36), "resources=VCPU:1&same_subtree=,_A", NULL,
                &code);
    TAP_OK(err && !strncmp(err, "Empty string (unsuffixed group)", 31),
           "unsuffixed group in same_subtree");

    err = parse(p, PL_MV(1, 35),
                "resources=VCPU:1&root_required=A"
                "&root_required=B",
                NULL, &code);
    TAP_IS_STR(err,
               "Query parameter 'root_required' may be specified "
               "only once.",
               "root_required twice");
    TAP_IS_STR(code, PL_ERRC_QUERY_DUPLICATE_KEY, "its code");

    err = parse(p, PL_MV(1, 22),
                "resources=VCPU:1&required=CUSTOM_A,"
                "!CUSTOM_A",
                NULL, NULL);
    TAP_IS_STR(err,
               "Conflicting required and forbidden traits found in "
               "the following traits keys: required: (CUSTOM_A)",
               "required and forbidden at once");

    err = parse(p, PL_MV(1, 10), "resources=VCPU:0", NULL, NULL);
    TAP_IS_STR(err, "Requested resource VCPU requires amount >= 1. Got: 0.",
               "amount zero");
}

int main(void)
{
    apr_pool_t *p;

    apr_initialize();
    apr_pool_create(&p, NULL);
    test_groups(p);
    test_errors(p);
    apr_pool_destroy(p);
    apr_terminate();
    return tap_done();
}
