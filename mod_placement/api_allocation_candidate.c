/* Licensed under the Apache License, Version 2.0.
 *
 * api_allocation_candidate.c: GET /allocation_candidates (placement's
 * handlers/allocation_candidate.py), 1.10 - 1.39. HTTP only: the query
 * string is parsed by ac_request.c, the world read by store_ac.c, the
 * candidates built by ac_build.c; here they become JSON in the format of
 * the asked microversion.
 */
#include <string.h>
#include <apr_hash.h>
#include <apr_strings.h>
#include <http_protocol.h>

#include "pl_private.h"
#include "pl_api.h"
#include "pl_ac.h"

/* Query strings, as placement's schemas/allocation_candidate.py (one per
 * microversion where it changes; keys in upstream's dict order). */
#define QS_RESOURCES "\"resources\": {\"type\": \"string\"}"
#define QS_LIMIT \
    "\"limit\": {\"type\": [\"integer\", \"string\"], " \
    "\"pattern\": \"^[1-9][0-9]*$\", \"minimum\": 1, \"minLength\": 1}"
#define QS_REQUIRED "\"required\": {\"type\": [\"string\"]}"
#define QS_MEMBER_OF "\"member_of\": {\"type\": [\"string\"]}"
#define QS_GROUP_POLICY \
    "\"group_policy\": {\"type\": \"string\", " \
    "\"enum\": [\"none\", \"isolate\"]}"
#define QS_ROOT_REQUIRED "\"root_required\": {\"type\": [\"string\"]}"
#define QS_SAME_SUBTREE "\"same_subtree\": {\"type\": [\"string\"]}"
#define QS_OLD(props) \
    "{\"type\": \"object\", \"properties\": {" props "}, " \
    "\"required\": [\"resources\"], \"additionalProperties\": false}"
#define QS_GROUPED(props, pats) \
    "{\"type\": \"object\", \"properties\": {" props "}, " \
    "\"additionalProperties\": false, \"patternProperties\": {" pats "}}"
#define PAT(name, suffix) "\"^" name "(" suffix ")?$\": {\"type\": \"string\"}"
#define NUM "[1-9][0-9]*"
#define STR "[a-zA-Z0-9_-]{1,64}"
#define PATS_1_25 \
    PAT("resources", NUM) ", " PAT("required", NUM) ", " \
    PAT("member_of", NUM)
#define PATS_1_31 PATS_1_25 ", " PAT("in_tree", NUM)
#define PATS_1_33 \
    PAT("resources", STR) ", " PAT("required", STR) ", " \
    PAT("member_of", STR) ", " PAT("in_tree", STR)

static const char QS_1_10[] = QS_OLD(QS_RESOURCES);
static const char QS_1_16[] = QS_OLD(QS_RESOURCES ", " QS_LIMIT);
static const char QS_1_17[] = QS_OLD(QS_RESOURCES ", " QS_LIMIT ", "
                                     QS_REQUIRED);
static const char QS_1_21[] = QS_OLD(QS_RESOURCES ", " QS_LIMIT ", "
                                     QS_REQUIRED ", " QS_MEMBER_OF);
static const char QS_1_25[] = QS_GROUPED(QS_LIMIT ", " QS_GROUP_POLICY,
                                         PATS_1_25);
static const char QS_1_31[] = QS_GROUPED(QS_LIMIT ", " QS_GROUP_POLICY,
                                         PATS_1_31);
static const char QS_1_33[] = QS_GROUPED(QS_LIMIT ", " QS_GROUP_POLICY,
                                         PATS_1_33);
static const char QS_1_35[] = QS_GROUPED(QS_LIMIT ", " QS_GROUP_POLICY ", "
                                         QS_ROOT_REQUIRED, PATS_1_33);
static const char QS_1_36[] = QS_GROUPED(QS_LIMIT ", " QS_GROUP_POLICY ", "
                                         QS_ROOT_REQUIRED ", "
                                         QS_SAME_SUBTREE, PATS_1_33);

static const char *query_schema(int mv)
{
    return mv >= PL_MV(1, 36) ? QS_1_36
         : mv >= PL_MV(1, 35) ? QS_1_35
         : mv >= PL_MV(1, 33) ? QS_1_33
         : mv >= PL_MV(1, 31) ? QS_1_31
         : mv >= PL_MV(1, 25) ? QS_1_25
         : mv >= PL_MV(1, 21) ? QS_1_21
         : mv >= PL_MV(1, 17) ? QS_1_17
         : mv >= PL_MV(1, 16) ? QS_1_16 : QS_1_10;
}

