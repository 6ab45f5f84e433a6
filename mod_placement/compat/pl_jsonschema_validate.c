/* Licensed under the Apache License, Version 2.0.
 *
 * pl_jsonschema_validate.c: the JSON-Schema validator behind every request
 * body check (placement's util.extract_json). It reproduces what python-jsonschema 4.10
 * (draft 2020-12, the default when a schema has no $schema) reports:
 *
 * - keywords are checked in schema order, and each failing check yields an
 *   error record (keyword, schema node, instance, depth below the nearest
 *   collection point);
 * - best_match() then keeps the most relevant record: key = (-depth, not
 *   anyOf/oneOf, instance does not match the node's "type"), the first of
 *   equals winning; for anyOf/oneOf it descends into the branch errors,
 *   keeping there the least relevant (deepest) one unless two tie.
 *
 * Records are compared as they come, so only the current best (and, per
 * anyOf/oneOf, the two smallest branch errors) are kept: memory does not
 * grow with the document. Messages are only formatted for the winner.
 * Subtrees that cannot beat the current best are skipped.
 */
#include <math.h>
#include <float.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <apr_pools.h>
#include <apr_strings.h>
#include <apr_tables.h>

#include "pl_jsonschema_private.h"
#include "pl_py.h"

/* Nested validation calls allowed before giving up (only reachable with a
 * recursive $ref and a deep document). */
#define MAX_NESTING 200

/* Python's len() of the string. */
static apr_int64_t utf8_length(const char *s, apr_size_t n)
{
    return pl_py_len(s, n, JSON_TEXT);
}

/* ------------------------------------------------------------------ */
/* Values: types, numbers, equality                                    */

/* An integral double (no libm: the unit build links without -lm). */
static int dbl_is_integral(double d)
{
    if (!isfinite(d)) {
        return 0;
    }
    if (d >= 9007199254740992.0 || d <= -9007199254740992.0) {
        return 1; /* beyond 2^53 every double is */
    }
    return d == (double)(apr_int64_t)d;
}

/* Python's check for the JSON types: booleans are not numbers, and a
 * float with an integral value is an "integer" (draft 6 and later). */
int pl_jsonschema_is_type(json_object *o, unsigned types)
{
    switch (json_object_get_type(o)) {
    case json_type_null:
        return (types & T_NULL) != 0;
    case json_type_boolean:
        return (types & T_BOOLEAN) != 0;
    case json_type_int:
        return (types & (T_INTEGER | T_NUMBER)) != 0;
    case json_type_double: {
        double d = json_object_get_double(o);

        if (types & T_NUMBER) {
            return 1;
        }
        return (types & T_INTEGER) && dbl_is_integral(d);
    }
    case json_type_string:
        return (types & T_STRING) != 0;
    case json_type_array:
        return (types & T_ARRAY) != 0;
    case json_type_object:
        return (types & T_OBJECT) != 0;
    }
    return 0;
}

/* Exact comparison of an integer (i, or u when is_u) with a double, as
 * Python does it: -1, 0, 1, or 2 when d is NaN (every comparison false). */
static int cmp_int_dbl(apr_int64_t i, apr_uint64_t u, int is_u, double d)
{
    if (isnan(d)) {
        return 2;
    }
    if (d >= 18446744073709551616.0) {
        return -1;
    }
    if (d < -9223372036854775808.0) {
        return 1;
    }
    if (is_u) {
        apr_uint64_t du;

        /* u > INT64_MAX */
        if (d < 9223372036854775808.0) {
            return 1;
        }
        du = (apr_uint64_t)d; /* d is integral up here */
        return u < du ? -1 : (u > du ? 1 : 0);
    }
    if (d >= 9223372036854775808.0) {
        return -1;
    }
    {
        apr_int64_t di = (apr_int64_t)d; /* toward zero */

        if ((double)di > d) {
            di--; /* now floor(d) */
        }
        if (i != di) {
            return i < di ? -1 : 1;
        }
        return d > (double)di ? -1 : 0;
    }
}

