/* Licensed under the Apache License, Version 2.0.
 *
 * pl_qs.c: the query string grammars of placement (see pl_qs.h), and the
 * few pieces of Python string semantics (strip, int, repr) needed to
 * reproduce upstream's acceptance rules and error texts exactly.
 */
#include <stdlib.h>
#include <string.h>

#include <apr_cstr.h>
#include <apr_lib.h>
#include <apr_strings.h>

#include "pl_mv.h"
#include "pl_qs.h"
#include "pl_uuid.h"

/* ------------------------------------------------------------------ */
/* UTF-8 and the Unicode facts Python's str methods rely on            */
/* ------------------------------------------------------------------ */

/* Decode one character at s (not at its end). Returns its length in
 * bytes. A byte that does not start a valid sequence is one character
 * of its own, U+DC00 + byte (Python's "surrogateescape"), which is
 * neither whitespace nor a digit, so nothing is skipped or misread. */
static apr_size_t u8_next(const char *s, apr_uint32_t *pcp)
{
    const unsigned char *u = (const unsigned char *)s;
    apr_uint32_t cp;
    apr_size_t n, i;

    if (u[0] < 0x80) {
        *pcp = u[0];
        return 1;
    }
    if (u[0] >= 0xc2 && u[0] <= 0xdf) {
        cp = u[0] & 0x1f;
        n = 2;
    }
    else if (u[0] >= 0xe0 && u[0] <= 0xef) {
        cp = u[0] & 0x0f;
        n = 3;
    }
    else if (u[0] >= 0xf0 && u[0] <= 0xf4) {
        cp = u[0] & 0x07;
        n = 4;
    }
    else {
        *pcp = 0xdc00 + u[0];
        return 1;
    }
    for (i = 1; i < n; i++) {
        if ((u[i] & 0xc0) != 0x80) {
            *pcp = 0xdc00 + u[0];
            return 1;
        }
        cp = (cp << 6) | (u[i] & 0x3f);
    }
    if ((n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff)))
        || (n == 4 && (cp < 0x10000 || cp > 0x10ffff))) {
        *pcp = 0xdc00 + u[0];
        return 1;
    }
    *pcp = cp;
    return n;
}

/* str.isspace() (Unicode 14, Python 3.11). */
static int py_isspace(apr_uint32_t cp)
{
    return (cp >= 0x09 && cp <= 0x0d) || (cp >= 0x1c && cp <= 0x20)
           || cp == 0x85 || cp == 0xa0 || cp == 0x1680
           || (cp >= 0x2000 && cp <= 0x200a) || cp == 0x2028
           || cp == 0x2029 || cp == 0x202f || cp == 0x205f || cp == 0x3000;
}

/* The zero of every run of Unicode decimal digits (category Nd, Unicode
 * 14.0); each run holds the ten digits 0-9 in order. */
static const apr_uint32_t nd_zeros[] = {
    0x30, 0x660, 0x6F0, 0x7C0, 0x966, 0x9E6, 0xA66, 0xAE6, 0xB66, 0xBE6,
    0xC66, 0xCE6, 0xD66, 0xDE6, 0xE50, 0xED0, 0xF20, 0x1040, 0x1090,
    0x17E0, 0x1810, 0x1946, 0x19D0, 0x1A80, 0x1A90, 0x1B50, 0x1BB0,
    0x1C40, 0x1C50, 0xA620, 0xA8D0, 0xA900, 0xA9D0, 0xA9F0, 0xAA50,
    0xABF0, 0xFF10, 0x104A0, 0x10D30, 0x11066, 0x110F0, 0x11136, 0x111D0,
    0x112F0, 0x11450, 0x114D0, 0x11650, 0x116C0, 0x11730, 0x118E0,
    0x11950, 0x11C50, 0x11D50, 0x11DA0, 0x16A60, 0x16AC0, 0x16B50,
    0x1D7CE, 0x1D7D8, 0x1D7E2, 0x1D7EC, 0x1D7F6, 0x1E140, 0x1E2F0,
    0x1E950, 0x1FBF0
};

