/* Licensed under the Apache License, Version 2.0.
 *
 * pl_jsonschema_private.h: what the pl_jsonschema_*.c files share: the
 * compiled schema (nodes and keywords), error records, a string builder,
 * and the functions one file lends another, each under its real,
 * pl_jsonschema_-prefixed name, so nothing leaks into the module's
 * namespace unprefixed and the debugger reads what the source says.
 *
 *   pl_jsonschema_compile.c   schema text -> nodes and keywords
 *   pl_jsonschema_validate.c  instance checks, best_match, the public calls
 *   pl_jsonschema_messages.c  python-jsonschema's texts, repr and pformat
 *   pl_jsonschema_regex.c     Python re patterns -> POSIX ERE
 *   pl_jsonschema_base.c      what they all use: string builder, keyword
 *                             names, numbers, re.search, extra properties
 *
 * Calls run one way, never back: validate -> messages -> base,
 * validate -> base, compile -> regex -> base, compile -> base. A helper
 * two of them need goes down into base, not sideways.
 */
#ifndef PL_JSONSCHEMA_PRIVATE_H
#define PL_JSONSCHEMA_PRIVATE_H

#include <sys/types.h>
#include <regex.h>

#include <apr_pools.h>
#include <apr_tables.h>
#include <json-c/json.h>

#include "pl_jsonschema.h"

/* Nesting rendered by repr before "...", and compared or hashed before
 * values count as unequal (json-c's parser stops at 32). */
#define MAX_REPR_DEPTH 500

typedef enum {
    KW_TYPE,
    KW_ENUM,
    KW_CONST,
    KW_PROPERTIES,
    KW_PATTERNPROPERTIES,
    KW_ADDITIONALPROPERTIES,
    KW_REQUIRED,
    KW_MINPROPERTIES,
    KW_MAXPROPERTIES,
    KW_ITEMS,
    KW_MINITEMS,
    KW_MAXITEMS,
    KW_UNIQUEITEMS,
    KW_MINIMUM,
    KW_MAXIMUM,
    KW_EXCLUSIVEMINIMUM,
    KW_EXCLUSIVEMAXIMUM,
    KW_MINLENGTH,
    KW_MAXLENGTH,
    KW_PATTERN,
    KW_FORMAT,
    KW_ANYOF,
    KW_ONEOF,
    KW_ALLOF,
    KW_NOT,
    KW_REF,
    /* pseudo keywords, for error records only */
    KW_FALSE_SCHEMA,
    KW_ONEOF_MULTI
} kw_e;

/* JSON types as bits. */
#define T_ARRAY 0x01
#define T_BOOLEAN 0x02
#define T_INTEGER 0x04
#define T_NULL 0x08
#define T_NUMBER 0x10
#define T_OBJECT 0x20
#define T_STRING 0x40

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
    const char *source; /* the Python regex, for messages */
    regex_t re;
    js_node *node;
} js_pat;

typedef struct {
    kw_e kw;
    json_object *value; /* the keyword's value in the schema JSON */
    unsigned types;     /* type */
    int n;              /* count of props/pats/names/subs */
    js_prop *props;     /* properties */
    js_pat *pats;       /* patternProperties; pattern uses pats[0] */
    const char **names; /* required; type (names as written) */
    js_node **subs;     /* anyOf, oneOf, allOf; [0] for not, $ref,
                               * items and additionalProperties (schema) */
    int flag;           /* uniqueItems, items/additionalProperties
                               * boolean value; -1 when a schema */
    apr_int64_t limit;  /* min/max Length/Items/Properties */
    num_t num;          /* minimum ... exclusiveMaximum */
} js_kw;

struct js_node {
    const char *path; /* where it sits, as Python prints a schema
                               * path: "['properties']['total']" */
    int is_bool;      /* boolean schema */
    int bool_value;
    json_object *json;
    int has_type;
    unsigned types;
    int nkw;
    js_kw *kws;
    const js_kw *props_kw; /* for additionalProperties */
    const js_kw *pats_kw;
};

struct pl_jsonschema_t {
    json_object *json;
    js_node *root;
};

