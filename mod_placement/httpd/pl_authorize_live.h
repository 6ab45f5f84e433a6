/* Licensed under the Apache License, Version 2.0.
 *
 * pl_authorize_live.h: PlacementPolicyFile and PlacementPolicyDir re-read
 * while the server runs (pl_authorize_live.c), for pl_authorize.c: the
 * rules a location's files give a request, made at check_config.
 */
#ifndef PL_AUTHORIZE_LIVE_H
#define PL_AUTHORIZE_LIVE_H

#include <httpd.h>

#include "pl_config.h"
#include "pl_policy.h"

/**
 * check_config: read the policy file and directory of location c (once per
 * distinct pair) as its first live rules; check (its defaults and
 * overrides) is what a re-read set is checked for loops with. An error is
 * logged at crit level (file and line) and returned.
 */
apr_status_t pl_authorize_live_add(apr_pool_t *pconf, apr_pool_t *ptemp,
                                   server_rec *s, const pl_dir_conf_t *c,
                                   const pl_policy_t *check);

/**
 * The policy file and directory rules for request r in location c: the
 * same set for every call of one request, re-read first when this child
 * has not checked the files this second and they changed.
 */
apr_hash_t *pl_authorize_live_rules(request_rec *r, const pl_dir_conf_t *c);

#endif /* PL_AUTHORIZE_LIVE_H */
