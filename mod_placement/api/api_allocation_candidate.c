/* Licensed under the Apache License, Version 2.0.
 *
 * api_allocation_candidate.c: GET /allocation_candidates (placement's
 * handlers/allocation_candidate.py), 1.10 - 1.39. HTTP only: the query
 * string is parsed by ac_request.c, the world read and the candidates
 * built in one call of store_ac.c (which reads more trees as the bound
 * needs them); here the microversion becomes the engine's flags and the
 * candidates become JSON in the format of the asked microversion.
 */
#include <string.h>
#include <apr_strings.h>
#include <http_protocol.h>

#include "pl_private.h"
#include "pl_metrics.h"
#include "pl_api.h"
#include "pl_store_ac.h"
#include "pl_provider_cache.h"
#include "pl_schemas.h"
#include "pl_jstream.h"
#include "pl_idmap.h"
#include "pl_coalesce.h"

static const char *query_schema(int mv)
{
    return mv >= PL_MV(1, 36)   ? PL_SCHEMA_AC_QS_1_36
           : mv >= PL_MV(1, 35) ? PL_SCHEMA_AC_QS_1_35
           : mv >= PL_MV(1, 33) ? PL_SCHEMA_AC_QS_1_33
           : mv >= PL_MV(1, 31) ? PL_SCHEMA_AC_QS_1_31
           : mv >= PL_MV(1, 25) ? PL_SCHEMA_AC_QS_1_25
           : mv >= PL_MV(1, 21) ? PL_SCHEMA_AC_QS_1_21
           : mv >= PL_MV(1, 17) ? PL_SCHEMA_AC_QS_1_17
           : mv >= PL_MV(1, 16) ? PL_SCHEMA_AC_QS_1_16
                                : PL_SCHEMA_AC_QS_1_10;
}

/* ------------------------------------------------------------------ */
/* The answer is written as JSON text directly: an answer can hold tens */
/* of thousands of values, and a json-c object for each costs more than */
/* finding the candidates. It is written once the status and headers   */
/* are known, to the client in buffers of STREAM_BUFFER bytes as it is  */
/* produced (pl_jstream.h), spaced as Python's json.dumps spaces the    */
/* others.                                                              */
/* ------------------------------------------------------------------ */

#define STREAM_BUFFER ((apr_size_t)64 * 1024)

/* A string as JSON text, made once: a wide answer names providers over
 * a hundred thousand times, and the summaries repeat the names of a few
 * traits and classes, an escape each. */
typedef struct json_text_t {
    const char *json;
    apr_size_t len;
} json_text_t;

static json_text_t *json_of(apr_pool_t *p, const char *s)
{
    json_text_t *j = apr_palloc(p, sizeof(*j));
    pl_jstream_t b;

    pl_jstream_text(&b, p, 0);
    pl_jstream_str(&b, s);
    j->json = b.s;
    j->len = b.len;
    return j;
}

/* The string s as JSON, from quoted (keyed by the string's address: the
 * summaries share the world's strings) or made and kept there. */
static void js_quoted(pl_jstream_t *b, pl_idmap_t *quoted, const char *s)
{
    apr_int64_t key = (apr_int64_t)(apr_uintptr_t)s;
    const json_text_t *j = pl_idmap_get(quoted, key);

    if (j == NULL) {
        j = json_of(quoted->p, s);
        pl_idmap_set(quoted, key, (void *)j);
    }
    pl_jstream_raw(b, j->json, j->len);
}

/* id -> json_text_t of the providers of by_id (id -> pl_ac_summary_t) */
static pl_idmap_t *uuids_make(apr_pool_t *p, const pl_idmap_t *by_id)
{
    pl_idmap_t *u = pl_idmap_make(p, pl_idmap_count(by_id));
    const pl_ac_summary_t *sm;
    apr_size_t pos = 0;

    while ((sm = pl_idmap_next(by_id, &pos, NULL)) != NULL) {
        pl_idmap_set(u, sm->id, json_of(p, sm->uuid ? sm->uuid : ""));
    }
    return u;
}

