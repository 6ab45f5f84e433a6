/* Licensed under the Apache License, Version 2.0.
 *
 * pl_policy.h: oslo.policy for mod_placement, without httpd. Check strings
 * are compiled once at configuration time (pl_policy_check.c), the rule
 * defaults of placement 8.0.0 and 9.0.0 are data (pl_policy_rules.c), a
 * request is decided with oslo.policy 4.0.0's layering of policy file,
 * defaults and deprecated rules (pl_policy_enforce.c), and policy files
 * are read with libyaml (pl_policy_file.c). The httpd side is httpd/pl_authorize.c.
 */
#ifndef PL_POLICY_H
#define PL_POLICY_H

#include <apr_pools.h>
#include <apr_tables.h>
#include <apr_hash.h>

/* ---- check strings (pl_policy_check.c) ---- */

/** A compiled check string: a tree of and/or/not and checks. */
typedef struct pl_policy_expr_t pl_policy_expr_t;

/**
 * One attribute of the caller (credentials) or of the target. value NULL
 * is Python's None (it renders "None"); a non-NULL list makes the
 * attribute a list of strings (roles), which a check matches when one
 * element does.
 */
typedef struct pl_policy_attr_t {
    const char *key;
    const char *value;
    const apr_array_header_t *list; /* const char * */
} pl_policy_attr_t;

/**
 * Compile an oslo.policy check string ("role:admin and
 * project_id:%(project_id)s", "rule:x or not (@)", "" for always).
 * @return APR_SUCCESS with *pexpr, or APR_EINVAL with *perr saying what
 *         is wrong (both allocated from p). Whatever oslo.policy would
 *         turn into a silent "never" (a word without a colon, a quoted
 *         word, unbalanced parentheses) or cannot evaluate (http: checks,
 *         % formats other than %(name)s) is an error here.
 */
apr_status_t pl_policy_compile(apr_pool_t *p, const char *check,
                               const pl_policy_expr_t **pexpr,
                               const char **perr);

/** a OR b, as oslo.policy joins a new default and its deprecated rule. */
const pl_policy_expr_t *pl_policy_expr_or(apr_pool_t *p,
                                          const pl_policy_expr_t *a,
                                          const pl_policy_expr_t *b);

/** The rule name when e is exactly "rule:NAME", else NULL. */
const char *pl_policy_expr_rule_ref(const pl_policy_expr_t *e);

/** Call fn for each rule: reference in e (in order); stops at non-zero
 *  and returns it. */
int pl_policy_expr_each_ref(const pl_policy_expr_t *e,
                            int (*fn)(void *ctx, const char *name), void *ctx);

/** How a rule: reference is looked up: the expression (NULL: no such
 *  rule) and the name it was found under (*pcanon, for loop detection). */
typedef const pl_policy_expr_t *(*pl_policy_resolve_fn)(void *ctx,
                                                        const char *name,
                                                        const char **pcanon);

#define PL_POLICY_MAX_DEPTH 32

/** The state of one evaluation. */
typedef struct pl_policy_eval_t {
    const pl_policy_attr_t *creds;
    int ncreds;
    const pl_policy_attr_t *target;
    int ntarget;
    pl_policy_resolve_fn resolve;
    void *ctx;
    /* rules being evaluated, outermost first */
    const char *path[PL_POLICY_MAX_DEPTH];
    int depth;
    /* set when a rule: reference came back to a rule on the path (or the
     * chain got too long): the evaluation stops and denies */
    const char *loop;
} pl_policy_eval_t;

/** Evaluate e; 1 allowed, 0 not (also when ev->loop got set). */
int pl_policy_eval(pl_policy_eval_t *ev, const pl_policy_expr_t *e);

/* ---- the rule defaults (pl_policy_rules.c) ---- */

/* Scope types a rule accepts (oslo's scope_types), as bits. */
#define PL_POLICY_SCOPE_SYSTEM 0x1
#define PL_POLICY_SCOPE_DOMAIN 0x2
#define PL_POLICY_SCOPE_PROJECT 0x4

/* Which release's defaults; the values of pl_config.h's
 * PL_POLICY_DEFAULTS_ZED, _2023_1 and _2026_1. 2026.1 has 2023.1's rules;
 * it differs in the enforcement defaults (scope and new defaults on). */
#define PL_POLICY_SET_ZED 0
#define PL_POLICY_SET_2023_1 1
#define PL_POLICY_SET_2026_1 2
#define PL_POLICY_NSETS 3

