/* Licensed under the Apache License, Version 2.0.
 *
 * pl_jsonschema.c: the JSON-Schema validator behind every request body check
 * (placement's util.extract_json). It reproduces what python-jsonschema 4.10
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <float.h>
#include <limits.h>
#include <stdint.h>
#include <sys/types.h>
#include <regex.h>

#include <apr_pools.h>
#include <apr_strings.h>
#include <apr_tables.h>
#include <apr_hash.h>

#include "pl_jsonschema.h"
#include "pl_py.h"

/* Nested validation calls allowed before giving up (only reachable with a
 * recursive $ref and a deep document). */
#define MAX_NESTING 200
/* Nesting rendered by repr before "..." (json-c's parser stops at 32). */
#define MAX_REPR_DEPTH 500

typedef enum {
    KW_TYPE, KW_ENUM, KW_CONST, KW_PROPERTIES, KW_PATTERNPROPERTIES,
    KW_ADDITIONALPROPERTIES, KW_REQUIRED, KW_MINPROPERTIES, KW_MAXPROPERTIES,
    KW_ITEMS, KW_MINITEMS, KW_MAXITEMS, KW_UNIQUEITEMS, KW_MINIMUM,
    KW_MAXIMUM, KW_EXCLUSIVEMINIMUM, KW_EXCLUSIVEMAXIMUM, KW_MINLENGTH,
    KW_MAXLENGTH, KW_PATTERN, KW_FORMAT, KW_ANYOF, KW_ONEOF, KW_ALLOF, KW_NOT,
    KW_REF,
    /* pseudo keywords, for error records only */
    KW_FALSE_SCHEMA, KW_ONEOF_MULTI
} kw_e;

static const struct {
    const char *name;
    kw_e kw;
} keywords[] = {
    { "type", KW_TYPE }, { "enum", KW_ENUM }, { "const", KW_CONST },
    { "properties", KW_PROPERTIES },
    { "patternProperties", KW_PATTERNPROPERTIES },
    { "additionalProperties", KW_ADDITIONALPROPERTIES },
    { "required", KW_REQUIRED }, { "minProperties", KW_MINPROPERTIES },
    { "maxProperties", KW_MAXPROPERTIES }, { "items", KW_ITEMS },
    { "minItems", KW_MINITEMS }, { "maxItems", KW_MAXITEMS },
    { "uniqueItems", KW_UNIQUEITEMS }, { "minimum", KW_MINIMUM },
    { "maximum", KW_MAXIMUM }, { "exclusiveMinimum", KW_EXCLUSIVEMINIMUM },
    { "exclusiveMaximum", KW_EXCLUSIVEMAXIMUM },
    { "minLength", KW_MINLENGTH }, { "maxLength", KW_MAXLENGTH },
    { "pattern", KW_PATTERN }, { "format", KW_FORMAT },
    { "anyOf", KW_ANYOF }, { "oneOf", KW_ONEOF }, { "allOf", KW_ALLOF },
    { "not", KW_NOT }, { "$ref", KW_REF },
    { NULL, 0 }
};

/* Keywords python-jsonschema has no validator for, or that only hold
 * subschemas for $ref: accepted and skipped. */
static const char *const annotations[] = {
    "title", "description", "default", "examples", "$comment",
    "definitions", "$defs", "readOnly", "writeOnly", "deprecated", NULL
};

/* JSON types as bits. */
#define T_ARRAY   0x01
#define T_BOOLEAN 0x02
#define T_INTEGER 0x04
#define T_NULL    0x08
#define T_NUMBER  0x10
#define T_OBJECT  0x20
#define T_STRING  0x40

static const struct {
    const char *name;
    unsigned bit;
} type_names[] = {
    { "array", T_ARRAY }, { "boolean", T_BOOLEAN }, { "integer", T_INTEGER },
    { "null", T_NULL }, { "number", T_NUMBER }, { "object", T_OBJECT },
    { "string", T_STRING }, { NULL, 0 }
};

/* A number as json-c holds it: int64, uint64 above INT64_MAX, or double. */
typedef struct {
    enum { N_INT, N_UINT, N_DBL } kind;
    apr_int64_t i;
    apr_uint64_t u;
    double d;
} num_t;

typedef struct js_node js_node;

typedef struct {
    const char *name;
    js_node *node;
} js_prop;

typedef struct {
    const char *source;       /* the Python regex, for messages */
    regex_t re;
    js_node *node;
} js_pat;

typedef struct {
    kw_e kw;
    json_object *value;       /* the keyword's value in the schema JSON */
    unsigned types;           /* type */
    int n;                    /* count of props/pats/names/subs */
    js_prop *props;           /* properties */
    js_pat *pats;             /* patternProperties; pattern uses pats[0] */
    const char **names;       /* required; type (names as written) */
    js_node **subs;           /* anyOf, oneOf, allOf; [0] for not, $ref,
                               * items and additionalProperties (schema) */
    int flag;                 /* uniqueItems, items/additionalProperties
                               * boolean value; -1 when a schema */
    apr_int64_t limit;        /* min/max Length/Items/Properties */
    num_t num;                /* minimum ... exclusiveMaximum */
} js_kw;

struct js_node {
    const char *path;         /* where it sits, as Python prints a schema
                               * path: "['properties']['total']" */
    int is_bool;              /* boolean schema */
    int bool_value;
    json_object *json;
    int has_type;
    unsigned types;
    int nkw;
    js_kw *kws;
    const js_kw *props_kw;    /* for additionalProperties */
    const js_kw *pats_kw;
};

struct pl_jsonschema_t {
    json_object *json;
    js_node *root;
};

/* ------------------------------------------------------------------ */
/* String builder on a pool                                            */

