/* Licensed under the Apache License, Version 2.0.
 *
 * api_allocation.c: the allocation routes (placement's
 * handlers/allocation.py): GET/PUT/DELETE /allocations/{consumer_uuid},
 * POST /allocations (1.13) and GET /resource_providers/{uuid}/allocations.
 * The reading of a POST-style allocations document and the wording of a
 * failed write, which POST /reshaper shares, live here too
 * (pl_api_allocation.h).
 */
#include <string.h>
#include <apr_strings.h>
#include <apr_hash.h>
#include <http_protocol.h>

#include "pl_private.h"
#include "pl_metrics.h"
#include "pl_api.h"
#include "pl_schemas.h"
#include "pl_api_allocation.h"
#include "pl_body.h"
#include "pl_str.h"
#include "pl_uuid.h"

/* 1.0-1.7: a list of {resource_provider: {uuid}, resources} */
/* Body and query schemas: pl_schemas.c (PL_SCHEMA_ALLOCATION_*). */

/* What the request asks of consumer uuid (upstream's ensure_consumer
 * arguments); the store makes it so inside the write. */
static pl_alloc_consumer_t *add_consumer(pl_req_t *req, const char *uuid,
                                         json_object *data, pl_alloc_write_t *w)
{
    pl_alloc_consumer_t *ac = apr_pcalloc(req->pool, sizeof(*ac));
    json_object *gen;

    ac->uuid = uuid;
    ac->project_external_id = pl_body_str(data, "project_id");
    ac->user_external_id = pl_body_str(data, "user_id");
    if (ac->project_external_id == NULL) {
        ac->project_external_id = pl_config_incomplete_project(req->conf);
        ac->user_external_id = pl_config_incomplete_user(req->conf);
    }
    if (req->mv >= PL_MV(1, 38)) {
        ac->type_name = pl_body_str(data, "consumer_type");
    }
    ac->check_generation = req->mv >= PL_MV(1, 28);
    if ((gen = pl_body_get(data, "consumer_generation")) != NULL) {
        ac->has_generation = 1;
        ac->generation = json_object_get_int64(gen);
    }
    APR_ARRAY_PUSH(w->consumers, pl_alloc_consumer_t *) = ac;
    return ac;
}

/* The items of one consumer (upstream's _new_allocations per provider). */
static void add_items(pl_alloc_consumer_t *ac, json_object *allocs,
                      pl_alloc_write_t *w)
{
    if (json_object_object_length(allocs) == 0) {
        ac->clear = 1;
        return;
    }
    {
        json_object_object_foreach(allocs, rp_uuid, one)
        {
            json_object *res = pl_body_get(one, "resources");

            {
                json_object_object_foreach(res, rc, amount)
                {
                    pl_alloc_item_t *it = apr_array_push(w->items);

                    it->ac = ac;
                    it->provider_uuid = rp_uuid;
                    it->rc = rc;
                    it->used = json_object_get_int64(amount);
                }
            }
        }
    }
}

void pl_api_allocation_init(pl_req_t *req, pl_alloc_write_t *w)
{
    memset(w, 0, sizeof(*w));
    w->consumers = apr_array_make(req->pool, 2, sizeof(pl_alloc_consumer_t *));
    w->items = apr_array_make(req->pool, 4, sizeof(pl_alloc_item_t));
    w->retries = pl_config_conflict_retries(req->conf);
}

void pl_api_allocation_parse(pl_req_t *req, json_object *doc,
                             pl_alloc_write_t *w)
{
    json_object_object_foreach(doc, cuuid, data)
    {
        add_items(add_consumer(req, cuuid, data, w),
                  pl_body_get(data, "allocations"), w);
    }
}

/* The message of the exception upstream raises for what the store found
 * (rv, f), which its handlers put after their own words; NULL where the
 * store names nothing (a class removed by a concurrent writer). */
