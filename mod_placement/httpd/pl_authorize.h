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

#endif /* PL_AUTHORIZE_H */