/* the quoted uuid of provider id ("" when unknown) */
static void js_uuid(pl_jstream_t *b, const pl_idmap_t *uuids, apr_int64_t id)
{
    const json_text_t *j = pl_idmap_get(uuids, id);

    if (j) {
        pl_jstream_raw(b, j->json, j->len);
    }
    else {
        PL_JS_LIT(b, "\"\"");
    }
}

/* 1.12+: {"allocations": {uuid: {"resources": {...}}}, "mappings"};
 * 1.10 - 1.11: {"allocations": [{"resource_provider": {"uuid"},
 * "resources"}]} */
static void request_json(pl_jstream_t *b, int mv, const pl_ac_cand_t *cand,
                         const pl_idmap_t *uuids, pl_idmap_t *quoted)
{
    int dict = mv >= PL_MV(1, 12);
    apr_int64_t cur = -1;
    int i, j;

    PL_JS_LIT(b, "{\"allocations\": ");
    pl_jstream_raw(b, dict ? "{" : "[", 1);
    for (i = 0; i < cand->nallocs; i++) {
        const pl_ac_alloc_t *a = &cand->allocs[i];

        if (a->rp_id != cur) {
            if (cur != -1) {
                PL_JS_LIT(b, "}}, ");
            }
            if (dict) {
                js_uuid(b, uuids, a->rp_id);
                PL_JS_LIT(b, ": {\"resources\": {");
            }
            else {
                PL_JS_LIT(b, "{\"resource_provider\": {\"uuid\": ");
                js_uuid(b, uuids, a->rp_id);
                PL_JS_LIT(b, "}, \"resources\": {");
            }
            cur = a->rp_id;
        }
        else {
            PL_JS_LIT(b, ", ");
        }
        js_quoted(b, quoted, a->rc_name);
        PL_JS_LIT(b, ": ");
        pl_jstream_int(b, a->amount);
    }
    if (cur != -1) {
        PL_JS_LIT(b, "}}");
    }
    pl_jstream_raw(b, dict ? "}" : "]", 1);
    /* 1.34+: which providers each group got */
    if (mv >= PL_MV(1, 34)) {
        PL_JS_LIT(b, ", \"mappings\": {");
        for (i = 0; i < cand->nmaps; i++) {
            if (i) {
                PL_JS_LIT(b, ", ");
            }
            js_quoted(b, quoted, cand->maps[i].suffix);
            PL_JS_LIT(b, ": [");
            for (j = 0; j < cand->maps[i].nrps; j++) {
                if (j) {
                    PL_JS_LIT(b, ", ");
                }
                js_uuid(b, uuids, cand->maps[i].rp_ids[j]);
            }
            PL_JS_LIT(b, "]");
        }
        PL_JS_LIT(b, "}");
    }
    PL_JS_LIT(b, "}");
}

static int requested(const pl_ac_request_t *acr, const char *rc)
{
    int i, j;

    for (i = 0; i < acr->groups->nelts; i++) {
        const pl_ac_group_t *g = APR_ARRAY_IDX(acr->groups, i, pl_ac_group_t *);

        for (j = 0; j < g->resources->nelts; j++) {
            if (!strcmp(APR_ARRAY_IDX(g->resources, j, pl_qs_resource_t).name,
                        rc)) {
                return 1;
            }
        }
    }
    return 0;
}

static void summary_json(pl_jstream_t *b, int mv, const pl_ac_request_t *acr,
                         const pl_ac_summary_t *s, const pl_idmap_t *uuids,
                         pl_idmap_t *quoted)
{
    int j, n = 0;

    js_uuid(b, uuids, s->id);
    PL_JS_LIT(b, ": {\"resources\": {");
    for (j = 0; j < s->res->nelts; j++) {
        const pl_ac_summary_res_t *r = &APR_ARRAY_IDX(s->res, j,
                                                      pl_ac_summary_res_t);

        /* 1.27+: every class; before, only the requested ones */
        if (mv < PL_MV(1, 27) && !requested(acr, r->rc_name)) {
            continue;
        }
        if (n++) {
            PL_JS_LIT(b, ", ");
        }
        js_quoted(b, quoted, r->rc_name);
        PL_JS_LIT(b, ": {\"capacity\": ");
        pl_jstream_int(b, r->capacity);
        PL_JS_LIT(b, ", \"used\": ");
        pl_jstream_int(b, r->used);
        PL_JS_LIT(b, "}");
    }
    PL_JS_LIT(b, "}");
    /* 1.17+: traits */
    if (mv >= PL_MV(1, 17)) {
        PL_JS_LIT(b, ", \"traits\": [");
        for (j = 0; j < s->traits->nelts; j++) {
            if (j) {
                PL_JS_LIT(b, ", ");
            }
            js_quoted(b, quoted, APR_ARRAY_IDX(s->traits, j, const char *));
        }
        PL_JS_LIT(b, "]");
    }
    /* 1.29+: where it sits in its tree */
    if (mv >= PL_MV(1, 29)) {
        PL_JS_LIT(b, ", \"parent_provider_uuid\": ");
        if (s->parent_id) {
            js_uuid(b, uuids, s->parent_id);
        }
        else {
            PL_JS_LIT(b, "null");
        }
        PL_JS_LIT(b, ", \"root_provider_uuid\": ");
        js_uuid(b, uuids, s->root_id);
    }
    PL_JS_LIT(b, "}");
}

