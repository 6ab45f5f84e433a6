/* Licensed under the Apache License, Version 2.0.
 *
 * fuzz_jsonschema.c: JSON bodies through the schema validator. Every
 * schema of pl_schemas.c is compiled once; each input that json-c parses
 * (strictly, as pl_read_json() does) is validated against all of them,
 * with python-jsonschema's messages, and its Python repr() is built.
 */
#include <stdlib.h>

#include <json-c/json.h>

#include "pl_jsonschema.h"
#include "pl_schemas.h"
#include "fuzz.h"

static pl_jsonschema_t *schemas[64];
static int nschemas;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    int i;

    (void)argc, (void)argv;
    fuzz_init();
    for (i = 0; pl_schemas_all[i] && i < 64; i++) {
        if (pl_jsonschema_compile(fuzz_root, pl_schemas_all[i],
                                  &schemas[nschemas]) != APR_SUCCESS) {
            abort();
        }
        nschemas++;
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s;
    apr_pool_t *p = fuzz_pool(data, size, &s);
    json_tokener *tok = json_tokener_new_ex(64);
    json_object *doc;
    const char *err;
    int i;

    json_tokener_set_flags(tok, JSON_TOKENER_STRICT |
                                JSON_TOKENER_VALIDATE_UTF8);
    doc = json_tokener_parse_ex(tok, s, (int)strlen(s) + 1);
    if (json_tokener_get_error(tok) == json_tokener_success) {
        (void)pl_jsonschema_repr(p, doc);
        for (i = 0; i < nschemas; i++) {
            err = NULL;
            if (pl_jsonschema_validate_detail(schemas[i], doc, p, &err)
                != APR_SUCCESS && err == NULL) {
                abort();    /* every refusal says why */
            }
        }
    }
    json_object_put(doc);
    json_tokener_free(tok);
    apr_pool_destroy(p);
    return 0;
}
