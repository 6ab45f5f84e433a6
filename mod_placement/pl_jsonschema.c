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
/* UTF-8 and Python's repr()                                           */

/* Code points str.isprintable() rejects (Python 3.11, Unicode 14.0),
 * generated with: [c for c in range(0x110000) if not chr(c).isprintable()]
 * folded into ranges. repr() escapes these. */
static const apr_uint32_t nonprintable[][2] = {
    {0x0, 0x1f}, {0x7f, 0xa0}, {0xad, 0xad}, {0x378, 0x379}, {0x380, 0x383},
    {0x38b, 0x38b}, {0x38d, 0x38d}, {0x3a2, 0x3a2}, {0x530, 0x530},
    {0x557, 0x558}, {0x58b, 0x58c}, {0x590, 0x590}, {0x5c8, 0x5cf},
    {0x5eb, 0x5ee}, {0x5f5, 0x605}, {0x61c, 0x61c}, {0x6dd, 0x6dd},
    {0x70e, 0x70f}, {0x74b, 0x74c}, {0x7b2, 0x7bf}, {0x7fb, 0x7fc},
    {0x82e, 0x82f}, {0x83f, 0x83f}, {0x85c, 0x85d}, {0x85f, 0x85f},
    {0x86b, 0x86f}, {0x88f, 0x897}, {0x8e2, 0x8e2}, {0x984, 0x984},
    {0x98d, 0x98e}, {0x991, 0x992}, {0x9a9, 0x9a9}, {0x9b1, 0x9b1},
    {0x9b3, 0x9b5}, {0x9ba, 0x9bb}, {0x9c5, 0x9c6}, {0x9c9, 0x9ca},
    {0x9cf, 0x9d6}, {0x9d8, 0x9db}, {0x9de, 0x9de}, {0x9e4, 0x9e5},
    {0x9ff, 0xa00}, {0xa04, 0xa04}, {0xa0b, 0xa0e}, {0xa11, 0xa12},
    {0xa29, 0xa29}, {0xa31, 0xa31}, {0xa34, 0xa34}, {0xa37, 0xa37},
    {0xa3a, 0xa3b}, {0xa3d, 0xa3d}, {0xa43, 0xa46}, {0xa49, 0xa4a},
    {0xa4e, 0xa50}, {0xa52, 0xa58}, {0xa5d, 0xa5d}, {0xa5f, 0xa65},
    {0xa77, 0xa80}, {0xa84, 0xa84}, {0xa8e, 0xa8e}, {0xa92, 0xa92},
    {0xaa9, 0xaa9}, {0xab1, 0xab1}, {0xab4, 0xab4}, {0xaba, 0xabb},
    {0xac6, 0xac6}, {0xaca, 0xaca}, {0xace, 0xacf}, {0xad1, 0xadf},
    {0xae4, 0xae5}, {0xaf2, 0xaf8}, {0xb00, 0xb00}, {0xb04, 0xb04},
    {0xb0d, 0xb0e}, {0xb11, 0xb12}, {0xb29, 0xb29}, {0xb31, 0xb31},
    {0xb34, 0xb34}, {0xb3a, 0xb3b}, {0xb45, 0xb46}, {0xb49, 0xb4a},
    {0xb4e, 0xb54}, {0xb58, 0xb5b}, {0xb5e, 0xb5e}, {0xb64, 0xb65},
    {0xb78, 0xb81}, {0xb84, 0xb84}, {0xb8b, 0xb8d}, {0xb91, 0xb91},
    {0xb96, 0xb98}, {0xb9b, 0xb9b}, {0xb9d, 0xb9d}, {0xba0, 0xba2},
    {0xba5, 0xba7}, {0xbab, 0xbad}, {0xbba, 0xbbd}, {0xbc3, 0xbc5},
    {0xbc9, 0xbc9}, {0xbce, 0xbcf}, {0xbd1, 0xbd6}, {0xbd8, 0xbe5},
    {0xbfb, 0xbff}, {0xc0d, 0xc0d}, {0xc11, 0xc11}, {0xc29, 0xc29},
    {0xc3a, 0xc3b}, {0xc45, 0xc45}, {0xc49, 0xc49}, {0xc4e, 0xc54},
    {0xc57, 0xc57}, {0xc5b, 0xc5c}, {0xc5e, 0xc5f}, {0xc64, 0xc65},
    {0xc70, 0xc76}, {0xc8d, 0xc8d}, {0xc91, 0xc91}, {0xca9, 0xca9},
    {0xcb4, 0xcb4}, {0xcba, 0xcbb}, {0xcc5, 0xcc5}, {0xcc9, 0xcc9},
    {0xcce, 0xcd4}, {0xcd7, 0xcdc}, {0xcdf, 0xcdf}, {0xce4, 0xce5},
    {0xcf0, 0xcf0}, {0xcf3, 0xcff}, {0xd0d, 0xd0d}, {0xd11, 0xd11},
    {0xd45, 0xd45}, {0xd49, 0xd49}, {0xd50, 0xd53}, {0xd64, 0xd65},
    {0xd80, 0xd80}, {0xd84, 0xd84}, {0xd97, 0xd99}, {0xdb2, 0xdb2},
    {0xdbc, 0xdbc}, {0xdbe, 0xdbf}, {0xdc7, 0xdc9}, {0xdcb, 0xdce},
    {0xdd5, 0xdd5}, {0xdd7, 0xdd7}, {0xde0, 0xde5}, {0xdf0, 0xdf1},
    {0xdf5, 0xe00}, {0xe3b, 0xe3e}, {0xe5c, 0xe80}, {0xe83, 0xe83},
    {0xe85, 0xe85}, {0xe8b, 0xe8b}, {0xea4, 0xea4}, {0xea6, 0xea6},
    {0xebe, 0xebf}, {0xec5, 0xec5}, {0xec7, 0xec7}, {0xece, 0xecf},
    {0xeda, 0xedb}, {0xee0, 0xeff}, {0xf48, 0xf48}, {0xf6d, 0xf70},
    {0xf98, 0xf98}, {0xfbd, 0xfbd}, {0xfcd, 0xfcd}, {0xfdb, 0xfff},
    {0x10c6, 0x10c6}, {0x10c8, 0x10cc}, {0x10ce, 0x10cf}, {0x1249, 0x1249},
    {0x124e, 0x124f}, {0x1257, 0x1257}, {0x1259, 0x1259}, {0x125e, 0x125f},
    {0x1289, 0x1289}, {0x128e, 0x128f}, {0x12b1, 0x12b1}, {0x12b6, 0x12b7},
    {0x12bf, 0x12bf}, {0x12c1, 0x12c1}, {0x12c6, 0x12c7}, {0x12d7, 0x12d7},
    {0x1311, 0x1311}, {0x1316, 0x1317}, {0x135b, 0x135c}, {0x137d, 0x137f},
    {0x139a, 0x139f}, {0x13f6, 0x13f7}, {0x13fe, 0x13ff}, {0x1680, 0x1680},
    {0x169d, 0x169f}, {0x16f9, 0x16ff}, {0x1716, 0x171e}, {0x1737, 0x173f},
    {0x1754, 0x175f}, {0x176d, 0x176d}, {0x1771, 0x1771}, {0x1774, 0x177f},
    {0x17de, 0x17df}, {0x17ea, 0x17ef}, {0x17fa, 0x17ff}, {0x180e, 0x180e},
    {0x181a, 0x181f}, {0x1879, 0x187f}, {0x18ab, 0x18af}, {0x18f6, 0x18ff},
    {0x191f, 0x191f}, {0x192c, 0x192f}, {0x193c, 0x193f}, {0x1941, 0x1943},
    {0x196e, 0x196f}, {0x1975, 0x197f}, {0x19ac, 0x19af}, {0x19ca, 0x19cf},
    {0x19db, 0x19dd}, {0x1a1c, 0x1a1d}, {0x1a5f, 0x1a5f}, {0x1a7d, 0x1a7e},
    {0x1a8a, 0x1a8f}, {0x1a9a, 0x1a9f}, {0x1aae, 0x1aaf}, {0x1acf, 0x1aff},
    {0x1b4d, 0x1b4f}, {0x1b7f, 0x1b7f}, {0x1bf4, 0x1bfb}, {0x1c38, 0x1c3a},
    {0x1c4a, 0x1c4c}, {0x1c89, 0x1c8f}, {0x1cbb, 0x1cbc}, {0x1cc8, 0x1ccf},
    {0x1cfb, 0x1cff}, {0x1f16, 0x1f17}, {0x1f1e, 0x1f1f}, {0x1f46, 0x1f47},
    {0x1f4e, 0x1f4f}, {0x1f58, 0x1f58}, {0x1f5a, 0x1f5a}, {0x1f5c, 0x1f5c},
    {0x1f5e, 0x1f5e}, {0x1f7e, 0x1f7f}, {0x1fb5, 0x1fb5}, {0x1fc5, 0x1fc5},
    {0x1fd4, 0x1fd5}, {0x1fdc, 0x1fdc}, {0x1ff0, 0x1ff1}, {0x1ff5, 0x1ff5},
    {0x1fff, 0x200f}, {0x2028, 0x202f}, {0x205f, 0x206f}, {0x2072, 0x2073},
    {0x208f, 0x208f}, {0x209d, 0x209f}, {0x20c1, 0x20cf}, {0x20f1, 0x20ff},
    {0x218c, 0x218f}, {0x2427, 0x243f}, {0x244b, 0x245f}, {0x2b74, 0x2b75},
    {0x2b96, 0x2b96}, {0x2cf4, 0x2cf8}, {0x2d26, 0x2d26}, {0x2d28, 0x2d2c},
    {0x2d2e, 0x2d2f}, {0x2d68, 0x2d6e}, {0x2d71, 0x2d7e}, {0x2d97, 0x2d9f},
    {0x2da7, 0x2da7}, {0x2daf, 0x2daf}, {0x2db7, 0x2db7}, {0x2dbf, 0x2dbf},
    {0x2dc7, 0x2dc7}, {0x2dcf, 0x2dcf}, {0x2dd7, 0x2dd7}, {0x2ddf, 0x2ddf},
    {0x2e5e, 0x2e7f}, {0x2e9a, 0x2e9a}, {0x2ef4, 0x2eff}, {0x2fd6, 0x2fef},
    {0x2ffc, 0x3000}, {0x3040, 0x3040}, {0x3097, 0x3098}, {0x3100, 0x3104},
    {0x3130, 0x3130}, {0x318f, 0x318f}, {0x31e4, 0x31ef}, {0x321f, 0x321f},
    {0xa48d, 0xa48f}, {0xa4c7, 0xa4cf}, {0xa62c, 0xa63f}, {0xa6f8, 0xa6ff},
    {0xa7cb, 0xa7cf}, {0xa7d2, 0xa7d2}, {0xa7d4, 0xa7d4}, {0xa7da, 0xa7f1},
    {0xa82d, 0xa82f}, {0xa83a, 0xa83f}, {0xa878, 0xa87f}, {0xa8c6, 0xa8cd},
    {0xa8da, 0xa8df}, {0xa954, 0xa95e}, {0xa97d, 0xa97f}, {0xa9ce, 0xa9ce},
    {0xa9da, 0xa9dd}, {0xa9ff, 0xa9ff}, {0xaa37, 0xaa3f}, {0xaa4e, 0xaa4f},
    {0xaa5a, 0xaa5b}, {0xaac3, 0xaada}, {0xaaf7, 0xab00}, {0xab07, 0xab08},
    {0xab0f, 0xab10}, {0xab17, 0xab1f}, {0xab27, 0xab27}, {0xab2f, 0xab2f},
    {0xab6c, 0xab6f}, {0xabee, 0xabef}, {0xabfa, 0xabff}, {0xd7a4, 0xd7af},
    {0xd7c7, 0xd7ca}, {0xd7fc, 0xf8ff}, {0xfa6e, 0xfa6f}, {0xfada, 0xfaff},
    {0xfb07, 0xfb12}, {0xfb18, 0xfb1c}, {0xfb37, 0xfb37}, {0xfb3d, 0xfb3d},
    {0xfb3f, 0xfb3f}, {0xfb42, 0xfb42}, {0xfb45, 0xfb45}, {0xfbc3, 0xfbd2},
    {0xfd90, 0xfd91}, {0xfdc8, 0xfdce}, {0xfdd0, 0xfdef}, {0xfe1a, 0xfe1f},
    {0xfe53, 0xfe53}, {0xfe67, 0xfe67}, {0xfe6c, 0xfe6f}, {0xfe75, 0xfe75},
    {0xfefd, 0xff00}, {0xffbf, 0xffc1}, {0xffc8, 0xffc9}, {0xffd0, 0xffd1},
    {0xffd8, 0xffd9}, {0xffdd, 0xffdf}, {0xffe7, 0xffe7}, {0xffef, 0xfffb},
    {0xfffe, 0xffff}, {0x1000c, 0x1000c}, {0x10027, 0x10027},
    {0x1003b, 0x1003b}, {0x1003e, 0x1003e}, {0x1004e, 0x1004f},
    {0x1005e, 0x1007f}, {0x100fb, 0x100ff}, {0x10103, 0x10106},
    {0x10134, 0x10136}, {0x1018f, 0x1018f}, {0x1019d, 0x1019f},
    {0x101a1, 0x101cf}, {0x101fe, 0x1027f}, {0x1029d, 0x1029f},
    {0x102d1, 0x102df}, {0x102fc, 0x102ff}, {0x10324, 0x1032c},
    {0x1034b, 0x1034f}, {0x1037b, 0x1037f}, {0x1039e, 0x1039e},
    {0x103c4, 0x103c7}, {0x103d6, 0x103ff}, {0x1049e, 0x1049f},
    {0x104aa, 0x104af}, {0x104d4, 0x104d7}, {0x104fc, 0x104ff},
    {0x10528, 0x1052f}, {0x10564, 0x1056e}, {0x1057b, 0x1057b},
    {0x1058b, 0x1058b}, {0x10593, 0x10593}, {0x10596, 0x10596},
    {0x105a2, 0x105a2}, {0x105b2, 0x105b2}, {0x105ba, 0x105ba},
    {0x105bd, 0x105ff}, {0x10737, 0x1073f}, {0x10756, 0x1075f},
    {0x10768, 0x1077f}, {0x10786, 0x10786}, {0x107b1, 0x107b1},
    {0x107bb, 0x107ff}, {0x10806, 0x10807}, {0x10809, 0x10809},
    {0x10836, 0x10836}, {0x10839, 0x1083b}, {0x1083d, 0x1083e},
    {0x10856, 0x10856}, {0x1089f, 0x108a6}, {0x108b0, 0x108df},
    {0x108f3, 0x108f3}, {0x108f6, 0x108fa}, {0x1091c, 0x1091e},
    {0x1093a, 0x1093e}, {0x10940, 0x1097f}, {0x109b8, 0x109bb},
    {0x109d0, 0x109d1}, {0x10a04, 0x10a04}, {0x10a07, 0x10a0b},
    {0x10a14, 0x10a14}, {0x10a18, 0x10a18}, {0x10a36, 0x10a37},
    {0x10a3b, 0x10a3e}, {0x10a49, 0x10a4f}, {0x10a59, 0x10a5f},
    {0x10aa0, 0x10abf}, {0x10ae7, 0x10aea}, {0x10af7, 0x10aff},
    {0x10b36, 0x10b38}, {0x10b56, 0x10b57}, {0x10b73, 0x10b77},
    {0x10b92, 0x10b98}, {0x10b9d, 0x10ba8}, {0x10bb0, 0x10bff},
    {0x10c49, 0x10c7f}, {0x10cb3, 0x10cbf}, {0x10cf3, 0x10cf9},
    {0x10d28, 0x10d2f}, {0x10d3a, 0x10e5f}, {0x10e7f, 0x10e7f},
    {0x10eaa, 0x10eaa}, {0x10eae, 0x10eaf}, {0x10eb2, 0x10eff},
    {0x10f28, 0x10f2f}, {0x10f5a, 0x10f6f}, {0x10f8a, 0x10faf},
    {0x10fcc, 0x10fdf}, {0x10ff7, 0x10fff}, {0x1104e, 0x11051},
    {0x11076, 0x1107e}, {0x110bd, 0x110bd}, {0x110c3, 0x110cf},
    {0x110e9, 0x110ef}, {0x110fa, 0x110ff}, {0x11135, 0x11135},
    {0x11148, 0x1114f}, {0x11177, 0x1117f}, {0x111e0, 0x111e0},
    {0x111f5, 0x111ff}, {0x11212, 0x11212}, {0x1123f, 0x1127f},
    {0x11287, 0x11287}, {0x11289, 0x11289}, {0x1128e, 0x1128e},
    {0x1129e, 0x1129e}, {0x112aa, 0x112af}, {0x112eb, 0x112ef},
    {0x112fa, 0x112ff}, {0x11304, 0x11304}, {0x1130d, 0x1130e},
    {0x11311, 0x11312}, {0x11329, 0x11329}, {0x11331, 0x11331},
    {0x11334, 0x11334}, {0x1133a, 0x1133a}, {0x11345, 0x11346},
    {0x11349, 0x1134a}, {0x1134e, 0x1134f}, {0x11351, 0x11356},
    {0x11358, 0x1135c}, {0x11364, 0x11365}, {0x1136d, 0x1136f},
    {0x11375, 0x113ff}, {0x1145c, 0x1145c}, {0x11462, 0x1147f},
    {0x114c8, 0x114cf}, {0x114da, 0x1157f}, {0x115b6, 0x115b7},
    {0x115de, 0x115ff}, {0x11645, 0x1164f}, {0x1165a, 0x1165f},
    {0x1166d, 0x1167f}, {0x116ba, 0x116bf}, {0x116ca, 0x116ff},
    {0x1171b, 0x1171c}, {0x1172c, 0x1172f}, {0x11747, 0x117ff},
    {0x1183c, 0x1189f}, {0x118f3, 0x118fe}, {0x11907, 0x11908},
    {0x1190a, 0x1190b}, {0x11914, 0x11914}, {0x11917, 0x11917},
    {0x11936, 0x11936}, {0x11939, 0x1193a}, {0x11947, 0x1194f},
    {0x1195a, 0x1199f}, {0x119a8, 0x119a9}, {0x119d8, 0x119d9},
    {0x119e5, 0x119ff}, {0x11a48, 0x11a4f}, {0x11aa3, 0x11aaf},
    {0x11af9, 0x11bff}, {0x11c09, 0x11c09}, {0x11c37, 0x11c37},
    {0x11c46, 0x11c4f}, {0x11c6d, 0x11c6f}, {0x11c90, 0x11c91},
    {0x11ca8, 0x11ca8}, {0x11cb7, 0x11cff}, {0x11d07, 0x11d07},
    {0x11d0a, 0x11d0a}, {0x11d37, 0x11d39}, {0x11d3b, 0x11d3b},
    {0x11d3e, 0x11d3e}, {0x11d48, 0x11d4f}, {0x11d5a, 0x11d5f},
    {0x11d66, 0x11d66}, {0x11d69, 0x11d69}, {0x11d8f, 0x11d8f},
    {0x11d92, 0x11d92}, {0x11d99, 0x11d9f}, {0x11daa, 0x11edf},
    {0x11ef9, 0x11faf}, {0x11fb1, 0x11fbf}, {0x11ff2, 0x11ffe},
    {0x1239a, 0x123ff}, {0x1246f, 0x1246f}, {0x12475, 0x1247f},
    {0x12544, 0x12f8f}, {0x12ff3, 0x12fff}, {0x1342f, 0x143ff},
    {0x14647, 0x167ff}, {0x16a39, 0x16a3f}, {0x16a5f, 0x16a5f},
    {0x16a6a, 0x16a6d}, {0x16abf, 0x16abf}, {0x16aca, 0x16acf},
    {0x16aee, 0x16aef}, {0x16af6, 0x16aff}, {0x16b46, 0x16b4f},
    {0x16b5a, 0x16b5a}, {0x16b62, 0x16b62}, {0x16b78, 0x16b7c},
    {0x16b90, 0x16e3f}, {0x16e9b, 0x16eff}, {0x16f4b, 0x16f4e},
    {0x16f88, 0x16f8e}, {0x16fa0, 0x16fdf}, {0x16fe5, 0x16fef},
    {0x16ff2, 0x16fff}, {0x187f8, 0x187ff}, {0x18cd6, 0x18cff},
    {0x18d09, 0x1afef}, {0x1aff4, 0x1aff4}, {0x1affc, 0x1affc},
    {0x1afff, 0x1afff}, {0x1b123, 0x1b14f}, {0x1b153, 0x1b163},
    {0x1b168, 0x1b16f}, {0x1b2fc, 0x1bbff}, {0x1bc6b, 0x1bc6f},
    {0x1bc7d, 0x1bc7f}, {0x1bc89, 0x1bc8f}, {0x1bc9a, 0x1bc9b},
    {0x1bca0, 0x1ceff}, {0x1cf2e, 0x1cf2f}, {0x1cf47, 0x1cf4f},
    {0x1cfc4, 0x1cfff}, {0x1d0f6, 0x1d0ff}, {0x1d127, 0x1d128},
    {0x1d173, 0x1d17a}, {0x1d1eb, 0x1d1ff}, {0x1d246, 0x1d2df},
    {0x1d2f4, 0x1d2ff}, {0x1d357, 0x1d35f}, {0x1d379, 0x1d3ff},
    {0x1d455, 0x1d455}, {0x1d49d, 0x1d49d}, {0x1d4a0, 0x1d4a1},
    {0x1d4a3, 0x1d4a4}, {0x1d4a7, 0x1d4a8}, {0x1d4ad, 0x1d4ad},
    {0x1d4ba, 0x1d4ba}, {0x1d4bc, 0x1d4bc}, {0x1d4c4, 0x1d4c4},
    {0x1d506, 0x1d506}, {0x1d50b, 0x1d50c}, {0x1d515, 0x1d515},
    {0x1d51d, 0x1d51d}, {0x1d53a, 0x1d53a}, {0x1d53f, 0x1d53f},
    {0x1d545, 0x1d545}, {0x1d547, 0x1d549}, {0x1d551, 0x1d551},
    {0x1d6a6, 0x1d6a7}, {0x1d7cc, 0x1d7cd}, {0x1da8c, 0x1da9a},
    {0x1daa0, 0x1daa0}, {0x1dab0, 0x1deff}, {0x1df1f, 0x1dfff},
    {0x1e007, 0x1e007}, {0x1e019, 0x1e01a}, {0x1e022, 0x1e022},
    {0x1e025, 0x1e025}, {0x1e02b, 0x1e0ff}, {0x1e12d, 0x1e12f},
    {0x1e13e, 0x1e13f}, {0x1e14a, 0x1e14d}, {0x1e150, 0x1e28f},
    {0x1e2af, 0x1e2bf}, {0x1e2fa, 0x1e2fe}, {0x1e300, 0x1e7df},
    {0x1e7e7, 0x1e7e7}, {0x1e7ec, 0x1e7ec}, {0x1e7ef, 0x1e7ef},
    {0x1e7ff, 0x1e7ff}, {0x1e8c5, 0x1e8c6}, {0x1e8d7, 0x1e8ff},
    {0x1e94c, 0x1e94f}, {0x1e95a, 0x1e95d}, {0x1e960, 0x1ec70},
    {0x1ecb5, 0x1ed00}, {0x1ed3e, 0x1edff}, {0x1ee04, 0x1ee04},
    {0x1ee20, 0x1ee20}, {0x1ee23, 0x1ee23}, {0x1ee25, 0x1ee26},
    {0x1ee28, 0x1ee28}, {0x1ee33, 0x1ee33}, {0x1ee38, 0x1ee38},
    {0x1ee3a, 0x1ee3a}, {0x1ee3c, 0x1ee41}, {0x1ee43, 0x1ee46},
    {0x1ee48, 0x1ee48}, {0x1ee4a, 0x1ee4a}, {0x1ee4c, 0x1ee4c},
    {0x1ee50, 0x1ee50}, {0x1ee53, 0x1ee53}, {0x1ee55, 0x1ee56},
    {0x1ee58, 0x1ee58}, {0x1ee5a, 0x1ee5a}, {0x1ee5c, 0x1ee5c},
    {0x1ee5e, 0x1ee5e}, {0x1ee60, 0x1ee60}, {0x1ee63, 0x1ee63},
    {0x1ee65, 0x1ee66}, {0x1ee6b, 0x1ee6b}, {0x1ee73, 0x1ee73},
    {0x1ee78, 0x1ee78}, {0x1ee7d, 0x1ee7d}, {0x1ee7f, 0x1ee7f},
    {0x1ee8a, 0x1ee8a}, {0x1ee9c, 0x1eea0}, {0x1eea4, 0x1eea4},
    {0x1eeaa, 0x1eeaa}, {0x1eebc, 0x1eeef}, {0x1eef2, 0x1efff},
    {0x1f02c, 0x1f02f}, {0x1f094, 0x1f09f}, {0x1f0af, 0x1f0b0},
    {0x1f0c0, 0x1f0c0}, {0x1f0d0, 0x1f0d0}, {0x1f0f6, 0x1f0ff},
    {0x1f1ae, 0x1f1e5}, {0x1f203, 0x1f20f}, {0x1f23c, 0x1f23f},
    {0x1f249, 0x1f24f}, {0x1f252, 0x1f25f}, {0x1f266, 0x1f2ff},
    {0x1f6d8, 0x1f6dc}, {0x1f6ed, 0x1f6ef}, {0x1f6fd, 0x1f6ff},
    {0x1f774, 0x1f77f}, {0x1f7d9, 0x1f7df}, {0x1f7ec, 0x1f7ef},
    {0x1f7f1, 0x1f7ff}, {0x1f80c, 0x1f80f}, {0x1f848, 0x1f84f},
    {0x1f85a, 0x1f85f}, {0x1f888, 0x1f88f}, {0x1f8ae, 0x1f8af},
    {0x1f8b2, 0x1f8ff}, {0x1fa54, 0x1fa5f}, {0x1fa6e, 0x1fa6f},
    {0x1fa75, 0x1fa77}, {0x1fa7d, 0x1fa7f}, {0x1fa87, 0x1fa8f},
    {0x1faad, 0x1faaf}, {0x1fabb, 0x1fabf}, {0x1fac6, 0x1facf},
    {0x1fada, 0x1fadf}, {0x1fae8, 0x1faef}, {0x1faf7, 0x1faff},
    {0x1fb93, 0x1fb93}, {0x1fbcb, 0x1fbef}, {0x1fbfa, 0x1ffff},
    {0x2a6e0, 0x2a6ff}, {0x2b739, 0x2b73f}, {0x2b81e, 0x2b81f},
    {0x2cea2, 0x2ceaf}, {0x2ebe1, 0x2f7ff}, {0x2fa1e, 0x2ffff},
    {0x3134b, 0xe00ff}, {0xe01f0, 0x10ffff},
};

