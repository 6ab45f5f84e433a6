/* Licensed under the Apache License, Version 2.0.
 *
 * api_inventory.c: /resource_providers/{uuid}/inventories and
 * /resource_providers/{uuid}/inventories/{rc} (placement's
 * handlers/inventory.py). Every write bumps the provider generation; PUTs
 * carry the generation they expect and get a 409 when it moved on.
 * Reserved may equal total from 1.26; DELETE of the collection is 1.5+.
 */
#include <string.h>
#include <apr_strings.h>
#include <apr_lib.h>
#include <http_protocol.h>
#include <http_log.h>

#include "pl_private.h"
#include "pl_api.h"
#include "pl_authorize.h"
#include "pl_body.h"
#include "pl_schemas.h"
#include "pl_store_inventory.h"
#include "pl_store_rc.h"

/* schemas/inventory.py, key order included. One inventory record; the
 * variants differ only in their properties and "required". */
/* Body and query schemas: pl_schemas.c (PL_SCHEMA_INVENTORY_*). */

#define CONCURRENT_TEXT                                                \
    "Another thread concurrently updated the resource provider data. " \
    "Please retry your update"

/* The id of resource class name, compared case-sensitively as
 * upstream's class cache does (MySQL's collation would let "vcpu" find
 * VCPU). APR_ENOENT when there is no such class. */
static apr_status_t class_id(pl_req_t *req, const char *name, apr_int64_t *pid)
{
    pl_rc_t *rc;
    apr_status_t rv = pl_store_rc_get(req->db, req->pool, name, &rc);

    if (rv == APR_SUCCESS && strcmp(rc->name, name) != 0) {
        rv = APR_ENOENT;
    }
    if (rv == APR_SUCCESS) {
        *pid = rc->id;
    }
    return rv;
}

/* _serialize_inventory. rec: the body record it came from, or NULL when
 * read from the database: upstream echoes an integer allocation_ratio of
 * a body as an integer. */
static json_object *inventory_to_json(const pl_inventory_t *inv,
                                      json_object *rec, apr_int64_t generation)
{
    json_object *obj = json_object_new_object();
    json_object *v = NULL;

    json_object_object_add(obj, "total", json_object_new_int64(inv->total));
    json_object_object_add(obj, "reserved",
                           json_object_new_int64(inv->reserved));
    json_object_object_add(obj, "min_unit",
                           json_object_new_int64(inv->min_unit));
    json_object_object_add(obj, "max_unit",
                           json_object_new_int64(inv->max_unit));
    json_object_object_add(obj, "step_size",
                           json_object_new_int64(inv->step_size));
    if (rec && json_object_object_get_ex(rec, "allocation_ratio", &v) &&
        json_object_is_type(v, json_type_int)) {
        json_object_object_add(obj, "allocation_ratio",
                               json_object_new_int64(json_object_get_int64(v)));
    }
    else {
        json_object_object_add(obj, "allocation_ratio",
                               pl_json_float(inv->allocation_ratio));
    }
    /* upstream: "if generation:", so a generation of 0 is left out */
    if (generation) {
        json_object_object_add(obj, "resource_provider_generation",
                               json_object_new_int64(generation));
    }
    return obj;
}

/* util.pick_last_modified for one inventory read from the database. */
static void touch_inventory(pl_req_t *req, const pl_inventory_t *inv)
{
    const char *t = inv->updated_at ? inv->updated_at : inv->created_at;

    if (t) {
        pl_req_touch(req, t);
    }
    else {
        req->last_modified = apr_time_now();
    }
}

/* _validate_inventory_capacity: before 1.26 the capacity must be
 * positive, from 1.26 not negative (reserved may equal total). Records a
 * 400 prefixed with what (ending in the provider uuid) on failure. */
static int check_capacity(pl_req_t *req, const pl_inventory_t *inv,
                          const pl_provider_t *prov, const char *what)
{
    double cap = pl_store_inventory_capacity(inv);

    if (req->mv < PL_MV(1, 26) ? cap <= 0 : cap < 0) {
        return pl_err(req, HTTP_BAD_REQUEST, NULL,
                      "%s: Invalid inventory for '%s' on resource "
                      "provider '%s'. The reserved value is greater than "
                      "%stotal.",
                      what, inv->rc_name, prov->uuid,
                      req->mv < PL_MV(1, 26) ? "or equal to " : "");
    }
    return 0;
}

/* Log what upstream logs when a write leaves usage above capacity. */
static void warn_over_capacity(pl_req_t *req, const pl_provider_t *prov,
                               const char *rc_name)
{
    ap_log_rerror(
        APLOG_MARK, APLOG_WARNING, 0, req->r,
        PL_LOGNO(00501) "Resource provider %s is now over-capacity for %s",
        prov->uuid, rc_name);
}

