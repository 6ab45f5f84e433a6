/* Licensed under the Apache License, Version 2.0.
 *
 * pl_jsonschema_messages.c: the texts python-jsonschema 4.10 writes for an
 * error: its message ("'name' is a required property"), and what
 * str(ValidationError) adds ("Failed validating 'required' in schema:"
 * with the schema and the instance as pprint.pformat prints them). Values
 * are shown as Python's repr() of what json.loads() builds (pl_py.c has
 * the str and float rules).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <apr_pools.h>
#include <apr_strings.h>
#include <apr_tables.h>

#include "pl_jsonschema_private.h"
#include "pl_py.h"

/* ------------------------------------------------------------------ */
/* Python's repr() of the values json.loads() builds (pl_py.c)          */

void pl_jsonschema_repr_string(sb_t *sb, const char *s, apr_size_t n)
{
    int cut = 0;

    if (sb->limit == 0) {
        pl_jsonschema_sb_add(sb, pl_py_repr_n(sb->p, s, n, JSON_TEXT));
        return;
    }
    if (sb->over || sb->len >= sb->limit) {
        sb->over = 1;
        return;
    }
    /* a builder with a limit takes what fits of a long string: its repr
     * is never made whole (ten bytes a byte at worst) */
    pl_jsonschema_sb_add(
        sb, pl_py_repr_cut(sb->p, s, n, JSON_TEXT, sb->limit - sb->len, &cut));
    if (cut) {
        sb->over = 1;
    }
}

static void repr_double(sb_t *sb, double d)
{
    char buf[PL_PY_FLOAT_REPR_SIZE];

    pl_jsonschema_sb_addn(sb, buf, pl_py_float_repr(buf, d));
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
    pl_jsonschema_sb_add(sb, buf);
}