static const char *failure_text(pl_req_t *req, apr_status_t rv,
                                const pl_alloc_failure_t *f)
{
    apr_pool_t *p = req->pool;

    switch (rv) {
    case APR_ENOENT: /* ResourceClassNotFound */
        return f->rc ? apr_psprintf(p, "No such resource class %s.", f->rc)
                     : NULL;
    case PL_EINUSE: /* InventoryInUse */
        return apr_psprintf(p,
                            "Inventory for '%s' on resource provider '%s' "
                            "in use.",
                            f->rc, f->provider);
    case PL_ALLOC_ECONSUMER: /* handlers/util.py ensure_consumer */
        if (!f->has_current) {
            return apr_psprintf(p,
                                "consumer generation conflict - expected "
                                "null but got %" APR_INT64_T_FMT,
                                f->given);
        }
        return apr_psprintf(
            p,
            "consumer generation conflict - expected %" APR_INT64_T_FMT
            " but got %s",
            f->current,
            f->has_given ? apr_psprintf(p, "%" APR_INT64_T_FMT, f->given)
                         : "None");
    case PL_ALLOC_EPROVGEN: /* handlers/reshaper.py */
        return apr_psprintf(p,
                            "resource provider generation conflict for "
                            "provider %s: actual: %" APR_INT64_T_FMT
                            ", given: %" APR_INT64_T_FMT,
                            f->provider, f->current, f->given);
    case PL_ECAPACITY:
        switch (f->why) {
        case PL_ALLOC_NO_INVENTORY: /* InvalidInventory */
            return apr_psprintf(p,
                                "Inventory for '%s' on resource provider "
                                "'%s' invalid.",
                                pl_str_join(p, f->classes, ", "),
                                pl_str_join(p, f->providers, ", "));
        case PL_ALLOC_BAD_AMOUNT: /* InvalidAllocationConstraintsViolated */
            return apr_psprintf(p,
                                "Unable to create allocation for '%s' on "
                                "resource provider '%s'. The requested "
                                "amount would violate inventory "
                                "constraints.",
                                f->rc, f->provider);
        default: /* InvalidAllocationCapacityExceeded */
            return apr_psprintf(p,
                                "Unable to create allocation for '%s' on "
                                "resource provider '%s'. The requested "
                                "amount would exceed the capacity.",
                                f->rc, f->provider);
        }
    case PL_ECONFLICT:
        switch (f->why) {
        case PL_ALLOC_CONSUMER_MOVED: /* ConcurrentUpdateDetected */
            return "Another thread concurrently updated the data. Please "
                   "retry your update";
        /* ResourceProviderConcurrentUpdateDetected */
        case PL_ALLOC_PROVIDER_MOVED:
            return "Another thread concurrently updated the resource "
                   "provider data. Please retry your update";
        default:
            return NULL;
        }
    default:
        return NULL;
    }
}