/* What the answer is written from, once the status and headers are set. */
typedef struct answer_t {
    int mv;
    const pl_ac_request_t *acr;
    const pl_ac_result_t *res;
    const apr_array_header_t *sums;
    const pl_idmap_t *uuids;
    const char *key, *version; /* kept once sent (pl_coalesce.c): NULL no */
} answer_t;

/* The answer's text. Nothing here can fail but the connection. */
static void answer_js(pl_jstream_t *js, apr_pool_t *p, const answer_t *a)
{
    pl_idmap_t *quoted = pl_idmap_make(p, 64);
    int i;

    PL_JS_LIT(js, "{\"allocation_requests\": [");
    for (i = 0; i < a->res->cands->nelts && !js->failed; i++) {
        if (i) {
            PL_JS_LIT(js, ", ");
        }
        request_json(js, a->mv, APR_ARRAY_IDX(a->res->cands, i, pl_ac_cand_t *),
                     a->uuids, quoted);
    }
    PL_JS_LIT(js, "], \"provider_summaries\": {");
    for (i = 0; i < a->sums->nelts && !js->failed; i++) {
        if (i) {
            PL_JS_LIT(js, ", ");
        }
        summary_json(js, a->mv, a->acr,
                     APR_ARRAY_IDX(a->sums, i, pl_ac_summary_t *), a->uuids,
                     quoted);
    }
    PL_JS_LIT(js, "}}");
}

/* What the counters of a 200 need to know of its answer. */
#define ANSWER_CUT 1
#define ANSWER_AT_MAXIMUM 2

static int answer_flags(const pl_ac_result_t *res)
{
    return res->over_budget  ? ANSWER_CUT
           : res->at_maximum ? ANSWER_AT_MAXIMUM
                             : 0;
}

/* The answer as pl_coalesce shares and keeps it. */
static pl_coalesce_answer_t shared_answer(const answer_t *a, const char *text,
                                          apr_size_t len)
{
    pl_coalesce_answer_t out;

    out.text = text;
    out.len = len;
    out.items = a->res->cands->nelts;
    out.flags = answer_flags(a->res);
    return out;
}

/* The answer, streamed: the client gets it in STREAM_BUFFER pieces while
 * the rest is being written; and kept, when it may be, once sent. */
static void write_answer(pl_req_t *req, void *baton)
{
    const answer_t *a = baton;
    pl_coalesce_answer_t kept;
    pl_jstream_t js;
    char *copy;
    apr_size_t len;

    pl_jstream_response(&js, req->r, req->pool, STREAM_BUFFER);
    if (a->version) {
        pl_jstream_copy(&js, PL_COALESCE_KEEP_MAX_BYTES);
    }
    answer_js(&js, req->pool, a);
    if (pl_jstream_finish(&js) != APR_SUCCESS) {
        ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, req->r,
                      PL_LOGNO(00901) "allocation candidates: the client "
                                      "went away after "
                                      "%" APR_SIZE_T_FMT " bytes",
                      js.sent);
    }
    if ((copy = pl_jstream_take_copy(&js, &len)) != NULL) {
        kept = shared_answer(a, copy, len);
        pl_coalesce_keep(a->key, &kept, a->version);
    }
}