typedef struct {
    apr_pool_t *p;
    char *buf;
    apr_size_t len, cap;
} sb_t;

static void sb_init(sb_t *sb, apr_pool_t *p)
{
    sb->p = p;
    sb->cap = 64;
    sb->len = 0;
    sb->buf = apr_palloc(p, sb->cap);
    sb->buf[0] = '\0';
}

static void sb_addn(sb_t *sb, const char *s, apr_size_t n)
{
    if (sb->len + n + 1 > sb->cap) {
        apr_size_t cap = sb->cap * 2;
        char *nb;

        while (cap < sb->len + n + 1) {
            cap *= 2;
        }
        nb = apr_palloc(sb->p, cap);
        memcpy(nb, sb->buf, sb->len);
        sb->buf = nb;
        sb->cap = cap;
    }
    memcpy(sb->buf + sb->len, s, n);
    sb->len += n;
    sb->buf[sb->len] = '\0';
}

static void sb_add(sb_t *sb, const char *s)
{
    sb_addn(sb, s, strlen(s));
}

static void sb_addc(sb_t *sb, char c)
{
    sb_addn(sb, &c, 1);
}

/* ------------------------------------------------------------------ */
/* Python's repr() of the values json.loads() builds (pl_py.c)          */

/* Strings as json-c decoded them: lone surrogates are code points, bytes
 * that are no UTF-8 are shown as bytes. */
#define JSON_TEXT (PL_PY_U8_SURROGATES | PL_PY_REPR_BYTES)

/* Python's len() of the string. */
static apr_int64_t utf8_length(const char *s, apr_size_t n)
{
    return pl_py_len(s, n, JSON_TEXT);
}

static void repr_string(sb_t *sb, const char *s, apr_size_t n)
{
    sb_add(sb, pl_py_repr_n(sb->p, s, n, JSON_TEXT));
}

static void repr_double(sb_t *sb, double d)
{
    char buf[PL_PY_FLOAT_REPR_SIZE];

    sb_addn(sb, buf, pl_py_float_repr(buf, d));
}

static num_t num_of(json_object *o)
{
    num_t n;

    memset(&n, 0, sizeof(n));
    if (json_object_get_type(o) == json_type_double) {
        n.kind = N_DBL;
        n.d = json_object_get_double(o);
    }
    else {
        n.i = json_object_get_int64(o);
        n.kind = N_INT;
        if (n.i == INT64_MAX) {
            n.u = json_object_get_uint64(o);
            if (n.u > (apr_uint64_t)INT64_MAX) {
                n.kind = N_UINT;
            }
        }
    }
    return n;
}

static void repr_num(sb_t *sb, num_t n)
{
    char buf[32];

    if (n.kind == N_DBL) {
        repr_double(sb, n.d);
        return;
    }
    if (n.kind == N_UINT) {
        snprintf(buf, sizeof(buf), "%" APR_UINT64_T_FMT, n.u);
    }
    else {
        snprintf(buf, sizeof(buf), "%" APR_INT64_T_FMT, n.i);
    }
    sb_add(sb, buf);
}

static void repr_value(sb_t *sb, json_object *o, int depth)
{
    if (depth > MAX_REPR_DEPTH) {
        sb_add(sb, "...");
        return;
    }
    switch (json_object_get_type(o)) {
    case json_type_null:
        sb_add(sb, "None");
        break;
    case json_type_boolean:
        sb_add(sb, json_object_get_boolean(o) ? "True" : "False");
        break;
    case json_type_int:
    case json_type_double:
        repr_num(sb, num_of(o));
        break;
    case json_type_string:
        repr_string(sb, json_object_get_string(o),
                    (apr_size_t)json_object_get_string_len(o));
        break;
    case json_type_array: {
        size_t i, n = json_object_array_length(o);

        sb_addc(sb, '[');
        for (i = 0; i < n; i++) {
            if (i) {
                sb_add(sb, ", ");
            }
            repr_value(sb, json_object_array_get_idx(o, i), depth + 1);
        }
        sb_addc(sb, ']');
        break;
    }
    case json_type_object: {
        int first = 1;

        sb_addc(sb, '{');
        json_object_object_foreach(o, key, val) {
            if (!first) {
                sb_add(sb, ", ");
            }
            first = 0;
            repr_string(sb, key, strlen(key));
            sb_add(sb, ": ");
            repr_value(sb, val, depth + 1);
        }
        sb_addc(sb, '}');
        break;
    }
    }
}

const char *pl_jsonschema_repr(apr_pool_t *p, json_object *o)
{
    sb_t sb;

    sb_init(&sb, p);
    repr_value(&sb, o, 0);
    return sb.buf;
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
        return 1;                       /* beyond 2^53 every double is */
    }
    return d == (double)(apr_int64_t)d;
}

static int is_number(json_object *o)
{
    json_type t = json_object_get_type(o);

    return t == json_type_int || t == json_type_double;
}

/* Python's check for the JSON types: booleans are not numbers, and a
 * float with an integral value is an "integer" (draft 6 and later). */
static int is_type(json_object *o, unsigned types)
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
        du = (apr_uint64_t)d;           /* d is integral up here */
        return u < du ? -1 : (u > du ? 1 : 0);
    }
    if (d >= 9223372036854775808.0) {
        return -1;
    }
    {
        apr_int64_t di = (apr_int64_t)d;    /* toward zero */

        if ((double)di > d) {
            di--;                           /* now floor(d) */
        }
        if (i != di) {
            return i < di ? -1 : 1;
        }
        return d > (double)di ? -1 : 0;
    }
}