int pl_api_allocation_error(pl_req_t *req, apr_status_t rv,
                            const pl_alloc_write_t *w,
                            pl_api_allocation_route_e route)
{
    const pl_alloc_failure_t *f = &w->fail;
    const char *text = failure_text(req, rv, f);

    /* alike on every route */
    switch (rv) {
    case PL_ALLOC_ECONSUMER:
        return pl_err(req, HTTP_CONFLICT, PL_ERRC_CONCURRENT_UPDATE, "%s",
                      text);
    case PL_ALLOC_ENOPROVIDER:
        return pl_err(req, HTTP_BAD_REQUEST, NULL,
                      "Allocation for resource provider '%s' that "
                      "does not exist.",
                      f->provider);
    case PL_ECAPACITY:
        return pl_err(req, HTTP_CONFLICT, NULL,
                      "Unable to allocate inventory: %s", text);
    default:
        break;
    }
    if (route == PL_API_ALLOCATION_RESHAPER) { /* handlers/reshaper.py */
        switch (rv) {
        case PL_ALLOC_ENOINVPROVIDER:
            return pl_err(req, HTTP_BAD_REQUEST, PL_ERRC_PROVIDER_NOT_FOUND,
                          "Resource provider %s in inventories not found: "
                          "No resource provider with uuid %s found",
                          f->provider, f->provider);
        case PL_ALLOC_EPROVGEN:
            return pl_err(req, HTTP_CONFLICT, PL_ERRC_CONCURRENT_UPDATE, "%s",
                          text);
        case PL_ECONFLICT:
            return pl_err(req, HTTP_CONFLICT, PL_ERRC_CONCURRENT_UPDATE,
                          "update conflict: %s", text);
        case APR_ENOENT:
            return pl_err(req, HTTP_BAD_REQUEST, NULL,
                          "malformed reshaper data: %s", text);
        case PL_EINUSE:
            return pl_err(req, HTTP_CONFLICT, PL_ERRC_INVENTORY_INUSE,
                          "update conflict: %s", text);
        default:
            return pl_err_store(req, rv, "reshaping");
        }
    }
    /* handlers/allocation.py */
    if (rv == APR_ENOENT && route == PL_API_ALLOCATION_PUT) {
        return pl_err(
            req, HTTP_BAD_REQUEST, NULL,
            "Unable to allocate inventory for consumer %s: %s",
            APR_ARRAY_IDX(w->consumers, 0, pl_alloc_consumer_t *)->uuid, text);
    }
    if (rv == APR_ENOENT) {
        return pl_err(req, HTTP_BAD_REQUEST, NULL,
                      "Unable to allocate inventory %s", text);
    }
    if (rv == PL_ECONFLICT) {
        return pl_err(req, HTTP_CONFLICT, PL_ERRC_CONCURRENT_UPDATE,
                      "Inventory and/or allocations changed while "
                      "attempting to allocate: %s",
                      text);
    }
    return pl_err_store(req, rv, "writing allocations");
}

void pl_api_allocation_log(pl_req_t *req, const pl_alloc_write_t *w)
{
    pl_metrics_add(PL_METRIC_CONFLICT_RETRIES, w->conflicts);
    pl_metrics_add(PL_METRIC_DEADLOCK_RETRIES, w->deadlocks);
    if (w->conflicts || w->deadlocks) {
        ap_log_rerror(
            APLOG_MARK, APLOG_DEBUG, 0, req->r,
            PL_LOGNO(
                03001) "allocation write retried: %d generation conflicts, "
                       "%d deadlocks",
            w->conflicts, w->deadlocks);
    }
}

static int run_write(pl_req_t *req, pl_alloc_write_t *w,
                     pl_api_allocation_route_e route)
{
    apr_status_t rv;
    pl_db_t *db;
    int st;

    if ((st = pl_req_db(req, &db))) {
        return st;
    }
    rv = pl_store_allocation_write(db, req->pool, w);
    pl_api_allocation_log(req, w);
    if (rv != APR_SUCCESS) {
        return pl_api_allocation_error(req, rv, w, route);
    }
    return pl_reply_empty(req, HTTP_NO_CONTENT);
}

/* 1.0-1.11: the list form, as the dict form upstream turns it into */
static json_object *list_to_dict(pl_req_t *req, json_object *list)
{
    json_object *dict = json_object_new_object();
    size_t i, n = json_object_array_length(list);

    (void)req;
    for (i = 0; i < n; i++) {
        json_object *item = json_object_array_get_idx(list, i);
        json_object *rp = pl_body_get(item, "resource_provider");
        json_object *one = json_object_new_object();

        json_object_object_add(one, "resources",
                               json_object_get(pl_body_get(item, "resources")));
        json_object_object_add(dict, pl_body_str(rp, "uuid"), one);
    }
    return dict;
}