/* The decimal value of cp (unicodedata.decimal), or -1. */
static int py_decimal(apr_uint32_t cp)
{
    apr_size_t i;

    for (i = 0; i < sizeof(nd_zeros) / sizeof(nd_zeros[0]); i++) {
        if (cp < nd_zeros[i]) {
            break;
        }
        if (cp < nd_zeros[i] + 10) {
            return (int)(cp - nd_zeros[i]);
        }
    }
    return -1;
}

/* str.isprintable() for cp <= 0xff and for surrogates; other characters
 * are taken as printable (see pl_qs_py_repr in pl_qs.h). */
static int py_isprintable(apr_uint32_t cp)
{
    if (cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp <= 0xa0)
        || cp == 0xad || (cp >= 0xd800 && cp <= 0xdfff)) {
        return 0;
    }
    return 1;
}

apr_size_t pl_qs_py_space(const char *s)
{
    apr_uint32_t cp;
    apr_size_t n;

    if (s == NULL || *s == '\0') {
        return 0;
    }
    n = u8_next(s, &cp);
    return py_isspace(cp) ? n : 0;
}

apr_size_t pl_qs_u8_len(const char *s)
{
    apr_uint32_t cp;

    return (s == NULL || *s == '\0') ? 0 : u8_next(s, &cp);
}

const char *pl_qs_py_strip(apr_pool_t *p, const char *s, apr_size_t len)
{
    const char *end = s + len, *start, *last;
    apr_size_t n;

    while (s < end && (n = pl_qs_py_space(s)) > 0 && s + n <= end) {
        s += n;
    }
    start = s;
    last = s;                   /* end of the last non-space character */
    while (s < end) {
        apr_uint32_t cp;

        n = u8_next(s, &cp);
        s += n;
        if (!py_isspace(cp)) {
            last = s;
        }
    }
    if (last > end) {
        last = end;
    }
    return apr_pstrmemdup(p, start, last - start);
}

const char *pl_qs_py_repr(apr_pool_t *p, const char *s, apr_size_t maxchars)
{
    /* worst case: "\U0010ffff" (10 chars) per input byte, plus quotes */
    char *out = apr_palloc(p, strlen(s) * 10 + 3), *o = out;
    char quote = '\'';
    const char *q;
    apr_size_t nchars;

    if (strchr(s, '\'') && !strchr(s, '"')) {
        quote = '"';
    }
    *o++ = quote;
    for (q = s; *q; ) {
        apr_uint32_t cp;
        apr_size_t n = u8_next(q, &cp);

        if (cp == (apr_uint32_t)quote || cp == '\\') {
            *o++ = '\\';
            *o++ = (char)cp;
        }
        else if (cp == '\t' || cp == '\n' || cp == '\r') {
            *o++ = '\\';
            *o++ = cp == '\t' ? 't' : cp == '\n' ? 'n' : 'r';
        }
        else if (!py_isprintable(cp)) {
            if (cp <= 0xff) {
                o += apr_snprintf(o, 5, "\\x%02x", (unsigned)cp);
            }
            else if (cp <= 0xffff) {
                o += apr_snprintf(o, 7, "\\u%04x", (unsigned)cp);
            }
            else {
                o += apr_snprintf(o, 11, "\\U%08x", (unsigned)cp);
            }
        }
        else {
            memcpy(o, q, n);
            o += n;
        }
        q += n;
    }
    *o++ = quote;
    *o = '\0';

    if (maxchars) {
        /* "%.200R": keep the first maxchars characters of the repr */
        for (q = out, nchars = 0; *q && nchars < maxchars; nchars++) {
            apr_uint32_t cp;

            q += u8_next(q, &cp);
        }
        out[q - out] = '\0';
    }
    return out;
}