/* Compare two numbers exactly: -1, 0, 1, or 2 if unordered (NaN). */
int pl_jsonschema_num_cmp(num_t a, num_t b)
{
    if (a.kind == N_DBL && b.kind == N_DBL) {
        if (isnan(a.d) || isnan(b.d)) {
            return 2;
        }
        return a.d < b.d ? -1 : (a.d > b.d ? 1 : 0);
    }
    if (a.kind == N_DBL) {
        int c = pl_jsonschema_num_cmp(b, a);

        return c == 2 ? 2 : -c;
    }
    if (b.kind == N_DBL) {
        return cmp_int_dbl(a.i, a.u, a.kind == N_UINT, b.d);
    }
    if (a.kind == N_UINT || b.kind == N_UINT) {
        if (a.kind == N_UINT && b.kind == N_UINT) {
            return a.u < b.u ? -1 : (a.u > b.u ? 1 : 0);
        }
        return a.kind == N_UINT ? 1 : -1;
    }
    return a.i < b.i ? -1 : (a.i > b.i ? 1 : 0);
}

/* Equality. strict: jsonschema's _utils.equal (booleans are never equal to
 * numbers, at any depth); otherwise Python's == (True == 1). Values nested
 * deeper than MAX_REPR_DEPTH compare unequal rather than exhaust the
 * stack. */
static int json_equal_d(json_object *a, json_object *b, int strict, int depth)
{
    json_type ta = json_object_get_type(a), tb = json_object_get_type(b);

    if (depth > MAX_REPR_DEPTH) {
        return 0;
    }
    if (ta == json_type_boolean && tb == json_type_boolean) {
        return json_object_get_boolean(a) == json_object_get_boolean(b);
    }
    if ((ta == json_type_boolean || tb == json_type_boolean) && !strict) {
        num_t na, nb;

        if (!(ta == json_type_boolean || pl_jsonschema_is_number(a)) ||
            !(tb == json_type_boolean || pl_jsonschema_is_number(b))) {
            return 0;
        }
        memset(&na, 0, sizeof(na));
        memset(&nb, 0, sizeof(nb));
        if (ta == json_type_boolean) {
            na.kind = N_INT;
            na.i = json_object_get_boolean(a);
        }
        else {
            na = pl_jsonschema_num_of(a);
        }
        if (tb == json_type_boolean) {
            nb.kind = N_INT;
            nb.i = json_object_get_boolean(b);
        }
        else {
            nb = pl_jsonschema_num_of(b);
        }
        return pl_jsonschema_num_cmp(na, nb) == 0;
    }
    if (pl_jsonschema_is_number(a) && pl_jsonschema_is_number(b)) {
        return pl_jsonschema_num_cmp(pl_jsonschema_num_of(a),
                                     pl_jsonschema_num_of(b)) == 0;
    }
    if (ta != tb) {
        return 0;
    }
    switch (ta) {
    case json_type_null:
        return 1;
    case json_type_string:
        return json_object_get_string_len(a) == json_object_get_string_len(b) &&
               memcmp(json_object_get_string(a), json_object_get_string(b),
                      (size_t)json_object_get_string_len(a)) == 0;
    case json_type_array: {
        size_t i, n = json_object_array_length(a);

        if (n != json_object_array_length(b)) {
            return 0;
        }
        for (i = 0; i < n; i++) {
            if (!json_equal_d(json_object_array_get_idx(a, i),
                              json_object_array_get_idx(b, i), strict,
                              depth + 1)) {
                return 0;
            }
        }
        return 1;
    }
    case json_type_object: {
        if (json_object_object_length(a) != json_object_object_length(b)) {
            return 0;
        }
        json_object_object_foreach(a, key, val)
        {
            json_object *other;

            if (!json_object_object_get_ex(b, key, &other) ||
                !json_equal_d(val, other, strict, depth + 1)) {
                return 0;
            }
        }
        return 1;
    }
    default:
        return 0;
    }
}

static int json_equal(json_object *a, json_object *b, int strict)
{
    return json_equal_d(a, b, strict, 0);
}

/* A hash consistent with json_equal(strict): equal values hash equal. */
static apr_uint64_t mix(apr_uint64_t h)
{
    h ^= h >> 33;
    h *= APR_UINT64_C(0xff51afd7ed558ccd);
    h ^= h >> 33;
    h *= APR_UINT64_C(0xc4ceb9fe1a85ec53);
    h ^= h >> 33;
    return h;
}

