/* Licensed under the Apache License, Version 2.0.
 *
 * pl_qs.h: the query string grammars of placement 8.0.0 (resources=,
 * required=, root_required=, member_of=, in_tree=, same_subtree=, the
 * group suffixes of GET /allocation_candidates, and name= / associated=
 * of GET /traits), parsed exactly as upstream does (placement/util.py
 * normalize_*, lib.py RequestGroup / RequestWideParams, handlers/trait.py).
 *
 * Inputs are query parameter values already percent-decoded to UTF-8
 * (what webob hands placement). On a malformed value every parser returns
 * APR_EINVAL and sets *perr to the detail text placement puts in its 400
 * response, allocated from p. (webob prefixes that text with its own
 * explanation, "The server could not comply with the request since it is
 * either malformed or otherwise incorrect.\n\n "; adding it is the job of
 * the error renderer, not of these parsers.)
 *
 * Upstream is Python, so "whitespace" and "integer" mean what str.strip()
 * and int() accept: Unicode whitespace (U+0085, U+00A0, U+2000...) and
 * Unicode decimal digits ("\u0663" is 3), '_' between digits, a sign.
 * pl_py.h gives that behaviour to the rest of the module.
 *
 * Results are plain: apr_array_header_t of const char * (names, uuids) or
 * of apr_array_header_t * (sets), in the order the client gave them.
 * Where upstream builds a Python set, duplicates are dropped (the first
 * occurrence keeps its place); where it builds a list, they are kept.
 * Nothing is copied back into the input.
 */
#ifndef PL_QS_H
#define PL_QS_H

#include <apr_pools.h>
#include <apr_tables.h>
#include "pl_status.h"
#include "pl_py.h"

/* ------------------------------------------------------------------ */
/* Generic                                                             */
/* ------------------------------------------------------------------ */

/**
 * For a parameter that may appear at most once (root_required): count is
 * the number of times the parameter appears.
 * Returns APR_SUCCESS when count <= 1, else APR_EINVAL with
 * "Query parameter '<name>' may be specified only once." (upstream gives
 * that 400 the code placement.query.duplicate_key).
 */
apr_status_t pl_qs_once(apr_pool_t *p, const char *name, int count,
                        const char **perr);

/* ------------------------------------------------------------------ */
/* resources=VCPU:2,MEMORY_MB:1024                                     */
/* ------------------------------------------------------------------ */

/** One "CLASS:AMOUNT" item of a resources parameter. */
typedef struct pl_qs_resource_t {
    const char *name;   /**< as given: not stripped, not validated */
    apr_int64_t amount; /**< >= 1; values beyond int64 are clamped to
                              APR_INT64_MAX (no inventory can hold them) */
} pl_qs_resource_t;

/**
 * Parse a resources (or resourcesN) value into *pres, an array of
 * pl_qs_resource_t in the order given. A class given twice keeps its
 * first position and takes the last amount, as upstream's dict does (no
 * error). Class names are not checked here (upstream checks them against
 * the database later: "Invalid resource class in resources parameter").
 * Returns APR_SUCCESS, or APR_EINVAL with *perr one of:
 *   "Badly formed resources parameter. Expected resources query string
 *    parameter in form: ?resources=VCPU:2,MEMORY_MB:1024. Got: empty
 *    string." (value empty or only whitespace)
 *   "... Got: <item>." (an item without exactly one ':')
 *   "Requested resource <name> expected positive integer amount. Got:
 *    <amount>." (not an integer for Python's int())
 *   "Requested resource <name> requires amount >= 1. Got: <int>."
 */
apr_status_t pl_qs_resources(apr_pool_t *p, const char *value,
                             apr_array_header_t **pres, const char **perr);

/* ------------------------------------------------------------------ */
/* required=, requiredN=, root_required=                               */
/* ------------------------------------------------------------------ */

/**
 * Trait constraints of one request group (or of GET /resource_providers).
 * A provider qualifies when it has every trait of required, at least one
 * trait of each set in any_of, and none of forbidden.
 */
typedef struct pl_qs_traits_t {
    /** const char *: all of these (a list: duplicates kept) */
    apr_array_header_t *required;
    /** apr_array_header_t * of const char *: one "in:" set each (1.39+) */
    apr_array_header_t *any_of;
    /** const char *: none of these (a set), the '!' removed (1.22+) */
    apr_array_header_t *forbidden;
} pl_qs_traits_t;

/** An empty pl_qs_traits_t from p. */
pl_qs_traits_t *pl_qs_traits_make(apr_pool_t *p);

