/* Licensed under the Apache License, Version 2.0.
 *
 * api_resource_provider.c: /resource_providers and
 * /resource_providers/{uuid} (placement's handlers/resource_provider.py):
 * list with filters, create, show, rename / re-parent, delete. HTTP only:
 * the rules and the SQL are in store_provider.c.
 */
#include <string.h>
#include <apr_strings.h>
#include <http_protocol.h>

#include "pl_private.h"
#include "pl_api.h"
#include "pl_body.h"
#include "pl_schemas.h"
#include "pl_qs.h"
#include "pl_uuid.h"
#include "pl_store_provider.h"
#include "pl_jstream.h"
#include "pl_py.h"

/* Bodies, as placement's schemas/resource_provider.py (key order kept). */
/* Body and query schemas: pl_schemas.c (PL_SCHEMA_RP_*). */

/* ------------------------------------------------------------------ */
/* A provider is written as JSON text directly, in the key order of     */
/* upstream's _serialize_provider and spaced as json.dumps spaces it:   */
/* a listing of a cloud of thousands of computes holds hundreds of      */
/* thousands of values, and a json-c object for each, built, written    */
/* and freed, cost ten times the rest of the request (GET               */
/* /resource_providers at 8,756 providers: about 200 ms of CPU).       */
/* ------------------------------------------------------------------ */

/* The pieces a listing goes to the client in (pl_jstream.h). */
#define STREAM_BUFFER ((apr_size_t)64 * 1024)

static void str_or_null(pl_jstream_t *js, const char *s)
{
    if (s) {
        pl_jstream_str(js, s);
    }
    else {
        PL_JS_LIT(js, "null");
    }
}

static void provider_js(pl_jstream_t *js, const pl_req_t *req,
                        const pl_provider_t *prov)
{
    static const struct {
        const char *rel;
        int since;
    } rels[] = {
        { "inventories", 0 },
        { "usages", 0 },
        { "aggregates", PL_MV(1, 1) },
        { "traits", PL_MV(1, 6) },
        { "allocations", PL_MV(1, 11) },
    };
    const char *url = pl_link(
        req, apr_pstrcat(req->pool, "/resource_providers/", prov->uuid, NULL));
    apr_size_t qlen, i;
    /* the self link as JSON text; each other link is it, less its
     * closing quote, and "/<rel>" */
    const char *self = pl_py_json_str(req->pool, url, strlen(url), &qlen);

    PL_JS_LIT(js, "{\"uuid\": ");
    pl_jstream_str(js, prov->uuid);
    PL_JS_LIT(js, ", \"name\": ");
    str_or_null(js, prov->name);
    PL_JS_LIT(js, ", \"generation\": ");
    pl_jstream_int(js, prov->generation);
    PL_JS_LIT(js, ", \"links\": [{\"rel\": \"self\", \"href\": ");
    pl_jstream_raw(js, self, qlen);
    PL_JS_LIT(js, "}");
    for (i = 0; i < sizeof(rels) / sizeof(rels[0]); i++) {
        if (req->mv < rels[i].since) {
            continue;
        }
        PL_JS_LIT(js, ", {\"rel\": \"");
        pl_jstream_raw(js, rels[i].rel, strlen(rels[i].rel));
        PL_JS_LIT(js, "\", \"href\": ");
        pl_jstream_raw(js, self, qlen - 1);
        PL_JS_LIT(js, "/");
        pl_jstream_raw(js, rels[i].rel, strlen(rels[i].rel));
        PL_JS_LIT(js, "\"}");
    }
    PL_JS_LIT(js, "]");
    /* 1.14+: the tree */
    if (req->mv >= PL_MV(1, 14)) {
        PL_JS_LIT(js, ", \"parent_provider_uuid\": ");
        str_or_null(js, prov->parent_uuid);
        PL_JS_LIT(js, ", \"root_provider_uuid\": ");
        pl_jstream_str(js, prov->root_uuid);
    }
    PL_JS_LIT(js, "}");
}

static void end_stream(pl_req_t *req, pl_jstream_t *js)
{
    if (pl_jstream_finish(js) != APR_SUCCESS) {
        ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, req->r,
                      PL_LOGNO(00400) "resource providers: the client went "
                                      "away after %" APR_SIZE_T_FMT " bytes",
                      js->sent);
    }
}

static void write_provider(pl_req_t *req, void *baton)
{
    pl_jstream_t js;

    pl_jstream_response(&js, req->r, req->pool, STREAM_BUFFER);
    provider_js(&js, req, baton);
    end_stream(req, &js);
}