/* The provider of the path, with the 404 text the inventory reads give
 * (upstream repeats the message). */
static int read_provider(pl_req_t *req, pl_provider_t **pprov)
{
    return pl_api_rp_of_path(req,
                             "No resource provider with uuid %s "
                             "found : No resource provider with "
                             "uuid %s found",
                             pprov);
}

int pl_api_inventory_list(pl_req_t *req)
{
    apr_array_header_t *invs;
    json_object *root, *all;
    pl_provider_t *prov;
    apr_status_t rv;
    int st, i;

    if ((st = read_provider(req, &prov))) {
        return st;
    }
    rv = pl_store_inventory_list(req->db, req->pool, prov->id, &invs);
    if (rv != APR_SUCCESS) {
        return pl_err_store(req, rv, "listing inventories");
    }
    root = json_object_new_object();
    all = json_object_new_object();
    json_object_object_add(root, "resource_provider_generation",
                           json_object_new_int64(prov->generation));
    for (i = 0; i < invs->nelts; i++) {
        const pl_inventory_t *inv = APR_ARRAY_IDX(invs, i,
                                                  const pl_inventory_t *);

        json_object_object_add(all, inv->rc_name,
                               inventory_to_json(inv, NULL, 0));
        touch_inventory(req, inv);
    }
    json_object_object_add(root, "inventories", all);
    return pl_reply_json(req, HTTP_OK, root);
}

int pl_api_inventory_get(pl_req_t *req)
{
    const char *rc_name = req->params[1];
    pl_inventory_t *inv;
    pl_provider_t *prov;
    apr_status_t rv;
    int st;

    if ((st = read_provider(req, &prov))) {
        return st;
    }
    rv = pl_store_inventory_get(req->db, req->pool, prov->id, rc_name, &inv);
    if (rv == APR_ENOENT) {
        return pl_err(req, HTTP_NOT_FOUND, NULL,
                      "No inventory of class %s for %s", rc_name,
                      req->params[0]);
    }
    if (rv != APR_SUCCESS) {
        return pl_err_store(req, rv, "reading an inventory");
    }
    touch_inventory(req, inv);
    return pl_reply_json(req, HTTP_OK,
                         inventory_to_json(inv, NULL, prov->generation));
}

int pl_api_inventory_create(pl_req_t *req)
{
    const pl_jsonschema_t *schema;
    pl_inventory_t *inv;
    pl_provider_t *prov;
    json_object *doc;
    const char *what;
    apr_status_t rv;
    int st;

    if ((st = pl_api_rp_of_path(req, NULL, &prov)) ||
        (st = pl_schema(req, PL_SCHEMA_INVENTORY_POST_SCHEMA, &schema)) ||
        (st = pl_read_json(req, schema, &doc))) {
        return st;
    }
    inv = pl_body_inventory(req->pool, doc, pl_body_str(doc, "resource_class"));
    what = apr_psprintf(req->pool,
                        "Unable to create inventory for "
                        "resource provider %s",
                        prov->uuid);
    if ((st = check_capacity(req, inv, prov, what))) {
        return st;
    }
    rv = class_id(req, inv->rc_name, &inv->rc_id);
    if (rv == APR_ENOENT) {
        return pl_err(req, HTTP_BAD_REQUEST, NULL,
                      "%s: No such resource class %s.", what, inv->rc_name);
    }
    if (rv == APR_SUCCESS) {
        rv = pl_store_inventory_add(req->db, req->pool, prov, inv);
    }
    if (rv == APR_EEXIST) {
        /* upstream shows the database's duplicate entry error here */
        return pl_err(req, HTTP_CONFLICT, PL_ERRC_CONCURRENT_UPDATE,
                      "Update conflict: Inventory for '%s' on resource "
                      "provider '%s' already exists.",
                      inv->rc_name, prov->uuid);
    }
    if (rv == PL_ECONFLICT) {
        return pl_err(req, HTTP_CONFLICT, PL_ERRC_CONCURRENT_UPDATE,
                      "Update conflict: " CONCURRENT_TEXT);
    }
    if (rv != APR_SUCCESS) {
        return pl_err_store(req, rv, "creating an inventory");
    }
    req->location = apr_pstrcat(req->pool, "/resource_providers/", prov->uuid,
                                "/inventories/", inv->rc_name, NULL);
    req->last_modified = apr_time_now();
    return pl_reply_json(req, HTTP_CREATED,
                         inventory_to_json(inv, doc, prov->generation));
}

/* The start of both PUTs (after the route's content type and policy
 * rule): the provider of the path, the body against schema, and the
 * generation it names, which must be current. */