/* The answer as one text, for every request of a batch (pl_coalesce.c). */
static int reply_text(pl_req_t *req, const char *text, apr_size_t len)
{
    req->body_text = text;
    req->body_len = len;
    req->last_modified = apr_time_now();
    return HTTP_OK;
}

/* The counters of a 200, computed for it or shared (pl_coalesce.c). An
 * answer the node budget cut short is a 200 with fewer candidates than
 * the request allowed: the engine logs it (PL05101) and it is counted
 * here. One that stopped at PlacementMaxAllocationCandidates rather than
 * at the request's limit is counted apart, so that an operator sees
 * whether the maximum bites. */
static void count_answer(long returned, int flags, int shared)
{
    pl_metrics_add(PL_METRIC_CANDIDATE_REQUESTS, 1);
    pl_metrics_add(PL_METRIC_CANDIDATES_RETURNED, returned);
    if (flags & ANSWER_CUT) {
        pl_metrics_add(PL_METRIC_CANDIDATES_CUT, 1);
    }
    else if (flags & ANSWER_AT_MAXIMUM) {
        pl_metrics_add(PL_METRIC_CANDIDATES_AT_MAXIMUM, 1);
    }
    if (shared) {
        pl_metrics_add(PL_METRIC_CANDIDATES_SHARED, 1);
    }
}

/* An answer another request computed (pl_coalesce.c), counted as this
 * request's. */
static int reply_shared(pl_req_t *req, const pl_coalesce_answer_t *a,
                        const char *how)
{
    pl_log(&req->log, PL_LOG_DEBUG, APR_SUCCESS,
           "allocation candidates: the answer of an identical request %s", how);
    count_answer(a->items, a->flags, 1);
    return reply_text(req, a->text, a->len);
}

/* The candidates of acr, computed; NULL and an error's status in *pst
 * when there are none to give. */
static answer_t *compute(pl_req_t *req, const pl_ac_request_t *acr, int *pst)
{
    apr_array_header_t *sums;
    pl_idmap_t *by_id;
    pl_ac_world_t *world;
    pl_store_ac_cache_t *cache;
    pl_ac_result_t *res;
    pl_ac_opts_t opts;
    answer_t *answer;
    apr_status_t rv;
    pl_db_t *db;

    if ((*pst = pl_req_db(req, &db))) {
        return NULL;
    }
    memset(&opts, 0, sizeof(opts));
    /* before 1.29 a client cannot see trees */
    opts.exclude_nested = req->mv < PL_MV(1, 29);
    opts.limit = acr->limit;
    opts.max_candidates = pl_config_max_candidates(req->conf);
    opts.randomize = pl_config_randomize(req->conf);
    opts.strategy = pl_config_ac_strategy(req->conf) ? PL_AC_BREADTH_FIRST
                                                     : PL_AC_DEPTH_FIRST;
    opts.log = &req->log;
    opts.shape = req->r->args;
    cache = pl_provider_cache(req->r->server);
    rv = pl_store_ac_candidates(db, req->pool, acr, &opts, cache, &world, &res);
    if (rv != APR_SUCCESS) {
        *pst = pl_err_store(req, rv, "reading allocation candidates");
        return NULL;
    }
    if (res->outcome == PL_AC_UNKNOWN_RC) {
        *pst = pl_err(req, HTTP_BAD_REQUEST, NULL,
                      "Invalid resource class "
                      "in resources parameter: No such resource class %s.",
                      res->unknown);
        return NULL;
    }
    if (res->outcome == PL_AC_UNKNOWN_TRAIT) {
        *pst = pl_err(req, HTTP_BAD_REQUEST, NULL, "No such trait(s): %s.",
                      res->unknown);
        return NULL;
    }
    pl_ac_summaries(req->pool, world, res, req->mv >= PL_MV(1, 17), &sums,
                    &by_id);
    answer = apr_palloc(req->pool, sizeof(*answer));
    answer->mv = req->mv;
    answer->acr = acr;
    answer->res = res;
    answer->sums = sums;
    answer->uuids = uuids_make(req->pool, by_id);
    answer->key = answer->version = NULL;
    count_answer(res->cands->nelts, answer_flags(res), 0);
    pl_metrics_add(PL_METRIC_PROVIDER_CACHE_HITS, world->facts_cached);
    pl_metrics_add(PL_METRIC_PROVIDER_CACHE_MISSES, world->facts_read);
    pl_metrics_add(PL_METRIC_PROVIDER_CACHE_RESETS, world->cache_resets);
    return answer;
}

