/* Licensed under the Apache License, Version 2.0.
 *
 * api_root.c: GET / (and the bare mount point), the version document.
 * Anonymous and free of database work, so it serves as a health probe.
 */
#include <apr_strings.h>
#include <http_protocol.h>

#include "pl_private.h"
#include "pl_api.h"

int pl_api_root_home(pl_req_t *req)
{
    json_object *root = json_object_new_object();
    json_object *versions = json_object_new_array();
    json_object *v = json_object_new_object();
    json_object *links = json_object_new_array();
    json_object *self = json_object_new_object();

    json_object_object_add(
        v, "id",
        json_object_new_string(apr_pstrcat(
            req->pool, "v", pl_mv_str(req->pool, PL_MV_MIN), NULL)));
    json_object_object_add(
        v, "max_version",
        json_object_new_string(pl_mv_str(req->pool, PL_MV_MAX)));
    json_object_object_add(
        v, "min_version",
        json_object_new_string(pl_mv_str(req->pool, PL_MV_MIN)));
    json_object_object_add(v, "status", json_object_new_string("CURRENT"));
    /* relative on purpose: "this same URL", whatever proxies are in front */
    json_object_object_add(self, "rel", json_object_new_string("self"));
    json_object_object_add(self, "href", json_object_new_string(""));
    json_object_array_add(links, self);
    json_object_object_add(v, "links", links);
    json_object_array_add(versions, v);
    json_object_object_add(root, "versions", versions);
    req->last_modified = apr_time_now();
    return pl_reply_json(req, HTTP_OK, root);
}