static int is_printable(apr_uint32_t c)
{
    apr_size_t lo = 0, hi = sizeof(nonprintable) / sizeof(nonprintable[0]);

    while (lo < hi) {
        apr_size_t mid = (lo + hi) / 2;

        if (c < nonprintable[mid][0]) {
            hi = mid;
        }
        else if (c > nonprintable[mid][1]) {
            lo = mid + 1;
        }
        else {
            return 0;
        }
    }
    return 1;
}

/* Decode one UTF-8 sequence at s (n bytes left). Returns its length and
 * the code point in *pc, or 0 for a byte that starts no valid sequence. */
static apr_size_t utf8_next(const unsigned char *s, apr_size_t n,
                            apr_uint32_t *pc)
{
    apr_uint32_t c;
    apr_size_t len, i;

    if (s[0] < 0x80) {
        *pc = s[0];
        return 1;
    }
    if (s[0] >= 0xc2 && s[0] <= 0xdf) {
        len = 2;
        c = s[0] & 0x1f;
    }
    else if (s[0] >= 0xe0 && s[0] <= 0xef) {
        len = 3;
        c = s[0] & 0x0f;
    }
    else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
        len = 4;
        c = s[0] & 0x07;
    }
    else {
        return 0;
    }
    if (len > n) {
        return 0;
    }
    for (i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80) {
            return 0;
        }
        c = (c << 6) | (s[i] & 0x3f);
    }
    if ((len == 3 && c < 0x800)
        || (len == 4 && (c < 0x10000 || c > 0x10ffff))) {
        return 0;
    }
    *pc = c;
    return len;
}

