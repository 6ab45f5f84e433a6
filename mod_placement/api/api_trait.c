/* Licensed under the Apache License, Version 2.0.
 *
 * api_trait.c: /traits, /traits/{name} and
 * /resource_providers/{uuid}/traits (placement's handlers/trait.py),
 * from microversion 1.6. Cache headers from 1.15.
 */
#include <string.h>
#include <apr_strings.h>
#include <apr_lib.h>
#include <apr_hash.h>
#include <http_protocol.h>

#include "pl_private.h"
#include "pl_api.h"
#include "pl_body.h"
#include "pl_schemas.h"
#include "pl_str.h"
#include "pl_qs.h"
#include "pl_store_trait.h"

/* schemas/trait.py: CUSTOM_TRAIT (a name, not a document) */
/* Body and query schemas: pl_schemas.c (PL_SCHEMA_TRAIT_*). */

#define GENERATION_CHANGED                                               \
    "Resource provider's generation already changed. Please update the " \
    "generation and try again."

/* 1.15+ cache headers on a 201/204 answer (GET and PUT /traits/{name});
 * the glue adds them to 200 answers only. */
static void cache_headers(pl_req_t *req)
{
    char *date;

    if (req->mv < PL_MV(1, 15)) {
        return;
    }
    date = apr_palloc(req->pool, APR_RFC822_DATE_LEN);
    apr_rfc822_date(date,
                    req->last_modified ? req->last_modified : apr_time_now());
    apr_table_setn(req->r->headers_out, "last-modified", date);
    apr_table_setn(req->r->headers_out, "cache-control", "no-cache");
}

/* {"traits": [names]} with last-modified as upstream's
 * _serialize_traits: the newest trait, now for none (or one never
 * stamped). */
static json_object *traits_to_json(pl_req_t *req,
                                   const apr_array_header_t *traits)
{
    json_object *root = json_object_new_object();
    json_object *names = json_object_new_array();
    int i;

    for (i = 0; i < traits->nelts; i++) {
        const pl_trait_t *t = APR_ARRAY_IDX(traits, i, pl_trait_t *);
        const char *stamp = t->updated_at ? t->updated_at : t->created_at;

        json_object_array_add(names, json_object_new_string(t->name));
        if (stamp) {
            pl_req_touch(req, stamp);
        }
        else {
            req->last_modified = apr_time_now();
        }
    }
    if (traits->nelts == 0) {
        req->last_modified = apr_time_now();
    }
    json_object_object_add(root, "traits", names);
    return root;
}

static int find_trait(pl_req_t *req, pl_db_t *db, const char *name,
                      pl_trait_t **ptrait)
{
    apr_status_t rv = pl_store_trait_get(db, req->pool, name, ptrait);

    if (rv == APR_ENOENT) {
        return pl_err(req, HTTP_NOT_FOUND, NULL, "No such trait(s): %s.", name);
    }
    if (rv != APR_SUCCESS) {
        return pl_err_store(req, rv, "reading a trait");
    }
    return 0;
}

int pl_api_trait_list(pl_req_t *req)
{
    pl_trait_filter_t f = { NULL, NULL, -1 };
    const pl_jsonschema_t *schema;
    apr_array_header_t *traits;
    const char *value, *err = NULL;
    pl_db_t *db;
    apr_status_t rv;
    int st;

    if ((st = pl_schema(req, PL_SCHEMA_TRAIT_LIST_TRAITS_QS_SCHEMA, &schema))) {
        return st;
    }
    if ((st = pl_check_query(req, schema))) {
        return st;
    }
    /* webob's req.GET[key]: the last value */
    if ((value = pl_arg_last(req, "name")) != NULL) {
        pl_qs_trait_name_t *nf;

        if (pl_qs_trait_name(req->pool, value, &nf, &err) != APR_SUCCESS) {
            return pl_err(req, HTTP_BAD_REQUEST, NULL, "%s", err);
        }
        if (nf->op == PL_QS_NAME_IN) {
            f.names = nf->names;
        }
        else if (nf->op == PL_QS_NAME_STARTSWITH) {
            f.prefix = nf->prefix;
        }
    }
    if ((value = pl_arg_last(req, "associated")) != NULL) {
        if (pl_qs_associated(req->pool, value, &f.associated, &err) !=
            APR_SUCCESS) {
            return pl_err(req, HTTP_BAD_REQUEST, NULL, "%s", err);
        }
    }
    if ((st = pl_req_db(req, &db))) {
        return st;
    }
    rv = pl_store_trait_list(db, req->pool, &f, &traits);
    if (rv != APR_SUCCESS) {
        return pl_err_store(req, rv, "listing traits");
    }
    return pl_reply_json(req, HTTP_OK, traits_to_json(req, traits));
}

