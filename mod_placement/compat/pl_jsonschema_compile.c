/* Licensed under the Apache License, Version 2.0.
 *
 * pl_jsonschema_compile.c: a schema's JSON text -> the tree of nodes and
 * keywords the validator walks (pl_jsonschema_compile); what the schema
 * says wrongly is refused here, once, at start-up.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <apr_pools.h>
#include <apr_strings.h>
#include <apr_tables.h>

#include "pl_jsonschema_private.h"
#include "pl_py.h"
#include <apr_hash.h>

/* Keywords python-jsonschema has no validator for, or that only hold
 * subschemas for $ref: accepted and skipped. */
static const char *const annotations[] = {
    "title",     "description", "default", "examples",
    "$comment",  "definitions", "$defs",   "readOnly",
    "writeOnly", "deprecated",  NULL
};

static const struct {
    const char *name;
    unsigned bit;
} type_names[] = { { "array", T_ARRAY },     { "boolean", T_BOOLEAN },
                   { "integer", T_INTEGER }, { "null", T_NULL },
                   { "number", T_NUMBER },   { "object", T_OBJECT },
                   { "string", T_STRING },   { NULL, 0 } };

/* ------------------------------------------------------------------ */
/* Compiling                                                           */

typedef struct {
    apr_pool_t *p;
    json_object *root;
    apr_hash_t *done; /* json_object * -> js_node * */
    apr_array_header_t *regexes;
    const char *err;
} cctx;

static js_node *compile_node(cctx *cc, json_object *j, const char *where);

static apr_status_t free_schema(void *data)
{
    cctx *cc = data;
    int i;

    for (i = 0; i < cc->regexes->nelts; i++) {
        regfree(APR_ARRAY_IDX(cc->regexes, i, regex_t *));
    }
    json_object_put(cc->root);
    return APR_SUCCESS;
}

static int fail(cctx *cc, const char *where, const char *what)
{
    if (!cc->err) {
        cc->err = apr_psprintf(cc->p, "%s: %s", where, what);
    }
    return 0;
}

static int compile_regex(cctx *cc, regex_t *re, const char *py,
                         const char *where)
{
    const char *why = NULL, *ere = pl_jsonschema_py_to_ere(cc->p, py, &why);
    int rc;

    if (!ere) {
        return fail(cc, where,
                    apr_psprintf(cc->p, "pattern '%s': %s", py, why));
    }
    rc = regcomp(re, ere, REG_EXTENDED | REG_NOSUB);
    if (rc != 0) {
        char buf[128];

        regerror(rc, re, buf, sizeof(buf));
        return fail(cc, where,
                    apr_psprintf(cc->p, "pattern '%s': %s", py, buf));
    }
    APR_ARRAY_PUSH(cc->regexes, regex_t *) = re;
    return 1;
}

static int get_count(cctx *cc, json_object *v, apr_int64_t *pn,
                     const char *where)
{
    if (json_object_get_type(v) != json_type_int ||
        json_object_get_int64(v) < 0) {
        return fail(cc, where, "expected a non-negative integer");
    }
    *pn = json_object_get_int64(v);
    return 1;
}

static int compile_schema_list(cctx *cc, js_kw *k, json_object *v,
                               const char *where)
{
    size_t i, n;

    if (json_object_get_type(v) != json_type_array ||
        json_object_array_length(v) == 0) {
        return fail(cc, where, "expected a non-empty array of schemas");
    }
    n = json_object_array_length(v);
    k->n = (int)n;
    k->subs = apr_pcalloc(cc->p, n * sizeof(js_node *));
    for (i = 0; i < n; i++) {
        k->subs[i] = compile_node(cc, json_object_array_get_idx(v, i),
                                  apr_psprintf(cc->p, "%s/%d", where, (int)i));
        if (!k->subs[i]) {
            return 0;
        }
    }
    return 1;
}

static int compile_sub(cctx *cc, js_kw *k, json_object *v, const char *where)
{
    k->n = 1;
    k->subs = apr_pcalloc(cc->p, sizeof(js_node *));
    k->subs[0] = compile_node(cc, v, where);
    return k->subs[0] != NULL;
}

/* One compiler a keyword: each checks the keyword's value v and fills k
 * (and node, for what a node keeps of its keywords); 0 with cc->err set
 * when the schema is refused. */
typedef int (*compile_fn)(cctx *cc, js_node *node, js_kw *k, json_object *v,
                          const char *where);