static apr_uint64_t json_hash(json_object *o, int depth)
{
    apr_uint64_t h;

    if (depth > MAX_REPR_DEPTH) {
        return 0;
    }
    switch (json_object_get_type(o)) {
    case json_type_null:
        return 0x6e756c6c;
    case json_type_boolean:
        return json_object_get_boolean(o) ? 0x74727565 : 0x66616c73;
    case json_type_int:
    case json_type_double: {
        num_t n = pl_jsonschema_num_of(o);

        if (n.kind == N_DBL) {
            double d = n.d;

            if (dbl_is_integral(d) && d >= -9223372036854775808.0 &&
                d < 9223372036854775808.0) {
                return mix((apr_uint64_t)(apr_int64_t)d);
            }
            if (dbl_is_integral(d) && d >= 9223372036854775808.0 &&
                d < 18446744073709551616.0) {
                return mix((apr_uint64_t)d);
            }
            memcpy(&h, &d, sizeof(h));
            return mix(h ^ 0x5555);
        }
        return mix(n.kind == N_UINT ? n.u : (apr_uint64_t)n.i);
    }
    case json_type_string: {
        const unsigned char *s = (const unsigned char *)json_object_get_string(
            o);
        int i, n = json_object_get_string_len(o);

        h = APR_UINT64_C(14695981039346656037);
        for (i = 0; i < n; i++) {
            h = (h ^ s[i]) * APR_UINT64_C(1099511628211);
        }
        return h;
    }
    case json_type_array: {
        size_t i, n = json_object_array_length(o);

        h = 0xa77a;
        for (i = 0; i < n; i++) {
            h = mix(h * 31 +
                    json_hash(json_object_array_get_idx(o, i), depth + 1));
        }
        return h;
    }
    case json_type_object: {
        h = 0x0b1ec7;
        json_object_object_foreach(o, key, val)
        {
            apr_uint64_t kh = APR_UINT64_C(14695981039346656037);
            const unsigned char *k = (const unsigned char *)key;

            for (; *k; k++) {
                kh = (kh ^ *k) * APR_UINT64_C(1099511628211);
            }
            h += mix(kh ^ mix(json_hash(val, depth + 1)));
        }
        return h;
    }
    }
    return 0;
}

typedef struct {
    apr_uint64_t h;
    json_object *o;
} hashed_t;

static int hashed_cmp(const void *a, const void *b)
{
    const hashed_t *x = a, *y = b;

    return x->h < y->h ? -1 : (x->h > y->h ? 1 : 0);
}

/* jsonschema's uniq(): no two items equal. Sorting by hash keeps this
 * O(n log n) on big arrays. */
static int array_unique(json_object *arr, apr_pool_t *ptemp)
{
    size_t i, j, n = json_object_array_length(arr);
    hashed_t *v;

    if (n < 2) {
        return 1;
    }
    v = apr_palloc(ptemp, n * sizeof(*v));
    for (i = 0; i < n; i++) {
        v[i].o = json_object_array_get_idx(arr, i);
        v[i].h = json_hash(v[i].o, 0);
    }
    qsort(v, n, sizeof(*v), hashed_cmp);
    for (i = 0; i < n; i++) {
        for (j = i + 1; j < n && v[j].h == v[i].h; j++) {
            if (json_equal(v[i].o, v[j].o, 1)) {
                return 0;
            }
        }
    }
    return 1;
}

/* ------------------------------------------------------------------ */
/* Formats                                                             */

static int hexval(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
           (c >= 'A' && c <= 'F');
}

/* Remove every occurrence of pat from s (Python's str.replace(pat, '')). */
static apr_size_t remove_all(char *s, apr_size_t n, const char *pat)
{
    apr_size_t pl = strlen(pat), r = 0, w = 0;

    while (r < n) {
        if (r + pl <= n && memcmp(s + r, pat, pl) == 0) {
            r += pl;
        }
        else {
            s[w++] = s[r++];
        }
    }
    return w;
}

/* placement registers oslo_utils.uuidutils.is_uuid_like as the "uuid"
 * format: after dropping "urn:" and "uuid:", the braces at both ends and
 * every "-", exactly 32 hex digits must remain. Not a string: invalid. */
