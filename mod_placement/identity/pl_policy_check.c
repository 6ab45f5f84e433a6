/* Licensed under the Apache License, Version 2.0.
 *
 * pl_policy_check.c: oslo.policy check strings, compiled once into a small
 * tree and evaluated against a caller and a target. Pure C on APR.
 *
 * The language is oslo.policy 4.0.0's (_parser.py, _checks.py): words are
 * split on blanks, "(" and ")" peeled off their ends (so
 * "project_id:%(project_id)s" stays one word), "and", "or", "not" in any
 * case; "and" binds tighter than "or". A check is "@" (always), "!"
 * (never), "rule:NAME", "role:NAME" (case-insensitive), or a generic
 * "LEFT:RIGHT" where LEFT is a credential (user_id, project_id,
 * system_scope, roles, ...) or a Python literal (True, 'x', 42) and RIGHT
 * is text with %(name)s taken from the target. "" is always.
 */
#include <string.h>
#include <strings.h>
#include <ctype.h>

#include <apr_strings.h>

#include "pl_policy.h"

typedef enum {
    PX_TRUE,
    PX_FALSE,
    PX_NOT,
    PX_AND,
    PX_OR,
    PX_RULE,
    PX_ROLE,
    PX_GENERIC
} px_kind_e;

/* One piece of a right-hand side: literal text or %(key)s. */
typedef struct {
    const char *text;
    apr_size_t len;
    const char *key;
} px_piece_t;

struct pl_policy_expr_t {
    px_kind_e kind;
    int n; /* kids of not/and/or */
    const pl_policy_expr_t **kids;
    const char *name;         /* rule: name; generic: credential */
    const char *literal;      /* generic: left as str(literal) */
    const px_piece_t *pieces; /* role / generic: the right side */
    int npieces;
};

/* ---- tokens ---- */

typedef enum {
    TK_END,
    TK_LP,
    TK_RP,
    TK_AND,
    TK_OR,
    TK_NOT,
    TK_CHECK,
    TK_STRING
} tk_e;

typedef struct {
    tk_e type;
    const char *text; /* check / string */
} tok_t;

typedef struct {
    apr_pool_t *p;
    const char *check;
    apr_array_header_t *toks; /* tok_t */
    int pos;
    int nest;
    const char *err;
} parse_t;

#define MAX_NEST 64

static void push_tok(parse_t *ps, tk_e type, const char *text)
{
    tok_t *t = apr_array_push(ps->toks);

    t->type = type;
    t->text = text;
}

/* oslo's _parse_tokenize */
static void tokenize(parse_t *ps)
{
    const char *s = ps->check;

    while (*s) {
        const char *w, *end, *clean, *cend;
        apr_size_t wlen;

        while (*s && isspace((unsigned char)*s)) {
            s++;
        }
        if (!*s) {
            break;
        }
        w = s;
        while (*s && !isspace((unsigned char)*s)) {
            s++;
        }
        end = s;
        for (clean = w; clean < end && *clean == '('; clean++) {
            push_tok(ps, TK_LP, "(");
        }
        if (clean == end) {
            continue;
        }
        cend = end;
        while (cend > clean && cend[-1] == ')') {
            cend--;
        }
        wlen = cend - clean;
        if (wlen == 3 && !strncasecmp(clean, "and", 3)) {
            push_tok(ps, TK_AND, "and");
        }
        else if (wlen == 2 && !strncasecmp(clean, "or", 2)) {
            push_tok(ps, TK_OR, "or");
        }
        else if (wlen == 3 && !strncasecmp(clean, "not", 3)) {
            push_tok(ps, TK_NOT, "not");
        }
        else if (wlen > 0) {
            /* as oslo: the quotes are looked for on the word with its
             * closing parentheses still on */
            int quoted = end - clean >= 2 &&
                         (*clean == '"' || *clean == '\'') && end[-1] == *clean;

            push_tok(ps, quoted ? TK_STRING : TK_CHECK,
                     apr_pstrmemdup(ps->p, clean, wlen));
        }
        for (; cend < end; cend++) {
            push_tok(ps, TK_RP, ")");
        }
    }
    push_tok(ps, TK_END, NULL);
}

/* ---- atoms ---- */

static pl_policy_expr_t *node(parse_t *ps, px_kind_e kind)
{
    pl_policy_expr_t *e = apr_pcalloc(ps->p, sizeof(*e));

    e->kind = kind;
    return e;
}