/**
 * Parse one value of a traits parameter and add it to t (upstream's
 * normalize_traits_qs_param). "A,B,!C": required A and B, forbidden C
 * (any number of leading '!' is removed: "!!C" forbids C); "in:A,B": one
 * any-of set. Items are stripped of whitespace; names are not checked.
 * allow_forbidden: 1.22+; allow_any: 1.39+ (for root_required: never).
 * Returns APR_SUCCESS, or APR_EINVAL with *perr (all start "Invalid query
 * string parameters: "):
 *   "The format 'in:HW_CPU_X86_VMX,CUSTOM_MAGIC' only supported since
 *    microversion 1.39. Got: <value>"                 ("in:" not allowed)
 *   "Expected 'required' parameter value of the form:
 *    in:HW_CPU_X86_VMX,CUSTOM_MAGIC. Got an empty trait in: <value>"
 *   "The format 'in:HW_CPU_X86_VMX,CUSTOM_MAGIC' does not support
 *    forbidden traits. Got: <value>"
 *   "Expected 'required' parameter value of the form:
 *    HW_CPU_X86_VMX,!CUSTOM_MAGIC. Got an empty trait in: <value>"
 *    (",CUSTOM_MAGIC" without the '!' when !allow_forbidden)
 *   "Expected 'required' parameter value of the form:
 *    HW_CPU_X86_VMX,CUSTOM_MAGIC. Got: <value>"  ('!' before 1.22)
 */
apr_status_t pl_qs_traits_value(apr_pool_t *p, const char *value,
                                int allow_forbidden, int allow_any,
                                pl_qs_traits_t *t, const char **perr);

/**
 * Parse every value of a repeated required (or requiredN) parameter, as
 * upstream's normalize_traits_qs_params at microversion mv: from 1.39
 * all values add up; before 1.39 only the LAST value counts and the
 * others are silently ignored. values: const char *, may be empty.
 * Returns APR_SUCCESS with *ptraits (never NULL), or APR_EINVAL with
 * *perr as pl_qs_traits_value().
 */
apr_status_t pl_qs_required(apr_pool_t *p, int mv,
                            const apr_array_header_t *values,
                            pl_qs_traits_t **ptraits, const char **perr);

/**
 * Parse root_required (GET /allocation_candidates, 1.35+): values are all
 * the values given. Forbidden traits are allowed, "in:" never is (not
 * even at 1.39), required holds no duplicates and any_of stays empty.
 * Returns APR_SUCCESS with *ptraits, or APR_EINVAL with *perr and the
 * code of placement's error in *pcode (NULL: the default code):
 *   "Query parameter 'root_required' may be specified only once."
 *   a pl_qs_traits_value() text, or
 *   "Conflicting required and forbidden traits found in root_required:
 *    <A, B>" (names sorted; upstream prints them in set order), whose
 *    code is PL_ERRC_QUERY_BAD_VALUE.
 */
apr_status_t pl_qs_root_required(apr_pool_t *p,
                                 const apr_array_header_t *values,
                                 pl_qs_traits_t **ptraits, const char **perr,
                                 const char **pcode);

/**
 * Append to out (const char *) one "required<suffix>: (A, B)" entry for
 * each required trait and each any_of set all of whose traits are also
 * forbidden (upstream's RequestGroup._check_forbidden; a required trait
 * given twice is listed twice, as upstream does). Names in a set are
 * sorted.
 */
void pl_qs_traits_conflicts(apr_pool_t *p, const pl_qs_traits_t *t,
                            const char *suffix, apr_array_header_t *out);

/**
 * The 400 text for the entries pl_qs_traits_conflicts() collected over
 * all groups, or NULL if there are none: "Conflicting required and
 * forbidden traits found in the following traits keys: <entries sorted,
 * joined by ", ">". Sorts conflicts in place.
 */
const char *pl_qs_traits_conflict_msg(apr_pool_t *p,
                                      apr_array_header_t *conflicts);

/* ------------------------------------------------------------------ */
/* member_of=, member_ofN=                                             */
/* ------------------------------------------------------------------ */

/**
 * Aggregate constraints: a provider qualifies when it is in at least one
 * aggregate of each set in any_of (AND of ORs) and in none of forbidden.
 * UUIDs are kept as the client wrote them (upstream compares them as
 * given), only checked with pl_uuid_is_like().
 */
typedef struct pl_qs_member_of_t {
    /** apr_array_header_t * of const char *: one set per positive value */
    apr_array_header_t *any_of;
    /** const char *: a set, from "!U" and "!in:U1,U2" values (1.32+) */
    apr_array_header_t *forbidden;
} pl_qs_member_of_t;

/**
 * Parse one member_of value (upstream's normalize_member_of_qs_param):
 * "U", "in:U1,U2", "!U", "!in:U1,U2". Exactly one of *prequired and
 * *pforbidden (const char *, duplicates dropped) is non-empty; the other
 * is an empty array. No whitespace is stripped.
 * Returns APR_SUCCESS, or APR_EINVAL with *perr:
 *   "Multiple values for 'member_of' must be prefixed with the 'in:' or
 *    '!in:' keyword using the valid microversion. Got: <value>"
 *   "Invalid query string parameters: Expected 'member_of' parameter to
 *    contain valid UUID(s). Got: <first bad item>"
 */
apr_status_t pl_qs_member_of_value(apr_pool_t *p, const char *value,
                                   apr_array_header_t **prequired,
                                   apr_array_header_t **pforbidden,
                                   const char **perr);