static int format_uuid_ok(json_object *o, apr_pool_t *ptemp)
{
    char *s;
    apr_size_t n, b, e, w, i;

    if (json_object_get_type(o) != json_type_string) {
        return 0;
    }
    n = (apr_size_t)json_object_get_string_len(o);
    s = apr_pmemdup(ptemp, json_object_get_string(o), n + 1);
    n = remove_all(s, n, "urn:");
    n = remove_all(s, n, "uuid:");
    for (b = 0; b < n && (s[b] == '{' || s[b] == '}'); b++)
        ;
    for (e = n; e > b && (s[e - 1] == '{' || s[e - 1] == '}'); e--)
        ;
    for (w = 0, i = b; i < e; i++) {
        if (s[i] == '-') {
            continue;
        }
        if (!hexval(s[i])) {
            return 0;
        }
        w++;
    }
    return w == 32;
}

/* ------------------------------------------------------------------ */
/* Validating                                                          */

/* best_match's relevance as one int, bigger is more relevant:
 * (-len(path), validator not in (anyOf, oneOf), not _matches_type()). */
static int err_key(int depth, int weak, int not_matches)
{
    return -depth * 4 + (weak ? 0 : 2) + (not_matches ? 1 : 0);
}

/* Can an error at depth >= depth still change what coll keeps? */
static int coll_open(const js_coll *c, int depth)
{
    switch (c->mode) {
    case C_VALID:
        return c->count == 0;
    case C_TOP:
        return !c->best || c->best->key < err_key(depth, 0, 1);
    default:
        return 1;
    }
}

static js_err *err_copy(vctx *vc, const js_err *e)
{
    js_err *c = apr_pmemdup(vc->p, e, sizeof(*e));

    /* the error's path: the last depth steps to here */
    if (e->depth > 0 && e->depth <= vc->segs->nelts) {
        c->path = apr_pmemdup(
            vc->p, (js_seg *)vc->segs->elts + (vc->segs->nelts - e->depth),
            e->depth * sizeof(js_seg));
    }

    if (e->ctx) {
        c->ctx = apr_pmemdup(vc->p, e->ctx, sizeof(*e->ctx));
    }
    return c;
}

static void offer(vctx *vc, js_coll *c, js_err *e)
{
    int weak = (e->kw == KW_ANYOF || e->kw == KW_ONEOF ||
                e->kw == KW_ONEOF_MULTI);
    int matches = e->node && e->node->has_type &&
                  pl_jsonschema_is_type(e->inst, e->node->types);

    e->key = err_key(e->depth, weak, !matches);
    c->count++;
    switch (c->mode) {
    case C_VALID:
        break;
    case C_TOP:
        if (!c->best || e->key > c->best->key) {
            c->best = err_copy(vc, e);
        }
        break;
    case C_CTX:
        /* heapq.nsmallest(2, ...): stable, the first of equals first */
        if (!c->s0 || e->key < c->s0->key) {
            c->s1 = c->s0;
            c->s0 = err_copy(vc, e);
        }
        else if (!c->s1 || e->key < c->s1->key) {
            c->s1 = err_copy(vc, e);
        }
        break;
    }
}

/* An error record with what every error has; the rest zero. */
static js_err err_make(kw_e kw, const js_node *node, const js_kw *k,
                       json_object *inst, int depth)
{
    js_err e;

    memset(&e, 0, sizeof(e));
    e.kw = kw;
    e.node = node;
    e.k = k;
    e.inst = inst;
    e.depth = depth;
    return e;
}

static void raise_err(vctx *vc, js_coll *c, kw_e kw, const js_node *node,
                      const js_kw *k, json_object *inst, int depth)
{
    js_err e = err_make(kw, node, k, inst, depth);

    offer(vc, c, &e);
}

static void validate_node(vctx *vc, const js_node *n, json_object *inst,
                          int depth, js_coll *c);

static int is_valid(vctx *vc, const js_node *n, json_object *inst)
{
    js_coll c;

    memset(&c, 0, sizeof(c));
    c.mode = C_VALID;
    validate_node(vc, n, inst, 0, &c);
    return c.count == 0;
}

