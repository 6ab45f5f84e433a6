/* Licensed under the Apache License, Version 2.0.
 *
 * test_schemas.c: every JSON schema of pl_schemas.c compiles (start-up
 * refuses to run otherwise), and a few of them accept and refuse what
 * upstream's do, so a text that compiles to "anything goes" is caught.
 */
#include <string.h>

#include <apr_general.h>
#include <apr_strings.h>
#include <json-c/json.h>

#include "pl_jsonschema.h"
#include "pl_schemas.h"
#include "tap.h"

/* 1 if doc_json validates against text, 0 if not, -1 if it is not JSON */
static int valid(apr_pool_t *p, const char *text, const char *doc_json)
{
    pl_jsonschema_t *s;
    json_object *doc = json_tokener_parse(doc_json);
    const char *err = NULL;
    int ok;

    if (pl_jsonschema_compile(p, text, &s) != APR_SUCCESS) {
        json_object_put(doc);
        return -1;
    }
    ok = pl_jsonschema_validate(s, doc, p, &err) == APR_SUCCESS;
    json_object_put(doc);
    return ok;
}

static void test_all_compile(apr_pool_t *p)
{
    int i, n = 0;

    for (i = 0; pl_schemas_all[i]; i++) {
        apr_pool_t *sub;
        pl_jsonschema_t *s = NULL;
        const char *err = NULL;
        apr_status_t rv;

        apr_pool_create(&sub, p);
        rv = pl_jsonschema_compile_ex(sub, pl_schemas_all[i], &s, &err);
        TAP_OK(rv == APR_SUCCESS && s != NULL, "schema %d compiles%s%s", i,
               err ? ": " : "", err ? err : "");
        apr_pool_destroy(sub);
        n++;
    }
    TAP_OK(n >= 30, "pl_schemas_all lists every schema (%d)", n);
}

static void test_some_refuse(apr_pool_t *p)
{
    TAP_OK(valid(p, PL_SCHEMA_RC_RC_SCHEMA, "{\"name\": \"CUSTOM_A\"}") == 1,
           "resource class: CUSTOM_A accepted");
    TAP_OK(valid(p, PL_SCHEMA_RC_RC_SCHEMA, "{\"name\": \"VCPU\"}") == 0,
           "resource class: VCPU refused");
    TAP_OK(valid(p, PL_SCHEMA_RP_POST_SCHEMA, "{\"name\": 1}") == 0,
           "provider: name 1 refused");
    TAP_OK(valid(p, PL_SCHEMA_TRAIT_SET_TRAITS_SCHEMA, "{\"traits\": []}") == 0,
           "traits: generation required");
    TAP_OK(valid(p, PL_SCHEMA_INVENTORY_PUT_ONE_SCHEMA,
                 "{\"total\": 0, \"resource_provider_generation\": 0}") == 0,
           "inventory: total 0 refused");
    TAP_OK(valid(p, PL_SCHEMA_ALLOCATION_SCHEMA_PUT_1_0,
                 "{\"allocations\": []}") == 0,
           "allocations 1.0: empty list refused");
    TAP_OK(valid(p, PL_SCHEMA_USAGE_QS_SCHEMA_V1_9, "{}") == 0,
           "usages: project_id required");
}

int main(void)
{
    apr_pool_t *p;

    apr_initialize();
    apr_pool_create(&p, NULL);
    apr_pool_tag(p, "test_schemas");

    test_all_compile(p);
    test_some_refuse(p);

    apr_pool_destroy(p);
    apr_terminate();
    return tap_done();
}
