/* Licensed under the Apache License, Version 2.0.
 *
 * pl_authorize.h: the policy decision for a request (pl_authorize.c),
 * the glue between the caller's identity and the policy engine of
 * identity/ (pl_policy.h).
 */
#ifndef PL_AUTHORIZE_H
#define PL_AUTHORIZE_H

#include "pl_req.h"

/**
 * Enforce policy rule (e.g. "placement:resource_providers:list") for the
 * caller; target_project may be NULL (the caller's own). Returns 0 when
 * allowed, else records the 403 and returns it.
 */
int pl_authorize(pl_req_t *req, const char *rule, const char *target_project);
/**
 * check_config (so that httpd -t runs it too): compile the rule defaults,
 * read every location's policy file and directory, and refuse
 * configurations whose rules refer to each other in a loop. Returns OK or
 * an HTTP error (the reason logged). Under httpd -t it also gives the
 * warnings pl_authorize_post_config gives otherwise.
 */
int pl_authorize_check_config(apr_pool_t *pconf, apr_pool_t *ptemp,
                              server_rec *s);
/**
 * post_config: the configuration's warnings (PL01508), in the error log.
 * Returns OK.
 */
int pl_authorize_post_config(apr_pool_t *pconf, apr_pool_t *ptemp,
                             server_rec *s);

/* ---- live policy files (pl_authorize_live.c) ---- */

struct pl_policy_t;
typedef struct pl_policy_snap_t pl_policy_snap_t;

/**
 * check_config: read the policy file and directory of location c (once per
 * distinct pair) as its first live rules; check (its defaults and
 * overrides) is what a re-read set is checked for loops with. An error is
 * logged at crit level (file and line) and returned.
 */
apr_status_t pl_authorize_live_add(apr_pool_t *pconf, apr_pool_t *ptemp,
                                   server_rec *s, const pl_dir_conf_t *c,
                                   const struct pl_policy_t *check);

/**
 * The policy file and directory rules for request r in location c: the
 * same set for every call of one request, re-read first when this child
 * has not checked the files this second and they changed.
 */
apr_hash_t *pl_authorize_live_rules(request_rec *r, const pl_dir_conf_t *c);

#endif /* PL_AUTHORIZE_H */