/* Python's len() of the string: code points (an invalid byte counts one). */
static apr_int64_t utf8_length(const char *s, apr_size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    apr_int64_t count = 0;
    apr_size_t i = 0;

    while (i < n) {
        apr_uint32_t c;
        apr_size_t l = utf8_next(u + i, n - i, &c);

        i += l ? l : 1;
        count++;
    }
    return count;
}

static void repr_string(sb_t *sb, const char *s, apr_size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    char quote = '\'';
    apr_size_t i;
    char esc[16];

    if (memchr(s, '\'', n) && !memchr(s, '"', n)) {
        quote = '"';
    }
    sb_addc(sb, quote);
    i = 0;
    while (i < n) {
        apr_uint32_t c;
        apr_size_t l = utf8_next(u + i, n - i, &c);

        if (l == 0) {
            /* not UTF-8: show the byte as surrogateescape would */
            snprintf(esc, sizeof(esc), "\\x%02x", u[i]);
            sb_add(sb, esc);
            i++;
            continue;
        }
        if (c == (apr_uint32_t)quote || c == '\\') {
            sb_addc(sb, '\\');
            sb_addc(sb, (char)c);
        }
        else if (c == '\t') {
            sb_add(sb, "\\t");
        }
        else if (c == '\n') {
            sb_add(sb, "\\n");
        }
        else if (c == '\r') {
            sb_add(sb, "\\r");
        }
        else if (c == ' ' || is_printable(c)) {
            sb_addn(sb, s + i, l);
        }
        else {
            if (c < 0x100) {
                snprintf(esc, sizeof(esc), "\\x%02x", (unsigned)c);
            }
            else if (c < 0x10000) {
                snprintf(esc, sizeof(esc), "\\u%04x", (unsigned)c);
            }
            else {
                snprintf(esc, sizeof(esc), "\\U%08x", (unsigned)c);
            }
            sb_add(sb, esc);
        }
        i += l;
    }
    sb_addc(sb, quote);
}