int pl_api_allocation_consumer_put(pl_req_t *req)
{
    const char *schemas[] = { PL_SCHEMA_ALLOCATION_SCHEMA_PUT_1_0,
                              PL_SCHEMA_ALLOCATION_SCHEMA_PUT_1_8,
                              PL_SCHEMA_ALLOCATION_SCHEMA_PUT_1_12,
                              PL_SCHEMA_ALLOCATION_SCHEMA_PUT_1_28,
                              PL_SCHEMA_ALLOCATION_SCHEMA_PUT_1_34,
                              PL_SCHEMA_ALLOCATION_SCHEMA_PUT_1_38 };
    const char *uuid = req->params[0];
    json_object *doc, *allocs;
    const pl_jsonschema_t *schema;
    pl_alloc_write_t w;
    int st, which;

    if (pl_uuid_normalize(req->pool, uuid, &uuid) != APR_SUCCESS) {
        return pl_err(req, HTTP_BAD_REQUEST, NULL,
                      "Malformed consumer_uuid: %s", req->params[0]);
    }
    which = req->mv < PL_MV(1, 8)    ? 0
            : req->mv < PL_MV(1, 12) ? 1
            : req->mv < PL_MV(1, 28) ? 2
            : req->mv < PL_MV(1, 34) ? 3
            : req->mv < PL_MV(1, 38) ? 4
                                     : 5;
    if ((st = pl_schema(req, schemas[which], &schema)) ||
        (st = pl_read_json(req, schema, &doc))) {
        return st;
    }
    allocs = pl_body_get(doc, "allocations");
    if (req->mv < PL_MV(1, 12)) {
        /* doc takes the new dict over, freeing the list */
        allocs = list_to_dict(req, allocs);
        json_object_object_add(doc, "allocations", allocs);
    }
    pl_api_allocation_init(req, &w);
    add_items(add_consumer(req, uuid, doc, &w), allocs, &w);
    return run_write(req, &w, PL_API_ALLOCATION_PUT);
}

int pl_api_allocation_post(pl_req_t *req)
{
    const char *text = req->mv >= PL_MV(1, 38)
                           ? PL_SCHEMA_ALLOCATION_SCHEMA_POST_1_38
                       : req->mv >= PL_MV(1, 34)
                           ? PL_SCHEMA_ALLOCATION_SCHEMA_POST_1_34
                       : req->mv >= PL_MV(1, 28)
                           ? PL_SCHEMA_ALLOCATION_SCHEMA_POST_1_28
                           : PL_SCHEMA_ALLOCATION_SCHEMA_POST_1_13;
    const pl_jsonschema_t *schema;
    json_object *doc;
    pl_alloc_write_t w;
    int st;

    if ((st = pl_schema(req, text, &schema)) ||
        (st = pl_read_json(req, schema, &doc))) {
        return st;
    }
    pl_api_allocation_init(req, &w);
    pl_api_allocation_parse(req, doc, &w);
    return run_write(req, &w, PL_API_ALLOCATION_POST);
}

static void touch_rows(pl_req_t *req, const apr_array_header_t *rows)
{
    int i;

    for (i = 0; i < rows->nelts; i++) {
        const pl_alloc_row_t *r = &APR_ARRAY_IDX(rows, i, pl_alloc_row_t);

        pl_req_touch(req, r->updated_at ? r->updated_at : r->created_at);
    }
    if (rows->nelts == 0) {
        req->last_modified = apr_time_now();
    }
}

/* resources of key (a provider or consumer uuid) in out, created on
 * first use */
static json_object *entry_for(json_object *out, const char *key)
{
    json_object *e;

    if (!json_object_object_get_ex(out, key, &e)) {
        e = json_object_new_object();
        json_object_object_add(e, "resources", json_object_new_object());
        json_object_object_add(out, key, e);
    }
    return e;
}

/* {"allocations": {...}} of rows, keyed by provider (with its
 * generation) for a consumer's list, or by consumer (1.28+: with its
 * generation) when by_provider. */