/* Validate a member (key) or an item (key NULL, idx) of the current
 * value, one step down its path. */
static void validate_child(vctx *vc, const js_node *n, json_object *inst,
                           int depth, js_coll *c, const char *key, size_t idx)
{
    js_seg *seg = apr_array_push(vc->segs);

    seg->key = key;
    seg->idx = idx;
    validate_node(vc, n, inst, depth, c);
    apr_array_pop(vc->segs);
}

/* One check a keyword: each offers to c the errors keyword k of node n
 * finds in inst (at depth), and validates the subschemas it applies. A
 * check is called only for the instances its keyword applies to (the
 * table's "only"). */
typedef void (*check_fn)(vctx *vc, const js_node *n, const js_kw *k,
                         json_object *inst, int depth, js_coll *c);

static void check_type(vctx *vc, const js_node *n, const js_kw *k,
                       json_object *inst, int depth, js_coll *c)
{
    if (!pl_jsonschema_is_type(inst, k->types)) {
        raise_err(vc, c, k->kw, n, k, inst, depth);
    }
}

static void check_enum(vctx *vc, const js_node *n, const js_kw *k,
                       json_object *inst, int depth, js_coll *c)
{
    size_t j, len = json_object_array_length(k->value);
    int found = 0;
    int zero_one = 0;

    if (json_object_get_type(inst) == json_type_boolean) {
        zero_one = 1;
    }
    else if (pl_jsonschema_is_number(inst)) {
        num_t v = pl_jsonschema_num_of(inst), z;

        memset(&z, 0, sizeof(z));
        z.kind = N_INT;
        zero_one = pl_jsonschema_num_cmp(v, z) == 0;
        z.i = 1;
        zero_one = zero_one || pl_jsonschema_num_cmp(v, z) == 0;
    }
    for (j = 0; j < len && !found; j++) {
        /* 0/1/False/True are told apart from each other; anything
         * else compares as Python's == (the "in" operator) */
        found = json_equal(inst, json_object_array_get_idx(k->value, j),
                           zero_one);
    }
    if (!found) {
        raise_err(vc, c, k->kw, n, k, inst, depth);
    }
}

static void check_const(vctx *vc, const js_node *n, const js_kw *k,
                        json_object *inst, int depth, js_coll *c)
{
    if (!json_equal(inst, k->value, 1)) {
        raise_err(vc, c, k->kw, n, k, inst, depth);
    }
}

static void check_properties(vctx *vc, const js_node *n, const js_kw *k,
                             json_object *inst, int depth, js_coll *c)
{
    int i;

    for (i = 0; i < k->n && coll_open(c, depth + 1); i++) {
        json_object *v;

        if (json_object_object_get_ex(inst, k->props[i].name, &v)) {
            validate_child(vc, k->props[i].node, v, depth + 1, c,
                           k->props[i].name, 0);
        }
    }
}

static void check_pattern_properties(vctx *vc, const js_node *n, const js_kw *k,
                                     json_object *inst, int depth, js_coll *c)
{
    int i;

    for (i = 0; i < k->n; i++) {
        json_object_object_foreach(inst, key, val)
        {
            if (!coll_open(c, depth + 1)) {
                return;
            }
            if (pl_jsonschema_pattern_search(&k->pats[i].re, key,
                                             strlen(key))) {
                validate_child(vc, k->pats[i].node, val, depth + 1, c, key, 0);
            }
        }
    }
}

static void check_additional_properties(vctx *vc, const js_node *n,
                                        const js_kw *k, json_object *inst,
                                        int depth, js_coll *c)
{
    if (k->flag == -1) {
        json_object_object_foreach(inst, key, val)
        {
            if (!coll_open(c, depth + 1)) {
                return;
            }
            if (pl_jsonschema_is_extra(n, key)) {
                validate_child(vc, k->subs[0], val, depth + 1, c, key, 0);
            }
        }
    }
    else if (!k->flag) {
        json_object_object_foreach(inst, key, val)
        {
            (void)val;
            if (pl_jsonschema_is_extra(n, key)) {
                raise_err(vc, c, k->kw, n, k, inst, depth);
                break;
            }
        }
    }
}

