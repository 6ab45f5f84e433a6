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

#include "pl_err.h"
#include "pl_mv.h"
#include "pl_qs.h"
#include "pl_uuid.h"

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
static const char *qs_sorted_join(apr_pool_t *p, const apr_array_header_t *arr)
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
        *perr = apr_psprintf(p,
                             "Query parameter '%s' may be specified "
                             "only once.",
                             name);
        return APR_EINVAL;
    }
    return APR_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* resources                                                           */
/* ------------------------------------------------------------------ */

#define QS_RESOURCES_FORM                         \
    "Badly formed resources parameter. Expected " \
    "resources query string parameter in form: "  \
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

    if (*pl_py_strip(p, value, strlen(value)) == '\0') {
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
        if (pl_py_int(p, amount, &neg, &digits, &err) != APR_SUCCESS) {
            *perr = apr_psprintf(p,
                                 "Requested resource %s expected positive "
                                 "integer amount. Got: %s.",
                                 name, amount);
            return APR_EINVAL;
        }
        if (neg || strcmp(digits, "0") == 0) {
            *perr = apr_psprintf(p,
                                 "Requested resource %s requires amount "
                                 ">= 1. Got: %s%s.",
                                 name, neg ? "-" : "", digits);
            return APR_EINVAL;
        }
        /* result[rc_name] = amount: a repeated class keeps its place */
        for (j = 0; j < res->nelts; j++) {
            if (strcmp(APR_ARRAY_IDX(res, j, pl_qs_resource_t).name, name) ==
                0) {
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
            *perr = apr_pstrcat(p, QS_INVALID,
                                "The format " QS_ANY_FORM
                                " only supported since microversion 1.39. "
                                "Got: ",
                                value, NULL);
            return APR_EINVAL;
        }
        items = qs_split(p, value + 3, ',');
        set = apr_array_make(p, items->nelts, sizeof(const char *));
        for (i = 0; i < items->nelts; i++) {
            const char *it = APR_ARRAY_IDX(items, i, const char *);

            it = pl_py_strip(p, it, strlen(it));
            empty |= (*it == '\0');
            bang |= (*it == '!');
            qs_set_add(set, it);
        }
        if (empty) {
            *perr = apr_pstrcat(p, QS_INVALID,
                                "Expected 'required' "
                                "parameter value of the form: "
                                "in:HW_CPU_X86_VMX,CUSTOM_MAGIC. Got an "
                                "empty trait in: ",
                                value, NULL);
            return APR_EINVAL;
        }
        if (bang) {
            *perr = apr_pstrcat(p, QS_INVALID,
                                "The format " QS_ANY_FORM
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

            it = pl_py_strip(p, it, strlen(it));
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
            *perr = apr_pstrcat(p, QS_INVALID,
                                "Expected 'required' "
                                "parameter value of the form: ",
                                allow_forbidden ? "HW_CPU_X86_VMX,!CUSTOM_MAGIC"
                                                : "HW_CPU_X86_VMX,CUSTOM_MAGIC",
                                ". Got an empty trait in: ", value, NULL);
            return APR_EINVAL;
        }
        if (forb->nelts && !allow_forbidden) {
            *perr = apr_pstrcat(p, QS_INVALID,
                                "Expected 'required' "
                                "parameter value of the form: "
                                "HW_CPU_X86_VMX,CUSTOM_MAGIC. Got: ",
                                value, NULL);
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
        i = values->nelts - 1; /* up to 1.38 only the last one counts */
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
                                 pl_qs_traits_t **ptraits, const char **perr,
                                 const char **pcode)
{
    pl_qs_traits_t *t = pl_qs_traits_make(p), *parsed;
    apr_array_header_t *conflicts;
    apr_status_t rv;
    int i;

    *pcode = NULL;
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
        *perr = apr_pstrcat(p,
                            "Conflicting required and forbidden traits "
                            "found in root_required: ",
                            qs_sorted_join(p, conflicts), NULL);
        *pcode = PL_ERRC_QUERY_BAD_VALUE;
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
            APR_ARRAY_PUSH(out, const char *) = apr_psprintf(
                p, "required%s: (%s)", suffix, name);
        }
    }
    for (i = 0; i < t->any_of->nelts; i++) {
        const apr_array_header_t *set = APR_ARRAY_IDX(t->any_of, i,
                                                      apr_array_header_t *);
        int all = 1;

        for (j = 0; j < set->nelts && all; j++) {
            all = qs_contains(t->forbidden,
                              APR_ARRAY_IDX(set, j, const char *));
        }
        if (all) {
            APR_ARRAY_PUSH(out, const char *) = apr_psprintf(
                p, "required%s: (%s)", suffix, qs_sorted_join(p, set));
        }
    }
}

const char *pl_qs_traits_conflict_msg(apr_pool_t *p,
                                      apr_array_header_t *conflicts)
{
    if (conflicts->nelts == 0) {
        return NULL;
    }
    qsort(conflicts->elts, conflicts->nelts, sizeof(const char *), qs_strcmp);
    return apr_pstrcat(p,
                       "Conflicting required and forbidden traits found "
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

    if (strchr(value, ',') != NULL && !qs_startswith(value, "in:") &&
        !qs_startswith(value, "!in:")) {
        *perr = apr_pstrcat(p,
                            "Multiple values for 'member_of' must be "
                            "prefixed with the 'in:' or '!in:' keyword "
                            "using the valid microversion. Got: ",
                            value, NULL);
        return APR_EINVAL;
    }
    if (qs_startswith(value, "!in:")) {
        items = qs_split(p, value + 4, ',');
    }
    else if (value[0] == '!') {
        items = qs_split(p, value + 1, ','); /* no ',' in it */
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
            *perr = apr_pstrcat(p, QS_INVALID,
                                "Expected 'member_of' "
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
        *perr = apr_psprintf(p,
                             "Multiple member_of%s parameters are not "
                             "supported",
                             suffix);
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
                *perr = apr_psprintf(p,
                                     "Forbidden member_of%s parameters "
                                     "are not supported in the specified "
                                     "microversion",
                                     suffix);
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

apr_status_t pl_qs_in_tree(apr_pool_t *p, const char *value, const char **puuid,
                           const char **perr)
{
    const char *u = pl_py_strip(p, value, strlen(value));

    if (!pl_uuid_is_like(u)) {
        *perr = apr_pstrcat(p, QS_INVALID,
                            "Expected 'in_tree' parameter "
                            "to be a format of uuid. Got: ",
                            value, NULL);
        return APR_EINVAL;
    }
    *puuid = u;
    return APR_SUCCESS;
}

apr_status_t pl_qs_same_subtree(apr_pool_t *p, const apr_array_header_t *values,
                                apr_array_header_t **psets, const char **perr)
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

            it = pl_py_strip(p, it, strlen(it));
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
    } prefixes[] = { { "resources", PL_QS_GROUP_RESOURCES },
                     { "required", PL_QS_GROUP_REQUIRED },
                     { "member_of", PL_QS_GROUP_MEMBER_OF },
                     { "in_tree", PL_QS_GROUP_IN_TREE } };
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
        *perr = apr_pstrcat(p,
                            "Badly formatted name parameter. Expected "
                            "name query string parameter in form: "
                            "?name=[in|startswith]:[name1,name2|prefix]. "
                            "Got: \"",
                            value, "\"", NULL);
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
