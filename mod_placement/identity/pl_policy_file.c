/* Licensed under the Apache License, Version 2.0.
 *
 * pl_policy_file.c: oslo.policy files, read once at configuration time
 * with libyaml. The file is one mapping of rule name -> check string, as
 * oslopolicy-sample-generator writes it (comments, quoted keys); JSON
 * files are read the same way, JSON being flow YAML.
 *
 * oslo.policy reads the file with PyYAML's safe_load, so a plain scalar
 * means what PyYAML makes of it: "yes", "on", "12", "~", "2023-01-01" are
 * not strings. oslo would take a null check as "allow everyone", crash on
 * a number and silently keep the last of duplicate keys; here anything
 * but a string check, a duplicate, a check that does not compile, or
 * rules of the file that refer to each other in a loop is a startup
 * error naming the file and line.
 */
#include <string.h>
#include <regex.h>
#include <yaml.h>

#include <apr_strings.h>

#include "pl_policy.h"
#include "pl_file.h"

#define MAX_FILE_SIZE ((apr_size_t)16 * 1024 * 1024)

typedef struct {
    const char *value; /* the string, or NULL when not a string */
    const char *type;  /* what it is instead */
    int line;
} scalar_t;

#define NIMPLICIT 7

typedef struct {
    apr_pool_t *p;
    const char *path;
    yaml_parser_t parser;
    apr_hash_t *anchors;         /* anchor -> scalar_t */
    regex_t implicit[NIMPLICIT]; /* the patterns below, compiled */
    const char *err;
} reader_t;

/* PyYAML's implicit resolvers (resolver.py) as POSIX regular
 * expressions: which plain scalars are not strings. */
static const struct {
    const char *re;
    const char *type;
} implicit[NIMPLICIT] = {
    { "^(yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON"
      "|off|Off|OFF)$",
      "a boolean" },
    { "^([-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(0|[1-9][0-9_]*)"
      "|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(:[0-5]?[0-9])+)$",
      "a number" },
    { "^([-+]?[0-9][0-9_]*\\.[0-9_]*([eE][-+][0-9]+)?"
      "|\\.[0-9][0-9_]*([eE][-+][0-9]+)?"
      "|[-+]?[0-9][0-9_]*(:[0-5]?[0-9])+\\.[0-9_]*"
      "|[-+]?\\.(inf|Inf|INF)|\\.(nan|NaN|NAN))$",
      "a number" },
    { "^(~|null|Null|NULL|)$", "null" },
    { "^([0-9]{4}-[0-9]{2}-[0-9]{2}"
      "|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}([Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}"
      ":[0-9]{2}(\\.[0-9]*)?([ \t]*(Z|[-+][0-9]{1,2}(:[0-9]{2})?))?)$",
      "a date" },
    { "^<<$", "a merge key" },
    { "^=$", "a value key" },
};

static int compile_implicit(reader_t *rd)
{
    int i;

    for (i = 0; i < NIMPLICIT; i++) {
        if (regcomp(&rd->implicit[i], implicit[i].re,
                    REG_EXTENDED | REG_NOSUB)) {
            while (--i >= 0) {
                regfree(&rd->implicit[i]);
            }
            return 0;
        }
    }
    return 1;
}

static void free_implicit(reader_t *rd)
{
    int i;

    for (i = 0; i < NIMPLICIT; i++) {
        regfree(&rd->implicit[i]);
    }
}

/* The type PyYAML gives a plain scalar, or NULL for a string. */
static const char *plain_type(reader_t *rd, const char *s)
{
    int i;

    for (i = 0; i < NIMPLICIT; i++) {
        if (regexec(&rd->implicit[i], s, 0, NULL, 0) == 0) {
            return implicit[i].type;
        }
    }
    return NULL;
}

/* Record msg as the error of line; returns 0 for "stop". */
static int fail(reader_t *rd, int line, const char *msg)
{
    rd->err = apr_psprintf(rd->p, "%s:%d: %s", rd->path, line, msg);
    return 0;
}

static int next_event(reader_t *rd, yaml_event_t *ev)
{
    yaml_parser_t *ps = &rd->parser;

    if (yaml_parser_parse(ps, ev)) {
        return 1;
    }
    if (ps->error == YAML_READER_ERROR) {
        rd->err = apr_psprintf(rd->p,
                               "%s: not readable as YAML: %s "
                               "(byte %lu)",
                               rd->path, ps->problem ? ps->problem : "?",
                               (unsigned long)ps->problem_offset);
    }
    else {
        rd->err = apr_psprintf(
            rd->p, "%s:%lu:%lu: YAML syntax error: %s%s%s", rd->path,
            (unsigned long)ps->problem_mark.line + 1,
            (unsigned long)ps->problem_mark.column + 1,
            ps->problem ? ps->problem : "?", ps->context ? " " : "",
            ps->context ? ps->context : "");
    }
    return 0;
}