static void check_required(vctx *vc, const js_node *n, const js_kw *k,
                           json_object *inst, int depth, js_coll *c)
{
    int i;

    for (i = 0; i < k->n; i++) {
        if (!json_object_object_get_ex(inst, k->names[i], NULL)) {
            js_err e = err_make(k->kw, n, k, inst, depth);

            e.name = k->names[i];
            offer(vc, c, &e);
        }
    }
}

/* minProperties, maxProperties */
static void check_property_count(vctx *vc, const js_node *n, const js_kw *k,
                                 json_object *inst, int depth, js_coll *c)
{
    int len = json_object_object_length(inst);
    if ((k->kw == KW_MINPROPERTIES && len < k->limit) ||
        (k->kw == KW_MAXPROPERTIES && len > k->limit)) {
        raise_err(vc, c, k->kw, n, k, inst, depth);
    }
}

static void check_items(vctx *vc, const js_node *n, const js_kw *k,
                        json_object *inst, int depth, js_coll *c)
{
    if (k->flag == -1) {
        size_t j, len = json_object_array_length(inst);

        for (j = 0; j < len && coll_open(c, depth + 1); j++) {
            validate_child(vc, k->subs[0], json_object_array_get_idx(inst, j),
                           depth + 1, c, NULL, j);
        }
    }
    else if (!k->flag && json_object_array_length(inst) > 0) {
        raise_err(vc, c, k->kw, n, k, inst, depth);
    }
}

/* minItems, maxItems */
static void check_item_count(vctx *vc, const js_node *n, const js_kw *k,
                             json_object *inst, int depth, js_coll *c)
{
    apr_int64_t len = (apr_int64_t)json_object_array_length(inst);
    if ((k->kw == KW_MINITEMS && len < k->limit) ||
        (k->kw == KW_MAXITEMS && len > k->limit)) {
        raise_err(vc, c, k->kw, n, k, inst, depth);
    }
}

static void check_unique_items(vctx *vc, const js_node *n, const js_kw *k,
                               json_object *inst, int depth, js_coll *c)
{
    if (k->flag && !array_unique(inst, vc->p)) {
        raise_err(vc, c, k->kw, n, k, inst, depth);
    }
}

/* minimum, maximum, exclusiveMinimum, exclusiveMaximum */
static void check_bound(vctx *vc, const js_node *n, const js_kw *k,
                        json_object *inst, int depth, js_coll *c)
{
    int r, bad;

    if (!pl_jsonschema_is_number(inst)) {
        return;
    }
    r = pl_jsonschema_num_cmp(pl_jsonschema_num_of(inst), k->num);
    if (r == 2) {
        return;
    }
    bad = (k->kw == KW_MINIMUM && r < 0) || (k->kw == KW_MAXIMUM && r > 0) ||
          (k->kw == KW_EXCLUSIVEMINIMUM && r <= 0) ||
          (k->kw == KW_EXCLUSIVEMAXIMUM && r >= 0);
    if (bad) {
        raise_err(vc, c, k->kw, n, k, inst, depth);
    }
}

/* minLength, maxLength: in code points, as Python's len() */
static void check_length(vctx *vc, const js_node *n, const js_kw *k,
                         json_object *inst, int depth, js_coll *c)
{
    apr_int64_t len;

    len = utf8_length(json_object_get_string(inst),
                      (apr_size_t)json_object_get_string_len(inst));
    if ((k->kw == KW_MINLENGTH && len < k->limit) ||
        (k->kw == KW_MAXLENGTH && len > k->limit)) {
        raise_err(vc, c, k->kw, n, k, inst, depth);
    }
}

static void check_pattern(vctx *vc, const js_node *n, const js_kw *k,
                          json_object *inst, int depth, js_coll *c)
{
    if (!pl_jsonschema_pattern_search(
            &k->pats[0].re, json_object_get_string(inst),
            (apr_size_t)json_object_get_string_len(inst))) {
        raise_err(vc, c, k->kw, n, k, inst, depth);
    }
}

static void check_format(vctx *vc, const js_node *n, const js_kw *k,
                         json_object *inst, int depth, js_coll *c)
{
    if (!format_uuid_ok(inst, vc->p)) {
        raise_err(vc, c, k->kw, n, k, inst, depth);
    }
}