static json_object *
allocations_json(pl_req_t *req, const apr_array_header_t *rows, int by_provider)
{
    json_object *root = json_object_new_object();
    json_object *allocs = json_object_new_object();
    int i;

    json_object_object_add(root, "allocations", allocs);
    for (i = 0; i < rows->nelts; i++) {
        const pl_alloc_row_t *r = &APR_ARRAY_IDX(rows, i, pl_alloc_row_t);
        json_object *e, *res;

        e = entry_for(allocs,
                      by_provider ? r->consumer_uuid : r->provider_uuid);
        json_object_object_get_ex(e, "resources", &res);
        json_object_object_add(res, r->rc, json_object_new_int64(r->used));
        if (!by_provider) {
            json_object_object_add(
                e, "generation", json_object_new_int64(r->provider_generation));
        }
        else if (req->mv >= PL_MV(1, 28)) {
            json_object_object_add(
                e, "consumer_generation",
                json_object_new_int64(r->consumer_generation));
        }
    }
    return root;
}

int pl_api_allocation_consumer_get(pl_req_t *req)
{
    json_object *root;
    apr_array_header_t *rows;
    pl_consumer_t *c;
    pl_db_t *db;
    apr_status_t rv;
    int st;

    if ((st = pl_req_db(req, &db))) {
        return st;
    }
    rv = pl_store_allocation_by_consumer(db, req->pool, req->params[0], &rows,
                                         &c);
    if (rv != APR_SUCCESS) {
        return pl_err_store(req, rv, "listing allocations");
    }
    root = allocations_json(req, rows, 0);
    if (c && req->mv >= PL_MV(1, 12)) {
        json_object_object_add(root, "project_id",
                               json_object_new_string(c->project_external_id));
        json_object_object_add(root, "user_id",
                               json_object_new_string(c->user_external_id));
        if (req->mv >= PL_MV(1, 28)) {
            json_object_object_add(root, "consumer_generation",
                                   json_object_new_int64(c->generation));
        }
        if (req->mv >= PL_MV(1, 38)) {
            json_object_object_add(root, "consumer_type",
                                   json_object_new_string(c->type_name));
        }
    }
    touch_rows(req, rows);
    return pl_reply_json(req, HTTP_OK, root);
}

int pl_api_allocation_provider_list(pl_req_t *req)
{
    const char *uuid = req->params[0];
    apr_array_header_t *rows;
    apr_int64_t generation;
    json_object *root;
    apr_status_t rv;
    pl_db_t *db;
    int st;

    if ((st = pl_req_db(req, &db))) {
        return st;
    }
    rv = pl_store_allocation_by_provider(db, req->pool, uuid, &generation,
                                         &rows);
    if (rv == APR_ENOENT) {
        return pl_err(req, HTTP_NOT_FOUND, NULL,
                      "Resource provider '%s' not found: No resource "
                      "provider with uuid %s found",
                      uuid, uuid);
    }
    if (rv != APR_SUCCESS) {
        return pl_err_store(req, rv, "listing allocations");
    }
    root = allocations_json(req, rows, 1);
    json_object_object_add(root, "resource_provider_generation",
                           json_object_new_int64(generation));
    touch_rows(req, rows);
    return pl_reply_json(req, HTTP_OK, root);
}

int pl_api_allocation_consumer_delete(pl_req_t *req)
{
    pl_db_t *db;
    apr_status_t rv;
    int st;

    if ((st = pl_req_db(req, &db))) {
        return st;
    }
    rv = pl_store_allocation_delete_consumer(db, req->pool, req->params[0]);
    if (rv == APR_ENOENT) {
        return pl_err(req, HTTP_NOT_FOUND, NULL,
                      "No allocations for consumer '%s'", req->params[0]);
    }
    if (rv != APR_SUCCESS) {
        return pl_err_store(req, rv, "deleting allocations");
    }
    return pl_reply_empty(req, HTTP_NO_CONTENT);
}
