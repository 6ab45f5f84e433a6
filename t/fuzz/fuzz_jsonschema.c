/* Licensed under the Apache License, Version 2.0.
 *
 * fuzz_jsonschema.c: JSON bodies through the schema validator. Every
 * schema of pl_schemas.c is compiled once; the first byte of the input
 * picks one, the rest is the body: when json-c parses it (strictly, as
 * pl_read_json() does) it is validated against that schema, with
 * python-jsonschema's messages, and its Python repr() is built. The
 * scan that prices the body before (pl_json_scan) must count at least
 * every value, key and container json-c built of it.
 */
#include <stdlib.h>

#include <json-c/json.h>

#include "pl_json_scan.h"
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

/* What json-c built of a document, counted as pl_json_scan counts */
static void count_built(json_object *o, pl_json_scan_t *b)
{
    size_t i;

    switch (json_object_get_type(o)) {
    case json_type_null:
    case json_type_boolean:
        b->literals++;
        break;
    case json_type_double:
        b->doubles++;
        b->numbers++;
        break;
    case json_type_int:
        b->numbers++;
        break;
    case json_type_string:
        b->strings++;
        break;
    case json_type_array:
        b->arrays++;
        for (i = 0; i < json_object_array_length(o); i++) {
            count_built(json_object_array_get_idx(o, i), b);
        }
        break;
    case json_type_object: {
        b->objects++;
        json_object_object_foreach(o, key, val)
        {
            (void)key;
            b->keys++;
            count_built(val, b);
        }
        break;
    }
    }
}

static void check_scan(apr_pool_t *p, const char *s, json_object *doc)
{
    pl_json_scan_t scan, built;

    pl_json_scan(p, s, strlen(s), 64, &scan);
    if (scan.refused) {
        return; /* the reader refuses it before json-c */
    }
    memset(&built, 0, sizeof(built));
    count_built(doc, &built);
    if (built.objects > scan.objects || built.arrays > scan.arrays ||
        built.keys > scan.keys || built.strings > scan.strings ||
        built.numbers > scan.numbers || built.doubles > scan.doubles ||
        built.literals > scan.literals) {
        abort(); /* json-c built more than the scan priced */
    }
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
        check_scan(p, s, doc);
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