static void write_providers(pl_req_t *req, void *baton)
{
    const apr_array_header_t *provs = baton;
    pl_jstream_t js;
    int i;

    pl_jstream_response(&js, req->r, req->pool, STREAM_BUFFER);
    PL_JS_LIT(&js, "{\"resource_providers\": [");
    for (i = 0; i < provs->nelts && !js.failed; i++) {
        if (i) {
            PL_JS_LIT(&js, ", ");
        }
        provider_js(&js, req, APR_ARRAY_IDX(provs, i, pl_provider_t *));
    }
    PL_JS_LIT(&js, "]}");
    end_stream(req, &js);
}

static int reply_provider(pl_req_t *req, pl_provider_t *prov)
{
    return pl_reply_stream(req, HTTP_OK, write_provider, prov);
}

/* last-modified of a provider read from the database (1.15+) */
static void touch_provider(pl_req_t *req, const pl_provider_t *prov)
{
    pl_req_touch(req, prov->updated_at ? prov->updated_at : prov->created_at);
}

static int bad_query(pl_req_t *req, const char *err)
{
    return pl_err(req, HTTP_BAD_REQUEST, NULL, "%s", err);
}

/* The filters of GET /resource_providers from the query string (already
 * checked against the schema of the microversion). */
static int read_filters(pl_req_t *req, pl_provider_filter_t *f)
{
    apr_array_header_t *vals;
    const char *err = NULL, *v;

    memset(f, 0, sizeof(*f));
    /* member_of may be repeated from 1.24 */
    vals = pl_args(req, "member_of");
    if (vals->nelts) {
        pl_qs_member_of_t *mo;

        if (pl_qs_member_of(req->pool, req->mv, "", vals, &mo, &err) !=
            APR_SUCCESS) {
            return bad_query(req, err);
        }
        f->member_of = mo;
    }
    vals = pl_args(req, "required");
    if (vals->nelts) {
        pl_qs_traits_t *traits;

        if (pl_qs_required(req->pool, req->mv, vals, &traits, &err) !=
            APR_SUCCESS) {
            return bad_query(req, err);
        }
        f->traits = traits;
    }
    /* the others: the last value counts, as in webob's req.GET[key] */
    f->uuid = pl_arg_last(req, "uuid");
    f->name = pl_arg_last(req, "name");
    f->in_tree = pl_arg_last(req, "in_tree");
    if ((v = pl_arg_last(req, "resources")) != NULL) {
        apr_array_header_t *res;

        if (pl_qs_resources(req->pool, v, &res, &err) != APR_SUCCESS) {
            return bad_query(req, err);
        }
        f->resources = res;
    }
    return 0;
}

int pl_api_rp_list(pl_req_t *req)
{
    const char *qs = req->mv >= PL_MV(1, 18)   ? PL_SCHEMA_RP_LIST_QS_1_18
                     : req->mv >= PL_MV(1, 14) ? PL_SCHEMA_RP_LIST_QS_1_14
                     : req->mv >= PL_MV(1, 4)  ? PL_SCHEMA_RP_LIST_QS_1_4
                     : req->mv >= PL_MV(1, 3)  ? PL_SCHEMA_RP_LIST_QS_1_3
                                               : PL_SCHEMA_RP_LIST_QS;
    const pl_jsonschema_t *schema;
    pl_provider_filter_t f;
    pl_provider_unknown_t unknown;
    apr_array_header_t *provs;
    const char *latest = NULL;
    apr_status_t rv;
    pl_db_t *db;
    int st, i;

    if ((st = pl_schema(req, qs, &schema))) {
        return st;
    }
    if ((st = pl_check_query(req, schema)) || (st = read_filters(req, &f))) {
        return st;
    }
    if ((st = pl_req_db(req, &db))) {
        return st;
    }
    rv = pl_store_provider_list(db, req->pool, &f, &provs, &unknown);
    if (rv == APR_ENOENT && unknown.trait) {
        return pl_err(req, HTTP_BAD_REQUEST, NULL,
                      "Invalid trait(s) in "
                      "\"required\" parameter: No such trait(s): %s.",
                      unknown.trait);
    }
    if (rv == APR_ENOENT && unknown.resource_class) {
        return pl_err(req, HTTP_BAD_REQUEST, NULL,
                      "Invalid resource class "
                      "in resources parameter: No such resource class %s.",
                      unknown.resource_class);
    }
    if (rv != APR_SUCCESS) {
        return pl_err_store(req, rv, "listing resource providers");
    }
    /* Last-Modified: the latest of their dates, parsed once (created_at
     * and updated_at come in one format, which sorts as time does) */
    for (i = 0; i < provs->nelts; i++) {
        const pl_provider_t *prov = APR_ARRAY_IDX(provs, i, pl_provider_t *);
        const char *at = prov->updated_at ? prov->updated_at : prov->created_at;

        if (at && (latest == NULL || strcmp(at, latest) > 0)) {
            latest = at;
        }
    }
    pl_req_touch(req, latest);
    if (req->last_modified == 0) {
        req->last_modified = apr_time_now();
    }
    return pl_reply_stream(req, HTTP_OK, write_providers, provs);
}