/* Consume the rest of a mapping or list whose start was just read. */
static int skip_collection(reader_t *rd)
{
    yaml_event_t ev;
    int depth = 1;

    while (depth > 0) {
        if (!next_event(rd, &ev)) {
            return 0;
        }
        if (ev.type == YAML_MAPPING_START_EVENT ||
            ev.type == YAML_SEQUENCE_START_EVENT) {
            depth++;
        }
        else if (ev.type == YAML_MAPPING_END_EVENT ||
                 ev.type == YAML_SEQUENCE_END_EVENT) {
            depth--;
        }
        yaml_event_delete(&ev);
    }
    return 1;
}

/* A node that should be a string: its text, or what it is instead (a
 * mapping or list is read past, so that YAML errors after it still come
 * first). Returns 0 on a YAML error. */
static int node_scalar(reader_t *rd, const yaml_event_t *ev, scalar_t *out)
{
    const char *tag;
    scalar_t *saved;

    memset(out, 0, sizeof(*out));
    out->line = (int)ev->start_mark.line + 1;
    switch (ev->type) {
    case YAML_SCALAR_EVENT:
        tag = (const char *)ev->data.scalar.tag;
        out->value = apr_pstrmemdup(rd->p, (const char *)ev->data.scalar.value,
                                    ev->data.scalar.length);
        if (strlen(out->value) != ev->data.scalar.length) {
            out->type = "a string with a NUL character";
        }
        else if (ev->data.scalar.plain_implicit) {
            /* untagged plain, or the "!" tag (PyYAML resolves both) */
            out->type = plain_type(rd, out->value);
        }
        else if (tag && strcmp(tag, YAML_STR_TAG) != 0) {
            out->type = apr_pstrcat(rd->p, "tagged ", tag, NULL);
        }
        if (out->type) {
            out->value = NULL;
        }
        if (ev->data.scalar.anchor) {
            saved = apr_pmemdup(rd->p, out, sizeof(*out));
            apr_hash_set(
                rd->anchors,
                apr_pstrdup(rd->p, (const char *)ev->data.scalar.anchor),
                APR_HASH_KEY_STRING, saved);
        }
        return 1;
    case YAML_ALIAS_EVENT:
        saved = apr_hash_get(rd->anchors, (const char *)ev->data.alias.anchor,
                             APR_HASH_KEY_STRING);
        out->type = apr_psprintf(rd->p,
                                 "*%s, which is no string's "
                                 "anchor",
                                 (const char *)ev->data.alias.anchor);
        if (saved) {
            out->value = saved->value;
            out->type = saved->type;
        }
        return 1;
    case YAML_MAPPING_START_EVENT:
        out->type = "a mapping";
        return skip_collection(rd);
    case YAML_SEQUENCE_START_EVENT:
        out->type = "a list";
        return skip_collection(rd);
    default:
        out->type = "not a value";
        return 1;
    }
}

/* Read the next node into *out; 0 on a YAML error. */
static int read_node(reader_t *rd, scalar_t *out, int *pend)
{
    yaml_event_t ev;
    int ok;

    if (!next_event(rd, &ev)) {
        return 0;
    }
    *pend = ev.type == YAML_MAPPING_END_EVENT;
    ok = *pend || node_scalar(rd, &ev, out);
    yaml_event_delete(&ev);
    return ok;
}

/* Read the pairs of the top mapping, after its MAPPING-START. */
static int read_pairs(reader_t *rd, apr_array_header_t *pairs)
{
    scalar_t *kv;
    int end = 0;

    for (;;) {
        kv = apr_array_push(pairs);
        if (!read_node(rd, &kv[0], &end)) {
            return 0;
        }
        if (end) {
            pairs->nelts--;
            return 1;
        }
        kv = apr_array_push(pairs);
        if (!read_node(rd, kv, &end)) {
            return 0;
        }
    }
}

/* The rules, once the file is known to be well-formed YAML. */
static int check_pairs(reader_t *rd, const apr_array_header_t *pairs,
                       apr_table_t *rules, apr_hash_t *exprs, apr_hash_t *lines)
{
    const scalar_t *kv = (const scalar_t *)pairs->elts;
    const pl_policy_expr_t *e;
    const char *err;
    int i, *first;

    for (i = 0; i + 1 < pairs->nelts; i += 2) {
        const scalar_t *key = &kv[i], *val = &kv[i + 1];

        if (key->value == NULL) {
            return fail(rd, key->line,
                        apr_pstrcat(rd->p,
                                    "a rule name must be a string, "
                                    "not ",
                                    key->type, NULL));
        }
        if (val->value == NULL) {
            return fail(rd, val->line,
                        apr_psprintf(rd->p,
                                     "the check of rule \"%s\" must "
                                     "be a string, not %s (\"\" allows "
                                     "everyone)",
                                     key->value, val->type));
        }
        if ((first = apr_hash_get(lines, key->value, APR_HASH_KEY_STRING))) {
            return fail(rd, key->line,
                        apr_psprintf(rd->p,
                                     "rule \"%s\" is given twice "
                                     "(first at line %d)",
                                     key->value, *first));
        }
        if (pl_policy_compile(rd->p, val->value, &e, &err)) {
            return fail(
                rd, val->line,
                apr_psprintf(rd->p, "rule \"%s\": %s", key->value, err));
        }
        apr_hash_set(lines, key->value, APR_HASH_KEY_STRING, &key->line);
        apr_table_setn(rules, key->value, val->value);
        apr_hash_set(exprs, key->value, APR_HASH_KEY_STRING, e);
    }
    return 1;
}