apr_status_t pl_qs_py_int(apr_pool_t *p, const char *s, int *pneg,
                          const char **pdigits, const char **perr)
{
    apr_size_t len = strlen(s), ndigits = 0;
    char *ascii = apr_palloc(p, len + 1), *a = ascii, *digits, *d;
    const char *q;
    int neg = 0;
    char prev = '\0';

    /* int() of a str first maps Unicode whitespace to ' ' and decimal
     * digits to ASCII ones; anything else non-ASCII cannot be valid. */
    for (q = s; *q; ) {
        apr_uint32_t cp;
        int dv;

        q += u8_next(q, &cp);
        if (py_isspace(cp)) {
            *a++ = ' ';
        }
        else if ((dv = py_decimal(cp)) >= 0) {
            *a++ = (char)('0' + dv);
        }
        else if (cp < 0x80) {
            *a++ = (char)cp;
        }
        else {
            *a++ = '?';
        }
    }
    *a = '\0';

    digits = d = apr_palloc(p, (a - ascii) + 2);
    a = ascii;
    while (*a == ' ') {
        a++;
    }
    if (*a == '+' || *a == '-') {
        neg = (*a == '-');
        a++;
    }
    if (*a == '_') {
        goto invalid;
    }
    while (apr_isdigit(*a) || *a == '_') {
        if (*a == '_') {
            if (prev == '_') {
                goto invalid;
            }
        }
        else {
            ndigits++;
            if (d != digits || *a != '0') {
                *d++ = *a;      /* drop leading zeros */
            }
        }
        prev = *a++;
    }
    if (prev == '_') {
        goto invalid;
    }
    if (ndigits > PL_QS_PY_INT_MAX_DIGITS) {
        *perr = apr_psprintf(p, "Exceeds the limit (%d digits) for integer "
                             "string conversion: value has %" APR_SIZE_T_FMT
                             " digits; use sys.set_int_max_str_digits() to "
                             "increase the limit", PL_QS_PY_INT_MAX_DIGITS,
                             ndigits);
        return APR_EINVAL;
    }
    if (ndigits == 0) {
        goto invalid;
    }
    while (*a == ' ') {
        a++;
    }
    if (*a != '\0') {
        goto invalid;
    }
    if (d == digits) {
        *d++ = '0';
        neg = 0;
    }
    *d = '\0';
    *pneg = neg;
    *pdigits = digits;
    return APR_SUCCESS;

invalid:
    *perr = apr_pstrcat(p, "invalid literal for int() with base 10: ",
                        pl_qs_py_repr(p, s, 200), NULL);
    return APR_EINVAL;
}

/* ------------------------------------------------------------------ */
/* Small helpers                                                       */
/* ------------------------------------------------------------------ */