static int compile_type(cctx *cc, js_node *node, js_kw *k, json_object *v,
                        const char *where)
{
    json_type t = json_object_get_type(v);
    size_t n;
    int i;

    if (t == json_type_string) {
        n = 1;
    }
    else if (t == json_type_array && json_object_array_length(v) > 0) {
        n = json_object_array_length(v);
    }
    else {
        return fail(cc, where, "expected a type name or a list of them");
    }
    k->n = (int)n;
    k->names = apr_pcalloc(cc->p, n * sizeof(char *));
    for (i = 0; i < (int)n; i++) {
        json_object *e = (t == json_type_string)
                             ? v
                             : json_object_array_get_idx(v, i);
        int x;

        if (json_object_get_type(e) != json_type_string) {
            return fail(cc, where, "type names must be strings");
        }
        k->names[i] = json_object_get_string(e);
        for (x = 0; type_names[x].name; x++) {
            if (strcmp(type_names[x].name, k->names[i]) == 0) {
                break;
            }
        }
        if (!type_names[x].name) {
            return fail(cc, where,
                        apr_psprintf(cc->p, "unknown type '%s'", k->names[i]));
        }
        k->types |= type_names[x].bit;
    }
    node->has_type = 1;
    node->types = k->types;
    return 1;
}

static int compile_enum(cctx *cc, js_node *node, js_kw *k, json_object *v,
                        const char *where)
{
    if (json_object_get_type(v) != json_type_array) {
        return fail(cc, where, "expected an array");
    }
    return 1;
}

/* const: any value, compared as it is */
static int compile_any(cctx *cc, js_node *node, js_kw *k, json_object *v,
                       const char *where)
{
    return 1;
}

static int compile_properties(cctx *cc, js_node *node, js_kw *k, json_object *v,
                              const char *where)
{
    int n = 0;

    if (json_object_get_type(v) != json_type_object) {
        return fail(cc, where, "expected an object");
    }
    k->props = apr_pcalloc(cc->p, (json_object_object_length(v) + 1) *
                                      sizeof(js_prop));
    json_object_object_foreach(v, key, val)
    {
        k->props[n].name = key;
        k->props[n].node = compile_node(
            cc, val, apr_pstrcat(cc->p, where, "/", key, NULL));
        if (!k->props[n].node) {
            return 0;
        }
        n++;
    }
    k->n = n;
    node->props_kw = k;
    return 1;
}

static int compile_pattern_properties(cctx *cc, js_node *node, js_kw *k,
                                      json_object *v, const char *where)
{
    int n = 0;

    if (json_object_get_type(v) != json_type_object) {
        return fail(cc, where, "expected an object");
    }
    k->pats = apr_pcalloc(cc->p,
                          (json_object_object_length(v) + 1) * sizeof(js_pat));
    json_object_object_foreach(v, key, val)
    {
        const char *w = apr_pstrcat(cc->p, where, "/", key, NULL);

        k->pats[n].source = key;
        if (!compile_regex(cc, &k->pats[n].re, key, w)) {
            return 0;
        }
        k->pats[n].node = compile_node(cc, val, w);
        if (!k->pats[n].node) {
            return 0;
        }
        n++;
    }
    k->n = n;
    node->pats_kw = k;
    return 1;
}

/* additionalProperties, items: a boolean (flag 1 or 0) or a schema
 * (flag -1) */
static int compile_flag_or_schema(cctx *cc, js_node *node, js_kw *k,
                                  json_object *v, const char *where)
{
    json_type t = json_object_get_type(v);

    if (t == json_type_boolean) {
        k->flag = json_object_get_boolean(v);
        return 1;
    }
    if (t != json_type_object) {
        return fail(cc, where, "expected a boolean or a schema");
    }
    k->flag = -1;
    return compile_sub(cc, k, v, where);
}

static int compile_required(cctx *cc, js_node *node, js_kw *k, json_object *v,
                            const char *where)
{
    size_t n;
    int i;

    if (json_object_get_type(v) != json_type_array) {
        return fail(cc, where, "expected an array of names");
    }
    n = json_object_array_length(v);
    k->n = (int)n;
    k->names = apr_pcalloc(cc->p, (n + 1) * sizeof(char *));
    for (i = 0; i < (int)n; i++) {
        json_object *e = json_object_array_get_idx(v, i);

        if (json_object_get_type(e) != json_type_string) {
            return fail(cc, where, "expected an array of names");
        }
        k->names[i] = json_object_get_string(e);
    }
    return 1;
}

/* min/maxProperties, min/maxItems, min/maxLength */
static int compile_count(cctx *cc, js_node *node, js_kw *k, json_object *v,
                         const char *where)
{
    return get_count(cc, v, &k->limit, where);
}

