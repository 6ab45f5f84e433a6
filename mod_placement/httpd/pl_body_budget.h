/* Licensed under the Apache License, Version 2.0.
 *
 * pl_body_budget.h: the memory the JSON bodies of one child may cost
 * together while they are parsed (pl_body_budget.c).
 */
#ifndef PL_BODY_BUDGET_H
#define PL_BODY_BUDGET_H

#include "pl_req.h"

/** The child's lock and condition (child_init). */
void pl_body_budget_child_init(apr_pool_t *pchild, server_rec *s);

/** Take price bytes of the child's budget for a body about to be parsed,
 *  until the request ends; a large body waits for others to end, at
 *  most the server's Timeout. Returns 0, or the 503 recorded (pl_err). */
int pl_body_budget_take(pl_req_t *req, apr_uint64_t price);

#endif /* PL_BODY_BUDGET_H */