/* The right side: text and %(key)s, as Python's "match % target". */
static int compile_match(parse_t *ps, pl_policy_expr_t *e, const char *m)
{
    apr_array_header_t *pieces = apr_array_make(ps->p, 2, sizeof(px_piece_t));
    const char *s = m;

    while (*s) {
        px_piece_t *pc = apr_array_push(pieces);
        const char *pct = strchr(s, '%');

        memset(pc, 0, sizeof(*pc));
        if (pct != s) {
            pc->text = s;
            pc->len = pct ? (apr_size_t)(pct - s) : strlen(s);
            s += pc->len;
            continue;
        }
        if (s[1] == '%') {
            pc->text = "%";
            pc->len = 1;
            s += 2;
            continue;
        }
        if (s[1] == '(') {
            const char *close = strchr(s + 2, ')');

            if (close && close[1] == 's') {
                pc->key = apr_pstrmemdup(ps->p, s + 2, close - (s + 2));
                s = close + 2;
                continue;
            }
        }
        ps->err = apr_psprintf(ps->p,
                               "'%s': a %% must start %%(name)s "
                               "or be doubled (%%%%)",
                               m);
        return 0;
    }
    e->pieces = (const px_piece_t *)pieces->elts;
    e->npieces = pieces->nelts;
    return 1;
}

/* A generic check's left side as str(ast.literal_eval(left)), or NULL
 * when it is a credential name; *bad when it looks like a literal we do
 * not evaluate. */
static const char *literal_of(apr_pool_t *p, const char *k, int *bad)
{
    apr_size_t len = strlen(k);
    const char *d;

    *bad = 0;
    if (!strcmp(k, "True") || !strcmp(k, "False") || !strcmp(k, "None")) {
        return k;
    }
    if (len >= 2 && (k[0] == '\'' || k[0] == '"') && k[len - 1] == k[0]) {
        if (memchr(k + 1, k[0], len - 2) || memchr(k + 1, '\\', len - 2)) {
            *bad = 1;
            return NULL;
        }
        return apr_pstrmemdup(p, k + 1, len - 2);
    }
    d = k + (*k == '-' || *k == '+');
    if (*d && strspn(d, "0123456789") == strlen(d) &&
        (d[0] != '0' || d[1] == '\0')) {
        /* str(int): no sign for +n and for -0 */
        return (*k == '-' && strcmp(d, "0") != 0) ? k : d;
    }
    *bad = strchr("0123456789'\"-+.[{", *k) != NULL;
    return NULL;
}

/* oslo's _parse_check */
static pl_policy_expr_t *compile_atom(parse_t *ps, const char *w)
{
    const char *colon = strchr(w, ':');
    const char *kind, *match;
    pl_policy_expr_t *e;
    int bad;

    if (!strcmp(w, "@")) {
        return node(ps, PX_TRUE);
    }
    if (!strcmp(w, "!")) {
        return node(ps, PX_FALSE);
    }
    if (colon == NULL || colon == w) {
        ps->err = apr_psprintf(ps->p,
                               "'%s' is not a check (KIND:VALUE, "
                               "@ or !)",
                               w);
        return NULL;
    }
    kind = apr_pstrmemdup(ps->p, w, colon - w);
    match = colon + 1;
    if (!strcmp(kind, "rule")) {
        if (!*match) {
            ps->err = "'rule:' without a rule name";
            return NULL;
        }
        e = node(ps, PX_RULE);
        e->name = match;
        return e;
    }
    if (!strcmp(kind, "http") || !strcmp(kind, "https")) {
        ps->err = apr_psprintf(ps->p,
                               "'%s': %s: checks (a remote policy "
                               "server) are not supported",
                               w, kind);
        return NULL;
    }
    if (!strcmp(kind, "role")) {
        if (!*match) {
            ps->err = "'role:' without a role name";
            return NULL;
        }
        e = node(ps, PX_ROLE);
    }
    else {
        e = node(ps, PX_GENERIC);
        e->literal = literal_of(ps->p, kind, &bad);
        if (bad) {
            ps->err = apr_psprintf(ps->p,
                                   "'%s': the left side is neither "
                                   "a credential name nor a literal "
                                   "(True, False, None, 'text', 42)",
                                   w);
            return NULL;
        }
        e->name = e->literal ? NULL : kind;
    }
    return compile_match(ps, e, match) ? e : NULL;
}

/* ---- the grammar: or_expr := and_expr {or and_expr};
 *      and_expr := unary {and unary}; unary := not unary | ( or_expr )
 *      | check ---- */

static const tok_t *peek(parse_t *ps)
{
    return &APR_ARRAY_IDX(ps->toks, ps->pos, tok_t);
}

static pl_policy_expr_t *parse_or(parse_t *ps);