static int compile_unique_items(cctx *cc, js_node *node, js_kw *k,
                                json_object *v, const char *where)
{
    if (json_object_get_type(v) != json_type_boolean) {
        return fail(cc, where, "expected a boolean");
    }
    k->flag = json_object_get_boolean(v);
    return 1;
}

/* minimum, maximum, exclusiveMinimum, exclusiveMaximum */
static int compile_number(cctx *cc, js_node *node, js_kw *k, json_object *v,
                          const char *where)
{
    if (!pl_jsonschema_is_number(v)) {
        return fail(cc, where, "expected a number");
    }
    k->num = pl_jsonschema_num_of(v);
    return 1;
}

static int compile_pattern(cctx *cc, js_node *node, js_kw *k, json_object *v,
                           const char *where)
{
    if (json_object_get_type(v) != json_type_string) {
        return fail(cc, where, "expected a string");
    }
    k->n = 1;
    k->pats = apr_pcalloc(cc->p, sizeof(js_pat));
    k->pats[0].source = json_object_get_string(v);
    return compile_regex(cc, &k->pats[0].re, k->pats[0].source, where);
}

static int compile_format(cctx *cc, js_node *node, js_kw *k, json_object *v,
                          const char *where)
{
    if (json_object_get_type(v) != json_type_string ||
        strcmp(json_object_get_string(v), "uuid") != 0) {
        return fail(cc, where, "only the format 'uuid' is supported");
    }
    return 1;
}

/* anyOf, oneOf, allOf */
static int compile_schemas(cctx *cc, js_node *node, js_kw *k, json_object *v,
                           const char *where)
{
    return compile_schema_list(cc, k, v, where);
}

static int compile_not(cctx *cc, js_node *node, js_kw *k, json_object *v,
                       const char *where)
{
    json_type t = json_object_get_type(v);

    if (t != json_type_object && t != json_type_boolean) {
        return fail(cc, where, "expected a schema");
    }
    return compile_sub(cc, k, v, where);
}

static int compile_ref(cctx *cc, js_node *node, js_kw *k, json_object *v,
                       const char *where)
{
    const char *ref;
    json_object *target = NULL;

    if (json_object_get_type(v) != json_type_string) {
        return fail(cc, where, "expected a string");
    }
    ref = json_object_get_string(v);
    if (ref[0] != '#') {
        return fail(cc, where,
                    "only references inside the schema "
                    "(\"#...\") are supported");
    }
    if (ref[1] == '\0') {
        target = cc->root;
    }
    else if (json_pointer_get(cc->root, ref + 1, &target) != 0) {
        return fail(cc, where,
                    apr_psprintf(cc->p, "unresolvable reference '%s'", ref));
    }
    if (json_object_get_type(target) != json_type_object &&
        json_object_get_type(target) != json_type_boolean) {
        return fail(cc, where,
                    apr_psprintf(cc->p, "reference '%s' is not a schema", ref));
    }
    return compile_sub(cc, k, target,
                       apr_pstrcat(cc->p, where, "->", ref, NULL));
}

/* by keyword; the pseudo keywords have none */
static const compile_fn compilers[] = {
    [KW_TYPE] = compile_type,
    [KW_ENUM] = compile_enum,
    [KW_CONST] = compile_any,
    [KW_PROPERTIES] = compile_properties,
    [KW_PATTERNPROPERTIES] = compile_pattern_properties,
    [KW_ADDITIONALPROPERTIES] = compile_flag_or_schema,
    [KW_REQUIRED] = compile_required,
    [KW_MINPROPERTIES] = compile_count,
    [KW_MAXPROPERTIES] = compile_count,
    [KW_ITEMS] = compile_flag_or_schema,
    [KW_MINITEMS] = compile_count,
    [KW_MAXITEMS] = compile_count,
    [KW_UNIQUEITEMS] = compile_unique_items,
    [KW_MINIMUM] = compile_number,
    [KW_MAXIMUM] = compile_number,
    [KW_EXCLUSIVEMINIMUM] = compile_number,
    [KW_EXCLUSIVEMAXIMUM] = compile_number,
    [KW_MINLENGTH] = compile_count,
    [KW_MAXLENGTH] = compile_count,
    [KW_PATTERN] = compile_pattern,
    [KW_FORMAT] = compile_format,
    [KW_ANYOF] = compile_schemas,
    [KW_ONEOF] = compile_schemas,
    [KW_ALLOF] = compile_schemas,
    [KW_NOT] = compile_not,
    [KW_REF] = compile_ref,
};

static int compile_keyword(cctx *cc, js_node *node, js_kw *k, json_object *v,
                           const char *where)
{
    k->value = v;
    if ((size_t)k->kw >= sizeof(compilers) / sizeof(compilers[0]) ||
        compilers[k->kw] == NULL) {
        return fail(cc, where, "internal: unknown keyword");
    }
    return compilers[k->kw](cc, node, k, v, where);
}