/* float.__repr__: the shortest string that reads back as d, in fixed
 * notation when the decimal exponent is in [-4, 16), else as 1.5e+20. */
static void repr_double(sb_t *sb, double d)
{
    char buf[48], digits[24];
    int prec, exp10, ndig = 0, decpt, i;
    const char *q;

    if (isnan(d)) {
        sb_add(sb, "nan");
        return;
    }
    if (isinf(d)) {
        sb_add(sb, d < 0 ? "-inf" : "inf");
        return;
    }
    for (prec = 1; prec <= 17; prec++) {
        snprintf(buf, sizeof(buf), "%.*e", prec - 1, d);
        if (strtod(buf, NULL) == d) {
            break;
        }
    }
    q = buf;
    if (*q == '-') {
        sb_addc(sb, '-');
        q++;
    }
    for (; *q && *q != 'e'; q++) {
        if (*q >= '0' && *q <= '9' && ndig < (int)sizeof(digits) - 1) {
            digits[ndig++] = *q;
        }
    }
    digits[ndig] = '\0';
    exp10 = (*q == 'e') ? atoi(q + 1) : 0;
    while (ndig > 1 && digits[ndig - 1] == '0') {
        digits[--ndig] = '\0';
    }
    decpt = exp10 + 1;
    if (decpt > -4 && decpt <= 16) {
        if (decpt <= 0) {
            sb_add(sb, "0.");
            for (i = 0; i < -decpt; i++) {
                sb_addc(sb, '0');
            }
            sb_add(sb, digits);
        }
        else if (decpt >= ndig) {
            sb_add(sb, digits);
            for (i = ndig; i < decpt; i++) {
                sb_addc(sb, '0');
            }
            sb_add(sb, ".0");
        }
        else {
            sb_addn(sb, digits, decpt);
            sb_addc(sb, '.');
            sb_add(sb, digits + decpt);
        }
    }
    else {
        sb_addc(sb, digits[0]);
        if (ndig > 1) {
            sb_addc(sb, '.');
            sb_add(sb, digits + 1);
        }
        snprintf(buf, sizeof(buf), "e%c%02d", exp10 < 0 ? '-' : '+',
                 exp10 < 0 ? -exp10 : exp10);
        sb_add(sb, buf);
    }
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