static const char *uuid_of(apr_hash_t *by_id, apr_int64_t id)
{
    const pl_ac_summary_t *s = apr_hash_get(by_id, &id, sizeof(id));

    return s ? s->uuid : "";
}

/* 1.12+: {"allocations": {uuid: {"resources": {...}}}, "mappings"} */
static json_object *request_dict(pl_req_t *req, const pl_ac_cand_t *cand,
                                 apr_hash_t *by_id)
{
    json_object *o = json_object_new_object();
    json_object *allocs = json_object_new_object();
    json_object *res = NULL;
    apr_int64_t cur = -1;
    int i, j;

    for (i = 0; i < cand->nallocs; i++) {
        const pl_ac_alloc_t *a = &cand->allocs[i];

        if (a->rp_id != cur) {
            json_object *one = json_object_new_object();

            res = json_object_new_object();
            json_object_object_add(one, "resources", res);
            json_object_object_add(allocs, uuid_of(by_id, a->rp_id), one);
            cur = a->rp_id;
        }
        json_object_object_add(res, a->rc_name,
                               json_object_new_int64(a->amount));
    }
    json_object_object_add(o, "allocations", allocs);
    /* 1.34+: which providers each group got */
    if (req->mv >= PL_MV(1, 34)) {
        json_object *maps = json_object_new_object();

        for (i = 0; i < cand->nmaps; i++) {
            json_object *l = json_object_new_array();

            for (j = 0; j < cand->maps[i].nrps; j++) {
                json_object_array_add(l, json_object_new_string(
                    uuid_of(by_id, cand->maps[i].rp_ids[j])));
            }
            json_object_object_add(maps, cand->maps[i].suffix, l);
        }
        json_object_object_add(o, "mappings", maps);
    }
    return o;
}

/* 1.10 - 1.11: {"allocations": [{"resource_provider": {"uuid"},
 * "resources"}]} */
static json_object *request_list(const pl_ac_cand_t *cand, apr_hash_t *by_id)
{
    json_object *o = json_object_new_object();
    json_object *allocs = json_object_new_array();
    json_object *res = NULL;
    apr_int64_t cur = -1;
    int i;

    for (i = 0; i < cand->nallocs; i++) {
        const pl_ac_alloc_t *a = &cand->allocs[i];

        if (a->rp_id != cur) {
            json_object *one = json_object_new_object();
            json_object *rp = json_object_new_object();

            json_object_object_add(rp, "uuid", json_object_new_string(
                uuid_of(by_id, a->rp_id)));
            json_object_object_add(one, "resource_provider", rp);
            res = json_object_new_object();
            json_object_object_add(one, "resources", res);
            json_object_array_add(allocs, one);
            cur = a->rp_id;
        }
        json_object_object_add(res, a->rc_name,
                               json_object_new_int64(a->amount));
    }
    json_object_object_add(o, "allocations", allocs);
    return o;
}

static int requested(const pl_ac_request_t *acr, const char *rc)
{
    int i, j;

    for (i = 0; i < acr->groups->nelts; i++) {
        const pl_ac_group_t *g = APR_ARRAY_IDX(acr->groups, i,
                                               pl_ac_group_t *);

        for (j = 0; j < g->resources->nelts; j++) {
            if (!strcmp(APR_ARRAY_IDX(g->resources, j,
                                      pl_qs_resource_t).name, rc)) {
                return 1;
            }
        }
    }
    return 0;
}