/** One registered rule (oslo's RuleDefault). */
typedef struct pl_policy_default_t {
    const char *name;
    const char *check;    /* the (new) default */
    unsigned int scopes;  /* PL_POLICY_SCOPE_*; 0: none declared */
    const char *dep_name; /* its DeprecatedRule, or NULL */
    const char *dep_check;
} pl_policy_default_t;

/** The defaults of a release (PL_POLICY_SET_*), ending with a NULL name;
 *  NULL for an unknown set. */
const pl_policy_default_t *pl_policy_defaults(int set);

/** Whether name is a rule of any release's defaults. */
int pl_policy_is_known(const char *name);

/* ---- deciding (pl_policy_enforce.c) ---- */

/** A release's defaults, compiled. */
typedef struct pl_policy_builtin_t pl_policy_builtin_t;

/**
 * Compile the defaults of a release.
 * @return APR_SUCCESS with *pb, APR_EINVAL with *perr (a broken table).
 */
apr_status_t pl_policy_builtin_compile(apr_pool_t *p, int set,
                                       const pl_policy_builtin_t **pb,
                                       const char **perr);

/** The configured policy of one location: where a rule is looked up. */
typedef struct pl_policy_t {
    const pl_policy_builtin_t *builtin; /* NULL: only the two tables */
    apr_hash_t *overrides; /* PlacementPolicy: name -> expr, or NULL */
    apr_hash_t *file;      /* the policy file: name -> expr, or NULL */
    int enforce_new_defaults;
    int enforce_scope;
} pl_policy_t;

typedef enum {
    PL_POLICY_ALLOW = 0,
    PL_POLICY_DENY,      /* the check said no (or no such rule) */
    PL_POLICY_BAD_SCOPE, /* enforce_scope: the token's scope */
    PL_POLICY_LOOP       /* rule: references came back round */
} pl_policy_result_e;

/**
 * Decide rule for a caller and a target as oslo.policy's Enforcer does.
 * *ploop (may be NULL) names the rule where a loop was found.
 */
pl_policy_result_e pl_policy_enforce(const pl_policy_t *pol, const char *rule,
                                     const pl_policy_attr_t *creds, int ncreds,
                                     const pl_policy_attr_t *target,
                                     int ntarget, const char **ploop);

/**
 * Look for rules whose rule: references come back to them, over every rule
 * pol knows. Returns NULL, or the loop as text ("a -> b -> a").
 */
const char *pl_policy_find_loop(apr_pool_t *p, const pl_policy_t *pol);

/* ---- policy files (pl_policy_file.c) ---- */

/**
 * Read an oslo.policy file (YAML, or JSON as flow YAML): a mapping of rule
 * name -> check string. Each check is compiled, and loops among the
 * file's own rules are refused.
 * @return APR_SUCCESS with *prules (name -> check string) and *pexprs
 *         (name -> compiled expr), or an error status with *perr naming
 *         the file and line.
 */
apr_status_t pl_policy_file_read(apr_pool_t *p, const char *path,
                                 apr_table_t **prules, apr_hash_t **pexprs,
                                 const char **perr);

/**
 * Read an oslo.policy file: a mapping of rule name -> check string.
 * Returns the rules (allocated from p), or NULL with *perr set to a
 * message naming the file and line.
 */
apr_table_t *pl_policy_file_load(apr_pool_t *p, const char *path,
                                 const char **perr);

/* ---- the policy file and directory together (pl_policy_sources.c) ---- */

/**
 * The policy files of a directory as oslo.policy's policy_dirs reads them:
 * full paths of its *.yaml, *.yml and *.json files not starting with ".",
 * sorted by name. A directory that does not exist has none (APR_SUCCESS);
 * one that cannot be read is an error with *perr.
 */
apr_status_t pl_policy_dir_files(apr_pool_t *p, const char *dir,
                                 apr_array_header_t **pfiles,
                                 const char **perr);

/**
 * A fingerprint of the policy file and directory (either may be NULL):
 * path, inode, size and mtime of the file, the directory and each of its
 * policy files. Equal strings: nothing to re-read. Costs one stat per
 * file and a read of the directory.
 */
const char *pl_policy_sources_stamp(apr_pool_t *p, const char *file,
                                    const char *dir);

/**
 * Read the policy file, then the directory's files in order, into one
 * hash name -> compiled expr (a later file's rule replacing an earlier
 * one's). Errors as pl_policy_file_read (the file and line in *perr).
 */
apr_status_t pl_policy_sources_read(apr_pool_t *p, const char *file,
                                    const char *dir, apr_hash_t **pexprs,
                                    const char **perr);

#endif /* PL_POLICY_H */