int pl_api_rp_create(pl_req_t *req)
{
    const pl_jsonschema_t *schema;
    const char *name, *uuid, *parent, *dup = NULL;
    pl_provider_t *prov;
    json_object *doc;
    apr_status_t rv;
    pl_db_t *db;
    int st;

    if ((st = pl_schema(req,
                        req->mv >= PL_MV(1, 14) ? PL_SCHEMA_RP_POST_SCHEMA_1_14
                                                : PL_SCHEMA_RP_POST_SCHEMA,
                        &schema)) ||
        (st = pl_read_json(req, schema, &doc))) {
        return st;
    }
    name = pl_body_str(doc, "name");
    uuid = pl_body_str(doc, "uuid");
    parent = pl_body_str(doc, "parent_provider_uuid");
    /* a uuid without dashes is stored in the canonical form */
    if (uuid == NULL || *uuid == '\0') {
        uuid = pl_uuid_new(req->pool);
    }
    else if (pl_uuid_normalize(req->pool, uuid, &uuid) != APR_SUCCESS) {
        return pl_err(req, HTTP_BAD_REQUEST, NULL, "badly formed uuid");
    }
    if (*name == '\0' || (parent && !strcmp(parent, uuid))) {
        return pl_err(
            req, HTTP_BAD_REQUEST, NULL,
            "Unable to create resource provider \"%s\", %s: Object "
            "action create failed because: %s",
            name, uuid,
            *name == '\0'
                ? "name is required"
                : "parent provider UUID cannot be same as UUID. Please "
                  "set parent provider UUID to None if there is no "
                  "parent.");
    }
    if ((st = pl_req_db(req, &db))) {
        return st;
    }
    rv = pl_store_provider_create(db, req->pool, name, uuid, parent, &prov,
                                  &dup);
    if (rv == APR_ENOENT) {
        return pl_err(req, HTTP_BAD_REQUEST, NULL,
                      "Unable to create resource provider \"%s\", %s: Object "
                      "action create failed because: parent provider UUID "
                      "does not exist.",
                      name, uuid);
    }
    if (rv == APR_EEXIST) {
        /* nova looks for "Conflicting resource provider name:" */
        return pl_err(req, HTTP_CONFLICT, PL_ERRC_DUPLICATE_NAME,
                      "Conflicting resource provider %s: %s already exists.",
                      dup, strcmp(dup, "uuid") ? name : uuid);
    }
    if (rv != APR_SUCCESS) {
        return pl_err_store(req, rv, "creating a resource provider");
    }
    req->location = apr_pstrcat(req->pool, "/resource_providers/", prov->uuid,
                                NULL);
    /* 1.20+: 200 + the provider; before: 201, empty */
    if (req->mv < PL_MV(1, 20)) {
        return pl_reply_empty(req, HTTP_CREATED);
    }
    req->last_modified = apr_time_now();
    return reply_provider(req, prov);
}

int pl_api_rp_of_path(pl_req_t *req, const char *fmt, pl_provider_t **pprov)
{
    const char *uuid = req->params[0];
    apr_status_t rv;
    pl_db_t *db;
    int st;

    if ((st = pl_req_db(req, &db))) {
        return st;
    }
    rv = pl_store_provider_get(db, req->pool, uuid, pprov);
    if (rv == APR_ENOENT && fmt == NULL) { /* get_by_uuid's NotFound */
        return pl_err_escaped(
            req, pl_err(req, HTTP_NOT_FOUND, NULL,
                        "No resource provider with uuid %s found", uuid));
    }
    if (rv == APR_ENOENT) { /* a handler's own HTTPNotFound */
        return pl_err(req, HTTP_NOT_FOUND, NULL, fmt, uuid, uuid);
    }
    if (rv != APR_SUCCESS) {
        return pl_err_store(req, rv, "reading a resource provider");
    }
    return 0;
}