static int qs_startswith(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* Python's s.split(sep) (no limit): always at least one item. */
static apr_array_header_t *qs_split(apr_pool_t *p, const char *s, char sep)
{
    apr_array_header_t *arr = apr_array_make(p, 4, sizeof(const char *));
    const char *c;

    while ((c = strchr(s, sep)) != NULL) {
        APR_ARRAY_PUSH(arr, const char *) = apr_pstrmemdup(p, s, c - s);
        s = c + 1;
    }
    APR_ARRAY_PUSH(arr, const char *) = apr_pstrdup(p, s);
    return arr;
}

static int qs_contains(const apr_array_header_t *arr, const char *s)
{
    int i;

    for (i = 0; i < arr->nelts; i++) {
        if (strcmp(APR_ARRAY_IDX(arr, i, const char *), s) == 0) {
            return 1;
        }
    }
    return 0;
}

/* Add s to the set arr unless it is there already. */
static void qs_set_add(apr_array_header_t *arr, const char *s)
{
    if (!qs_contains(arr, s)) {
        APR_ARRAY_PUSH(arr, const char *) = s;
    }
}

static int qs_strcmp(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static const char *qs_join(apr_pool_t *p, const apr_array_header_t *arr,
                           const char *sep)
{
    apr_size_t len = 0, seplen = strlen(sep), n;
    char *out, *o;
    int i;

    for (i = 0; i < arr->nelts; i++) {
        len += strlen(APR_ARRAY_IDX(arr, i, const char *)) + seplen;
    }
    out = o = apr_palloc(p, len + 1);
    for (i = 0; i < arr->nelts; i++) {
        const char *item = APR_ARRAY_IDX(arr, i, const char *);

        if (i > 0) {
            memcpy(o, sep, seplen);
            o += seplen;
        }
        n = strlen(item);
        memcpy(o, item, n);
        o += n;
    }
    *o = '\0';
    return out;
}

/* Sort a copy of arr (Python's sorted() on str is code point order,
 * which strcmp on UTF-8 preserves) and join it with ", ". */
static const char *qs_sorted_join(apr_pool_t *p,
                                  const apr_array_header_t *arr)
{
    apr_array_header_t *copy = apr_array_copy(p, arr);

    if (copy->nelts > 1) {
        qsort(copy->elts, copy->nelts, sizeof(const char *), qs_strcmp);
    }
    return qs_join(p, copy, ", ");
}

/* ------------------------------------------------------------------ */
/* Generic                                                             */
/* ------------------------------------------------------------------ */

apr_status_t pl_qs_once(apr_pool_t *p, const char *name, int count,
                        const char **perr)
{
    if (count > 1) {
        *perr = apr_psprintf(p, "Query parameter '%s' may be specified "
                             "only once.", name);
        return APR_EINVAL;
    }
    return APR_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* resources                                                           */
/* ------------------------------------------------------------------ */

#define QS_RESOURCES_FORM "Badly formed resources parameter. Expected " \
    "resources query string parameter in form: " \
    "?resources=VCPU:2,MEMORY_MB:1024. Got: "

/* The int64 value of a string of ASCII digits, clamped at
 * APR_INT64_MAX. */
static apr_int64_t qs_digits_to_int64(const char *digits)
{
    apr_uint64_t v = 0;

    for (; *digits; digits++) {
        unsigned d = (unsigned)(*digits - '0');

        if (v > ((apr_uint64_t)APR_INT64_MAX - d) / 10) {
            return APR_INT64_MAX;
        }
        v = v * 10 + d;
    }
    return (apr_int64_t)v;
}

apr_status_t pl_qs_resources(apr_pool_t *p, const char *value,
                             apr_array_header_t **pres, const char **perr)
{
    apr_array_header_t *items, *res;
    int i, j;

    if (*pl_qs_py_strip(p, value, strlen(value)) == '\0') {
        *perr = QS_RESOURCES_FORM "empty string.";
        return APR_EINVAL;
    }
    items = qs_split(p, value, ',');
    res = apr_array_make(p, items->nelts, sizeof(pl_qs_resource_t));
    for (i = 0; i < items->nelts; i++) {
        const char *rt = APR_ARRAY_IDX(items, i, const char *);
        const char *colon = strchr(rt, ':'), *name, *amount, *digits, *err;
        pl_qs_resource_t *r = NULL;
        int neg;

        /* rc_name, amount = rt.split(':'): exactly one colon */
        if (colon == NULL || strchr(colon + 1, ':') != NULL) {
            *perr = apr_pstrcat(p, QS_RESOURCES_FORM, rt, ".", NULL);
            return APR_EINVAL;
        }
        name = apr_pstrmemdup(p, rt, colon - rt);
        amount = colon + 1;
        if (pl_qs_py_int(p, amount, &neg, &digits, &err) != APR_SUCCESS) {
            *perr = apr_psprintf(p, "Requested resource %s expected positive "
                                 "integer amount. Got: %s.", name, amount);
            return APR_EINVAL;
        }
        if (neg || strcmp(digits, "0") == 0) {
            *perr = apr_psprintf(p, "Requested resource %s requires amount "
                                 ">= 1. Got: %s%s.", name, neg ? "-" : "",
                                 digits);
            return APR_EINVAL;
        }
        /* result[rc_name] = amount: a repeated class keeps its place */
        for (j = 0; j < res->nelts; j++) {
            if (strcmp(APR_ARRAY_IDX(res, j, pl_qs_resource_t).name,
                       name) == 0) {
                r = &APR_ARRAY_IDX(res, j, pl_qs_resource_t);
                break;
            }
        }
        if (r == NULL) {
            r = &APR_ARRAY_PUSH(res, pl_qs_resource_t);
            r->name = name;
        }
        r->amount = qs_digits_to_int64(digits);
    }
    *pres = res;
    return APR_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* traits                                                              */
/* ------------------------------------------------------------------ */

#define QS_INVALID "Invalid query string parameters: "
#define QS_ANY_FORM "'in:HW_CPU_X86_VMX,CUSTOM_MAGIC'"

pl_qs_traits_t *pl_qs_traits_make(apr_pool_t *p)
{
    pl_qs_traits_t *t = apr_palloc(p, sizeof(*t));

    t->required = apr_array_make(p, 4, sizeof(const char *));
    t->any_of = apr_array_make(p, 1, sizeof(apr_array_header_t *));
    t->forbidden = apr_array_make(p, 1, sizeof(const char *));
    return t;
}

apr_status_t pl_qs_traits_value(apr_pool_t *p, const char *value,
                                int allow_forbidden, int allow_any,
                                pl_qs_traits_t *t, const char **perr)
{
    apr_array_header_t *items;
    int i;

    if (qs_startswith(value, "in:")) {
        apr_array_header_t *set;
        int empty = 0, bang = 0;

        if (!allow_any) {
            *perr = apr_pstrcat(p, QS_INVALID, "The format " QS_ANY_FORM
                                " only supported since microversion 1.39. "
                                "Got: ", value, NULL);
            return APR_EINVAL;
        }
        items = qs_split(p, value + 3, ',');
        set = apr_array_make(p, items->nelts, sizeof(const char *));
        for (i = 0; i < items->nelts; i++) {
            const char *it = APR_ARRAY_IDX(items, i, const char *);

            it = pl_qs_py_strip(p, it, strlen(it));
            empty |= (*it == '\0');
            bang |= (*it == '!');
            qs_set_add(set, it);
        }
        if (empty) {
            *perr = apr_pstrcat(p, QS_INVALID, "Expected 'required' "
                                "parameter value of the form: "
                                "in:HW_CPU_X86_VMX,CUSTOM_MAGIC. Got an "
                                "empty trait in: ", value, NULL);
            return APR_EINVAL;
        }
        if (bang) {
            *perr = apr_pstrcat(p, QS_INVALID, "The format " QS_ANY_FORM
                                " does not support forbidden traits. Got: ",
                                value, NULL);
            return APR_EINVAL;
        }
        APR_ARRAY_PUSH(t->any_of, apr_array_header_t *) = set;
        return APR_SUCCESS;
    }
    else {
        apr_array_header_t *req, *forb;
        int empty = 0;

        items = qs_split(p, value, ',');
        req = apr_array_make(p, items->nelts, sizeof(const char *));
        forb = apr_array_make(p, 1, sizeof(const char *));
        for (i = 0; i < items->nelts; i++) {
            const char *it = APR_ARRAY_IDX(items, i, const char *);

            it = pl_qs_py_strip(p, it, strlen(it));
            if (*it == '!') {
                /* lstrip('!'): "!!!FOO" forbids FOO (upstream keeps this
                 * undocumented leniency) */
                while (*it == '!') {
                    it++;
                }
                empty |= (*it == '\0');
                qs_set_add(forb, it);
            }
            else {
                empty |= (*it == '\0');
                APR_ARRAY_PUSH(req, const char *) = it;
            }
        }
        if (empty) {
            *perr = apr_pstrcat(p, QS_INVALID, "Expected 'required' "
                                "parameter value of the form: ",
                                allow_forbidden
                                ? "HW_CPU_X86_VMX,!CUSTOM_MAGIC"
                                : "HW_CPU_X86_VMX,CUSTOM_MAGIC",
                                ". Got an empty trait in: ", value, NULL);
            return APR_EINVAL;
        }
        if (forb->nelts && !allow_forbidden) {
            *perr = apr_pstrcat(p, QS_INVALID, "Expected 'required' "
                                "parameter value of the form: "
                                "HW_CPU_X86_VMX,CUSTOM_MAGIC. Got: ", value,
                                NULL);
            return APR_EINVAL;
        }
        apr_array_cat(t->required, req);
        for (i = 0; i < forb->nelts; i++) {
            qs_set_add(t->forbidden, APR_ARRAY_IDX(forb, i, const char *));
        }
        return APR_SUCCESS;
    }
}

apr_status_t pl_qs_required(apr_pool_t *p, int mv,
                            const apr_array_header_t *values,
                            pl_qs_traits_t **ptraits, const char **perr)
{
    pl_qs_traits_t *t = pl_qs_traits_make(p);
    int allow_forbidden = mv >= PL_MV(1, 22);
    int allow_any = mv >= PL_MV(1, 39);
    int i = 0;
    apr_status_t rv;

    if (!allow_any && values->nelts > 0) {
        i = values->nelts - 1;  /* up to 1.38 only the last one counts */
    }
    for (; i < values->nelts; i++) {
        rv = pl_qs_traits_value(p, APR_ARRAY_IDX(values, i, const char *),
                                allow_forbidden, allow_any, t, perr);
        if (rv != APR_SUCCESS) {
            return rv;
        }
    }
    *ptraits = t;
    return APR_SUCCESS;
}

apr_status_t pl_qs_root_required(apr_pool_t *p,
                                 const apr_array_header_t *values,
                                 pl_qs_traits_t **ptraits,
                                 const char **perr)
{
    pl_qs_traits_t *t = pl_qs_traits_make(p), *parsed;
    apr_array_header_t *conflicts;
    apr_status_t rv;
    int i;

    rv = pl_qs_once(p, "root_required", values->nelts, perr);
    if (rv != APR_SUCCESS || values->nelts == 0) {
        *ptraits = t;
        return rv;
    }
    parsed = pl_qs_traits_make(p);
    rv = pl_qs_traits_value(p, APR_ARRAY_IDX(values, 0, const char *), 1, 0,
                            parsed, perr);
    if (rv != APR_SUCCESS) {
        return rv;
    }
    /* upstream folds the result into one set of names ("!" + forbidden)
     * and splits it again: required loses its duplicates */
    conflicts = apr_array_make(p, 1, sizeof(const char *));
    for (i = 0; i < parsed->required->nelts; i++) {
        const char *name = APR_ARRAY_IDX(parsed->required, i, const char *);

        qs_set_add(t->required, name);
        if (qs_contains(parsed->forbidden, name)) {
            qs_set_add(conflicts, name);
        }
    }
    t->forbidden = parsed->forbidden;
    if (conflicts->nelts) {
        *perr = apr_pstrcat(p, "Conflicting required and forbidden traits "
                            "found in root_required: ",
                            qs_sorted_join(p, conflicts), NULL);
        return APR_EINVAL;
    }
    *ptraits = t;
    return APR_SUCCESS;
}

void pl_qs_traits_conflicts(apr_pool_t *p, const pl_qs_traits_t *t,
                            const char *suffix, apr_array_header_t *out)
{
    int i, j;

    for (i = 0; i < t->required->nelts; i++) {
        const char *name = APR_ARRAY_IDX(t->required, i, const char *);

        if (qs_contains(t->forbidden, name)) {
            APR_ARRAY_PUSH(out, const char *) =
                apr_psprintf(p, "required%s: (%s)", suffix, name);
        }
    }
    for (i = 0; i < t->any_of->nelts; i++) {
        const apr_array_header_t *set =
            APR_ARRAY_IDX(t->any_of, i, apr_array_header_t *);
        int all = 1;

        for (j = 0; j < set->nelts && all; j++) {
            all = qs_contains(t->forbidden,
                              APR_ARRAY_IDX(set, j, const char *));
        }
        if (all) {
            APR_ARRAY_PUSH(out, const char *) =
                apr_psprintf(p, "required%s: (%s)", suffix,
                             qs_sorted_join(p, set));
        }
    }
}

const char *pl_qs_traits_conflict_msg(apr_pool_t *p,
                                      apr_array_header_t *conflicts)
{
    if (conflicts->nelts == 0) {
        return NULL;
    }
    qsort(conflicts->elts, conflicts->nelts, sizeof(const char *),
          qs_strcmp);
    return apr_pstrcat(p, "Conflicting required and forbidden traits found "
                       "in the following traits keys: ",
                       qs_join(p, conflicts, ", "), NULL);
}

/* ------------------------------------------------------------------ */
/* member_of                                                           */
/* ------------------------------------------------------------------ */

apr_status_t pl_qs_member_of_value(apr_pool_t *p, const char *value,
                                   apr_array_header_t **prequired,
                                   apr_array_header_t **pforbidden,
                                   const char **perr)
{
    apr_array_header_t *items, *set, *empty;
    int i;

    if (strchr(value, ',') != NULL && !qs_startswith(value, "in:")
        && !qs_startswith(value, "!in:")) {
        *perr = apr_pstrcat(p, "Multiple values for 'member_of' must be "
                            "prefixed with the 'in:' or '!in:' keyword "
                            "using the valid microversion. Got: ", value,
                            NULL);
        return APR_EINVAL;
    }
    if (qs_startswith(value, "!in:")) {
        items = qs_split(p, value + 4, ',');
    }
    else if (value[0] == '!') {
        items = qs_split(p, value + 1, ',');    /* no ',' in it */
    }
    else if (qs_startswith(value, "in:")) {
        items = qs_split(p, value + 3, ',');
    }
    else {
        items = qs_split(p, value, ',');
    }
    set = apr_array_make(p, items->nelts, sizeof(const char *));
    for (i = 0; i < items->nelts; i++) {
        const char *u = APR_ARRAY_IDX(items, i, const char *);

        /* upstream checks a set, in no particular order: we report the
         * first bad one given */
        if (!pl_uuid_is_like(u)) {
            *perr = apr_pstrcat(p, QS_INVALID, "Expected 'member_of' "
                                "parameter to contain valid UUID(s). Got: ",
                                u, NULL);
            return APR_EINVAL;
        }
        qs_set_add(set, u);
    }
    empty = apr_array_make(p, 1, sizeof(const char *));
    if (value[0] == '!') {
        *prequired = empty;
        *pforbidden = set;
    }
    else {
        *prequired = set;
        *pforbidden = empty;
    }
    return APR_SUCCESS;
}

apr_status_t pl_qs_member_of(apr_pool_t *p, int mv, const char *suffix,
                             const apr_array_header_t *values,
                             pl_qs_member_of_t **pmo, const char **perr)
{
    pl_qs_member_of_t *mo = apr_palloc(p, sizeof(*mo));
    int i, j;

    if (mv < PL_MV(1, 24) && values->nelts > 1) {
        *perr = apr_psprintf(p, "Multiple member_of%s parameters are not "
                             "supported", suffix);
        return APR_EINVAL;
    }
    mo->any_of = apr_array_make(p, values->nelts, sizeof(apr_array_header_t *));
    mo->forbidden = apr_array_make(p, 1, sizeof(const char *));
    for (i = 0; i < values->nelts; i++) {
        apr_array_header_t *req, *forb;
        apr_status_t rv;

        rv = pl_qs_member_of_value(p, APR_ARRAY_IDX(values, i, const char *),
                                   &req, &forb, perr);
        if (rv != APR_SUCCESS) {
            return rv;
        }
        if (req->nelts) {
            APR_ARRAY_PUSH(mo->any_of, apr_array_header_t *) = req;
        }
        if (forb->nelts) {
            if (mv < PL_MV(1, 32)) {
                *perr = apr_psprintf(p, "Forbidden member_of%s parameters "
                                     "are not supported in the specified "
                                     "microversion", suffix);
                return APR_EINVAL;
            }
            for (j = 0; j < forb->nelts; j++) {
                qs_set_add(mo->forbidden, APR_ARRAY_IDX(forb, j, const char *));
            }
        }
    }
    *pmo = mo;
    return APR_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* in_tree, same_subtree, group keys                                   */
/* ------------------------------------------------------------------ */

apr_status_t pl_qs_in_tree(apr_pool_t *p, const char *value,
                           const char **puuid, const char **perr)
{
    const char *u = pl_qs_py_strip(p, value, strlen(value));

    if (!pl_uuid_is_like(u)) {
        *perr = apr_pstrcat(p, QS_INVALID, "Expected 'in_tree' parameter "
                            "to be a format of uuid. Got: ", value, NULL);
        return APR_EINVAL;
    }
    *puuid = u;
    return APR_SUCCESS;
}

apr_status_t pl_qs_same_subtree(apr_pool_t *p,
                                const apr_array_header_t *values,
                                apr_array_header_t **psets,
                                const char **perr)
{
    apr_array_header_t *sets;
    int i, j;

    sets = apr_array_make(p, values->nelts, sizeof(apr_array_header_t *));
    for (i = 0; i < values->nelts; i++) {
        apr_array_header_t *items, *set;

        items = qs_split(p, APR_ARRAY_IDX(values, i, const char *), ',');
        set = apr_array_make(p, items->nelts, sizeof(const char *));
        for (j = 0; j < items->nelts; j++) {
            const char *it = APR_ARRAY_IDX(items, j, const char *);

            it = pl_qs_py_strip(p, it, strlen(it));
            if (*it == '\0') {
                *perr = "Empty string (unsuffixed group) can not be "
                        "specified in `same_subtree` ";
                return APR_EINVAL;
            }
            qs_set_add(set, it);
        }
        APR_ARRAY_PUSH(sets, apr_array_header_t *) = set;
    }
    *psets = sets;
    return APR_SUCCESS;
}

apr_status_t pl_qs_group_key(int mv, const char *key, pl_qs_group_e *pwhich,
                             const char **psuffix)
{
    static const struct {
        const char *prefix;
        pl_qs_group_e which;
    } prefixes[] = {
        { "resources", PL_QS_GROUP_RESOURCES },
        { "required",  PL_QS_GROUP_REQUIRED  },
        { "member_of", PL_QS_GROUP_MEMBER_OF },
        { "in_tree",   PL_QS_GROUP_IN_TREE   }
    };
    apr_size_t i;

    for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
        const char *s;
        apr_size_t n = strlen(prefixes[i].prefix);

        if (strncmp(key, prefixes[i].prefix, n) != 0) {
            continue;
        }
        s = key + n;
        if (mv >= PL_MV(1, 33)) {
            /* [a-zA-Z0-9_-]{1,64} */
            apr_size_t len = strspn(s, "abcdefghijklmnopqrstuvwxyz"
                                       "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                       "0123456789_-");
            if (s[len] != '\0' || len > 64) {
                return APR_ENOENT;
            }
        }
        else if (*s != '\0') {
            /* [1-9][0-9]* */
            if (*s < '1' || *s > '9' || s[strspn(s, "0123456789")] != '\0') {
                return APR_ENOENT;
            }
        }
        *pwhich = prefixes[i].which;
        *psuffix = s;
        return APR_SUCCESS;
    }
    return APR_ENOENT;
}

/* ------------------------------------------------------------------ */
/* GET /traits                                                         */
/* ------------------------------------------------------------------ */

apr_status_t pl_qs_trait_name(apr_pool_t *p, const char *value,
                              pl_qs_trait_name_t **pf, const char **perr)
{
    const char *colon = strchr(value, ':');
    pl_qs_trait_name_t *f;

    if (colon == NULL) {
        *perr = apr_pstrcat(p, "Badly formatted name parameter. Expected "
                            "name query string parameter in form: "
                            "?name=[in|startswith]:[name1,name2|prefix]. "
                            "Got: \"", value, "\"", NULL);
        return APR_EINVAL;
    }
    f = apr_pcalloc(p, sizeof(*f));
    f->op = PL_QS_NAME_ANY;
    if (colon - value == 2 && strncmp(value, "in", 2) == 0) {
        f->op = PL_QS_NAME_IN;
        f->names = qs_split(p, colon + 1, ',');
    }
    else if (colon - value == 10 && strncmp(value, "startswith", 10) == 0) {
        f->op = PL_QS_NAME_STARTSWITH;
        f->prefix = apr_pstrdup(p, colon + 1);
    }
    *pf = f;
    return APR_SUCCESS;
}

apr_status_t pl_qs_associated(apr_pool_t *p, const char *value,
                              int *passociated, const char **perr)
{
    (void)p;
    /* value.lower(): no non-ASCII character lowers to "true"/"false" */
    if (apr_cstr_casecmp(value, "true") == 0) {
        *passociated = 1;
        return APR_SUCCESS;
    }
    if (apr_cstr_casecmp(value, "false") == 0) {
        *passociated = 0;
        return APR_SUCCESS;
    }
    *perr = "The query parameter \"associated\" only accepts \"true\" or "
            "\"false\"";
    return APR_EINVAL;
}