/* What a request's answer depends on besides the database, when
 * identical requests may share one computation (NULL: they may not). */
static const char *coalesce_key(const pl_req_t *req)
{
    if (!pl_config_coalesce(req->conf) || pl_config_randomize(req->conf)) {
        return NULL;
    }
    return apr_psprintf(req->pool, "%pp %d %d %d %s", (void *)req->r->server,
                        req->mv, pl_config_max_candidates(req->conf),
                        pl_config_ac_strategy(req->conf),
                        req->r->args ? req->r->args : "");
}

/* HTTP_OK and *a when the child keeps the answer of an identical request
 * computed at the database's version, which is read now, after this
 * request arrived (*version: NULL when the database has none); 0 to
 * compute; an error's status. */
static int kept_answer(pl_req_t *req, pl_coalesce_batch_t *batch,
                       const char **version, pl_coalesce_answer_t *a)
{
    apr_status_t rv;
    pl_db_t *db;
    int st;

    if ((st = pl_req_db(req, &db))) {
        return st;
    }
    if ((rv = pl_store_ac_version(db, req->pool, version)) != APR_SUCCESS) {
        return pl_err_store(req, rv, "reading the database's version");
    }
    return *version && pl_coalesce_kept(batch, req->pool, *version, a) ? HTTP_OK
                                                                       : 0;
}

int pl_api_ac_list(pl_req_t *req)
{
    const pl_jsonschema_t *schema;
    apr_array_header_t *args;
    pl_ac_request_t *acr;
    pl_coalesce_batch_t *batch = NULL;
    pl_coalesce_answer_t shared;
    const char *err, *code, *key, *version = NULL;
    answer_t *answer;
    int st, i, followers = 0;

    if ((st = pl_schema(req, query_schema(req->mv), &schema))) {
        return st;
    }
    if ((st = pl_check_query(req, schema))) {
        return st;
    }
    args = apr_array_make(req->pool, req->args->nelts + 1, sizeof(pl_ac_arg_t));
    for (i = 0; i < req->args->nelts; i++) {
        const pl_arg_t *a = &APR_ARRAY_IDX(req->args, i, pl_arg_t);
        pl_ac_arg_t *b = apr_array_push(args);

        b->key = a->key;
        b->value = a->value;
    }
    if (pl_ac_request_parse(req->pool, req->mv, args, &acr, &err, &code) !=
        APR_SUCCESS) {
        return pl_err(req, HTTP_BAD_REQUEST, code, "%s", err);
    }
    if ((key = coalesce_key(req)) != NULL &&
        pl_coalesce_join(req->pool, key, &batch, &followers, &shared)) {
        return reply_shared(req, &shared, "this one waited for");
    }
    if (batch && (st = kept_answer(req, batch, &version, &shared)) != 0) {
        if (st == HTTP_OK) {
            return reply_shared(req, &shared, "kept, the database unchanged");
        }
        pl_coalesce_publish(batch, NULL, NULL); /* each computes its own */
        return st;
    }
    answer = compute(req, acr, &st);
    if (answer == NULL || followers == 0) {
        /* the next batch may start while this answer is written */
        pl_coalesce_publish(batch, NULL, NULL);
        if (answer == NULL) {
            return st;
        }
        answer->key = key;
        answer->version = version;
        req->last_modified = apr_time_now();
        return pl_reply_stream(req, HTTP_OK, write_answer, answer);
    }
    {
        pl_coalesce_answer_t a;
        pl_jstream_t js;

        pl_jstream_text(&js, req->pool, 0);
        answer_js(&js, req->pool, answer);
        a = shared_answer(answer, js.s, js.len);
        if ((followers = pl_coalesce_publish(batch, &a, version)) > 0) {
            pl_log(&req->log, PL_LOG_DEBUG, APR_SUCCESS,
                   "allocation candidates: one answer for %d more "
                   "identical requests",
                   followers);
        }
        return reply_text(req, js.s, js.len);
    }
}