static int read_update(pl_req_t *req, const char *text, pl_provider_t **pprov,
                       json_object **pdoc)
{
    const pl_jsonschema_t *schema;
    int st;

    if ((st = pl_api_rp_of_path(req, NULL, pprov)) ||
        (st = pl_schema(req, text, &schema)) ||
        (st = pl_read_json(req, schema, pdoc))) {
        return st;
    }
    if (pl_body_int(*pdoc, "resource_provider_generation", -1) !=
        (*pprov)->generation) {
        return pl_err(req, HTTP_CONFLICT, PL_ERRC_CONCURRENT_UPDATE,
                      "resource provider generation conflict");
    }
    return 0;
}

int pl_api_inventory_update(pl_req_t *req)
{
    const char *rc_name = req->params[1];
    pl_inventory_t *inv;
    pl_provider_t *prov;
    json_object *doc;
    const char *what;
    apr_status_t rv;
    int st, exceeded = 0;

    if ((st = read_update(req, PL_SCHEMA_INVENTORY_PUT_ONE_SCHEMA, &prov,
                          &doc))) {
        return st;
    }
    inv = pl_body_inventory(req->pool, doc, rc_name);
    what = apr_psprintf(req->pool,
                        "Unable to update inventory for "
                        "resource provider %s",
                        prov->uuid);
    if ((st = check_capacity(req, inv, prov, what))) {
        return st;
    }
    rv = class_id(req, rc_name, &inv->rc_id);
    if (rv == APR_ENOENT) {
        /* not caught by the handler: handler.py makes it a 404 */
        return pl_err(req, HTTP_NOT_FOUND, NULL, "No such resource class %s.",
                      rc_name);
    }
    if (rv == APR_SUCCESS) {
        rv = pl_store_inventory_update(req->db, req->pool, prov, inv,
                                       &exceeded);
    }
    if (rv == APR_ENOENT) {
        return pl_err(req, HTTP_BAD_REQUEST, NULL,
                      "No inventory record with resource class for "
                      "resource provider %s: No inventory of class %s "
                      "found.",
                      prov->uuid, rc_name);
    }
    if (rv == PL_ECONFLICT) {
        return pl_err(req, HTTP_CONFLICT, PL_ERRC_CONCURRENT_UPDATE,
                      "update conflict: " CONCURRENT_TEXT);
    }
    if (rv != APR_SUCCESS) {
        return pl_err_store(req, rv, "updating an inventory");
    }
    if (exceeded) {
        warn_over_capacity(req, prov, rc_name);
    }
    req->last_modified = apr_time_now();
    return pl_reply_json(req, HTTP_OK,
                         inventory_to_json(inv, doc, prov->generation));
}

int pl_api_inventory_set_all(pl_req_t *req)
{
    apr_array_header_t *invs, *exceeded = NULL;
    json_object *doc, *records, *root, *all;
    const char *what, *inuse = NULL;
    pl_provider_t *prov;
    apr_status_t rv;
    int st, i;

    if ((st = read_update(req, PL_SCHEMA_INVENTORY_PUT_ALL_SCHEMA, &prov,
                          &doc))) {
        return st;
    }
    records = pl_body_get(doc, "inventories");
    invs = apr_array_make(req->pool, 4, sizeof(pl_inventory_t *));
    {
        json_object_object_foreach(records, rc_name, rec)
        {
            APR_ARRAY_PUSH(invs, pl_inventory_t *) = pl_body_inventory(
                req->pool, rec, apr_pstrdup(req->pool, rc_name));
        }
    }
    what = apr_psprintf(req->pool,
                        "Unable to update inventory for "
                        "resource provider %s",
                        prov->uuid);
    for (i = 0; i < invs->nelts; i++) {
        if ((st = check_capacity(req, APR_ARRAY_IDX(invs, i, pl_inventory_t *),
                                 prov, what))) {
            return st;
        }
    }
    for (i = 0; i < invs->nelts; i++) {
        pl_inventory_t *inv = APR_ARRAY_IDX(invs, i, pl_inventory_t *);

        rv = class_id(req, inv->rc_name, &inv->rc_id);
        if (rv == APR_ENOENT) {
            return pl_err(req, HTTP_BAD_REQUEST, NULL,
                          "Unknown resource class in inventory for "
                          "resource provider %s: No such resource class "
                          "%s.",
                          prov->uuid, inv->rc_name);
        }
        if (rv != APR_SUCCESS) {
            return pl_err_store(req, rv, "reading a resource class");
        }
    }
    rv = pl_store_inventory_set(req->db, req->pool, prov, invs, &inuse,
                                &exceeded);
    if (rv == PL_EINUSE) {
        return pl_err(req, HTTP_CONFLICT, PL_ERRC_INVENTORY_INUSE,
                      "update conflict: Inventory for '%s' on resource "
                      "provider '%s' in use.",
                      inuse, prov->uuid);
    }
    if (rv == APR_ENOENT) {
        return pl_err(req, HTTP_CONFLICT, NULL,
                      "Race condition detected when setting inventory. No "
                      "inventory record with resource class for resource "
                      "provider %s: a concurrent update removed one.",
                      prov->uuid);
    }
    if (rv == PL_ECONFLICT || rv == APR_EEXIST) {
        return pl_err(req, HTTP_CONFLICT, PL_ERRC_CONCURRENT_UPDATE,
                      "update conflict: " CONCURRENT_TEXT);
    }
    if (rv != APR_SUCCESS) {
        return pl_err_store(req, rv, "setting inventories");
    }
    for (i = 0; exceeded && i < exceeded->nelts; i++) {
        warn_over_capacity(req, prov, APR_ARRAY_IDX(exceeded, i, const char *));
    }
    root = json_object_new_object();
    all = json_object_new_object();
    json_object_object_add(root, "resource_provider_generation",
                           json_object_new_int64(prov->generation));
    i = 0;
    {
        json_object_object_foreach(records, rc_name, rec)
        {
            json_object_object_add(
                all, rc_name,
                inventory_to_json(APR_ARRAY_IDX(invs, i, pl_inventory_t *), rec,
                                  0));
            i++;
        }
    }
    json_object_object_add(root, "inventories", all);
    /* fresh objects: pick_last_modified gives now; none: no header */
    if (invs->nelts > 0) {
        req->last_modified = apr_time_now();
    }
    return pl_reply_json(req, HTTP_OK, root);
}

