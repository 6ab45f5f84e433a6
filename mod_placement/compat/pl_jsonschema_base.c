/* Licensed under the Apache License, Version 2.0.
 *
 * pl_jsonschema_base.c: the helpers the other pl_jsonschema_*.c files
 * share, at the bottom of their calls: a string builder, the keywords'
 * names, numbers as json-c holds them, re.search() on a translated
 * pattern, and the test for an additional property. Nothing here calls
 * into the files above it (compile, validate, messages, regex), so their
 * calls run one way only (pl_jsonschema_private.h).
 */
#include <stdint.h>
#include <string.h>

#include <apr_pools.h>

#include "pl_jsonschema_private.h"

/* ------------------------------------------------------------------ */
/* String builder                                                      */

void pl_jsonschema_sb_init(sb_t *sb, apr_pool_t *p)
{
    sb->p = p;
    sb->cap = 64;
    sb->len = 0;
    sb->limit = 0;
    sb->over = 0;
    sb->buf = apr_palloc(p, sb->cap);
    sb->buf[0] = '\0';
}

void pl_jsonschema_sb_addn(sb_t *sb, const char *s, apr_size_t n)
{
    /* past the limit nothing more is added: the text stays a start of
     * the whole (no closing bracket after a dropped item) */
    if (sb->over || (sb->limit && sb->len + n > sb->limit)) {
        sb->over = 1;
        return;
    }
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

void pl_jsonschema_sb_add(sb_t *sb, const char *s)
{
    pl_jsonschema_sb_addn(sb, s, strlen(s));
}

void pl_jsonschema_sb_addc(sb_t *sb, char c)
{
    pl_jsonschema_sb_addn(sb, &c, 1);
}

/* ------------------------------------------------------------------ */
/* Keywords                                                            */

/* The keywords validated, by the name a schema spells them with. */
static const struct {
    const char *name;
    kw_e kw;
} keywords[] = { { "type", KW_TYPE },
                 { "enum", KW_ENUM },
                 { "const", KW_CONST },
                 { "properties", KW_PROPERTIES },
                 { "patternProperties", KW_PATTERNPROPERTIES },
                 { "additionalProperties", KW_ADDITIONALPROPERTIES },
                 { "required", KW_REQUIRED },
                 { "minProperties", KW_MINPROPERTIES },
                 { "maxProperties", KW_MAXPROPERTIES },
                 { "items", KW_ITEMS },
                 { "minItems", KW_MINITEMS },
                 { "maxItems", KW_MAXITEMS },
                 { "uniqueItems", KW_UNIQUEITEMS },
                 { "minimum", KW_MINIMUM },
                 { "maximum", KW_MAXIMUM },
                 { "exclusiveMinimum", KW_EXCLUSIVEMINIMUM },
                 { "exclusiveMaximum", KW_EXCLUSIVEMAXIMUM },
                 { "minLength", KW_MINLENGTH },
                 { "maxLength", KW_MAXLENGTH },
                 { "pattern", KW_PATTERN },
                 { "format", KW_FORMAT },
                 { "anyOf", KW_ANYOF },
                 { "oneOf", KW_ONEOF },
                 { "allOf", KW_ALLOF },
                 { "not", KW_NOT },
                 { "$ref", KW_REF },
                 { NULL, 0 } };

const char *pl_jsonschema_kw_name(kw_e kw)
{
    int i;

    for (i = 0; keywords[i].name; i++) {
        if (keywords[i].kw == kw) {
            return keywords[i].name;
        }
    }
    return NULL;
}

int pl_jsonschema_kw_of(const char *name, kw_e *pkw)
{
    int i;

    for (i = 0; keywords[i].name; i++) {
        if (strcmp(keywords[i].name, name) == 0) {
            *pkw = keywords[i].kw;
            return 1;
        }
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* Numbers                                                             */

num_t pl_jsonschema_num_of(json_object *o)
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

int pl_jsonschema_is_number(json_object *o)
{
    json_type t = json_object_get_type(o);

    return t == json_type_int || t == json_type_double;
}

/* ------------------------------------------------------------------ */
/* Patterns and additional properties                                  */

/* re.search(pattern, s): "$" also matches before a final newline. */
int pl_jsonschema_pattern_search(const regex_t *re, const char *s, apr_size_t n)
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
            if (pl_jsonschema_pattern_search(&n->pats_kw->pats[i].re, key,
                                             strlen(key))) {
                return 1;
            }
        }
    }
    return 0;
}

int pl_jsonschema_is_extra(const js_node *n, const char *key)
{
    return !in_properties(n, key) && !matches_patterns(n, key);
}