static void check_all_of(vctx *vc, const js_node *n, const js_kw *k,
                         json_object *inst, int depth, js_coll *c)
{
    int i;

    for (i = 0; i < k->n; i++) {
        validate_node(vc, k->subs[i], inst, depth, c);
    }
}

/* oneOf after its first valid subschema (first_valid): an error naming
 * the others that are valid too, if any */
static void check_one_of_rest(vctx *vc, const js_node *n, const js_kw *k,
                              json_object *inst, int depth, js_coll *c,
                              int first_valid)
{
    const js_node **valid = NULL;
    int i, nvalid = 0;

    for (i = first_valid + 1; i < k->n; i++) {
        if (is_valid(vc, k->subs[i], inst)) {
            if (!valid) {
                /* an array of pointers: sizeof(js_node *) is meant
                 * NOLINTNEXTLINE(bugprone-sizeof-expression) */
                valid = apr_pcalloc(vc->p, (k->n + 1) * sizeof(*valid));
            }
            valid[nvalid++] = k->subs[i];
        }
    }
    if (nvalid) {
        js_err e = err_make(KW_ONEOF_MULTI, n, k, inst, depth);

        valid[nvalid++] = k->subs[first_valid];
        e.valid = valid;
        e.nvalid = nvalid;
        offer(vc, c, &e);
    }
}

/* anyOf, oneOf */
static void check_any_of(vctx *vc, const js_node *n, const js_kw *k,
                         json_object *inst, int depth, js_coll *c)
{
    js_coll ctx;
    int i, first_valid = -1;

    memset(&ctx, 0, sizeof(ctx));
    ctx.mode = C_CTX;
    for (i = 0; i < k->n; i++) {
        long before = ctx.count;

        validate_node(vc, k->subs[i], inst, 0, &ctx);
        if (ctx.count == before) {
            first_valid = i;
            break;
        }
    }
    if (first_valid < 0) {
        js_err e = err_make(k->kw, n, k, inst, depth);

        e.ctx = &ctx;
        offer(vc, c, &e);
    }
    else if (k->kw == KW_ONEOF) {
        check_one_of_rest(vc, n, k, inst, depth, c, first_valid);
    }
}

static void check_not(vctx *vc, const js_node *n, const js_kw *k,
                      json_object *inst, int depth, js_coll *c)
{
    if (is_valid(vc, k->subs[0], inst)) {
        raise_err(vc, c, k->kw, n, k, inst, depth);
    }
}

static void check_ref(vctx *vc, const js_node *n, const js_kw *k,
                      json_object *inst, int depth, js_coll *c)
{
    validate_node(vc, k->subs[0], inst, depth, c);
}

/* By keyword (the pseudo keywords have none): the check, and the only
 * type of instance the keyword applies to (ANY_TYPE: every type), as in
 * python-jsonschema, whose checks return at once for other types. */
#define ANY_TYPE (-1)
static const struct {
    check_fn check;
    int only; /* a json_type, or ANY_TYPE */
} checks[] = {
    [KW_TYPE] = { check_type, ANY_TYPE },
    [KW_ENUM] = { check_enum, ANY_TYPE },
    [KW_CONST] = { check_const, ANY_TYPE },
    [KW_PROPERTIES] = { check_properties, json_type_object },
    [KW_PATTERNPROPERTIES] = { check_pattern_properties, json_type_object },
    [KW_ADDITIONALPROPERTIES] = { check_additional_properties,
                                  json_type_object },
    [KW_REQUIRED] = { check_required, json_type_object },
    [KW_MINPROPERTIES] = { check_property_count, json_type_object },
    [KW_MAXPROPERTIES] = { check_property_count, json_type_object },
    [KW_ITEMS] = { check_items, json_type_array },
    [KW_MINITEMS] = { check_item_count, json_type_array },
    [KW_MAXITEMS] = { check_item_count, json_type_array },
    [KW_UNIQUEITEMS] = { check_unique_items, json_type_array },
    [KW_MINIMUM] = { check_bound, ANY_TYPE },
    [KW_MAXIMUM] = { check_bound, ANY_TYPE },
    [KW_EXCLUSIVEMINIMUM] = { check_bound, ANY_TYPE },
    [KW_EXCLUSIVEMAXIMUM] = { check_bound, ANY_TYPE },
    [KW_MINLENGTH] = { check_length, json_type_string },
    [KW_MAXLENGTH] = { check_length, json_type_string },
    [KW_PATTERN] = { check_pattern, json_type_string },
    [KW_FORMAT] = { check_format, ANY_TYPE },
    [KW_ANYOF] = { check_any_of, ANY_TYPE },
    [KW_ONEOF] = { check_any_of, ANY_TYPE },
    [KW_ALLOF] = { check_all_of, ANY_TYPE },
    [KW_NOT] = { check_not, ANY_TYPE },
    [KW_REF] = { check_ref, ANY_TYPE },
};