int pl_api_inventory_delete_all(pl_req_t *req)
{
    apr_array_header_t *none;
    const char *inuse = NULL;
    pl_provider_t *prov;
    apr_status_t rv;
    int st;

    /* version_handler('1.5', status_code=405) */
    if (req->mv < PL_MV(1, 5)) {
        return pl_err(req, HTTP_METHOD_NOT_ALLOWED, NULL, "%s", "");
    }
    if ((st = pl_authorize(req,
                           "placement:resource_providers:"
                           "inventories:delete",
                           NULL)) ||
        (st = pl_api_rp_of_path(req, NULL, &prov))) {
        return st;
    }
    none = apr_array_make(req->pool, 1, sizeof(pl_inventory_t *));
    rv = pl_store_inventory_set(req->db, req->pool, prov, none, &inuse, NULL);
    if (rv == PL_EINUSE) {
        return pl_err(req, HTTP_CONFLICT, PL_ERRC_INVENTORY_INUSE,
                      "Inventory for '%s' on resource provider '%s' in "
                      "use.",
                      inuse, prov->uuid);
    }
    if (rv == PL_ECONFLICT) {
        return pl_err(req, HTTP_CONFLICT, PL_ERRC_CONCURRENT_UPDATE,
                      "Unable to delete inventory for resource provider "
                      "%s because the inventory was updated by another "
                      "process. Please retry your request.",
                      prov->uuid);
    }
    if (rv != APR_SUCCESS) {
        return pl_err_store(req, rv, "deleting inventories");
    }
    return pl_reply_empty(req, HTTP_NO_CONTENT);
}

int pl_api_inventory_delete(pl_req_t *req)
{
    const char *rc_name = req->params[1];
    const char *inuse = NULL;
    pl_provider_t *prov;
    apr_int64_t rc_id;
    apr_status_t rv;
    int st;

    if ((st = pl_api_rp_of_path(req, NULL, &prov))) {
        return st;
    }
    rv = class_id(req, rc_name, &rc_id);
    if (rv == APR_ENOENT) {
        return pl_err(req, HTTP_NOT_FOUND, NULL,
                      "No inventory of class %s found for delete: No such "
                      "resource class %s.",
                      rc_name, rc_name);
    }
    if (rv == APR_SUCCESS) {
        rv = pl_store_inventory_delete(req->db, req->pool, prov, rc_id, &inuse);
    }
    if (rv == APR_ENOENT) {
        return pl_err(req, HTTP_NOT_FOUND, NULL,
                      "No inventory of class %s found for delete: No "
                      "inventory of class %s found for delete",
                      rc_name, rc_name);
    }
    /* upstream files in-use under concurrent_update here too */
    if (rv == PL_EINUSE) {
        return pl_err(req, HTTP_CONFLICT, PL_ERRC_CONCURRENT_UPDATE,
                      "Unable to delete inventory of class %s: Inventory "
                      "for '%s' on resource provider '%s' in use.",
                      rc_name, inuse, prov->uuid);
    }
    if (rv == PL_ECONFLICT) {
        return pl_err(
            req, HTTP_CONFLICT, PL_ERRC_CONCURRENT_UPDATE,
            "Unable to delete inventory of class %s: " CONCURRENT_TEXT,
            rc_name);
    }
    if (rv != APR_SUCCESS) {
        return pl_err_store(req, rv, "deleting an inventory");
    }
    return pl_reply_empty(req, HTTP_NO_CONTENT);
}