static json_object *summaries_json(pl_req_t *req, const pl_ac_request_t *acr,
                                   const apr_array_header_t *sums)
{
    json_object *o = json_object_new_object();
    int i, j;

    for (i = 0; i < sums->nelts; i++) {
        const pl_ac_summary_t *s = APR_ARRAY_IDX(sums, i, pl_ac_summary_t *);
        json_object *one = json_object_new_object();
        json_object *res = json_object_new_object();

        for (j = 0; j < s->res->nelts; j++) {
            const pl_ac_summary_res_t *r =
                &APR_ARRAY_IDX(s->res, j, pl_ac_summary_res_t);
            json_object *cu;

            /* 1.27+: every class; before, only the requested ones */
            if (req->mv < PL_MV(1, 27) && !requested(acr, r->rc_name)) {
                continue;
            }
            cu = json_object_new_object();
            json_object_object_add(cu, "capacity",
                                   json_object_new_int64(r->capacity));
            json_object_object_add(cu, "used",
                                   json_object_new_int64(r->used));
            json_object_object_add(res, r->rc_name, cu);
        }
        json_object_object_add(one, "resources", res);
        /* 1.17+: traits */
        if (req->mv >= PL_MV(1, 17)) {
            json_object *traits = json_object_new_array();

            for (j = 0; j < s->traits->nelts; j++) {
                json_object_array_add(traits, json_object_new_string(
                    APR_ARRAY_IDX(s->traits, j, const char *)));
            }
            json_object_object_add(one, "traits", traits);
        }
        /* 1.29+: where it sits in its tree */
        if (req->mv >= PL_MV(1, 29)) {
            json_object_object_add(one, "parent_provider_uuid",
                                   s->parent_uuid
                                   ? json_object_new_string(s->parent_uuid)
                                   : NULL);
            json_object_object_add(one, "root_provider_uuid",
                                   json_object_new_string(s->root_uuid));
        }
        json_object_object_add(o, s->uuid, one);
    }
    return o;
}

int pl_api_ac_list(pl_req_t *req)
{
    const pl_jsonschema_t *schema;
    apr_array_header_t *args, *sums;
    apr_hash_t *by_id;
    pl_ac_request_t *acr;
    pl_ac_world_t *world;
    pl_ac_result_t *res;
    pl_ac_opts_t opts;
    const char *err, *code;
    json_object *root, *areqs;
    apr_status_t rv;
    pl_db_t *db;
    int st, i;

    if ((st = pl_policy_check(req, "placement:allocation_candidates:list",
                              NULL))) {
        return st;
    }
    if ((schema = pl_schema(req, query_schema(req->mv))) == NULL) {
        return req->err_status;
    }
    if ((st = pl_check_query(req, schema))) {
        return st;
    }
    args = apr_array_make(req->pool, req->args->nelts + 1,
                          sizeof(pl_ac_arg_t));
    for (i = 0; i < req->args->nelts; i++) {
        const pl_arg_t *a = &APR_ARRAY_IDX(req->args, i, pl_arg_t);
        pl_ac_arg_t *b = apr_array_push(args);

        b->key = a->key;
        b->value = a->value;
    }
    if (pl_ac_request_parse(req->pool, req->mv, args, &acr, &err, &code)
        != APR_SUCCESS) {
        return pl_err(req, HTTP_BAD_REQUEST, code, "%s", err);
    }
    if ((db = pl_req_db(req)) == NULL) {
        return req->err_status;
    }
    if ((rv = pl_store_ac_world(db, req->pool, acr, &world)) != APR_SUCCESS) {
        return pl_err_store(req, rv, "reading allocation candidates");
    }
    memset(&opts, 0, sizeof(opts));
    opts.mv = req->mv;
    opts.limit = acr->limit;
    opts.max_candidates = pl_config_max_candidates(req->conf);
    opts.randomize = pl_config_randomize(req->conf);
    pl_ac_build(req->pool, acr, world, &opts, &res);
    if (res->outcome == PL_AC_UNKNOWN_RC) {
        return pl_err(req, HTTP_BAD_REQUEST, NULL, "Invalid resource class "
                      "in resources parameter: No such resource class %s.",
                      res->unknown);
    }
    if (res->outcome == PL_AC_UNKNOWN_TRAIT) {
        return pl_err(req, HTTP_BAD_REQUEST, NULL, "No such trait(s): %s.",
                      res->unknown);
    }
    rv = pl_store_ac_summaries(db, req->pool, res, req->mv >= PL_MV(1, 17),
                               &sums, &by_id);
    if (rv != APR_SUCCESS) {
        return pl_err_store(req, rv, "reading provider summaries");
    }
    root = json_object_new_object();
    areqs = json_object_new_array_ext(res->cands->nelts);
    for (i = 0; i < res->cands->nelts; i++) {
        const pl_ac_cand_t *cand = APR_ARRAY_IDX(res->cands, i,
                                                 pl_ac_cand_t *);

        /* 1.12+: allocations keyed by provider, as PUT /allocations */
        json_object_array_add(areqs, req->mv >= PL_MV(1, 12)
                                     ? request_dict(req, cand, by_id)
                                     : request_list(cand, by_id));
    }
    json_object_object_add(root, "allocation_requests", areqs);
    json_object_object_add(root, "provider_summaries",
                           summaries_json(req, acr, sums));
    req->last_modified = apr_time_now();
    return pl_reply_json(req, HTTP_OK, root);
}