int pl_api_trait_get(pl_req_t *req)
{
    pl_trait_t *t;
    pl_db_t *db;
    int st;

    if ((st = pl_req_db(req, &db))) {
        return st;
    }
    if ((st = find_trait(req, db, req->params[0], &t))) {
        return st;
    }
    /* upstream: the creation time, not the update time */
    pl_req_touch(req, t->created_at);
    cache_headers(req);
    return pl_reply_empty(req, HTTP_NO_CONTENT);
}

int pl_api_trait_put(pl_req_t *req)
{
    const char *name = req->params[0];
    const pl_jsonschema_t *schema;
    json_object *jname;
    const char *err = NULL;
    pl_trait_t *t = NULL;
    pl_db_t *db;
    apr_status_t rv;
    int st, status = HTTP_NO_CONTENT;

    if ((st = pl_schema(req, PL_SCHEMA_TRAIT_CUSTOM_TRAIT_SCHEMA, &schema))) {
        return st;
    }
    jname = pl_json_own(req, json_object_new_string(name));
    if (pl_jsonschema_validate(schema, jname, req->pool, &err) != APR_SUCCESS) {
        return pl_err(req, HTTP_BAD_REQUEST, NULL,
                      "The trait is invalid. A valid trait must be no "
                      "longer than 255 characters, start with the prefix "
                      "\"CUSTOM_\" and use following characters: \"A\"-\"Z\""
                      ", \"0\"-\"9\" and \"_\"");
    }
    if ((st = pl_req_db(req, &db))) {
        return st;
    }
    rv = pl_store_trait_get(db, req->pool, name, &t);
    if (rv == APR_ENOENT) {
        rv = pl_store_trait_create(db, req->pool, name, &t);
        if (rv == APR_SUCCESS) {
            status = HTTP_CREATED;
        }
        else if (rv == APR_EEXIST) {
            t = NULL; /* someone else just made it: 204 */
            rv = APR_SUCCESS;
        }
    }
    if (rv != APR_SUCCESS) {
        return pl_err_store(req, rv, "creating a trait");
    }
    if (t && t->created_at) {
        pl_req_touch(req, t->created_at);
    }
    cache_headers(req);
    req->location = apr_pstrcat(req->pool, "/traits/", name, NULL);
    return pl_reply_empty(req, status);
}

int pl_api_trait_delete(pl_req_t *req)
{
    pl_trait_t *t;
    pl_db_t *db;
    apr_status_t rv;
    int st;

    if ((st = pl_req_db(req, &db))) {
        return st;
    }
    if ((st = find_trait(req, db, req->params[0], &t))) {
        return st;
    }
    rv = pl_store_trait_delete(db, req->pool, t);
    if (rv == APR_EINVAL) {
        return pl_err(req, HTTP_BAD_REQUEST, NULL,
                      "Cannot delete standard trait %s.", t->name);
    }
    if (rv == PL_EINUSE) {
        return pl_err(req, HTTP_CONFLICT, NULL,
                      "The trait %s is in use by a resource provider.",
                      t->name);
    }
    if (rv == APR_ENOENT) {
        return pl_err(req, HTTP_NOT_FOUND, NULL, "No such trait(s): %s.",
                      t->name);
    }
    if (rv != APR_SUCCESS) {
        return pl_err_store(req, rv, "deleting a trait");
    }
    return pl_reply_empty(req, HTTP_NO_CONTENT);
}

/* {"traits": [...], "resource_provider_generation": N} */
static int reply_provider_traits(pl_req_t *req, const pl_provider_t *prov,
                                 const apr_array_header_t *traits)
{
    json_object *root = traits_to_json(req, traits);

    json_object_object_add(root, "resource_provider_generation",
                           json_object_new_int64(prov->generation));
    return pl_reply_json(req, HTTP_OK, root);
}

int pl_api_trait_provider_list(pl_req_t *req)
{
    apr_array_header_t *traits;
    pl_provider_t *prov;
    apr_status_t rv;
    int st;

    /* GET words its 404 differently from the others */
    if ((st = pl_api_rp_of_path(req,
                                "No resource provider with uuid "
                                "%s found: No resource provider "
                                "with uuid %s found",
                                &prov))) {
        return st;
    }
    rv = pl_store_trait_provider_list(req->db, req->pool, prov, &traits);
    if (rv != APR_SUCCESS) {
        return pl_err_store(req, rv, "listing the traits of a provider");
    }
    return reply_provider_traits(req, prov, traits);
}