static pl_policy_expr_t *parse_unary(parse_t *ps)
{
    const tok_t *t = peek(ps);
    pl_policy_expr_t *e, *kid;

    if (++ps->nest > MAX_NEST) {
        ps->err = "nested too deeply";
        return NULL;
    }
    ps->pos++;
    switch (t->type) {
    case TK_NOT:
        if ((kid = parse_unary(ps)) == NULL) {
            return NULL;
        }
        e = node(ps, PX_NOT);
        e->n = 1;
        /* kids is an array of pointers: sizeof(pl_policy_expr_t *) is
         * meant. NOLINTNEXTLINE(bugprone-sizeof-expression) */
        e->kids = apr_palloc(ps->p, sizeof(*e->kids));
        e->kids[0] = kid;
        break;
    case TK_LP:
        if ((e = parse_or(ps)) == NULL) {
            return NULL;
        }
        if (peek(ps)->type != TK_RP) {
            ps->err = "'(' without its ')'";
            return NULL;
        }
        ps->pos++;
        break;
    case TK_CHECK:
        e = compile_atom(ps, t->text);
        break;
    case TK_STRING:
        ps->err = apr_psprintf(ps->p, "quoted %s where a check should be",
                               t->text);
        return NULL;
    case TK_END:
        ps->err = "a check is missing at the end";
        return NULL;
    default:
        ps->err = apr_psprintf(ps->p, "'%s' where a check should be", t->text);
        return NULL;
    }
    ps->nest--;
    return e;
}

/* and_expr or or_expr: a run of sub-expressions joined by op */
static pl_policy_expr_t *parse_list(parse_t *ps, tk_e op, px_kind_e kind)
{
    apr_array_header_t *kids = NULL;
    pl_policy_expr_t *e, *first;

    first = op == TK_OR ? parse_list(ps, TK_AND, PX_AND) : parse_unary(ps);
    if (first == NULL) {
        return NULL;
    }
    while (peek(ps)->type == op) {
        ps->pos++;
        e = op == TK_OR ? parse_list(ps, TK_AND, PX_AND) : parse_unary(ps);
        if (e == NULL) {
            return NULL;
        }
        if (kids == NULL) {
            kids = apr_array_make(ps->p, 4, sizeof(pl_policy_expr_t *));
            APR_ARRAY_PUSH(kids, pl_policy_expr_t *) = first;
        }
        APR_ARRAY_PUSH(kids, pl_policy_expr_t *) = e;
    }
    if (kids == NULL) {
        return first;
    }
    e = node(ps, kind);
    e->n = kids->nelts;
    e->kids = (const pl_policy_expr_t **)kids->elts;
    return e;
}

static pl_policy_expr_t *parse_or(parse_t *ps)
{
    return parse_list(ps, TK_OR, PX_OR);
}

apr_status_t pl_policy_compile(apr_pool_t *p, const char *check,
                               const pl_policy_expr_t **pexpr,
                               const char **perr)
{
    parse_t ps = { 0 };
    pl_policy_expr_t *e;

    *pexpr = NULL;
    /* oslo: an empty rule always passes */
    if (check == NULL || *check == '\0') {
        ps.p = p;
        *pexpr = node(&ps, PX_TRUE);
        return APR_SUCCESS;
    }
    ps.p = p;
    ps.check = check;
    ps.toks = apr_array_make(p, 8, sizeof(tok_t));
    tokenize(&ps);
    if (peek(&ps)->type == TK_END) {
        *perr = "only blanks (\"\" allows everyone, \"!\" no one)";
        return APR_EINVAL;
    }
    e = parse_or(&ps);
    if (e && peek(&ps)->type != TK_END) {
        const tok_t *t = peek(&ps);

        ps.err = t->type == TK_RP
                     ? "')' without its '('"
                     : apr_psprintf(p,
                                    "'%s' follows a check without 'and' or "
                                    "'or' before it",
                                    t->text);
        e = NULL;
    }
    if (e == NULL) {
        *perr = apr_psprintf(p, "cannot parse \"%s\": %s", check, ps.err);
        return APR_EINVAL;
    }
    *pexpr = e;
    return APR_SUCCESS;
}

const pl_policy_expr_t *pl_policy_expr_or(apr_pool_t *p,
                                          const pl_policy_expr_t *a,
                                          const pl_policy_expr_t *b)
{
    pl_policy_expr_t *e = apr_pcalloc(p, sizeof(*e));

    e->kind = PX_OR;
    e->n = 2;
    /* two pointers: sizeof(pl_policy_expr_t *) is meant
     * NOLINTNEXTLINE(bugprone-sizeof-expression) */
    e->kids = apr_palloc(p, 2 * sizeof(*e->kids));
    e->kids[0] = a;
    e->kids[1] = b;
    return e;
}

const char *pl_policy_expr_rule_ref(const pl_policy_expr_t *e)
{
    return e && e->kind == PX_RULE ? e->name : NULL;
}