/* Compare two numbers exactly: -1, 0, 1, or 2 if unordered (NaN). */
static int num_cmp(num_t a, num_t b)
{
    if (a.kind == N_DBL && b.kind == N_DBL) {
        if (isnan(a.d) || isnan(b.d)) {
            return 2;
        }
        return a.d < b.d ? -1 : (a.d > b.d ? 1 : 0);
    }
    if (a.kind == N_DBL) {
        int c = num_cmp(b, a);

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
static int json_equal_d(json_object *a, json_object *b, int strict,
                        int depth)
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

        if (!(ta == json_type_boolean || is_number(a))
            || !(tb == json_type_boolean || is_number(b))) {
            return 0;
        }
        memset(&na, 0, sizeof(na));
        memset(&nb, 0, sizeof(nb));
        if (ta == json_type_boolean) {
            na.kind = N_INT;
            na.i = json_object_get_boolean(a);
        }
        else {
            na = num_of(a);
        }
        if (tb == json_type_boolean) {
            nb.kind = N_INT;
            nb.i = json_object_get_boolean(b);
        }
        else {
            nb = num_of(b);
        }
        return num_cmp(na, nb) == 0;
    }
    if (is_number(a) && is_number(b)) {
        return num_cmp(num_of(a), num_of(b)) == 0;
    }
    if (ta != tb) {
        return 0;
    }
    switch (ta) {
    case json_type_null:
        return 1;
    case json_type_string:
        return json_object_get_string_len(a) == json_object_get_string_len(b)
            && memcmp(json_object_get_string(a), json_object_get_string(b),
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
        json_object_object_foreach(a, key, val) {
            json_object *other;

            if (!json_object_object_get_ex(b, key, &other)
                || !json_equal_d(val, other, strict, depth + 1)) {
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
        num_t n = num_of(o);

        if (n.kind == N_DBL) {
            double d = n.d;

            if (dbl_is_integral(d) && d >= -9223372036854775808.0
                && d < 9223372036854775808.0) {
                return mix((apr_uint64_t)(apr_int64_t)d);
            }
            if (dbl_is_integral(d) && d >= 9223372036854775808.0
                && d < 18446744073709551616.0) {
                return mix((apr_uint64_t)d);
            }
            memcpy(&h, &d, sizeof(h));
            return mix(h ^ 0x5555);
        }
        return mix(n.kind == N_UINT ? n.u : (apr_uint64_t)n.i);
    }
    case json_type_string: {
        const unsigned char *s =
            (const unsigned char *)json_object_get_string(o);
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
            h = mix(h * 31 + json_hash(json_object_array_get_idx(o, i),
                                       depth + 1));
        }
        return h;
    }
    case json_type_object: {
        h = 0x0b1ec7;
        json_object_object_foreach(o, key, val) {
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
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')
        || (c >= 'A' && c <= 'F');
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
/* Patterns: Python re syntax to POSIX ERE                             */

static int bracket_to_ere(sb_t *sb, const char **ps, const char **why)
{
    const char *s = *ps + 1;
    int neg = 0, rbr = 0, dash = 0, caret = 0, first = 1;
    sb_t body;

    sb_init(&body, sb->p);
    if (*s == '^') {
        neg = 1;
        s++;
    }
    for (;; first = 0) {
        char c = *s;

        if (c == '\0') {
            *why = "unterminated character set";
            return 0;
        }
        if (c == ']' && !first) {
            s++;
            break;
        }
        if (c == ']') {
            rbr = 1;
            s++;
            continue;
        }
        if (c == '[' && (s[1] == ':' || s[1] == '.' || s[1] == '=')) {
            *why = "POSIX class syntax in a character set";
            return 0;
        }
        if (c == '-' && (first || s[1] == ']')) {
            dash = 1;
            s++;
            continue;
        }
        if (c == '\\') {
            char n = s[1];

            switch (n) {
            case 'd':
                sb_add(&body, "0-9");
                break;
            case 'w':
                sb_add(&body, "A-Za-z0-9_");
                break;
            case 's':
                sb_add(&body, " \t\n\r\f\v");
                break;
            case 'n':
                sb_addc(&body, '\n');
                break;
            case 't':
                sb_addc(&body, '\t');
                break;
            case 'r':
                sb_addc(&body, '\r');
                break;
            case 'f':
                sb_addc(&body, '\f');
                break;
            case 'v':
                sb_addc(&body, '\v');
                break;
            case ']':
                rbr = 1;
                break;
            case '-':
                dash = 1;
                break;
            case '^':
                caret = 1;
                break;
            case '\\':
                sb_addc(&body, '\\');
                break;
            default:
                if (n != '\0' && strchr(".$|()[{}*+?/&~#%!\"',:;<=>@`", n)) {
                    sb_addc(&body, n);
                    break;
                }
                *why = "unsupported escape in a character set";
                return 0;
            }
            s += 2;
            continue;
        }
        sb_addc(&body, c);
        s++;
    }
    if (caret && !neg && !rbr && body.len == 0 && !dash) {
        sb_add(sb, "\\^");
        *ps = s;
        return 1;
    }
    sb_addc(sb, '[');
    if (neg) {
        sb_addc(sb, '^');
    }
    if (rbr) {
        sb_addc(sb, ']');
    }
    sb_add(sb, body.buf);
    if (caret) {
        sb_addc(sb, '^');
    }
    if (dash) {
        sb_addc(sb, '-');
    }
    sb_addc(sb, ']');
    *ps = s;
    return 1;
}

static const char *py_to_ere(apr_pool_t *p, const char *py, const char **why)
{
    const char *s = py;
    sb_t sb;

    sb_init(&sb, p);
    while (*s) {
        char c = *s;

        if (c == '\\') {
            char n = s[1];

            switch (n) {
            case 'd':
                sb_add(&sb, "[0-9]");
                break;
            case 'D':
                sb_add(&sb, "[^0-9]");
                break;
            case 'w':
                sb_add(&sb, "[A-Za-z0-9_]");
                break;
            case 'W':
                sb_add(&sb, "[^A-Za-z0-9_]");
                break;
            case 's':
                sb_add(&sb, "[ \t\n\r\f\v]");
                break;
            case 'S':
                sb_add(&sb, "[^ \t\n\r\f\v]");
                break;
            case 'n':
                sb_addc(&sb, '\n');
                break;
            case 't':
                sb_addc(&sb, '\t');
                break;
            case 'r':
                sb_addc(&sb, '\r');
                break;
            case 'f':
                sb_addc(&sb, '\f');
                break;
            case 'v':
                sb_addc(&sb, '\v');
                break;
            default:
                if (n != '\0' && strchr(".^$|()[]{}*+?\\", n)) {
                    sb_addc(&sb, '\\');
                    sb_addc(&sb, n);
                    break;
                }
                if (n != '\0' && strchr("-/&~#%!\"',:;<=>@`_ ", n)) {
                    sb_addc(&sb, n);
                    break;
                }
                *why = "unsupported escape";
                return NULL;
            }
            s += 2;
            continue;
        }
        if (c == '[') {
            if (!bracket_to_ere(&sb, &s, why)) {
                return NULL;
            }
            continue;
        }
        if (c == '.') {
            /* Python's "." does not match a newline */
            sb_add(&sb, "[^\n]");
            s++;
            continue;
        }
        if (c == '(' && s[1] == '?') {
            if (s[2] != ':') {
                *why = "unsupported group extension";
                return NULL;
            }
            sb_addc(&sb, '(');
            s += 3;
            continue;
        }
        if ((c == '*' || c == '+' || c == '?' || c == '}') && s[1] == '?') {
            /* lazy and greedy repeats find the same matches for search() */
            sb_addc(&sb, c);
            s += 2;
            continue;
        }
        sb_addc(&sb, c);
        s++;
    }
    return sb.buf;
}

/* re.search(pattern, s): "$" also matches before a final newline. */
static int pattern_search(const regex_t *re, const char *s, apr_size_t n)
{
    regmatch_t m[1];

    m[0].rm_so = 0;
    m[0].rm_eo = (regoff_t)n;
    if (regexec(re, s, 1, m, REG_STARTEND) == 0) {
        return 1;
    }
    if (n > 0 && s[n - 1] == '\n') {
        m[0].rm_so = 0;
        m[0].rm_eo = (regoff_t)(n - 1);
        return regexec(re, s, 1, m, REG_STARTEND) == 0;
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* Compiling                                                           */

typedef struct {
    apr_pool_t *p;
    json_object *root;
    apr_hash_t *done;           /* json_object * -> js_node * */
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
    const char *why = NULL, *ere = py_to_ere(cc->p, py, &why);
    int rc;

    if (!ere) {
        return fail(cc, where, apr_psprintf(cc->p, "pattern '%s': %s",
                                            py, why));
    }
    rc = regcomp(re, ere, REG_EXTENDED | REG_NOSUB);
    if (rc != 0) {
        char buf[128];

        regerror(rc, re, buf, sizeof(buf));
        return fail(cc, where, apr_psprintf(cc->p, "pattern '%s': %s",
                                            py, buf));
    }
    APR_ARRAY_PUSH(cc->regexes, regex_t *) = re;
    return 1;
}

static int get_count(cctx *cc, json_object *v, apr_int64_t *pn,
                     const char *where)
{
    if (json_object_get_type(v) != json_type_int
        || json_object_get_int64(v) < 0) {
        return fail(cc, where, "expected a non-negative integer");
    }
    *pn = json_object_get_int64(v);
    return 1;
}

static int compile_schema_list(cctx *cc, js_kw *k, json_object *v,
                               const char *where)
{
    size_t i, n;

    if (json_object_get_type(v) != json_type_array
        || json_object_array_length(v) == 0) {
        return fail(cc, where, "expected a non-empty array of schemas");
    }
    n = json_object_array_length(v);
    k->n = (int)n;
    k->subs = apr_pcalloc(cc->p, n * sizeof(js_node *));
    for (i = 0; i < n; i++) {
        k->subs[i] = compile_node(cc, json_object_array_get_idx(v, i),
                                  apr_psprintf(cc->p, "%s/%d", where,
                                               (int)i));
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

static int compile_keyword(cctx *cc, js_node *node, js_kw *k, json_object *v,
                           const char *where)
{
    json_type t = json_object_get_type(v);
    int i;

    k->value = v;
    switch (k->kw) {
    case KW_TYPE: {
        json_object *list = v;
        size_t n;

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
                ? v : json_object_array_get_idx(list, i);
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
                return fail(cc, where, apr_psprintf(cc->p,
                            "unknown type '%s'", k->names[i]));
            }
            k->types |= type_names[x].bit;
        }
        node->has_type = 1;
        node->types = k->types;
        return 1;
    }
    case KW_ENUM:
        if (t != json_type_array) {
            return fail(cc, where, "expected an array");
        }
        return 1;
    case KW_CONST:
        return 1;
    case KW_PROPERTIES: {
        int n = 0;

        if (t != json_type_object) {
            return fail(cc, where, "expected an object");
        }
        k->props = apr_pcalloc(cc->p, (json_object_object_length(v) + 1)
                                      * sizeof(js_prop));
        json_object_object_foreach(v, key, val) {
            k->props[n].name = key;
            k->props[n].node = compile_node(cc, val,
                                            apr_pstrcat(cc->p, where, "/",
                                                        key, NULL));
            if (!k->props[n].node) {
                return 0;
            }
            n++;
        }
        k->n = n;
        node->props_kw = k;
        return 1;
    }
    case KW_PATTERNPROPERTIES: {
        int n = 0;

        if (t != json_type_object) {
            return fail(cc, where, "expected an object");
        }
        k->pats = apr_pcalloc(cc->p, (json_object_object_length(v) + 1)
                                     * sizeof(js_pat));
        json_object_object_foreach(v, key, val) {
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
    case KW_ADDITIONALPROPERTIES:
    case KW_ITEMS:
        if (t == json_type_boolean) {
            k->flag = json_object_get_boolean(v);
            return 1;
        }
        if (t != json_type_object) {
            return fail(cc, where, "expected a boolean or a schema");
        }
        k->flag = -1;
        return compile_sub(cc, k, v, where);
    case KW_REQUIRED: {
        size_t n;

        if (t != json_type_array) {
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
    case KW_MINPROPERTIES:
    case KW_MAXPROPERTIES:
    case KW_MINITEMS:
    case KW_MAXITEMS:
    case KW_MINLENGTH:
    case KW_MAXLENGTH:
        return get_count(cc, v, &k->limit, where);
    case KW_UNIQUEITEMS:
        if (t != json_type_boolean) {
            return fail(cc, where, "expected a boolean");
        }
        k->flag = json_object_get_boolean(v);
        return 1;
    case KW_MINIMUM:
    case KW_MAXIMUM:
    case KW_EXCLUSIVEMINIMUM:
    case KW_EXCLUSIVEMAXIMUM:
        if (!is_number(v)) {
            return fail(cc, where, "expected a number");
        }
        k->num = num_of(v);
        return 1;
    case KW_PATTERN:
        if (t != json_type_string) {
            return fail(cc, where, "expected a string");
        }
        k->n = 1;
        k->pats = apr_pcalloc(cc->p, sizeof(js_pat));
        k->pats[0].source = json_object_get_string(v);
        return compile_regex(cc, &k->pats[0].re, k->pats[0].source, where);
    case KW_FORMAT:
        if (t != json_type_string
            || strcmp(json_object_get_string(v), "uuid") != 0) {
            return fail(cc, where, "only the format 'uuid' is supported");
        }
        return 1;
    case KW_ANYOF:
    case KW_ONEOF:
    case KW_ALLOF:
        return compile_schema_list(cc, k, v, where);
    case KW_NOT:
        if (t != json_type_object && t != json_type_boolean) {
            return fail(cc, where, "expected a schema");
        }
        return compile_sub(cc, k, v, where);
    case KW_REF: {
        const char *ref;
        json_object *target = NULL;

        if (t != json_type_string) {
            return fail(cc, where, "expected a string");
        }
        ref = json_object_get_string(v);
        if (ref[0] != '#') {
            return fail(cc, where, "only references inside the schema "
                                   "(\"#...\") are supported");
        }
        if (ref[1] == '\0') {
            target = cc->root;
        }
        else if (json_pointer_get(cc->root, ref + 1, &target) != 0) {
            return fail(cc, where, apr_psprintf(cc->p,
                        "unresolvable reference '%s'", ref));
        }
        if (json_object_get_type(target) != json_type_object
            && json_object_get_type(target) != json_type_boolean) {
            return fail(cc, where, apr_psprintf(cc->p,
                        "reference '%s' is not a schema", ref));
        }
        return compile_sub(cc, k, target, apr_pstrcat(cc->p, where, "->",
                                                      ref, NULL));
    }
    default:
        return fail(cc, where, "internal: unknown keyword");
    }
}

/* "schema/properties/total" -> "['properties']['total']"; list indexes
 * (anyOf/0) print bare, as in Python's deque repr. A $ref target keeps
 * the path of the reference. */
static const char *schema_path(apr_pool_t *p, const char *where)
{
    const char *path = "";
    const char *end = strstr(where, "->");
    char *copy = apr_pstrndup(p, where, end ? (apr_size_t)(end - where)
                                            : strlen(where));
    char *seg, *state;

    seg = apr_strtok(copy, "/", &state);      /* "schema" */
    while ((seg = apr_strtok(NULL, "/", &state)) != NULL) {
        path = apr_psprintf(p, strspn(seg, "0123456789") == strlen(seg)
                               ? "%s[%s]" : "%s['%s']", path, seg);
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
    apr_hash_set(cc->done, apr_pmemdup(cc->p, &j, sizeof(j)), sizeof(j),
                 node);
    node->kws = apr_pcalloc(cc->p, (json_object_object_length(j) + 1)
                                   * sizeof(js_kw));
    json_object_object_foreach(j, key, val) {
        int x;
        const char *w = apr_pstrcat(cc->p, where, "/", key, NULL);

        for (x = 0; keywords[x].name; x++) {
            if (strcmp(keywords[x].name, key) == 0) {
                break;
            }
        }
        if (keywords[x].name) {
            node->kws[n].kw = keywords[x].kw;
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
        if (strcmp(key, "$schema") == 0
            && json_object_get_type(val) == json_type_string
            && strcmp(json_object_get_string(val),
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
                                      pl_jsonschema_t **ps,
                                      const char **perr)
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

/* ------------------------------------------------------------------ */
/* Validating                                                          */

typedef struct js_coll js_coll;

/* One error, as python-jsonschema's ValidationError would carry it. */
typedef struct {
    kw_e kw;
    const js_node *node;        /* the schema the failing keyword is in */
    const js_kw *k;             /* the keyword (NULL for a false schema) */
    json_object *inst;
    int depth;                  /* len(error.path) */
    int key;                    /* relevance, see err_key() */
    const char *name;           /* required: the missing name */
    const js_node **valid;      /* oneOf: the subschemas that matched */
    int nvalid;
    js_coll *ctx;               /* anyOf/oneOf: the branch errors */
} js_err;

typedef enum {
    C_TOP,                      /* keep the max (best_match) */
    C_CTX,                      /* keep the two smallest (context) */
    C_VALID                     /* only is_valid(): stop at the first */
} coll_mode_e;

struct js_coll {
    coll_mode_e mode;
    long count;
    js_err *best;               /* C_TOP */
    js_err *s0, *s1;            /* C_CTX */
};

typedef struct {
    apr_pool_t *p;
    int nesting;
    int too_deep;
} vctx;

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

    if (e->ctx) {
        c->ctx = apr_pmemdup(vc->p, e->ctx, sizeof(*e->ctx));
    }
    return c;
}

static void offer(vctx *vc, js_coll *c, js_err *e)
{
    int weak = (e->kw == KW_ANYOF || e->kw == KW_ONEOF
                || e->kw == KW_ONEOF_MULTI);
    int matches = e->node && e->node->has_type
                  && is_type(e->inst, e->node->types);

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

static void raise_err(vctx *vc, js_coll *c, kw_e kw, const js_node *node,
                      const js_kw *k, json_object *inst, int depth)
{
    js_err e;

    memset(&e, 0, sizeof(e));
    e.kw = kw;
    e.node = node;
    e.k = k;
    e.inst = inst;
    e.depth = depth;
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

static int in_properties(const js_node *n, const char *key)
{
    int i;

    if (n->props_kw) {
        for (i = 0; i < n->props_kw->n; i++) {
            if (strcmp(n->props_kw->props[i].name, key) == 0) {
                return 1;
            }
        }
    }
    return 0;
}

static int matches_patterns(const js_node *n, const char *key)
{
    int i;

    if (n->pats_kw) {
        for (i = 0; i < n->pats_kw->n; i++) {
            if (pattern_search(&n->pats_kw->pats[i].re, key, strlen(key))) {
                return 1;
            }
        }
    }
    return 0;
}

static int is_extra(const js_node *n, const char *key)
{
    return !in_properties(n, key) && !matches_patterns(n, key);
}

static void validate_keyword(vctx *vc, const js_node *n, const js_kw *k,
                             json_object *inst, int depth, js_coll *c)
{
    json_type t = json_object_get_type(inst);
    int i;

    switch (k->kw) {
    case KW_TYPE:
        if (!is_type(inst, k->types)) {
            raise_err(vc, c, k->kw, n, k, inst, depth);
        }
        break;
    case KW_ENUM: {
        size_t j, len = json_object_array_length(k->value);
        int found = 0;
        int zero_one = 0;

        if (t == json_type_boolean) {
            zero_one = 1;
        }
        else if (is_number(inst)) {
            num_t v = num_of(inst), z;

            memset(&z, 0, sizeof(z));
            z.kind = N_INT;
            zero_one = num_cmp(v, z) == 0;
            z.i = 1;
            zero_one = zero_one || num_cmp(v, z) == 0;
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
        break;
    }
    case KW_CONST:
        if (!json_equal(inst, k->value, 1)) {
            raise_err(vc, c, k->kw, n, k, inst, depth);
        }
        break;
    case KW_PROPERTIES:
        if (t != json_type_object) {
            break;
        }
        for (i = 0; i < k->n && coll_open(c, depth + 1); i++) {
            json_object *v;

            if (json_object_object_get_ex(inst, k->props[i].name, &v)) {
                validate_node(vc, k->props[i].node, v, depth + 1, c);
            }
        }
        break;
    case KW_PATTERNPROPERTIES:
        if (t != json_type_object) {
            break;
        }
        for (i = 0; i < k->n; i++) {
            json_object_object_foreach(inst, key, val) {
                if (!coll_open(c, depth + 1)) {
                    return;
                }
                if (pattern_search(&k->pats[i].re, key, strlen(key))) {
                    validate_node(vc, k->pats[i].node, val, depth + 1, c);
                }
            }
        }
        break;
    case KW_ADDITIONALPROPERTIES:
        if (t != json_type_object) {
            break;
        }
        if (k->flag == -1) {
            json_object_object_foreach(inst, key, val) {
                if (!coll_open(c, depth + 1)) {
                    return;
                }
                if (is_extra(n, key)) {
                    validate_node(vc, k->subs[0], val, depth + 1, c);
                }
            }
        }
        else if (!k->flag) {
            json_object_object_foreach(inst, key, val) {
                (void)val;
                if (is_extra(n, key)) {
                    raise_err(vc, c, k->kw, n, k, inst, depth);
                    break;
                }
            }
        }
        break;
    case KW_REQUIRED:
        if (t != json_type_object) {
            break;
        }
        for (i = 0; i < k->n; i++) {
            if (!json_object_object_get_ex(inst, k->names[i], NULL)) {
                js_err e;

                memset(&e, 0, sizeof(e));
                e.kw = k->kw;
                e.node = n;
                e.k = k;
                e.inst = inst;
                e.depth = depth;
                e.name = k->names[i];
                offer(vc, c, &e);
            }
        }
        break;
    case KW_MINPROPERTIES:
        if (t == json_type_object
            && json_object_object_length(inst) < k->limit) {
            raise_err(vc, c, k->kw, n, k, inst, depth);
        }
        break;
    case KW_MAXPROPERTIES:
        if (t == json_type_object
            && json_object_object_length(inst) > k->limit) {
            raise_err(vc, c, k->kw, n, k, inst, depth);
        }
        break;
    case KW_ITEMS:
        if (t != json_type_array) {
            break;
        }
        if (k->flag == -1) {
            size_t j, len = json_object_array_length(inst);

            for (j = 0; j < len && coll_open(c, depth + 1); j++) {
                validate_node(vc, k->subs[0],
                              json_object_array_get_idx(inst, j), depth + 1,
                              c);
            }
        }
        else if (!k->flag && json_object_array_length(inst) > 0) {
            raise_err(vc, c, k->kw, n, k, inst, depth);
        }
        break;
    case KW_MINITEMS:
        if (t == json_type_array
            && (apr_int64_t)json_object_array_length(inst) < k->limit) {
            raise_err(vc, c, k->kw, n, k, inst, depth);
        }
        break;
    case KW_MAXITEMS:
        if (t == json_type_array
            && (apr_int64_t)json_object_array_length(inst) > k->limit) {
            raise_err(vc, c, k->kw, n, k, inst, depth);
        }
        break;
    case KW_UNIQUEITEMS:
        if (k->flag && t == json_type_array && !array_unique(inst, vc->p)) {
            raise_err(vc, c, k->kw, n, k, inst, depth);
        }
        break;
    case KW_MINIMUM:
    case KW_MAXIMUM:
    case KW_EXCLUSIVEMINIMUM:
    case KW_EXCLUSIVEMAXIMUM:
        if (is_number(inst)) {
            int r = num_cmp(num_of(inst), k->num);
            int bad;

            if (r == 2) {
                break;
            }
            bad = (k->kw == KW_MINIMUM && r < 0)
                  || (k->kw == KW_MAXIMUM && r > 0)
                  || (k->kw == KW_EXCLUSIVEMINIMUM && r <= 0)
                  || (k->kw == KW_EXCLUSIVEMAXIMUM && r >= 0);
            if (bad) {
                raise_err(vc, c, k->kw, n, k, inst, depth);
            }
        }
        break;
    case KW_MINLENGTH:
    case KW_MAXLENGTH:
        if (t == json_type_string) {
            apr_int64_t len = utf8_length(json_object_get_string(inst),
                               (apr_size_t)json_object_get_string_len(inst));

            if ((k->kw == KW_MINLENGTH && len < k->limit)
                || (k->kw == KW_MAXLENGTH && len > k->limit)) {
                raise_err(vc, c, k->kw, n, k, inst, depth);
            }
        }
        break;
    case KW_PATTERN:
        if (t == json_type_string
            && !pattern_search(&k->pats[0].re, json_object_get_string(inst),
                          (apr_size_t)json_object_get_string_len(inst))) {
            raise_err(vc, c, k->kw, n, k, inst, depth);
        }
        break;
    case KW_FORMAT:
        if (!format_uuid_ok(inst, vc->p)) {
            raise_err(vc, c, k->kw, n, k, inst, depth);
        }
        break;
    case KW_ALLOF:
        for (i = 0; i < k->n; i++) {
            validate_node(vc, k->subs[i], inst, depth, c);
        }
        break;
    case KW_ANYOF:
    case KW_ONEOF: {
        js_coll ctx;
        int first_valid = -1;

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
            js_err e;

            memset(&e, 0, sizeof(e));
            e.kw = k->kw;
            e.node = n;
            e.k = k;
            e.inst = inst;
            e.depth = depth;
            e.ctx = &ctx;
            offer(vc, c, &e);
        }
        else if (k->kw == KW_ONEOF) {
            const js_node **valid = NULL;
            int nvalid = 0;

            for (i = first_valid + 1; i < k->n; i++) {
                if (is_valid(vc, k->subs[i], inst)) {
                    if (!valid) {
                        valid = apr_pcalloc(vc->p,
                                            (k->n + 1) * sizeof(*valid));
                    }
                    valid[nvalid++] = k->subs[i];
                }
            }
            if (nvalid) {
                js_err e;

                valid[nvalid++] = k->subs[first_valid];
                memset(&e, 0, sizeof(e));
                e.kw = KW_ONEOF_MULTI;
                e.node = n;
                e.k = k;
                e.inst = inst;
                e.depth = depth;
                e.valid = valid;
                e.nvalid = nvalid;
                offer(vc, c, &e);
            }
        }
        break;
    }
    case KW_NOT:
        if (is_valid(vc, k->subs[0], inst)) {
            raise_err(vc, c, k->kw, n, k, inst, depth);
        }
        break;
    case KW_REF:
        validate_node(vc, k->subs[0], inst, depth, c);
        break;
    default:
        break;
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

/* ------------------------------------------------------------------ */
/* Messages                                                            */

static int strptr_cmp(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static const char *err_message(apr_pool_t *p, const js_err *e)
{
    sb_t sb;
    int i;

    sb_init(&sb, p);
    switch (e->kw) {
    case KW_FALSE_SCHEMA:
        sb_add(&sb, "False schema does not allow ");
        repr_value(&sb, e->inst, 0);
        break;
    case KW_TYPE:
        repr_value(&sb, e->inst, 0);
        sb_add(&sb, " is not of type ");
        for (i = 0; i < e->k->n; i++) {
            if (i) {
                sb_add(&sb, ", ");
            }
            repr_string(&sb, e->k->names[i], strlen(e->k->names[i]));
        }
        break;
    case KW_ENUM:
        repr_value(&sb, e->inst, 0);
        sb_add(&sb, " is not one of ");
        repr_value(&sb, e->k->value, 0);
        break;
    case KW_CONST:
        repr_value(&sb, e->k->value, 0);
        sb_add(&sb, " was expected");
        break;
    case KW_ADDITIONALPROPERTIES: {
        apr_array_header_t *extras = apr_array_make(p, 4, sizeof(char *));
        const char **v;

        json_object_object_foreach(e->inst, key, val) {
            (void)val;
            if (is_extra(e->node, key)) {
                APR_ARRAY_PUSH(extras, const char *) = key;
            }
        }
        v = (const char **)extras->elts;
        qsort(v, extras->nelts, sizeof(char *), strptr_cmp);
        if (!e->node->pats_kw) {
            sb_add(&sb, "Additional properties are not allowed (");
        }
        for (i = 0; i < extras->nelts; i++) {
            if (i) {
                sb_add(&sb, ", ");
            }
            repr_string(&sb, v[i], strlen(v[i]));
        }
        if (!e->node->pats_kw) {
            sb_add(&sb, extras->nelts == 1 ? " was unexpected)"
                                           : " were unexpected)");
        }
        else {
            const js_kw *pk = e->node->pats_kw;
            const char **pv = apr_pcalloc(p, (pk->n + 1) * sizeof(char *));

            sb_add(&sb, extras->nelts == 1 ? " does not match any of the "
                                             "regexes: "
                                           : " do not match any of the "
                                             "regexes: ");
            for (i = 0; i < pk->n; i++) {
                pv[i] = pk->pats[i].source;
            }
            qsort(pv, pk->n, sizeof(char *), strptr_cmp);
            for (i = 0; i < pk->n; i++) {
                if (i) {
                    sb_add(&sb, ", ");
                }
                repr_string(&sb, pv[i], strlen(pv[i]));
            }
        }
        break;
    }
    case KW_REQUIRED:
        repr_string(&sb, e->name, strlen(e->name));
        sb_add(&sb, " is a required property");
        break;
    case KW_MINPROPERTIES:
        repr_value(&sb, e->inst, 0);
        sb_add(&sb, " does not have enough properties");
        break;
    case KW_MAXPROPERTIES:
        repr_value(&sb, e->inst, 0);
        sb_add(&sb, " has too many properties");
        break;
    case KW_ITEMS:
        sb_add(&sb, apr_psprintf(p, "Expected at most 0 items, but found %lu",
                                 (unsigned long)
                                 json_object_array_length(e->inst)));
        break;
    case KW_MINITEMS:
    case KW_MINLENGTH:
        repr_value(&sb, e->inst, 0);
        sb_add(&sb, " is too short");
        break;
    case KW_MAXITEMS:
    case KW_MAXLENGTH:
        repr_value(&sb, e->inst, 0);
        sb_add(&sb, " is too long");
        break;
    case KW_UNIQUEITEMS:
        repr_value(&sb, e->inst, 0);
        sb_add(&sb, " has non-unique elements");
        break;
    case KW_MINIMUM:
    case KW_MAXIMUM:
    case KW_EXCLUSIVEMINIMUM:
    case KW_EXCLUSIVEMAXIMUM:
        repr_value(&sb, e->inst, 0);
        sb_add(&sb, e->kw == KW_MINIMUM ? " is less than the minimum of "
                  : e->kw == KW_MAXIMUM ? " is greater than the maximum of "
                  : e->kw == KW_EXCLUSIVEMINIMUM
                        ? " is less than or equal to the minimum of "
                        : " is greater than or equal to the maximum of ");
        repr_num(&sb, e->k->num);
        break;
    case KW_PATTERN:
        repr_value(&sb, e->inst, 0);
        sb_add(&sb, " does not match ");
        repr_string(&sb, e->k->pats[0].source,
                    strlen(e->k->pats[0].source));
        break;
    case KW_FORMAT:
        repr_value(&sb, e->inst, 0);
        sb_add(&sb, " is not a ");
        repr_value(&sb, e->k->value, 0);
        break;
    case KW_ANYOF:
    case KW_ONEOF:
        repr_value(&sb, e->inst, 0);
        sb_add(&sb, " is not valid under any of the given schemas");
        break;
    case KW_ONEOF_MULTI:
        repr_value(&sb, e->inst, 0);
        sb_add(&sb, " is valid under each of ");
        for (i = 0; i < e->nvalid; i++) {
            if (i) {
                sb_add(&sb, ", ");
            }
            repr_value(&sb, e->valid[i]->json, 0);
        }
        break;
    case KW_NOT:
        repr_value(&sb, e->inst, 0);
        sb_add(&sb, " should not be valid under ");
        repr_value(&sb, e->k->value, 0);
        break;
    default:
        sb_add(&sb, "invalid");
        break;
    }
    return sb.buf;
}

/* What str(ValidationError) adds after the message: which keyword failed
 * and the schema and instance involved (clients match "Failed validating
 * 'required' in schema"). Python pretty-prints them; we print them on one
 * line and leave out the paths. */
static const char *err_trailer(apr_pool_t *p, const js_err *e)
{
    const char *kw = NULL;
    int i;

    for (i = 0; keywords[i].name; i++) {
        if (keywords[i].kw == e->kw) {
            kw = keywords[i].name;
            break;
        }
    }
    if (kw == NULL || e->node == NULL || e->node->json == NULL) {
        return "";
    }
    return apr_psprintf(p, "\n\nFailed validating '%s' in schema%s:\n    %s"
                        "\n\nOn instance:\n    %s", kw, e->node->path,
                        pl_jsonschema_repr(p, e->node->json),
                        pl_jsonschema_repr(p, e->inst));
}

static apr_status_t validate(const pl_jsonschema_t *s, json_object *doc,
                             apr_pool_t *p, const char **perr, int detail)
{
    vctx vc;
    js_coll top;
    const js_err *best;

    memset(&vc, 0, sizeof(vc));
    memset(&top, 0, sizeof(top));
    vc.p = p;
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
        best = best->ctx->s0;
    }
    if (perr) {
        *perr = apr_pstrcat(p, err_message(p, best),
                            detail ? err_trailer(p, best) : "", NULL);
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