int pl_api_rp_get(pl_req_t *req)
{
    pl_provider_t *prov;
    int st;

    if ((st = pl_api_rp_of_path(req, NULL, &prov))) {
        return st;
    }
    touch_provider(req, prov);
    return reply_provider(req, prov);
}

int pl_api_rp_update(pl_req_t *req)
{
    static const char *const reasons[] = {
        [PL_PROVIDER_PARENT_MISSING] = "parent provider UUID does not "
                                       "exist.",
        [PL_PROVIDER_REPARENT] = "re-parenting a provider is not currently "
                                 "allowed.",
        [PL_PROVIDER_UNPARENT] = "un-parenting a provider is not currently "
                                 "allowed.",
        [PL_PROVIDER_LOOP] = "creating loop in the provider tree is not "
                             "allowed.",
    };
    const char *uuid = req->params[0], *name, *parent, *old_updated_at;
    pl_provider_refusal_e refusal = PL_PROVIDER_PARENT_MISSING;
    const pl_jsonschema_t *schema;
    pl_provider_t *prov;
    json_object *doc;
    apr_status_t rv;
    pl_db_t *db;
    int st;

    if ((st = pl_api_rp_of_path(req, NULL, &prov))) {
        return st;
    }
    db = req->db;
    if ((st = pl_schema(req,
                        req->mv >= PL_MV(1, 14) ? PL_SCHEMA_RP_PUT_SCHEMA_1_14
                                                : PL_SCHEMA_RP_PUT_SCHEMA,
                        &schema)) ||
        (st = pl_read_json(req, schema, &doc))) {
        return st;
    }
    name = pl_body_str(doc, "name");
    /* an absent parent_provider_uuid means "keep the one it has" */
    parent = prov->parent_uuid;
    if (json_object_object_get_ex(doc, "parent_provider_uuid", NULL)) {
        parent = pl_body_str(doc, "parent_provider_uuid");
    }
    /* upstream answers with the last-modified it read, not the new one */
    old_updated_at = prov->updated_at;
    /* 1.37+: a parent may change, or go */
    rv = pl_store_provider_update(db, req->pool, prov, name, parent,
                                  req->mv >= PL_MV(1, 37), &refusal);
    if (rv == APR_EEXIST) {
        return pl_err(req, HTTP_CONFLICT, PL_ERRC_DUPLICATE_NAME,
                      "Conflicting resource provider %s already exists.", name);
    }
    if (rv == APR_EINVAL) {
        return pl_err(
            req, HTTP_BAD_REQUEST, NULL,
            "Unable to save resource provider %s: Object action "
            "%s failed because: %s",
            uuid, refusal == PL_PROVIDER_PARENT_MISSING ? "create" : "update",
            reasons[refusal]);
    }
    if (rv != APR_SUCCESS) {
        return pl_err_store(req, rv, "updating a resource provider");
    }
    /* upstream sends no-cache even without a date (never updated): the
     * glue ties both headers together, so fall back to now */
    pl_req_touch(req, old_updated_at);
    if (req->last_modified == 0) {
        req->last_modified = apr_time_now();
    }
    return reply_provider(req, prov);
}

int pl_api_rp_delete(pl_req_t *req)
{
    const char *uuid = req->params[0];
    pl_provider_t *prov;
    apr_status_t rv;
    pl_db_t *db;
    int st;

    if ((st = pl_req_db(req, &db))) {
        return st;
    }
    rv = pl_store_provider_get(db, req->pool, uuid, &prov);
    if (rv == APR_SUCCESS) {
        rv = pl_store_provider_delete(db, req->pool, prov);
    }
    switch (rv) {
    case APR_SUCCESS:
        return pl_reply_empty(req, HTTP_NO_CONTENT);
    case APR_ENOENT:
        return pl_err(req, HTTP_NOT_FOUND, NULL,
                      "No resource provider with uuid %s found for delete",
                      uuid);
    case PL_EPARENT:
        return pl_err(req, HTTP_CONFLICT, PL_ERRC_PROVIDER_CANNOT_DELETE_PARENT,
                      "Unable to delete parent resource provider %s: It has "
                      "child resource providers.",
                      uuid);
    case PL_EINUSE:
        return pl_err(req, HTTP_CONFLICT, PL_ERRC_PROVIDER_IN_USE,
                      "Unable to delete resource provider %s: Resource "
                      "provider has allocations.",
                      uuid);
    default:
        return pl_err_store(req, rv, "deleting a resource provider");
    }
}