int pl_policy_expr_each_ref(const pl_policy_expr_t *e,
                            int (*fn)(void *ctx, const char *name), void *ctx)
{
    int i, rv;

    if (e->kind == PX_RULE) {
        return fn(ctx, e->name);
    }
    for (i = 0; i < e->n; i++) {
        if ((rv = pl_policy_expr_each_ref(e->kids[i], fn, ctx)) != 0) {
            return rv;
        }
    }
    return 0;
}

/* ---- evaluation ---- */

static const pl_policy_attr_t *find_attr(const pl_policy_attr_t *a, int n,
                                         const char *key)
{
    int i;

    for (i = 0; i < n; i++) {
        if (!strcmp(a[i].key, key)) {
            return &a[i];
        }
    }
    return NULL;
}

/* str() of a target value; NULL when the target has no such key (Python's
 * KeyError, which oslo turns into "no"). */
static const char *target_value(const pl_policy_eval_t *ev, const char *key)
{
    const pl_policy_attr_t *a = find_attr(ev->target, ev->ntarget, key);

    if (a == NULL || a->list) {
        return NULL;
    }
    return a->value ? a->value : "None";
}

/* Whether s equals the right side rendered with the target. */
static int match_equals(const pl_policy_eval_t *ev, const pl_policy_expr_t *e,
                        const char *s, int icase)
{
    int i;

    for (i = 0; i < e->npieces; i++) {
        const char *t = e->pieces[i].text;
        apr_size_t len = e->pieces[i].len;

        if (e->pieces[i].key) {
            t = target_value(ev, e->pieces[i].key);
            len = strlen(t);
        }
        if ((icase ? strncasecmp(s, t, len) : strncmp(s, t, len)) != 0) {
            return 0;
        }
        s += len;
    }
    return *s == '\0';
}

/* Python: every %(key)s must be in the target, else the check is False. */
static int target_has_keys(const pl_policy_eval_t *ev,
                           const pl_policy_expr_t *e)
{
    int i;

    for (i = 0; i < e->npieces; i++) {
        if (e->pieces[i].key && !target_value(ev, e->pieces[i].key)) {
            return 0;
        }
    }
    return 1;
}

static int match_any(const pl_policy_eval_t *ev, const pl_policy_expr_t *e,
                     const pl_policy_attr_t *a, int icase)
{
    int i;

    if (a->list == NULL) {
        return match_equals(ev, e, a->value ? a->value : "None", icase);
    }
    for (i = 0; i < a->list->nelts; i++) {
        if (match_equals(ev, e, APR_ARRAY_IDX(a->list, i, const char *),
                         icase)) {
            return 1;
        }
    }
    return 0;
}

static int eval_rule(pl_policy_eval_t *ev, const char *name)
{
    const char *canon = name;
    const pl_policy_expr_t *e = ev->resolve(ev->ctx, name, &canon);
    int i, ok;

    if (e == NULL) {
        return 0; /* no such rule: fail closed */
    }
    for (i = 0; i < ev->depth; i++) {
        if (!strcmp(ev->path[i], canon)) {
            ev->loop = canon;
            return 0;
        }
    }
    if (ev->depth == PL_POLICY_MAX_DEPTH) {
        ev->loop = canon;
        return 0;
    }
    ev->path[ev->depth++] = canon;
    ok = pl_policy_eval(ev, e);
    ev->depth--;
    return ok;
}

int pl_policy_eval(pl_policy_eval_t *ev, const pl_policy_expr_t *e)
{
    const pl_policy_attr_t *a;
    int i, ok;

    if (ev->loop) {
        return 0;
    }
    switch (e->kind) {
    case PX_TRUE:
        return 1;
    case PX_FALSE:
        return 0;
    case PX_NOT:
        ok = pl_policy_eval(ev, e->kids[0]);
        return ev->loop ? 0 : !ok;
    case PX_AND:
        for (i = 0; i < e->n; i++) {
            if (!pl_policy_eval(ev, e->kids[i])) {
                return 0;
            }
        }
        return !ev->loop;
    case PX_OR:
        for (i = 0; i < e->n; i++) {
            if (pl_policy_eval(ev, e->kids[i])) {
                return !ev->loop;
            }
        }
        return 0;
    case PX_RULE:
        return eval_rule(ev, e->name);
    case PX_ROLE:
        a = find_attr(ev->creds, ev->ncreds, "roles");
        return a && target_has_keys(ev, e) && match_any(ev, e, a, 1);
    case PX_GENERIC:
        if (!target_has_keys(ev, e)) {
            return 0;
        }
        if (e->literal) {
            return match_equals(ev, e, e->literal, 0);
        }
        /* a dotted path would index into a string or None: no match */
        a = strchr(e->name, '.') ? NULL
                                 : find_attr(ev->creds, ev->ncreds, e->name);
        return a && match_any(ev, e, a, 0);
    }
    return 0;
}
