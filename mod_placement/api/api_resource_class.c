/* Licensed under the Apache License, Version 2.0.
 *
 * api_resource_class.c: /resource_classes and /resource_classes/{name}
 * (placement's handlers/resource_class.py), from microversion 1.2.
 * PUT renames a custom class up to 1.6; from 1.7 it takes no body and
 * creates the class named in the URL unless it exists.
 */
#include <string.h>
#include <apr_strings.h>
#include <apr_lib.h>
#include <http_protocol.h>

#include "pl_private.h"
#include "pl_api.h"
#include "pl_authorize.h"
#include "pl_body.h"
#include "pl_schemas.h"
#include "pl_store_rc.h"

/* schemas/resource_class.py: POST_RC_SCHEMA_V1_2 (PUT_RC_SCHEMA_V1_2 is
 * the same dict) */
/* Body and query schemas: pl_schemas.c (PL_SCHEMA_RC_*). */

/* util.pick_last_modified: updated_at, else created_at, else now. */
static void touch_rc(pl_req_t *req, const pl_rc_t *rc)
{
    const char *t = rc->updated_at ? rc->updated_at : rc->created_at;

    if (t) {
        pl_req_touch(req, t);
    }
    else {
        req->last_modified = apr_time_now();
    }
}

static const char *rc_path(pl_req_t *req, const char *name)
{
    return apr_pstrcat(req->pool, "/resource_classes/", name, NULL);
}

static json_object *rc_to_json(pl_req_t *req, const pl_rc_t *rc)
{
    json_object *obj = json_object_new_object();
    json_object *links = json_object_new_array();
    json_object *self = json_object_new_object();

    json_object_object_add(obj, "name", json_object_new_string(rc->name));
    json_object_object_add(self, "rel", json_object_new_string("self"));
    json_object_object_add(
        self, "href",
        json_object_new_string(pl_link(req, rc_path(req, rc->name))));
    json_object_array_add(links, self);
    json_object_object_add(obj, "links", links);
    return obj;
}

/* The class named in the URL; 404 as upstream's generic NotFound, which
 * its handlers let escape. */
static int find_rc(pl_req_t *req, pl_db_t *db, const char *name, pl_rc_t **prc)
{
    apr_status_t rv = pl_store_rc_get(db, req->pool, name, prc);

    if (rv == APR_ENOENT) {
        return pl_err_escaped(req, pl_err(req, HTTP_NOT_FOUND, NULL,
                                          "No such resource class %s.", name));
    }
    if (rv != APR_SUCCESS) {
        return pl_err_store(req, rv, "reading a resource class");
    }
    return 0;
}

/* Create custom class name; *pcreated 0 when it already existed (allowed
 * only when exists_ok, else the 409 of POST). */
static int create_rc(pl_req_t *req, pl_db_t *db, const char *name,
                     int exists_ok, int *pcreated)
{
    pl_rc_t *rc;
    apr_status_t rv = pl_store_rc_create(db, req->pool, name, &rc);

    *pcreated = rv == APR_SUCCESS;
    if (rv == APR_EEXIST && exists_ok) {
        return 0; /* someone else just made it */
    }
    if (rv == APR_EEXIST) {
        return pl_err(req, HTTP_CONFLICT, NULL,
                      "Conflicting resource class already exists: %s", name);
    }
    if (rv == PL_ECONFLICT) {
        return pl_err(req, HTTP_CONFLICT, NULL,
                      "Max retries of DB transaction exceeded attempting "
                      "to create resource class: %s, please try again.",
                      name);
    }
    if (rv != APR_SUCCESS) {
        return pl_err_store(req, rv, "creating a resource class");
    }
    return 0;
}

int pl_api_rc_list(pl_req_t *req)
{
    apr_array_header_t *rcs;
    json_object *root, *list;
    pl_db_t *db;
    apr_status_t rv;
    int st, i;

    if ((st = pl_req_db(req, &db))) {
        return st;
    }
    rv = pl_store_rc_list(db, req->pool, &rcs);
    if (rv != APR_SUCCESS) {
        return pl_err_store(req, rv, "listing resource classes");
    }
    root = json_object_new_object();
    list = json_object_new_array();
    for (i = 0; i < rcs->nelts; i++) {
        const pl_rc_t *rc = APR_ARRAY_IDX(rcs, i, pl_rc_t *);

        touch_rc(req, rc);
        json_object_array_add(list, rc_to_json(req, rc));
    }
    if (rcs->nelts == 0) {
        req->last_modified = apr_time_now();
    }
    json_object_object_add(root, "resource_classes", list);
    return pl_reply_json(req, HTTP_OK, root);
}

/* The start of POST and of the 1.2 - 1.6 PUT, after the content type and
 * the policy rule: the body's "name", then the database. */
static int read_name(pl_req_t *req, const char **pname, pl_db_t **pdb)
{
    const pl_jsonschema_t *schema;
    json_object *doc;
    int st;

    if ((st = pl_schema(req, PL_SCHEMA_RC_RC_SCHEMA, &schema))) {
        return st;
    }
    if ((st = pl_read_json(req, schema, &doc))) {
        return st;
    }
    if ((st = pl_req_db(req, pdb))) {
        return st;
    }
    *pname = pl_body_str(doc, "name");
    return 0;
}