/* String builder on a pool */
typedef struct {
    apr_pool_t *p;
    char *buf;
    apr_size_t len, cap;
    apr_size_t limit; /* 0, or the most bytes wanted */
    int over;         /* more than limit was asked: nothing added since */
} sb_t;

typedef struct js_coll js_coll;

/* One step of an instance path: a key, or an index when key is NULL. */
typedef struct {
    const char *key;
    size_t idx;
} js_seg;

/* One error, as python-jsonschema's ValidationError would carry it. */
typedef struct {
    kw_e kw;
    const js_node *node; /* the schema the failing keyword is in */
    const js_kw *k;      /* the keyword (NULL for a false schema) */
    json_object *inst;
    int depth;             /* len(error.path) */
    const js_seg *path;    /* error.relative_path (depth steps), once
                                 * kept */
    int key;               /* relevance, see err_key() */
    const char *name;      /* required: the missing name */
    const js_node **valid; /* oneOf: the subschemas that matched */
    int nvalid;
    js_coll *ctx; /* anyOf/oneOf: the branch errors */
} js_err;

typedef enum {
    C_TOP,  /* keep the max (best_match) */
    C_CTX,  /* keep the two smallest (context) */
    C_VALID /* only is_valid(): stop at the first */
} coll_mode_e;

struct js_coll {
    coll_mode_e mode;
    long count;
    js_err *best;    /* C_TOP */
    js_err *s0, *s1; /* C_CTX */
};

typedef struct {
    apr_pool_t *p;
    int nesting;
    int too_deep;
    apr_array_header_t *segs; /* js_seg: the path to the current value */
} vctx;

/* Strings as json-c decoded them: lone surrogates are code points, bytes
 * that are no UTF-8 are shown as bytes. */
#define JSON_TEXT (PL_PY_U8_SURROGATES | PL_PY_REPR_BYTES)

/* pl_jsonschema_base.c */
void pl_jsonschema_sb_init(sb_t *sb, apr_pool_t *p);
void pl_jsonschema_sb_addn(sb_t *sb, const char *s, apr_size_t n);
void pl_jsonschema_sb_add(sb_t *sb, const char *s);
void pl_jsonschema_sb_addc(sb_t *sb, char c);
/** The keyword's name as a schema spells it, or NULL (pseudo keywords) */
const char *pl_jsonschema_kw_name(kw_e kw);
/** Is name a keyword validated? Then 1, with the keyword in *pkw */
int pl_jsonschema_kw_of(const char *name, kw_e *pkw);
num_t pl_jsonschema_num_of(json_object *o);
int pl_jsonschema_is_number(json_object *o);
/** re.search(): does the pattern match somewhere in the n bytes at s? */
int pl_jsonschema_pattern_search(const regex_t *re, const char *s,
                                 apr_size_t n);
/** Is key an additional property of node n (in no properties, matching
 * no patternProperties)? */
int pl_jsonschema_is_extra(const js_node *n, const char *key);

/* pl_jsonschema_messages.c */
/** repr() of a str of n bytes (text json-c decoded) */
void pl_jsonschema_repr_string(sb_t *sb, const char *s, apr_size_t n);
/** repr() of the value json.loads() builds from o (dicts in their order) */
void pl_jsonschema_repr_value(sb_t *sb, json_object *o, int depth);
/** The message of e (best_match(...).message) */
const char *pl_jsonschema_err_message(apr_pool_t *p, const js_err *e);
/** What str(ValidationError) adds after the message; schema_prefix: the
 * part of e's schema path above error.relative_schema_path, or NULL */
const char *pl_jsonschema_err_trailer(apr_pool_t *p, const js_err *e,
                                      const char *schema_prefix);

/* pl_jsonschema_validate.c */
/** Compare two numbers exactly: -1, 0, 1, or 2 if unordered (NaN) */
int pl_jsonschema_num_cmp(num_t a, num_t b);
/** Does o have one of the JSON types (T_* bits)? */
int pl_jsonschema_is_type(json_object *o, unsigned types);

/* pl_jsonschema_regex.c */
/** The POSIX ERE of a Python re pattern, or NULL with *why */
const char *pl_jsonschema_py_to_ere(apr_pool_t *p, const char *py,
                                    const char **why);

#endif /* PL_JSONSCHEMA_PRIVATE_H */