/* "schema/properties/total" -> "['properties']['total']"; list indexes
 * (anyOf/0) print bare, as in Python's deque repr. A $ref target keeps
 * the path of the reference. */
static const char *schema_path(apr_pool_t *p, const char *where)
{
    const char *path = "";
    const char *end = strstr(where, "->");
    char *copy = apr_pstrndup(p, where,
                              end ? (apr_size_t)(end - where) : strlen(where));
    char *seg, *state;

    (void)apr_strtok(copy, "/", &state); /* skip "schema" */
    while ((seg = apr_strtok(NULL, "/", &state)) != NULL) {
        path = apr_psprintf(
            p, strspn(seg, "0123456789") == strlen(seg) ? "%s[%s]" : "%s['%s']",
            path, seg);
    }
    return path;
}

static js_node *compile_node(cctx *cc, json_object *j, const char *where)
{
    js_node *node;
    json_type t = json_object_get_type(j);
    int n = 0;

    if (cc->err) {
        return NULL;
    }
    if (j) {
        /* keyed by the pointer j itself: sizeof(j) is meant
         * NOLINTNEXTLINE(bugprone-sizeof-expression) */
        node = apr_hash_get(cc->done, &j, sizeof(j));
        if (node) {
            return node;
        }
    }
    node = apr_pcalloc(cc->p, sizeof(*node));
    node->json = j;
    node->path = schema_path(cc->p, where);
    if (t == json_type_boolean) {
        node->is_bool = 1;
        node->bool_value = json_object_get_boolean(j);
        return node;
    }
    if (t != json_type_object) {
        fail(cc, where, "a schema must be an object or a boolean");
        return NULL;
    }
    /* the key is a copy of the pointer j: sizeof(j) is meant
     * NOLINTNEXTLINE(bugprone-sizeof-expression) */
    apr_hash_set(cc->done, apr_pmemdup(cc->p, &j, sizeof(j)), sizeof(j), node);
    node->kws = apr_pcalloc(cc->p,
                            (json_object_object_length(j) + 1) * sizeof(js_kw));
    json_object_object_foreach(j, key, val)
    {
        int x;
        const char *w = apr_pstrcat(cc->p, where, "/", key, NULL);

        if (pl_jsonschema_kw_of(key, &node->kws[n].kw)) {
            if (!compile_keyword(cc, node, &node->kws[n], val, w)) {
                return NULL;
            }
            n++;
            continue;
        }
        for (x = 0; annotations[x]; x++) {
            if (strcmp(annotations[x], key) == 0) {
                break;
            }
        }
        if (annotations[x]) {
            continue;
        }
        if (strcmp(key, "$schema") == 0 &&
            json_object_get_type(val) == json_type_string &&
            strcmp(json_object_get_string(val),
                   "https://json-schema.org/draft/2020-12/schema") == 0) {
            continue;
        }
        fail(cc, where, apr_psprintf(cc->p, "unsupported keyword '%s'", key));
        return NULL;
    }
    node->nkw = n;
    return node;
}

apr_status_t pl_jsonschema_compile_ex(apr_pool_t *p, const char *schema_json,
                                      pl_jsonschema_t **ps, const char **perr)
{
    cctx *cc;
    pl_jsonschema_t *s;
    enum json_tokener_error jerr;

    *ps = NULL;
    if (perr) {
        *perr = NULL;
    }
    cc = apr_pcalloc(p, sizeof(*cc));
    cc->p = p;
    cc->done = apr_hash_make(p);
    cc->regexes = apr_array_make(p, 8, sizeof(regex_t *));
    cc->root = json_tokener_parse_verbose(schema_json, &jerr);
    if (jerr != json_tokener_success) {
        if (perr) {
            *perr = apr_psprintf(p, "schema: not JSON (%s)",
                                 json_tokener_error_desc(jerr));
        }
        return APR_EINVAL;
    }
    apr_pool_cleanup_register(p, cc, free_schema, apr_pool_cleanup_null);
    s = apr_pcalloc(p, sizeof(*s));
    s->json = cc->root;
    s->root = compile_node(cc, cc->root, "schema");
    if (!s->root) {
        if (perr) {
            *perr = cc->err;
        }
        return APR_EINVAL;
    }
    *ps = s;
    return APR_SUCCESS;
}

apr_status_t pl_jsonschema_compile(apr_pool_t *p, const char *schema_json,
                                   pl_jsonschema_t **ps)
{
    return pl_jsonschema_compile_ex(p, schema_json, ps, NULL);
}