static void validate_keyword(vctx *vc, const js_node *n, const js_kw *k,
                             json_object *inst, int depth, js_coll *c)
{
    int only;

    if ((size_t)k->kw >= sizeof(checks) / sizeof(checks[0]) ||
        checks[k->kw].check == NULL) {
        return;
    }
    only = checks[k->kw].only;
    if (only == ANY_TYPE || (int)json_object_get_type(inst) == only) {
        checks[k->kw].check(vc, n, k, inst, depth, c);
    }
}

static void validate_node(vctx *vc, const js_node *n, json_object *inst,
                          int depth, js_coll *c)
{
    int i;

    if (!coll_open(c, depth)) {
        return;
    }
    if (n->is_bool) {
        if (!n->bool_value) {
            raise_err(vc, c, KW_FALSE_SCHEMA, NULL, NULL, inst, depth);
        }
        return;
    }
    if (vc->nesting >= MAX_NESTING) {
        /* only a recursive $ref gets here: refuse rather than recurse */
        vc->too_deep = 1;
        c->count++;
        return;
    }
    vc->nesting++;
    for (i = 0; i < n->nkw && coll_open(c, depth); i++) {
        validate_keyword(vc, n, &n->kws[i], inst, depth, c);
    }
    vc->nesting--;
}

static apr_status_t validate(const pl_jsonschema_t *s, json_object *doc,
                             apr_pool_t *p, const char **perr, int detail)
{
    vctx vc;
    js_coll top;
    const js_err *best;
    const char *prefix = NULL;

    memset(&vc, 0, sizeof(vc));
    memset(&top, 0, sizeof(top));
    vc.p = p;
    vc.segs = apr_array_make(p, 8, sizeof(js_seg));
    top.mode = C_TOP;
    validate_node(&vc, s->root, doc, 0, &top);
    if (top.count == 0) {
        if (perr) {
            *perr = NULL;
        }
        return APR_SUCCESS;
    }
    if (vc.too_deep || !top.best) {
        if (perr) {
            *perr = "JSON nested too deeply for the schema";
        }
        return APR_EINVAL;
    }
    /* best_match(): from an anyOf/oneOf error, go down to the deepest
     * branch error unless two are equally relevant */
    best = top.best;
    while (best->ctx && best->ctx->s0) {
        if (best->ctx->s1 && best->ctx->s0->key == best->ctx->s1->key) {
            break;
        }
        /* a branch error's schema path starts at the branch: [0]... */
        prefix = best->node
                     ? apr_psprintf(p, "%s['%s']", best->node->path,
                                    best->kw == KW_ANYOF ? "anyOf" : "oneOf")
                     : NULL;
        best = best->ctx->s0;
    }
    if (perr) {
        *perr = apr_pstrcat(
            p, pl_jsonschema_err_message(p, best),
            detail ? pl_jsonschema_err_trailer(p, best, prefix) : "", NULL);
    }
    return APR_EINVAL;
}

apr_status_t pl_jsonschema_validate(const pl_jsonschema_t *s, json_object *doc,
                                    apr_pool_t *p, const char **perr)
{
    return validate(s, doc, p, perr, 0);
}

apr_status_t pl_jsonschema_validate_detail(const pl_jsonschema_t *s,
                                           json_object *doc, apr_pool_t *p,
                                           const char **perr)
{
    return validate(s, doc, p, perr, 1);
}