/* The stream: one document holding one mapping, or nothing at all (an
 * empty file has no rules). */
static int read_stream(reader_t *rd, apr_table_t *rules, apr_hash_t *exprs,
                       apr_hash_t *lines)
{
    static const yaml_event_type_t head[] = { YAML_STREAM_START_EVENT,
                                              YAML_DOCUMENT_START_EVENT };
    static const yaml_event_type_t tail[] = { YAML_DOCUMENT_END_EVENT,
                                              YAML_STREAM_END_EVENT };
    apr_array_header_t *pairs = apr_array_make(rd->p, 64, sizeof(scalar_t));
    yaml_event_t ev;
    yaml_event_type_t type;
    scalar_t root;
    int i, ok, line;

    for (i = 0; i < 2; i++) {
        if (!next_event(rd, &ev)) {
            return 0;
        }
        type = ev.type;
        yaml_event_delete(&ev);
        if (type != head[i]) {
            return i == 1 && type == YAML_STREAM_END_EVENT;
        }
    }
    if (!next_event(rd, &ev)) {
        return 0;
    }
    memset(&root, 0, sizeof(root));
    if (ev.type == YAML_MAPPING_START_EVENT) {
        ok = read_pairs(rd, pairs);
    }
    else {
        ok = node_scalar(rd, &ev, &root);
        if (ok && (root.type == NULL || strcmp(root.type, "null") != 0)) {
            root.type = root.type ? root.type : "a string";
        }
        else {
            root.type = NULL; /* null: an empty policy */
        }
    }
    yaml_event_delete(&ev);
    for (i = 0; ok && i < 2; i++) {
        if (!next_event(rd, &ev)) {
            return 0;
        }
        type = ev.type;
        line = (int)ev.start_mark.line + 1;
        yaml_event_delete(&ev);
        if (type != tail[i]) {
            return fail(rd, line,
                        "a second YAML document (a policy file "
                        "has one)");
        }
    }
    if (ok && root.type) {
        return fail(rd, root.line,
                    apr_pstrcat(rd->p,
                                "the policy must be a mapping of "
                                "rule names to check strings, not ",
                                root.type, NULL));
    }
    return ok && check_pairs(rd, pairs, rules, exprs, lines);
}

apr_status_t pl_policy_file_read(apr_pool_t *p, const char *path,
                                 apr_table_t **prules, apr_hash_t **pexprs,
                                 const char **perr)
{
    reader_t rd;
    apr_table_t *rules = apr_table_make(p, 40);
    apr_hash_t *exprs = apr_hash_make(p);
    apr_hash_t *lines = apr_hash_make(p);
    pl_policy_t alone;
    const char *loop;
    char *data;
    apr_size_t len;
    apr_status_t rv;
    int ok, *line;

    if ((rv = pl_file_read(p, path, MAX_FILE_SIZE, &data, &len, perr)) !=
        APR_SUCCESS) {
        return rv;
    }
    memset(&rd, 0, sizeof(rd));
    rd.p = p;
    rd.path = path;
    rd.anchors = apr_hash_make(p);
    if (!compile_implicit(&rd)) {
        *perr = apr_psprintf(p, "%s: cannot compile the YAML types", path);
        return APR_EGENERAL;
    }
    if (!yaml_parser_initialize(&rd.parser)) {
        free_implicit(&rd);
        *perr = apr_psprintf(p, "%s: cannot start the YAML parser", path);
        return APR_ENOMEM;
    }
    yaml_parser_set_input_string(&rd.parser, (const unsigned char *)data, len);
    ok = read_stream(&rd, rules, exprs, lines);
    yaml_parser_delete(&rd.parser);
    free_implicit(&rd);
    if (!ok) {
        *perr = rd.err ? rd.err
                       : apr_psprintf(p, "%s: not a policy file", path);
        return APR_EINVAL;
    }
    /* loops among the file's own rules, whichever defaults apply */
    memset(&alone, 0, sizeof(alone));
    alone.file = exprs;
    if ((loop = pl_policy_find_loop(p, &alone)) != NULL) {
        const char *name = apr_pstrmemdup(p, loop, strcspn(loop, " "));

        line = apr_hash_get(lines, name, APR_HASH_KEY_STRING);
        *perr = apr_psprintf(p,
                             "%s:%d: rules refer to each other in a "
                             "loop: %s",
                             path, line ? *line : 0, loop);
        return APR_EINVAL;
    }
    *prules = rules;
    *pexprs = exprs;
    return APR_SUCCESS;
}

apr_table_t *pl_policy_file_load(apr_pool_t *p, const char *path,
                                 const char **perr)
{
    apr_table_t *rules;
    apr_hash_t *exprs;

    if (pl_policy_file_read(p, path, &rules, &exprs, perr) != APR_SUCCESS) {
        return NULL;
    }
    return rules;
}