/* The traits called names (json strings), or the 400 naming those that
 * do not exist (in the order given, each once). */
static int traits_by_name(pl_req_t *req, pl_db_t *db, json_object *names,
                          apr_array_header_t **ptraits)
{
    size_t i, n = json_object_array_length(names);
    apr_array_header_t *wanted = apr_array_make(req->pool, (int)n,
                                                sizeof(const char *));
    pl_trait_filter_t f = { NULL, NULL, -1 };
    apr_hash_t *found = apr_hash_make(req->pool);
    apr_array_header_t *missing = apr_array_make(req->pool, 1,
                                                 sizeof(const char *));
    apr_status_t rv;
    int j;

    for (i = 0; i < n; i++) {
        APR_ARRAY_PUSH(wanted, const char *) = json_object_get_string(
            json_object_array_get_idx(names, i));
    }
    f.names = wanted;
    rv = pl_store_trait_list(db, req->pool, &f, ptraits);
    if (rv != APR_SUCCESS) {
        return pl_err_store(req, rv, "reading traits");
    }
    for (j = 0; j < (*ptraits)->nelts; j++) {
        apr_hash_set(found, APR_ARRAY_IDX(*ptraits, j, pl_trait_t *)->name,
                     APR_HASH_KEY_STRING, "");
    }
    for (j = 0; j < wanted->nelts; j++) {
        const char *name = APR_ARRAY_IDX(wanted, j, const char *);

        if (!apr_hash_get(found, name, APR_HASH_KEY_STRING)) {
            apr_hash_set(found, name, APR_HASH_KEY_STRING, "");
            APR_ARRAY_PUSH(missing, const char *) = name;
        }
    }
    if (missing->nelts) {
        return pl_err(req, HTTP_BAD_REQUEST, NULL, "No such trait %s",
                      pl_str_join(req->pool, missing, ", "));
    }
    return 0;
}

int pl_api_trait_provider_set(pl_req_t *req)
{
    const pl_jsonschema_t *schema;
    json_object *doc;
    apr_array_header_t *traits;
    pl_provider_t *prov;
    pl_db_t *db;
    apr_status_t rv;
    int st;

    if ((st = pl_schema(req, PL_SCHEMA_TRAIT_SET_TRAITS_SCHEMA, &schema))) {
        return st;
    }
    if ((st = pl_read_json(req, schema, &doc))) {
        return st;
    }
    if ((st = pl_api_rp_of_path(req, NULL, &prov))) {
        return st;
    }
    db = req->db;
    if (pl_body_int(doc, "resource_provider_generation", 0) !=
        prov->generation) {
        return pl_err(req, HTTP_CONFLICT, PL_ERRC_CONCURRENT_UPDATE,
                      GENERATION_CHANGED);
    }
    if ((st = traits_by_name(req, db, pl_body_get(doc, "traits"), &traits))) {
        return st;
    }
    rv = pl_store_trait_provider_set(db, req->pool, prov, traits);
    if (rv == PL_ECONFLICT) {
        return pl_err(req, HTTP_CONFLICT, PL_ERRC_CONCURRENT_UPDATE,
                      GENERATION_CHANGED);
    }
    if (rv != APR_SUCCESS) {
        return pl_err_store(req, rv, "setting the traits of a provider");
    }
    return reply_provider_traits(req, prov, traits);
}

int pl_api_trait_provider_delete(pl_req_t *req)
{
    apr_array_header_t *none;
    pl_provider_t *prov;
    apr_status_t rv;
    int st;

    if ((st = pl_api_rp_of_path(req, NULL, &prov))) {
        return st;
    }
    none = apr_array_make(req->pool, 0, sizeof(pl_trait_t *));
    rv = pl_store_trait_provider_set(req->db, req->pool, prov, none);
    if (rv == PL_ECONFLICT) {
        return pl_err(req, HTTP_CONFLICT, PL_ERRC_CONCURRENT_UPDATE,
                      "Another thread concurrently updated the resource "
                      "provider data. Please retry your update");
    }
    if (rv != APR_SUCCESS) {
        return pl_err_store(req, rv, "deleting the traits of a provider");
    }
    return pl_reply_empty(req, HTTP_NO_CONTENT);
}