/**
 * Parse all values of member_of<suffix> at microversion mv (upstream's
 * normalize_member_of_qs_params). suffix: "" for the unsuffixed group.
 * Returns APR_SUCCESS with *pmo (never NULL), or APR_EINVAL with *perr:
 *   "Multiple member_of<suffix> parameters are not supported" (more than
 *    one value before 1.24), a pl_qs_member_of_value() text, or
 *   "Forbidden member_of<suffix> parameters are not supported in the
 *    specified microversion" ('!' before 1.32).
 * Values are checked one by one in order, each fully before the next.
 */
apr_status_t pl_qs_member_of(apr_pool_t *p, int mv, const char *suffix,
                             const apr_array_header_t *values,
                             pl_qs_member_of_t **pmo, const char **perr);

/* ------------------------------------------------------------------ */
/* in_tree=, in_treeN= (GET /allocation_candidates)                    */
/* ------------------------------------------------------------------ */

/**
 * Parse an in_tree value of GET /allocation_candidates (upstream's
 * normalize_in_tree_qs_params): the value stripped of whitespace must be
 * uuid-like; *puuid is that stripped value, not canonicalized (use
 * pl_uuid_normalize() for that). (GET /resource_providers checks in_tree
 * with its query schema instead, without stripping.)
 * Returns APR_SUCCESS, or APR_EINVAL with *perr "Invalid query string
 * parameters: Expected 'in_tree' parameter to be a format of uuid. Got:
 * <value as given>".
 */
apr_status_t pl_qs_in_tree(apr_pool_t *p, const char *value, const char **puuid,
                           const char **perr);

/* ------------------------------------------------------------------ */
/* same_subtree= and group keys (GET /allocation_candidates)           */
/* ------------------------------------------------------------------ */

/**
 * Parse all values of same_subtree (1.36+) into *psets: one array of
 * suffixes (const char *, stripped, duplicates dropped) per value.
 * Returns APR_SUCCESS, or APR_EINVAL with *perr "Empty string
 * (unsuffixed group) can not be specified in `same_subtree` " (sic, with
 * the trailing blank; code placement.query.bad_value).
 */
apr_status_t pl_qs_same_subtree(apr_pool_t *p, const apr_array_header_t *values,
                                apr_array_header_t **psets, const char **perr);

/** Which request-group parameter a query key names. */
typedef enum {
    PL_QS_GROUP_RESOURCES,
    PL_QS_GROUP_REQUIRED,
    PL_QS_GROUP_MEMBER_OF,
    PL_QS_GROUP_IN_TREE
} pl_qs_group_e;

/**
 * Split a query key of GET /allocation_candidates into its group
 * parameter and suffix: "resources", "required", "member_of" or
 * "in_tree", followed by nothing (the unsuffixed group, *psuffix = ""),
 * or by a suffix: before 1.33 [1-9][0-9]*, from 1.33 [a-zA-Z0-9_-]{1,64}.
 * *psuffix points into key.
 * Returns APR_SUCCESS, or APR_ENOENT if key is not a group key (upstream
 * ignores such keys here; its query schema rejects unknown ones first).
 */
apr_status_t pl_qs_group_key(int mv, const char *key, pl_qs_group_e *pwhich,
                             const char **psuffix);

/* ------------------------------------------------------------------ */
/* GET /traits: name= and associated=                                  */
/* ------------------------------------------------------------------ */

/** What a name= filter of GET /traits asks for. */
typedef enum {
    PL_QS_NAME_ANY,       /**< an operator upstream ignores: no filter */
    PL_QS_NAME_IN,        /**< names: the trait names to list */
    PL_QS_NAME_STARTSWITH /**< prefix: names starting with it */
} pl_qs_name_op_e;

typedef struct pl_qs_trait_name_t {
    pl_qs_name_op_e op;
    apr_array_header_t *names; /**< PL_QS_NAME_IN: const char *, as given
                                     (not stripped; may hold "") */
    const char *prefix;        /**< PL_QS_NAME_STARTSWITH, may be "" */
} pl_qs_trait_name_t;

/**
 * Parse name=in:A,B or name=startswith:P. Any other text before the first
 * ':' is accepted and means no filter (as upstream).
 * Returns APR_SUCCESS with *pf, or APR_EINVAL with *perr 'Badly formatted
 * name parameter. Expected name query string parameter in form:
 * ?name=[in|startswith]:[name1,name2|prefix]. Got: "<value>"' when the
 * value has no ':'.
 */
apr_status_t pl_qs_trait_name(apr_pool_t *p, const char *value,
                              pl_qs_trait_name_t **pf, const char **perr);

/**
 * Parse associated=true|false (any case).
 * Returns APR_SUCCESS with *passociated 1 or 0, or APR_EINVAL with *perr
 * 'The query parameter "associated" only accepts "true" or "false"'.
 */
apr_status_t pl_qs_associated(apr_pool_t *p, const char *value,
                              int *passociated, const char **perr);

#endif /* PL_QS_H */