static int strptr_cmp(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The keys of object o, sorted as Python sorts str (by code point, which
 * is UTF-8 byte order), in a NULL-terminated array from p. */
static const char **sorted_keys(apr_pool_t *p, json_object *o, int *pn)
{
    int n = json_object_object_length(o), i = 0;
    const char **keys = apr_palloc(p, (n + 1) * sizeof(*keys));

    json_object_object_foreach(o, key, val)
    {
        (void)val;
        keys[i++] = key;
    }
    keys[i] = NULL;
    qsort(keys, i, sizeof(*keys), strptr_cmp);
    *pn = i;
    return keys;
}

/* repr() of what json.loads() builds from o; with sorted, dicts in key
 * order (as pprint prints them). Stops early once sb is over its limit. */
static void repr_any(sb_t *sb, json_object *o, int depth, int sorted)
{
    if (sb->over) {
        return;
    }
    if (depth > MAX_REPR_DEPTH) {
        pl_jsonschema_sb_add(sb, "...");
        return;
    }
    switch (json_object_get_type(o)) {
    case json_type_null:
        pl_jsonschema_sb_add(sb, "None");
        break;
    case json_type_boolean:
        pl_jsonschema_sb_add(sb, json_object_get_boolean(o) ? "True" : "False");
        break;
    case json_type_int:
    case json_type_double:
        repr_num(sb, pl_jsonschema_num_of(o));
        break;
    case json_type_string:
        pl_jsonschema_repr_string(sb, json_object_get_string(o),
                                  (apr_size_t)json_object_get_string_len(o));
        break;
    case json_type_array: {
        size_t i, n = json_object_array_length(o);

        pl_jsonschema_sb_addc(sb, '[');
        for (i = 0; i < n && !sb->over; i++) {
            if (i) {
                pl_jsonschema_sb_add(sb, ", ");
            }
            repr_any(sb, json_object_array_get_idx(o, i), depth + 1, sorted);
        }
        pl_jsonschema_sb_addc(sb, ']');
        break;
    }
    case json_type_object: {
        int first = 1;

        pl_jsonschema_sb_addc(sb, '{');
        if (sorted) {
            int i, n;
            const char **keys = sorted_keys(sb->p, o, &n);

            for (i = 0; i < n && !sb->over; i++) {
                if (i) {
                    pl_jsonschema_sb_add(sb, ", ");
                }
                pl_jsonschema_repr_string(sb, keys[i], strlen(keys[i]));
                pl_jsonschema_sb_add(sb, ": ");
                repr_any(sb, json_object_object_get(o, keys[i]), depth + 1,
                         sorted);
            }
            pl_jsonschema_sb_addc(sb, '}');
            break;
        }
        json_object_object_foreach(o, key, val)
        {
            if (sb->over) {
                break;
            }
            if (!first) {
                pl_jsonschema_sb_add(sb, ", ");
            }
            first = 0;
            pl_jsonschema_repr_string(sb, key, strlen(key));
            pl_jsonschema_sb_add(sb, ": ");
            repr_any(sb, val, depth + 1, sorted);
        }
        pl_jsonschema_sb_addc(sb, '}');
        break;
    }
    }
}

void pl_jsonschema_repr_value(sb_t *sb, json_object *o, int depth)
{
    repr_any(sb, o, depth, 0);
}

/* ------------------------------------------------------------------ */
/* Values of the instance (the request's body) are shown cut: upstream
 * prints them whole, so a 63 MB string made a 132 MB answer. A repr of
 * up to REPR_CUT bytes is shown whole, as upstream shows it; a longer one
 * by its first bytes, "..." and what was cut: "[1, 2, ... (cut: a list
 * of 3000000 items)". docs/errors.md says so.                          */

#define REPR_CUT 1024

static const char *count_of(apr_pool_t *p, const char *what, apr_size_t n)
{
    return apr_psprintf(p, "%s of %" APR_SIZE_T_FMT " item%s", what, n,
                        n == 1 ? "" : "s");
}

/* Python's len() of o, in words, for the note after a cut. */
static const char *cut_note(apr_pool_t *p, json_object *o)
{
    switch (json_object_get_type(o)) {
    case json_type_string:
        return apr_psprintf(p, "a str of %" APR_INT64_T_FMT " characters",
                            pl_py_len(json_object_get_string(o),
                                      (apr_size_t)json_object_get_string_len(o),
                                      JSON_TEXT));
    case json_type_array:
        return count_of(p, "a list", json_object_array_length(o));
    case json_type_object:
        return count_of(p, "a dict", (apr_size_t)json_object_object_length(o));
    default:
        return "a value";
    }
}

/* repr() of o into a builder of its own, at most REPR_CUT bytes; returns
 * whether it was cut. */
static int repr_bounded(sb_t *part, apr_pool_t *p, json_object *o)
{
    pl_jsonschema_sb_init(part, p);
    part->limit = REPR_CUT;
    repr_any(part, o, 0, 0);
    return part->over;
}

/* repr() of the instance value o, cut past REPR_CUT bytes. */
static void repr_inst(sb_t *sb, json_object *o)
{
    sb_t part;

    if (repr_bounded(&part, sb->p, o)) {
        pl_jsonschema_sb_addn(sb, part.buf, part.len);
        pl_jsonschema_sb_add(sb, "... (cut: ");
        pl_jsonschema_sb_add(sb, cut_note(sb->p, o));
        pl_jsonschema_sb_addc(sb, ')');
        return;
    }
    pl_jsonschema_sb_addn(sb, part.buf, part.len);
}

/* repr() of a str of the instance (a key), cut past REPR_CUT bytes. */
static void repr_inst_string(sb_t *sb, const char *s, apr_size_t n)
{
    sb_t part;

    pl_jsonschema_sb_init(&part, sb->p);
    part.limit = REPR_CUT;
    pl_jsonschema_repr_string(&part, s, n);
    pl_jsonschema_sb_addn(sb, part.buf, part.len);
    if (part.over) {
        pl_jsonschema_sb_add(sb,
                             apr_psprintf(sb->p,
                                          "... (cut: a str of %" APR_INT64_T_FMT
                                          " characters)",
                                          pl_py_len(s, n, JSON_TEXT)));
    }
}

const char *pl_jsonschema_repr(apr_pool_t *p, json_object *o)
{
    sb_t sb;

    pl_jsonschema_sb_init(&sb, p);
    pl_jsonschema_repr_value(&sb, o, 0);
    return sb.buf;
}

/* ------------------------------------------------------------------ */
/* pprint.pformat(value, width=72), as str(ValidationError) shows the
 * schema and the instance: a repr that fits on its line is written as
 * it is; else dicts (keys sorted) and lists get one item a line, and
 * strings with spaces are cut into 'implicitly' 'joined' parts.         */

#define PF_WIDTH 72

/* Python's len() of the UTF-8 text s (a repr: valid UTF-8). */
static long text_len(const char *s, apr_size_t n)
{
    return (long)pl_py_len(s, n, 0);
}

/* repr(o) (dicts sorted) if it is at most max_width characters, else
 * NULL; the work stops once the text is too long. */
static const char *repr_fitting(apr_pool_t *p, json_object *o, long max_width)
{
    sb_t sb;

    if (max_width < 0) {
        return NULL;
    }
    pl_jsonschema_sb_init(&sb, p);
    sb.limit = (apr_size_t)max_width * 4 + 4; /* UTF-8: 4 bytes a char */
    repr_any(&sb, o, 0, 1);
    if (sb.over || text_len(sb.buf, sb.len) > max_width) {
        return NULL;
    }
    return sb.buf;
}

static void sb_indent(sb_t *sb, long indent)
{
    pl_jsonschema_sb_addc(sb, '\n');
    while (indent-- > 0) {
        pl_jsonschema_sb_addc(sb, ' ');
    }
}

/* repr() of n bytes of a str, and its length in characters */
static const char *str_repr(apr_pool_t *p, const char *s, apr_size_t n,
                            long *plen)
{
    const char *r = pl_py_repr_n(p, s, n, JSON_TEXT);

    *plen = text_len(r, strlen(r));
    return r;
}

/* The length of the line starting at s (n bytes left), its end included,
 * as str.splitlines(keepends=True) cuts: \n, \r, \r\n, \v, \f, \x1c-\x1e,
 * \x85, \u2028, \u2029. */
static apr_size_t line_len(const char *s, apr_size_t n)
{
    apr_size_t i = 0, l;
    apr_uint32_t cp;

    while (i < n) {
        l = pl_py_u8_decode(s + i, n - i, JSON_TEXT, &cp);
        i += l;
        if (cp == '\r' && i < n && s[i] == '\n') {
            return i + 1;
        }
        if (cp == '\n' || cp == '\r' || cp == 0x0b || cp == 0x0c ||
            (cp >= 0x1c && cp <= 0x1e) || cp == 0x85 || cp == 0x2028 ||
            cp == 0x2029) {
            return i;
        }
    }
    return i;
}

/* The length of the next part of re.findall(r'\S*\s*', line). */
static apr_size_t part_len(const char *s, apr_size_t n)
{
    apr_size_t i = 0, l;
    apr_uint32_t cp;
    int in_space = 0;

    while (i < n) {
        l = pl_py_u8_decode(s + i, n - i, JSON_TEXT, &cp);
        if (pl_py_isspace(cp)) {
            in_space = 1;
        }
        else if (in_space) {
            break;
        }
        i += l;
    }
    return i;
}

/* PrettyPrinter._pprint_str */
static void pformat_str(sb_t *sb, const char *s, apr_size_t n, long indent,
                        long allowance, int level)
{
    apr_array_header_t *chunks = apr_array_make(sb->p, 4, sizeof(char *));
    long max_width, max_width1, max_width2, len;
    apr_size_t at, ll, pl, part, cur_at, cur_n;
    const char *rep = NULL;
    int i;

    if (n == 0) {
        pl_jsonschema_sb_add(sb, "''");
        return;
    }
    if (level == 1) {
        indent++;
        allowance++;
    }
    max_width1 = max_width = PF_WIDTH - indent;
    for (at = 0; at < n; at += ll) {
        int last_line;

        ll = line_len(s + at, n - at);
        last_line = (at + ll == n);
        rep = str_repr(sb->p, s + at, ll, &len);
        if (last_line) {
            max_width1 -= allowance;
        }
        if (len <= max_width1) {
            APR_ARRAY_PUSH(chunks, const char *) = rep;
            continue;
        }
        max_width2 = max_width;
        cur_at = at;
        cur_n = 0;
        for (pl = 0; pl < ll; pl += part) {
            part = part_len(s + at + pl, ll - pl);
            if (last_line && pl + part == ll) {
                max_width2 -= allowance;
            }
            str_repr(sb->p, s + cur_at, cur_n + part, &len);
            if (len > max_width2) {
                if (cur_n) {
                    APR_ARRAY_PUSH(chunks, const char *) = str_repr(
                        sb->p, s + cur_at, cur_n, &len);
                }
                cur_at = at + pl;
                cur_n = part;
            }
            else {
                cur_n += part;
            }
        }
        if (cur_n) {
            APR_ARRAY_PUSH(chunks, const char *) = str_repr(sb->p, s + cur_at,
                                                            cur_n, &len);
        }
    }
    if (chunks->nelts == 1) {
        pl_jsonschema_sb_add(sb, rep);
        return;
    }
    if (level == 1) {
        pl_jsonschema_sb_addc(sb, '(');
    }
    for (i = 0; i < chunks->nelts; i++) {
        if (i) {
            sb_indent(sb, indent);
        }
        pl_jsonschema_sb_add(sb, APR_ARRAY_IDX(chunks, i, const char *));
    }
    if (level == 1) {
        pl_jsonschema_sb_addc(sb, ')');
    }
}

/* PrettyPrinter._format */
static void pformat_any(sb_t *sb, json_object *o, long indent, long allowance,
                        int level)
{
    const char *rep = repr_fitting(sb->p, o, PF_WIDTH - indent - allowance);
    json_type t = json_object_get_type(o);

    if (rep) {
        pl_jsonschema_sb_add(sb, rep);
        return;
    }
    if (level >= MAX_REPR_DEPTH) {
        repr_any(sb, o, level, 1);
        return;
    }
    level++;
    switch (t) {
    case json_type_object: {
        int i, n;
        const char **keys = sorted_keys(sb->p, o, &n);

        pl_jsonschema_sb_addc(sb, '{');
        for (i = 0; i < n; i++) {
            long klen;
            const char *krep = str_repr(sb->p, keys[i], strlen(keys[i]), &klen);

            pl_jsonschema_sb_add(sb, krep);
            pl_jsonschema_sb_add(sb, ": ");
            pformat_any(sb, json_object_object_get(o, keys[i]),
                        indent + 1 + klen + 2, i == n - 1 ? allowance + 1 : 1,
                        level);
            if (i < n - 1) {
                pl_jsonschema_sb_addc(sb, ',');
                sb_indent(sb, indent + 1);
            }
        }
        pl_jsonschema_sb_addc(sb, '}');
        break;
    }
    case json_type_array: {
        size_t i, n = json_object_array_length(o);

        pl_jsonschema_sb_addc(sb, '[');
        for (i = 0; i < n; i++) {
            if (i) {
                pl_jsonschema_sb_addc(sb, ',');
                sb_indent(sb, indent + 1);
            }
            pformat_any(sb, json_object_array_get_idx(o, i), indent + 1,
                        i == n - 1 ? allowance + 1 : 1, level);
        }
        pl_jsonschema_sb_addc(sb, ']');
        break;
    }
    case json_type_string:
        pformat_str(sb, json_object_get_string(o),
                    (apr_size_t)json_object_get_string_len(o), indent,
                    allowance, level);
        break;
    default:
        repr_any(sb, o, 0, 1);
        break;
    }
}

/* pformat(o, width=72), every line after the first indented by indent
 * more spaces (textwrap.indent in str(ValidationError)). */
static const char *pformat(apr_pool_t *p, json_object *o, int indent)
{
    sb_t sb, out;
    const char *q;

    pl_jsonschema_sb_init(&sb, p);
    pformat_any(&sb, o, 0, 0, 0);
    if (indent == 0) {
        return sb.buf;
    }
    pl_jsonschema_sb_init(&out, p);
    for (q = sb.buf; q < sb.buf + sb.len; q++) {
        pl_jsonschema_sb_addc(&out, *q);
        if (*q == '\n') {
            pl_jsonschema_sb_addn(&out, "                ", (apr_size_t)indent);
        }
    }
    return out.buf;
}

/* ------------------------------------------------------------------ */
/* Messages                                                            */

/* The names of n unexpected properties ('a', 'b'), cut past REPR_CUT
 * bytes (a body may send a million). */
static void add_extras(sb_t *sb, const char **v, int n)
{
    sb_t part;
    int i;

    pl_jsonschema_sb_init(&part, sb->p);
    part.limit = REPR_CUT;
    for (i = 0; i < n && !part.over; i++) {
        if (i) {
            pl_jsonschema_sb_add(&part, ", ");
        }
        pl_jsonschema_repr_string(&part, v[i], strlen(v[i]));
    }
    pl_jsonschema_sb_addn(sb, part.buf, part.len);
    if (part.over) {
        pl_jsonschema_sb_add(
            sb, apr_psprintf(sb->p, "... (cut: %d properties)", n));
    }
}

/* additionalProperties: the extra keys (sorted), and the regexes of
 * patternProperties they match none of when there are any */
static void extras_message(sb_t *sb, apr_pool_t *p, const js_err *e)
{
    apr_array_header_t *extras = apr_array_make(p, 4, sizeof(char *));
    const char **v;
    int i;

    json_object_object_foreach(e->inst, key, val)
    {
        (void)val;
        if (pl_jsonschema_is_extra(e->node, key)) {
            APR_ARRAY_PUSH(extras, const char *) = key;
        }
    }
    v = (const char **)extras->elts;
    qsort(v, extras->nelts, sizeof(char *), strptr_cmp);
    if (!e->node->pats_kw) {
        pl_jsonschema_sb_add(sb, "Additional properties are not allowed (");
    }
    add_extras(sb, v, extras->nelts);
    if (!e->node->pats_kw) {
        pl_jsonschema_sb_add(sb, extras->nelts == 1 ? " was unexpected)"
                                                    : " were unexpected)");
    }
    else {
        const js_kw *pk = e->node->pats_kw;
        const char **pv = apr_pcalloc(p, (pk->n + 1) * sizeof(char *));

        pl_jsonschema_sb_add(sb, extras->nelts == 1
                                     ? " does not match any of the "
                                       "regexes: "
                                     : " do not match any of the "
                                       "regexes: ");
        for (i = 0; i < pk->n; i++) {
            pv[i] = pk->pats[i].source;
        }
        qsort(pv, pk->n, sizeof(char *), strptr_cmp);
        for (i = 0; i < pk->n; i++) {
            if (i) {
                pl_jsonschema_sb_add(sb, ", ");
            }
            pl_jsonschema_repr_string(sb, pv[i], strlen(pv[i]));
        }
    }
}

const char *pl_jsonschema_err_message(apr_pool_t *p, const js_err *e)
{
    sb_t sb;
    int i;

    pl_jsonschema_sb_init(&sb, p);
    switch (e->kw) {
    case KW_FALSE_SCHEMA:
        pl_jsonschema_sb_add(&sb, "False schema does not allow ");
        repr_inst(&sb, e->inst);
        break;
    case KW_TYPE:
        repr_inst(&sb, e->inst);
        pl_jsonschema_sb_add(&sb, " is not of type ");
        for (i = 0; i < e->k->n; i++) {
            if (i) {
                pl_jsonschema_sb_add(&sb, ", ");
            }
            pl_jsonschema_repr_string(&sb, e->k->names[i],
                                      strlen(e->k->names[i]));
        }
        break;
    case KW_ENUM:
        repr_inst(&sb, e->inst);
        pl_jsonschema_sb_add(&sb, " is not one of ");
        pl_jsonschema_repr_value(&sb, e->k->value, 0);
        break;
    case KW_CONST:
        pl_jsonschema_repr_value(&sb, e->k->value, 0);
        pl_jsonschema_sb_add(&sb, " was expected");
        break;
    case KW_ADDITIONALPROPERTIES:
        extras_message(&sb, p, e);
        break;
    case KW_REQUIRED:
        pl_jsonschema_repr_string(&sb, e->name, strlen(e->name));
        pl_jsonschema_sb_add(&sb, " is a required property");
        break;
    case KW_MINPROPERTIES:
        repr_inst(&sb, e->inst);
        pl_jsonschema_sb_add(&sb, " does not have enough properties");
        break;
    case KW_MAXPROPERTIES:
        repr_inst(&sb, e->inst);
        pl_jsonschema_sb_add(&sb, " has too many properties");
        break;
    case KW_ITEMS:
        pl_jsonschema_sb_add(
            &sb,
            apr_psprintf(p, "Expected at most 0 items, but found %lu",
                         (unsigned long)json_object_array_length(e->inst)));
        break;
    case KW_MINITEMS:
    case KW_MINLENGTH:
        repr_inst(&sb, e->inst);
        pl_jsonschema_sb_add(&sb, " is too short");
        break;
    case KW_MAXITEMS:
    case KW_MAXLENGTH:
        repr_inst(&sb, e->inst);
        pl_jsonschema_sb_add(&sb, " is too long");
        break;
    case KW_UNIQUEITEMS:
        repr_inst(&sb, e->inst);
        pl_jsonschema_sb_add(&sb, " has non-unique elements");
        break;
    case KW_MINIMUM:
    case KW_MAXIMUM:
    case KW_EXCLUSIVEMINIMUM:
    case KW_EXCLUSIVEMAXIMUM:
        repr_inst(&sb, e->inst);
        pl_jsonschema_sb_add(
            &sb, e->kw == KW_MINIMUM   ? " is less than the minimum of "
                 : e->kw == KW_MAXIMUM ? " is greater than the maximum of "
                 : e->kw == KW_EXCLUSIVEMINIMUM
                     ? " is less than or equal to the minimum of "
                     : " is greater than or equal to the maximum of ");
        repr_num(&sb, e->k->num);
        break;
    case KW_PATTERN:
        repr_inst(&sb, e->inst);
        pl_jsonschema_sb_add(&sb, " does not match ");
        pl_jsonschema_repr_string(&sb, e->k->pats[0].source,
                                  strlen(e->k->pats[0].source));
        break;
    case KW_FORMAT:
        repr_inst(&sb, e->inst);
        pl_jsonschema_sb_add(&sb, " is not a ");
        pl_jsonschema_repr_value(&sb, e->k->value, 0);
        break;
    case KW_ANYOF:
    case KW_ONEOF:
        repr_inst(&sb, e->inst);
        pl_jsonschema_sb_add(&sb,
                             " is not valid under any of the given schemas");
        break;
    case KW_ONEOF_MULTI:
        repr_inst(&sb, e->inst);
        pl_jsonschema_sb_add(&sb, " is valid under each of ");
        for (i = 0; i < e->nvalid; i++) {
            if (i) {
                pl_jsonschema_sb_add(&sb, ", ");
            }
            pl_jsonschema_repr_value(&sb, e->valid[i]->json, 0);
        }
        break;
    case KW_NOT:
        repr_inst(&sb, e->inst);
        pl_jsonschema_sb_add(&sb, " should not be valid under ");
        pl_jsonschema_repr_value(&sb, e->k->value, 0);
        break;
    default:
        pl_jsonschema_sb_add(&sb, "invalid");
        break;
    }
    return sb.buf;
}

/* pformat() of the instance value o as the trailer shows it (indented
 * by four), or its cut repr() when that is over REPR_CUT bytes. */
static const char *pformat_inst(apr_pool_t *p, json_object *o)
{
    sb_t part;

    if (repr_bounded(&part, p, o)) {
        pl_jsonschema_sb_init(&part, p);
        repr_inst(&part, o);
        return part.buf;
    }
    return pformat(p, o, 4);
}

/* "instance['allocations'][0]": error.relative_path as
 * _utils.format_as_index prints it */
static const char *instance_path(apr_pool_t *p, const js_err *e)
{
    sb_t sb;
    char num[32];
    int i;

    pl_jsonschema_sb_init(&sb, p);
    pl_jsonschema_sb_add(&sb, "instance");
    for (i = 0; e->path && i < e->depth; i++) {
        pl_jsonschema_sb_addc(&sb, '[');
        if (e->path[i].key) {
            repr_inst_string(&sb, e->path[i].key, strlen(e->path[i].key));
        }
        else {
            snprintf(num, sizeof(num), "%zu", e->path[i].idx);
            pl_jsonschema_sb_add(&sb, num);
        }
        pl_jsonschema_sb_addc(&sb, ']');
    }
    return sb.buf;
}

/* What str(ValidationError) adds after the message: which keyword failed
 * and the schema and instance involved (clients match "Failed validating
 * 'required' in schema"), both as pprint.pformat(width=72) writes them,
 * indented by four. schema_prefix: the part of the node's path that is
 * not in error.relative_schema_path (the anyOf/oneOf above a branch
 * error), or NULL. */
const char *pl_jsonschema_err_trailer(apr_pool_t *p, const js_err *e,
                                      const char *schema_prefix)
{
    const char *kw = pl_jsonschema_kw_name(e->kw), *path;

    if (kw == NULL || e->node == NULL || e->node->json == NULL) {
        return "";
    }
    path = e->node->path;
    if (schema_prefix &&
        strncmp(path, schema_prefix, strlen(schema_prefix)) == 0) {
        path += strlen(schema_prefix);
    }
    return apr_psprintf(p,
                        "\n\nFailed validating '%s' in schema%s:\n    %s"
                        "\n\nOn %s:\n    %s",
                        kw, path, pformat(p, e->node->json, 4),
                        instance_path(p, e), pformat_inst(p, e->inst));
}