int pl_api_rc_create(pl_req_t *req)
{
    const char *name;
    pl_db_t *db;
    int st, created;

    if ((st = read_name(req, &name, &db)) ||
        (st = create_rc(req, db, name, 0, &created))) {
        return st;
    }
    req->location = rc_path(req, name);
    return pl_reply_empty(req, HTTP_CREATED);
}

/* The database, then the class named in the path (404). */
static int rc_of_path(pl_req_t *req, pl_db_t **pdb, pl_rc_t **prc)
{
    int st;

    if ((st = pl_req_db(req, pdb))) {
        return st;
    }
    return find_rc(req, *pdb, req->params[0], prc);
}

int pl_api_rc_get(pl_req_t *req)
{
    pl_rc_t *rc;
    pl_db_t *db;
    int st;

    if ((st = rc_of_path(req, &db, &rc))) {
        return st;
    }
    touch_rc(req, rc);
    return pl_reply_json(req, HTTP_OK, rc_to_json(req, rc));
}

/* 1.2 - 1.6: rename a custom class; 200 with the class. */
static int rc_rename(pl_req_t *req)
{
    const char *old = req->params[0], *name;
    pl_rc_t *rc;
    pl_db_t *db;
    apr_status_t rv;
    int st;

    /* the route leaves both checks to the handler (1.7+ takes no body) */
    if ((st = pl_require_json(req)) ||
        (st = pl_authorize(req, "placement:resource_classes:update", NULL)) ||
        (st = read_name(req, &name, &db)) ||
        (st = find_rc(req, db, old, &rc))) {
        return st;
    }
    rv = pl_store_rc_rename(db, req->pool, rc, name);
    if (rv == APR_EEXIST) {
        return pl_err(req, HTTP_CONFLICT, NULL,
                      "Resource class already exists: %s", name);
    }
    if (rv == APR_EINVAL) {
        return pl_err(req, HTTP_BAD_REQUEST, NULL,
                      "Cannot update standard resource class %s", old);
    }
    if (rv != APR_SUCCESS) {
        return pl_err_store(req, rv, "renaming a resource class");
    }
    return pl_reply_json(req, HTTP_OK, rc_to_json(req, rc));
}

/* 1.7+: make sure the custom class in the URL exists; 201 when this
 * request created it, 204 when it was there. No body is read. */
static int rc_ensure(pl_req_t *req)
{
    const char *name = req->params[0];
    const pl_jsonschema_t *schema;
    json_object *doc;
    const char *err = NULL;
    pl_rc_t *rc;
    pl_db_t *db;
    apr_status_t rv;
    int st, created = 0;

    if ((st = pl_authorize(req, "placement:resource_classes:update", NULL))) {
        return st;
    }
    /* Upstream validates the name as the body {"name": <name>} of the
     * rename schema, so the 400 reads like a body error. */
    if ((st = pl_schema(req, PL_SCHEMA_RC_RC_SCHEMA, &schema))) {
        return st;
    }
    doc = pl_json_own(req, json_object_new_object());
    json_object_object_add(doc, "name", json_object_new_string(name));
    if (pl_jsonschema_validate_detail(schema, doc, req->pool, &err) !=
        APR_SUCCESS) {
        return pl_err(req, HTTP_BAD_REQUEST, NULL, "JSON does not validate: %s",
                      err);
    }
    if ((st = pl_req_db(req, &db))) {
        return st;
    }
    rv = pl_store_rc_get(db, req->pool, name, &rc);
    if (rv == APR_ENOENT) {
        if ((st = create_rc(req, db, name, 1, &created))) {
            return st;
        }
    }
    else if (rv != APR_SUCCESS) {
        return pl_err_store(req, rv, "reading a resource class");
    }
    req->location = rc_path(req, name);
    return pl_reply_empty(req, created ? HTTP_CREATED : HTTP_NO_CONTENT);
}

int pl_api_rc_update(pl_req_t *req)
{
    return req->mv >= PL_MV(1, 7) ? rc_ensure(req) : rc_rename(req);
}

int pl_api_rc_delete(pl_req_t *req)
{
    pl_rc_t *rc;
    pl_db_t *db;
    apr_status_t rv;
    int st;

    if ((st = rc_of_path(req, &db, &rc))) {
        return st;
    }
    rv = pl_store_rc_delete(db, req->pool, rc);
    if (rv == APR_EINVAL) {
        return pl_err(req, HTTP_BAD_REQUEST, NULL,
                      "Error in delete resource class: Cannot delete "
                      "standard resource class %s.",
                      rc->name);
    }
    if (rv == PL_EINUSE) {
        return pl_err(req, HTTP_CONFLICT, NULL,
                      "Error in delete resource class: Cannot delete "
                      "resource class %s. Class is in use in inventory.",
                      rc->name);
    }
    if (rv == APR_ENOENT) {
        return pl_err(req, HTTP_NOT_FOUND, NULL,
                      "Resource could not be found.");
    }
    if (rv != APR_SUCCESS) {
        return pl_err_store(req, rv, "deleting a resource class");
    }
    return pl_reply_empty(req, HTTP_NO_CONTENT);
}
