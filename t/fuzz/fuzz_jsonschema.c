/* Licensed under the Apache License, Version 2.0.
 *
 * fuzz_jsonschema.c: JSON bodies through the schema validator. Every
 * schema of pl_schemas.c is compiled once; the first byte of the input
 * picks one, the rest is the body: when json-c parses it (strictly, as
 * pl_read_json() does) it is validated against that schema, with
 * python-jsonschema's messages, and its Python repr() is built.
 */
#include <stdlib.h>

#include <json-c/json.h>

#include "pl_jsonschema.h"
#include "pl_py.h"
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
    apr_pool_t *p;
    json_tokener *tok;
    json_object *doc;
    const char *err = NULL;
    int i;

    if (size < 1) {
        return 0;
    }
    i = data[0] % nschemas;
    p = fuzz_pool(data + 1, size - 1, &s);
    tok = json_tokener_new_ex(64);

    json_tokener_set_flags(tok,
                           JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
    doc = json_tokener_parse_ex(tok, s, (int)strlen(s) + 1);
    /* json.loads's error for the text, and json.dumps of it as a str */
    (void)pl_py_json_error(p, s, strlen(s));
    (void)pl_py_json_str(p, s, strlen(s), NULL);
    if (json_tokener_get_error(tok) == json_tokener_success) {
        (void)pl_jsonschema_repr(p, doc);
        if (pl_jsonschema_validate_detail(schemas[i], doc, p, &err) !=
                APR_SUCCESS &&
            err == NULL) {
            abort(); /* every refusal says why */
        }
    }
    json_object_put(doc);
    json_tokener_free(tok);
    apr_pool_destroy(p);
    return 0;
}
